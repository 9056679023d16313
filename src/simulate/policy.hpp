// simulate/policy.hpp: scheduling policies as objects, registered by name (docs/model.md §23.4).
//
// An admission policy decides how a continuous-batching replica admits requests against its KV
// memory: whether a waiting request may start, how much context its blocks must hold when it
// does, and what the policy does before and after an iteration is formed (SGLang's token-ratio
// estimate retracts decodes and decays its ratio there). A serving engine's profile names its
// policy (`[batching] kv_admission = "NAME"`) and `simulate --admission NAME` overrides it; the
// simulator makes one policy object per replica from the registry, so a policy may keep state of
// its own. Built in: on-demand (vLLM), reserve (TensorRT-LLM's GUARANTEED_NO_EVICT) and
// token-ratio (SGLang). A new engine release's policy is one class and one register call:
//
//   class OneAtATime final : public AdmissionPolicy {
//    public:
//     bool admits(const RequestView&, int, ReplicaView& replica) override { return replica.running() == 0; }
//   };
//   register_admission("one-at-a-time", [](const Scheduler&) { return std::make_unique<OneAtATime>(); });
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace llmecon {

struct Scheduler;

/// What a policy sees of one request: its token counts and the KV it holds.
struct RequestView {
  int isl = 1;        ///< prompt tokens as sent
  int osl = 1;        ///< output tokens it will generate
  int prompt = 1;     ///< tokens to compute before its next token (isl, or more after a recompute)
  int done = 0;       ///< of prompt, in the KV cache
  int generated = 0;  ///< output tokens so far
  int blocks = 0;     ///< private KV blocks held
  int shared = 0;     ///< context tokens in shared prefix-cache blocks
  [[nodiscard]] bool decoding() const { return done >= prompt; }
};

/// What a policy sees of, and may do to, the replica it schedules for (the simulator implements it).
class ReplicaView {
 public:
  virtual ~ReplicaView() = default;
  /// Requests running (admitted and not finished), in admission order.
  [[nodiscard]] virtual std::size_t running() const = 0;
  [[nodiscard]] virtual RequestView request(std::size_t i) const = 0;
  /// KV blocks free or held only by evictable cached prefixes.
  [[nodiscard]] virtual long available_blocks() const = 0;
  [[nodiscard]] virtual int block_tokens() const = 0;
  /// Sends running request i back to the queue (preempted as the scheduler's preemption says).
  virtual void retract(std::size_t i) = 0;
};

/// One replica's admission policy. Every hook has the on-demand behaviour by default.
class AdmissionPolicy {
 public:
  virtual ~AdmissionPolicy() = default;
  /// Before an iteration is formed; true when it sent running requests back to the queue (then no
  /// new request is admitted unless nothing else can run).
  virtual bool begin(ReplicaView& /*replica*/) { return false; }
  /// Before waiting requests are considered for admission, after the running ones are planned.
  virtual void before_admitting(ReplicaView& /*replica*/) {}
  /// Whether a waiting request may start now with a chunk of `chunk` tokens (its KV blocks are
  /// checked apart, against hold()).
  virtual bool admits(const RequestView& /*q*/, int /*chunk*/, ReplicaView& /*replica*/) { return true; }
  /// The context a starting request's KV blocks must hold: the tokens it will have computed
  /// (on demand), or more (reserve: its whole output up front).
  [[nodiscard]] virtual int hold(const RequestView& q, int chunk) const { return q.done + chunk; }
  /// A request started with a chunk of `chunk` tokens.
  virtual void admitted(const RequestView& /*q*/, int /*chunk*/) {}
  /// After the iteration is formed: whether it decoded, and whether any request was sent back to
  /// the queue while it was (by begin(), or a decode that found no free block).
  virtual void formed(bool /*decoded*/, bool /*preempted*/) {}
};

/// Makes one replica's policy from the scheduler it runs under (its constants: token_ratio).
using AdmissionFactory = std::function<std::unique_ptr<AdmissionPolicy>(const Scheduler&)>;

/// Registers a policy under `name`, replacing one of that name; the built-in ones are registered
/// before the first look-up. Thread-safe.
void register_admission(const std::string& name, AdmissionFactory make);
/// A new policy object of `name` for one replica; nullptr when no policy has that name.
std::unique_ptr<AdmissionPolicy> make_admission(std::string_view name, const Scheduler& s);
/// The registered names: the built-in ones first (on-demand, reserve, token-ratio), then the
/// others in the order they were registered.
std::vector<std::string> admission_names();

}  // namespace llmecon
