// The serving simulator's test replica: Llama 3.1 70B on one H100 server at TP8, an 8192-token
// budget, 256 sequences, 1024-token prompts and 128-token answers (simulate_test.cpp and
// simulate_policies_test.cpp change what each case needs).
#pragma once

#include <string>

#include "parallel/parallel.hpp"
#include "simulate/simulate.hpp"
#include "test_catalogs.hpp"

namespace llmecon::testing_catalogs {

// The least a serving-engine profile needs (data/engines/*.toml): the overhead table last, so a
// test can append to it.
inline std::string minimal_engine_profile() {
  return R"(name = "s"
display_name = "s"
notes = ""
[memory]
rule = "total"
fraction = 0.9
[batching]
max_seqs = 256
max_batched_tokens = 8192
chunked_prefill = true
[kv]
fp8_checkpoint = "bf16"
[overhead]
host = "0 us"
cuda_graphs = true
)";
}

inline const ModelSpec& llama70() {
  static const ModelSpec m = models().load("llama-3.1-70b").value();
  return m;
}

inline SimConfig sim_base(const ModelSpec& m = llama70(), const char* chip = "h100-sxm", int tp = 8) {
  SimConfig c;
  c.decode.model = &m;
  c.decode.hw = hw().find(chip);
  c.decode.map = Mapping{.tp = tp};
  c.decode.precision = Precision::native(m);
  c.decode.eff = efficiency_for(*c.decode.hw, families());
  c.scheduler.max_batched_tokens = 8192;
  c.scheduler.max_seqs = 256;
  c.workload.isl = LengthDist::fixed(1024);
  c.workload.osl = LengthDist::fixed(128);
  return c;
}

/// The replica with little KV room (usable HBM 0.55) run offline on `requests` 4000-token prompts
/// with 2000-token answers: long outputs that force preemption (or, reserving, hold admissions).
inline SimConfig sim_tight_kv(long requests) {
  SimConfig c = sim_base();
  c.decode.usable_hbm = 0.55;
  c.workload.requests = requests;
  c.workload.arrivals = Arrivals{ArrivalKind::kOffline};
  c.workload.isl = LengthDist::fixed(4000);
  c.workload.osl = LengthDist::fixed(2000);
  return c;
}

}  // namespace llmecon::testing_catalogs
