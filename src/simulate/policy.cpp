// The admission policies and their registry (policy.hpp, docs/model.md §23.4).
#include "simulate/policy.hpp"

#include <algorithm>
#include <map>
#include <mutex>

#include "simulate/simulate.hpp"

namespace llmecon {
namespace {

/// vLLM: blocks for the next chunk only; when a decode runs out, the newest request is preempted
/// (the scheduler's own rule). Every hook's default.
class OnDemand final : public AdmissionPolicy {};

/// TensorRT-LLM's GUARANTEED_NO_EVICT: blocks for the whole output up front, so nothing is evicted.
class Reserve final : public AdmissionPolicy {
 public:
  [[nodiscard]] int hold(const RequestView& q, int /*chunk*/) const override { return q.prompt + q.osl - q.generated; }
};

/// SGLang's estimate: a new request is charged its prompt left and its output (clipped), each
/// running request its remaining output (clipped) times a ratio that starts at `init`, falls by
/// (init - init x min_factor) / decay_steps per decode iteration, returns to `init` when the
/// replica idles, and after a retraction jumps to (tokens decoded + retract_steps x requests) /
/// (tokens asked), at most 1.
class TokenRatioPolicy final : public AdmissionPolicy {
 public:
  explicit TokenRatioPolicy(const TokenRatio& t) : t_(t), ratio_(t.init) {}

  bool begin(ReplicaView& rep) override {
    if (rep.running() == 0) ratio_ = t_.init;  // SGLang resets it when idle
    return retract_for_decodes(rep);
  }
  void before_admitting(ReplicaView& rep) override {
    // The tokens the running requests are expected to need beyond their blocks: the prompt left,
    // and the output at the replica's ratio.
    double sum = 0;
    for (std::size_t i = 0; i < rep.running(); ++i) {
      const RequestView q = rep.request(i);
      const double held = static_cast<double>(q.blocks) * rep.block_tokens() + q.shared;
      sum += std::max(0.0, q.prompt - held) + ratio_ * std::min<double>(q.osl - q.generated, t_.clip);
    }
    promised_ = sum;
  }
  bool admits(const RequestView& q, int /*chunk*/, ReplicaView& rep) override {
    // The prompt left and the whole (clipped) output must fit in the free and evictable KV, less
    // what the running requests are expected to need.
    return q.prompt - q.done + output(q) < static_cast<double>(rep.available_blocks() * rep.block_tokens()) - promised_;
  }
  void admitted(const RequestView& q, int chunk) override { promised_ += q.prompt - q.done - chunk + output(q); }
  void formed(bool decoded, bool preempted) override {
    if (!decoded || preempted) return;
    const double floor = t_.init * t_.min_factor;
    ratio_ = std::max(floor, ratio_ - (t_.init - floor) / t_.decay_steps);
  }

 private:
  [[nodiscard]] double output(const RequestView& q) const { return std::min<double>(q.osl - q.generated, t_.clip); }

  // SGLang's retract_decode: while the decodes' next tokens do not fit, the request with the
  // fewest output tokens (ties: the longest prompt) goes back to the queue, one always kept.
  bool retract_for_decodes(ReplicaView& rep) {
    const int block = rep.block_tokens();
    auto short_by = [&]() {
      long need = 0;
      for (std::size_t i = 0; i < rep.running(); ++i) {
        const RequestView q = rep.request(i);
        if (!q.decoding()) continue;
        const int tokens = std::max(0, q.done + 1 - q.shared);
        need += std::max(0, (tokens + block - 1) / block - q.blocks);
      }
      return need - rep.available_blocks();
    };
    bool retracted = false;
    while (short_by() > 0) {
      std::size_t victim = 0;
      int decoding = 0;
      for (std::size_t i = 0; i < rep.running(); ++i) {
        const RequestView q = rep.request(i);
        if (!q.decoding()) continue;
        ++decoding;
        if (decoding == 1) {
          victim = i;
          continue;
        }
        const RequestView v = rep.request(victim);
        if (q.generated < v.generated || (q.generated == v.generated && q.isl > v.isl)) victim = i;
      }
      if (decoding <= 1) break;
      rep.retract(victim);
      retracted = true;
    }
    if (retracted) {
      double decoded = 0, asked = 0;
      for (std::size_t i = 0; i < rep.running(); ++i) {
        const RequestView q = rep.request(i);
        decoded += q.generated;
        asked += q.osl;
      }
      const double n = static_cast<double>(rep.running());
      ratio_ = asked > 0 ? std::min(1.0, (decoded + t_.retract_steps * n) / asked) : ratio_;
    }
    return retracted;
  }

  TokenRatio t_;
  double ratio_;         // the running requests' output estimate
  double promised_ = 0;  // tokens the running requests are expected to need
};

// The policies in registration order, the built-in ones first.
struct Registry {
  Registry() {
    policies.emplace_back("on-demand", [](const Scheduler&) { return std::make_unique<OnDemand>(); });
    policies.emplace_back("reserve", [](const Scheduler&) { return std::make_unique<Reserve>(); });
    policies.emplace_back("token-ratio",
                          [](const Scheduler& s) { return std::make_unique<TokenRatioPolicy>(s.token_ratio); });
  }
  std::mutex mu;
  std::vector<std::pair<std::string, AdmissionFactory>> policies;
};

Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

void register_admission(const std::string& name, AdmissionFactory make) {
  Registry& r = registry();
  const std::lock_guard<std::mutex> lock(r.mu);
  for (auto& [n, f] : r.policies) {
    if (n == name) {
      f = std::move(make);
      return;
    }
  }
  r.policies.emplace_back(name, std::move(make));
}

std::unique_ptr<AdmissionPolicy> make_admission(std::string_view name, const Scheduler& s) {
  Registry& r = registry();
  AdmissionFactory make;
  {
    const std::lock_guard<std::mutex> lock(r.mu);
    for (const auto& [n, f] : r.policies) {
      if (n == name) make = f;
    }
  }
  return make ? make(s) : nullptr;
}

std::vector<std::string> admission_names() {
  Registry& r = registry();
  const std::lock_guard<std::mutex> lock(r.mu);
  std::vector<std::string> out;
  for (const auto& p : r.policies) out.push_back(p.first);
  return out;
}

}  // namespace llmecon
