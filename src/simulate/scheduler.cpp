// The simulator's iterations: batch formation (continuous and static), admission, tokens and
// completions (docs/model.md §23.2, §23.4).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "sim.hpp"

namespace llmecon::sim_internal {

// ---- the replica as its policies see it (policy.hpp) ----

class Sim::View final : public ReplicaView {
 public:
  View(Sim& sim, Replica& rep) : sim_(sim), rep_(rep) {}
  [[nodiscard]] std::size_t running() const override { return rep_.running.size(); }
  [[nodiscard]] RequestView request(std::size_t i) const override {
    return view_of(sim_.reqs_[static_cast<std::size_t>(rep_.running[i])]);
  }
  [[nodiscard]] long available_blocks() const override { return rep_.kv.available(); }
  [[nodiscard]] int block_tokens() const override { return sim_.block_; }
  void retract(std::size_t i) override { sim_.preempt(rep_, rep_.running[i]); }

 private:
  Sim& sim_;
  Replica& rep_;
};

class Sim::Builder final : public IterationBuilder {
 public:
  Builder(Sim& sim, Replica& rep, Forming& f) : sim_(sim), rep_(rep), f_(f) {}
  void decodes() override { sim_.plan_decodes(rep_, f_); }
  void prefills() override { sim_.plan_prefills(rep_, f_); }
  [[nodiscard]] bool empty() const override { return rep_.plan.empty(); }

