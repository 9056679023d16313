// The built-in scheduling policies and their registries (policy.hpp, docs/model.md §23.4).
#include "simulate/policy.hpp"

#include <algorithm>
#include <map>
#include <mutex>

#include "simulate/simulate.hpp"

namespace llmecon {
namespace {

// ---- admission ----

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

// ---- schedules ----

/// Fills an iteration decodes first (vLLM V1, SGLang, TensorRT-LLM) or prefills first (vLLM V0
/// without chunking: a step of waiting prompts, and the decodes only when none can start).
/// Without chunking a prompt goes whole: an engine that does not chunk sizes its token budget to
/// its longest prompt (vLLM refuses max_num_batched_tokens below max_model_len, TensorRT-LLM
/// max_num_tokens below max_input_len), so a prompt past the budget still runs beside the
/// iteration's decodes, as its only prefill (model.md §23.4).
class Ordered final : public SchedulePolicy {
 public:
  Ordered(bool prefill_first, bool chunked) : prefill_first_(prefill_first), chunked_(chunked) {}

  void form(IterationBuilder& it) override {
    if (prefill_first_) {
      it.prefills();
      if (it.empty()) it.decodes();
    } else {
      it.decodes();
      it.prefills();
    }
  }
  [[nodiscard]] int chunk(const ChunkAsk& a) const override {
    const int budgeted = SchedulePolicy::chunk(a);
    if (chunked_) return budgeted;
    if (a.starting) return a.remaining > a.budget && a.prefilling ? 0 : a.remaining;
    return budgeted < a.remaining && a.planned ? 0 : budgeted;
  }

 private:
  bool prefill_first_;
  bool chunked_;
};

// ---- preemption ----

/// vLLM V1's only mode, and V0's default: the victim's KV is dropped and recomputed.
class Recompute final : public PreemptionPolicy {
 public:
  [[nodiscard]] bool swaps(const RequestView& /*victim*/) const override { return false; }
};

/// vLLM V0's swap space: the victim's KV goes to host memory and comes back.
class Swap final : public PreemptionPolicy {
 public:
  [[nodiscard]] bool swaps(const RequestView& /*victim*/) const override { return true; }
  [[nodiscard]] bool wants_host_tier() const override { return true; }
};

// ---- registries ----

// One kind's policies in registration order, the built-in ones first.
template <class Policy>
class Registry {
 public:
  using Factory = PolicyFactory<Policy>;
  explicit Registry(std::vector<std::pair<std::string, Factory>> built_in) : policies_(std::move(built_in)) {}

  void add(const std::string& name, Factory make) {
    const std::lock_guard<std::mutex> lock(mu_);
    for (auto& [n, f] : policies_) {
      if (n == name) {
        f = std::move(make);
        return;
      }
    }
    policies_.emplace_back(name, std::move(make));
  }
  std::unique_ptr<Policy> make(std::string_view name, const Scheduler& s) {
    Factory factory;
    {
      const std::lock_guard<std::mutex> lock(mu_);
      for (const auto& [n, f] : policies_) {
        if (n == name) factory = f;
      }
    }
    return factory ? factory(s) : nullptr;
  }
  std::vector<std::string> names() {
    const std::lock_guard<std::mutex> lock(mu_);
    std::vector<std::string> out;
    for (const auto& p : policies_) out.push_back(p.first);
    return out;
  }

 private:
  std::mutex mu_;
  std::vector<std::pair<std::string, Factory>> policies_;
};

Registry<AdmissionPolicy>& admissions() {
  static Registry<AdmissionPolicy> r({
      {"on-demand", [](const Scheduler&) { return std::make_unique<OnDemand>(); }},
      {"reserve", [](const Scheduler&) { return std::make_unique<Reserve>(); }},
      {"token-ratio", [](const Scheduler& s) { return std::make_unique<TokenRatioPolicy>(s.token_ratio); }},
  });
  return r;
}

Registry<SchedulePolicy>& schedules() {
  static Registry<SchedulePolicy> r({
      {"decode-first", [](const Scheduler& s) { return std::make_unique<Ordered>(false, s.chunked_prefill); }},
      {"prefill-first", [](const Scheduler& s) { return std::make_unique<Ordered>(true, s.chunked_prefill); }},
  });
  return r;
}

Registry<PreemptionPolicy>& preemptions() {
  static Registry<PreemptionPolicy> r({
      {"recompute", [](const Scheduler&) { return std::make_unique<Recompute>(); }},
      {"swap", [](const Scheduler&) { return std::make_unique<Swap>(); }},
  });
  return r;
}

}  // namespace

void register_admission(const std::string& name, AdmissionFactory make) {
  admissions().add(name, std::move(make));
}
std::unique_ptr<AdmissionPolicy> make_admission(std::string_view name, const Scheduler& s) {
  return admissions().make(name, s);
}
std::vector<std::string> admission_names() {
  return admissions().names();
}

void register_schedule(const std::string& name, ScheduleFactory make) {
  schedules().add(name, std::move(make));
}
std::unique_ptr<SchedulePolicy> make_schedule(std::string_view name, const Scheduler& s) {
  return schedules().make(name, s);
}
std::vector<std::string> schedule_names() {
  return schedules().names();
}

void register_preemption(const std::string& name, PreemptionFactory make) {
  preemptions().add(name, std::move(make));
}
std::unique_ptr<PreemptionPolicy> make_preemption(std::string_view name, const Scheduler& s) {
  return preemptions().make(name, s);
}
std::vector<std::string> preemption_names() {
  return preemptions().names();
}

}  // namespace llmecon
