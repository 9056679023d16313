// simulate/policy.hpp: scheduling policies as objects, registered by name (docs/model.md §23.4).
//
// A continuous-batching replica runs three policies, each an object made per replica from a
// registry keyed by name, so a policy may keep state of its own:
//
// - admission: whether a waiting request may start, how much context its KV blocks must hold
//   when it does, and what the policy does before and after an iteration is formed (SGLang's
//   token-ratio estimate retracts decodes and decays its ratio there). Built in: on-demand (vLLM),
//   reserve (TensorRT-LLM's GUARANTEED_NO_EVICT) and token-ratio (SGLang). A profile names it
//   (`[batching] kv_admission`), `simulate --admission` overrides it.
// - schedule: the order an iteration is filled in (decodes, then prompt chunks and new requests,
//   or prefills first) and how much of a prompt one iteration takes (a chunk of the token budget,
//   or the whole prompt when prefills are not chunked). Built in: decode-first (vLLM V1, SGLang,
//   TensorRT-LLM) and prefill-first (vLLM V0 without chunking). A profile names it
//   (`[batching] schedule`, `unchunked_schedule`), `simulate --priority` overrides it.
// - preemption: what happens to a request sent back to the queue when KV runs out: recompute
//   (its KV dropped, its prompt and output so far prefilled again) or swap (its KV to the host
//   tier and back). `simulate --preemption` names it.
//
// A new engine release's policy is one class and one register call:
//
//   class OneAtATime final : public AdmissionPolicy {
//    public:
//     bool admits(const RequestView&, int, ReplicaView& replica) override { return replica.running() == 0; }
//   };
//   register_admission("one-at-a-time", [](const Scheduler&) { return std::make_unique<OneAtATime>(); });
#pragma once

#include <algorithm>
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

/// What a schedule may do while one iteration is formed (the simulator implements it).
class IterationBuilder {
 public:
  virtual ~IterationBuilder() = default;
  /// Plans one token for each running request that decodes, in admission order, while the
  /// token budget lasts; a decode whose next block does not fit preempts the newest running
  /// request (itself, when it is the newest). At most once per form(): a second call would plan
  /// the same decodes again.
  virtual void decodes() = 0;
  /// Plans the next chunk of each running request with prompt left, then admits waiting requests
  /// (through the admission policy) while the budget, the sequence cap and the KV allow; none when
  /// the iteration had to preempt and holds work already.
  virtual void prefills() = 0;
  /// Whether nothing is planned yet.
  [[nodiscard]] virtual bool empty() const = 0;
};

/// A prompt's claim on an iteration, as a schedule's chunk() sees it.
struct ChunkAsk {
  int remaining = 1;        ///< prompt tokens not yet computed
  double budget = 0;        ///< tokens the iteration has left
  bool starting = false;    ///< a waiting request being admitted (false: a running one's next chunk)
  bool prefilling = false;  ///< a prompt chunk is already in the iteration
  bool planned = false;     ///< anything is already in the iteration
};

/// One replica's schedule: the order an iteration is filled in and a prompt's chunk. form()
/// has no default; chunk() chunks to the budget.
class SchedulePolicy {
 public:
  virtual ~SchedulePolicy() = default;
  /// Fills one iteration through the builder's steps.
  virtual void form(IterationBuilder& it) = 0;
  /// Tokens of the prompt that join the iteration; 0: none now (the request waits).
  [[nodiscard]] virtual int chunk(const ChunkAsk& a) const {
    return static_cast<int>(std::min<double>(a.remaining, a.budget));
  }
};

/// One replica's preemption: what happens to a running request sent back to the queue.
class PreemptionPolicy {
 public:
  virtual ~PreemptionPolicy() = default;
  /// True: the victim's KV blocks move to the host tier and back when it resumes (the moves
  /// cost their bytes over the tier's bandwidth); false: they are dropped and its prompt and
  /// output so far are prefilled again. Without a host tier every victim is recomputed.
  [[nodiscard]] virtual bool swaps(const RequestView& victim) const = 0;
  /// Whether the policy wants a host tier (the chip's DDR unless `--host-tier` names one).
  [[nodiscard]] virtual bool wants_host_tier() const { return false; }
};

/// Makes one replica's policy from the scheduler it runs under (its constants: token_ratio,
/// chunked_prefill).
template <class Policy>
using PolicyFactory = std::function<std::unique_ptr<Policy>(const Scheduler&)>;
using AdmissionFactory = PolicyFactory<AdmissionPolicy>;
using ScheduleFactory = PolicyFactory<SchedulePolicy>;
using PreemptionFactory = PolicyFactory<PreemptionPolicy>;

// Each registry: register_X adds a policy under `name`, replacing one of that name (the built-in
// ones are registered before the first look-up; thread-safe); make_X makes a new policy object of
// `name` for one replica, nullptr when no policy has that name; X_names lists the registered
// names, the built-in ones first in the order above, then the others in registration order.

void register_admission(const std::string& name, AdmissionFactory make);
std::unique_ptr<AdmissionPolicy> make_admission(std::string_view name, const Scheduler& s);
std::vector<std::string> admission_names();  ///< on-demand, reserve, token-ratio, ...

void register_schedule(const std::string& name, ScheduleFactory make);
std::unique_ptr<SchedulePolicy> make_schedule(std::string_view name, const Scheduler& s);
std::vector<std::string> schedule_names();  ///< decode-first, prefill-first, ...

void register_preemption(const std::string& name, PreemptionFactory make);
std::unique_ptr<PreemptionPolicy> make_preemption(std::string_view name, const Scheduler& s);
std::vector<std::string> preemption_names();  ///< recompute, swap, ...

}  // namespace llmecon