 private:
  Sim& sim_;
  Replica& rep_;
  Forming& f_;
};

// ---- iterations ----

bool Sim::admit(Replica& rep, int r, double& budget) {
  Request& q = reqs_[static_cast<std::size_t>(r)];
  const bool first = q.scheduled < 0;
  if (!q.looked_up && !q.swapped) {
    lookup_prefix(rep, q);
    q.looked_up = true;
    if (first) {
      q.hit = q.done;
      cached_tokens_ += q.done;
      admitted_prompt_ += q.isl;
      rep.outstanding -= q.done;
    }
  }
  if (q.swapped || q.done >= q.prompt) {
    // Swapped back in, or prefilled on another pool: the whole context comes back (or over),
    // and the request decodes from the next iteration.
    if (!grow(rep, q, q.done + 1)) return false;
    if (q.swapped) {
      rep.extra_s += q.blocks * block_bytes_ / (tier_->bandwidth.si() * rep.in->map.replica_chips());
    }
    q.swapped = false;
    q.state = State::kRunning;
    rep.running.push_back(r);
    return true;
  }
  // The schedule's chunk (model.md §23.4), then the admission policy's own condition, then the
  // blocks for the context it holds.
  const int chunk = rep.schedule->chunk(ChunkAsk{q.prompt - q.done, budget, true, rep.plan.pk > 0, !rep.plan.empty()});
  if (chunk <= 0) return false;
  const RequestView view = view_of(q);
  View replica(*this, rep);
  if (!rep.admission->admits(view, chunk, replica)) return false;
  if (!grow(rep, q, rep.admission->hold(view, chunk))) return false;
  rep.admission->admitted(view, chunk);
  q.state = State::kRunning;
  if (first) q.scheduled = now_;
  rep.running.push_back(r);
  rep.plan.add(r, chunk, q);
  budget -= chunk;
  return true;
}

bool Sim::continue_window(Replica& rep) {
  // Multi-step scheduling (model.md §23.4): the decode batch formed at the last scheduling runs
  // again, its finished sequences as padding, until its steps are spent or a token does not fit.
  --rep.window_left;
  for (const int r : rep.window) {
    Request& q = reqs_[static_cast<std::size_t>(r)];
    if (q.state != State::kRunning) continue;
    if (!grow(rep, q, q.done + 1)) {
      rep.plan.clear();
      break;
    }
    rep.plan.add(r, 1, q);
  }
  if (rep.plan.empty()) {
    rep.window_left = 0;  // cut short: the engine schedules afresh
    return false;
  }
  rep.plan_seqs = static_cast<double>(rep.window.size());
  return true;
}

bool Sim::make_room(Replica& rep, int r, Request& q, Forming& f) {
  do {
    const int victim = rep.running.back();
    preempt(rep, victim);
    f.preempted = true;
    if (victim == r) return false;
  } while (!grow(rep, q, q.done + 1));
  return true;
}

void Sim::plan_decodes(Replica& rep, Forming& f) {
  // The plan holds no decode yet (decodes come first, or only when nothing else runs), and its
  // decode sums are whole numbers, so they are kept in integer locals and added once, exactly (and
  // `budget - rows` is the budget as one-at-a-time subtraction leaves it).
  long seen = 0, rows = 0;
  std::int64_t ctx = 0;
  std::size_t i = 0;
  const double budget = f.budget;  // a local: the loop's calls cannot change it
  for (; i < rep.running.size() && budget - static_cast<double>(rows) >= 1;) {
    const int r = rep.running[i];
    Request& q = reqs_[static_cast<std::size_t>(r)];
    if (q.done < q.prompt) {
      ++seen;
      ++i;
      continue;
    }
    if (!grow(rep, q, q.done + 1) && !make_room(rep, r, q, f)) break;
    rep.plan.items.emplace_back(r, 1);
    ctx += q.done;
    ++rows;
    ++i;
  }
  if (i == rep.running.size()) f.partials = seen;
  f.budget = budget - static_cast<double>(rows);
  rep.plan.dseq += static_cast<double>(rows);
  rep.plan.dctx += static_cast<double>(ctx);
  f.decoded = f.decoded || rows > 0;
}

void Sim::plan_prefills(Replica& rep, Forming& f) {
  // Partial prefills first, then new requests. A running request with prompt left was admitted
  // in an earlier iteration, so it is not in this plan yet; growing its blocks never changes the
  // running list.
  for (std::size_t i = 0; f.partials != 0 && i < rep.running.size(); ++i) {
    const int r = rep.running[i];
    Request& q = reqs_[static_cast<std::size_t>(r)];
    if (q.done >= q.prompt || f.budget < 1) continue;
    const int chunk =
        rep.schedule->chunk(ChunkAsk{q.prompt - q.done, f.budget, false, rep.plan.pk > 0, !rep.plan.empty()});
    if (chunk <= 0) continue;
    if (!grow(rep, q, q.done + chunk)) break;
    rep.plan.add(r, chunk, q);
    f.budget -= chunk;
  }
  // No new requests in an iteration that had to preempt, unless nothing else can run.
  if (f.preempted && !rep.plan.empty()) return;
  View replica(*this, rep);
  rep.admission->before_admitting(replica);
  while (!rep.waiting.empty() && f.budget >= 1 && static_cast<double>(rep.running.size()) < c_.scheduler.max_seqs) {
    const int r = rep.waiting.front();
    if (!admit(rep, r, f.budget)) break;
    rep.waiting.pop_front();
  }
}

bool Sim::form_continuous(Replica& rep) {
  if (rep.window_left > 0 && continue_window(rep)) return true;
  Forming f;
  f.budget = c_.scheduler.max_batched_tokens;
  View replica(*this, rep);
  f.preempted = rep.admission->begin(replica);
  Builder it(*this, rep, f);
  rep.schedule->form(it);
  // Requests admitted with their whole context (swapped in, or prefilled on the other pool)
  // decode at once when nothing else would run.
  if (rep.plan.empty() && !rep.running.empty()) plan_decodes(rep, f);
  rep.admission->formed(f.decoded, f.preempted);
  rep.plan_seqs = static_cast<double>(rep.plan.items.size());
  if (c_.scheduler.decode_steps > 1 && rep.plan.pk == 0 && !rep.plan.empty()) {
    rep.window.clear();
    for (const auto& e : rep.plan.items) rep.window.push_back(e.first);
    rep.window_left = c_.scheduler.decode_steps - 1;
  }
  return !rep.plan.empty();
}

bool Sim::form_static(Replica& rep) {
  if (!rep.static_active) {
    // A new batch: as many waiting requests as fit, each with its whole context reserved.
    while (!rep.waiting.empty() && static_cast<double>(rep.running.size()) < c_.scheduler.max_seqs) {
      const int r = rep.waiting.front();
      Request& q = reqs_[static_cast<std::size_t>(r)];
      if (!rep.kv.reserve(blocks_for(q.isl + q.osl))) break;
      q.blocks = blocks_for(q.isl + q.osl);
      rep.waiting.pop_front();
      q.state = State::kRunning;
      q.scheduled = now_;
      rep.running.push_back(r);
      rep.plan.add(r, q.prompt, q);
    }
    rep.static_active = !rep.running.empty();
    rep.plan_seqs = static_cast<double>(rep.plan.items.size());
    return !rep.plan.empty();
  }
  for (const int r : rep.running) {
    const Request& q = reqs_[static_cast<std::size_t>(r)];
    if (q.state == State::kRunning) rep.plan.add(r, 1, q);
  }
  // Finished sequences stay in the batch as padding until the longest one ends.
  rep.plan_seqs = static_cast<double>(rep.running.size());
  return !rep.plan.empty();
}

void Sim::try_start(Replica& rep, SimTime now) {
  if (rep.busy) return;
  rep.plan.clear();
  rep.extra_s = 0;
  const bool formed = c_.scheduler.kind == SchedulerKind::kStatic ? form_static(rep) : form_continuous(rep);
  if (!formed) {
    // Nothing can run: a request at the head of the queue that needs more KV than the replica has.
    if (rep.running.empty() && !rep.waiting.empty()) {
      const int r = rep.waiting.front();
      rep.waiting.pop_front();
      Request& q = reqs_[static_cast<std::size_t>(r)];
      release(rep, q);
      rep.outstanding -= q.prompt - q.done + q.osl - q.generated;
      drop(r, "its context needs more KV blocks than a replica holds");
      try_start(rep, now);
    }
    return;
  }
  // The iteration's cost: decode tokens at their mean context, prefill chunks with the context
  // that gives their exact attention pairs (model.md §23.2).
  double dseq = rep.plan.dseq, dctx = rep.plan.dctx;
  const double pk = rep.plan.pk, pt = rep.plan.pt, pairs = rep.plan.pairs;
  if (rep.plan_seqs > pk + dseq && dseq > 0) {
    // Static batches and multi-step windows: padding rows attend over their own contexts too.
    dctx *= rep.plan_seqs / dseq;
    dseq = rep.plan_seqs;
  }
  if (dseq > 0) dctx /= dseq;
  double pctx = 0;
  if (pk > 0) {
    const double n = pt / pk;
    pctx = std::max(0.0, (pairs - pk * n * (n + 1) / 2) / pt);
  }
  const StepMemo::Cost cost = rep.memo->get(dseq, dctx, pk, pt, pctx);
  const Seconds step = cost.time;
  const SimTime dur = to_ticks(step + units::seconds(rep.extra_s));
  rep.busy_s += tick_seconds(dur);
  rep.joules += cost.power.si() * rep.in->map.replica_chips() * tick_seconds(dur);
  rep.busy = true;
  rep.started = now;
  push(now + dur, IterationEv{rep.id});
  ++iterations_;
  {
    const auto b = static_cast<std::size_t>(dseq + pk);
    if (b >= batch_counts_.size()) batch_counts_.resize(b + 1, 0);
    ++batch_counts_[b];
  }
  const double util =
      rep.kv.capacity() > 0 ? static_cast<double>(rep.kv.used()) / static_cast<double>(rep.kv.capacity()) : 0;
  kv_weighted_ += util * tick_seconds(dur);
  busy_time_ += tick_seconds(dur);
  kv_max_ = std::max(kv_max_, util);
  if (rep.id == n_prefill_) {
    if (sample_skip_ == 0) {
      samples_.push_back(SimSample{units::seconds(tick_seconds(now)), dseq + pk, util});
      if (samples_.size() >= 4096) {
        // Thin to half and sample half as often.
        std::vector<SimSample> half;
        for (std::size_t i = 0; i < samples_.size(); i += 2) half.push_back(samples_[i]);
        samples_ = std::move(half);
        sample_stride_ *= 2;
      }
      sample_skip_ = sample_stride_ - 1;
    } else {
      --sample_skip_;
    }
  }
  if (c_.chrome_trace && trace_.size() < kTraceEvents) {
    trace_.push_back(
        SimResult::Event{"iteration", 'X', tick_seconds(now) * 1e6, tick_seconds(dur) * 1e6, rep.id, -1, dseq, pt});
  }
}

void Sim::emit_token(Replica& rep, Request& q, SimTime now) {
  ++q.generated;
  ++out_tokens_;
  ++rep.out_tokens;
  rep.outstanding -= 1;
  time_token(q, static_cast<long>(&q - reqs_.data()), now, counted_lo_, counted_hi_, itl_gap_, itl_run_);
  if (now >= win_lo_ && now <= win_hi_) ++win_out_;
}

void Sim::finish(Replica& rep, int r, SimTime now) {
  Request& q = reqs_[static_cast<std::size_t>(r)];
  q.finish = now;
  q.state = State::kDone;
  last_finish_ = std::max(last_finish_, now);
  ++rep.completed;
  if (now >= win_lo_ && now <= win_hi_) ++win_done_;
  if (c_.chrome_trace && trace_.size() + 2 < kTraceEvents) {
    trace_.push_back(SimResult::Event{"request", 'b', tick_seconds(q.arrival) * 1e6, 0, rep.id, r, 0, 0});
    trace_.push_back(SimResult::Event{"request", 'e', tick_seconds(now) * 1e6, 0, rep.id, r, 0, 0});
  }
  if (c_.scheduler.kind != SchedulerKind::kStatic) {
    release(rep, q);
    rep.running.erase(std::find(rep.running.begin(), rep.running.end(), r));
  }
  if (c_.progress && (++completed_ & 0xfff) == 0) {
    c_.progress(std::min(1.0, static_cast<double>(completed_) / static_cast<double>(std::max(1L, target_))));
  }
  if (q.client >= 0) next_arrival(now, q.client);
}

void Sim::end_prefill(Replica& rep, int r, int tok, SimTime now) {
  Request& q = reqs_[static_cast<std::size_t>(r)];
  q.done += tok;
  prefill_tokens_ += tok;
  rep.outstanding -= tok;
  if (now >= win_lo_ && now <= win_hi_) win_in_ += tok;
  if (q.done < q.prompt) return;
  // The prompt's last chunk yields a token.
  insert_prefix(rep, q);
  emit_token(rep, q, now);
  if (q.generated >= q.osl) {
    finish(rep, r, now);
  } else if (rep.prefill_pool) {
    // Disaggregated: the KV moves to a decode replica (model.md §23.4).
    const Seconds move =
        kv_transfer_time(*rep.in->model, q.done, rep.in->precision.kv, *rep.in->hw, rep.in->map.replica_chips());
    release(rep, q);
    rep.running.erase(std::find(rep.running.begin(), rep.running.end(), r));
    rep.outstanding -= q.osl - q.generated;
    q.state = State::kTransfer;
    push(now + to_ticks(move), TransferEv{r});
  }
}

void Sim::end_iteration(Replica& rep, SimTime now) {
  rep.busy = false;
  // emit_token for the decodes, their counters and ITL run kept in locals and stored around each
  // prefill (the window bounds change only when a request arrives, never inside an iteration's end;
  // the counts are whole numbers, so adding them at once is exact).
  SimTime run_gap = itl_gap_;
  long run = itl_run_, tokens = 0;
  const long lo = counted_lo_, hi = counted_hi_;
  for (const auto& [r, tok] : rep.plan.items) {
    Request& q = reqs_[static_cast<std::size_t>(r)];
    if (q.state != State::kRunning) continue;
    if (q.done < q.prompt) {
      itl_gap_ = run_gap;
      itl_run_ = run;
      end_prefill(rep, r, tok, now);
      run_gap = itl_gap_;
      run = itl_run_;
      continue;
    }
    ++q.done;
    ++q.generated;
    ++tokens;
    time_token(q, r, now, lo, hi, run_gap, run);
    if (q.generated >= q.osl) finish(rep, r, now);
  }
  itl_gap_ = run_gap;
  itl_run_ = run;
  out_tokens_ += tokens;
  rep.out_tokens += tokens;
  rep.outstanding -= static_cast<double>(tokens);
  if (now >= win_lo_ && now <= win_hi_) win_out_ += tokens;
  if (c_.scheduler.kind == SchedulerKind::kStatic && rep.static_active) {
    const bool all_done = std::all_of(rep.running.begin(), rep.running.end(),
                                      [&](int r) { return reqs_[static_cast<std::size_t>(r)].state == State::kDone; });
    if (all_done) {
      for (const int r : rep.running) release(rep, reqs_[static_cast<std::size_t>(r)]);
      rep.running.clear();
      rep.static_active = false;
    }
  }
  rep.plan.clear();
  try_start(rep, now);
}

}  // namespace llmecon::sim_internal
