// Launch-ready configuration for a planned deployment (docs/model.md §17.4): the serving engine's
// command line (and options file) with the plan's parallel degrees, formats and limits, using
// the flag names from the engine's profile (data/engines, each cited).
#include <fmt/format.h>

#include <cmath>
#include <functional>

#include "plan/plan.hpp"

namespace llmecon {

namespace {

// A flag from the profile; missing ones are reported, never invented.
std::string flag(const ServingEngine& e, const std::string& key, std::vector<std::string>& notes) {
  auto it = e.flags.find(key);
  if (it != e.flags.end()) return it->second;
  notes.push_back(fmt::format("{} has no flag for {} in its profile: set it by hand", e.name, key));
  return "";
}

struct Pool {
  std::string name;
  const Mapping* map;
  double batch;
  DType weights, kv;
  const Hardware* hw;
};

// One engine instance's command line for one pool; `files` collects an options file.
// An instance wider than one host (model.md §17.4): the engine's way of spanning nodes, as flags
// added to `args` (its first item the launch command) and notes.
void span_nodes(const ServingEngine& e, const Pool& pool, std::vector<std::string>& args, LaunchConfig& out,
                const std::function<void(const std::string&, const std::string&)>& add) {
  const Mapping& mp = *pool.map;
  const int per_node = pool.hw != nullptr ? pool.hw->chips_per_node() : 8;
  const int chips = mp.replica_chips();
  if (chips <= per_node) return;
  const int nodes = (chips + per_node - 1) / per_node;
  const std::string& how = e.launch->multinode;
  if (how == "mpi") {
    // Every rank in one MPI job, the server wrapped by the engine's launcher.
    args.front() = fmt::format("srun -N {} --ntasks {} --ntasks-per-node {} --mpi=pmix {} {}", nodes, chips, per_node,
                               flag(e, "mpi_launch", out.notes), args.front());
    out.notes.push_back(
        fmt::format("{}: one instance spans {} nodes of {} chips: launch it once, under srun (or "
                    "mpirun) across the nodes",
                    pool.name, nodes, per_node));
  } else if (how == "ranks") {
    add("nnodes", std::to_string(nodes));
    add("node_rank", "$NODE_RANK");
    add("dist_init_addr", "$HEAD_IP:5000");
    out.notes.push_back(
        fmt::format("{}: one instance spans {} nodes of {} chips: run the command on each node with "
                    "NODE_RANK 0 to {} and HEAD_IP the first node's address",
                    pool.name, nodes, per_node, nodes - 1));
  } else if (how == "dp-local" && mp.tp * mp.pp <= per_node && mp.dp_attn > 1) {
    const int local = std::max(1, per_node / (mp.tp * mp.pp));
    add("dp_local", std::to_string(local));
    add("dp_address", "$HEAD_IP");
    add("dp_start_rank", fmt::format("$((NODE_RANK * {}))", local));
    out.notes.push_back(
        fmt::format("{}: one instance spans {} nodes of {} chips: run the command on each node with "
                    "NODE_RANK 0 to {} and HEAD_IP the first node's address, adding {} on every node "
                    "but the first",
                    pool.name, nodes, per_node, nodes - 1, flag(e, "headless", out.notes)));
  } else if (how == "dp-local") {
    add("distributed_backend", "ray");
    out.notes.push_back(
        fmt::format("{}: a tensor or pipeline group spans {} nodes of {} chips: start a Ray cluster "
                    "over them first (ray start --head, then ray start --address on the others)",
                    pool.name, nodes, per_node));
  } else {
    out.notes.push_back(
        fmt::format("{}: one instance spans {} nodes of {} chips, and the {} profile does not say how "
                    "it launches across nodes",
                    pool.name, nodes, per_node, e.name));
  }
}

std::string command(const ServingEngine& e, const ModelSpec& m, const std::string& model_id, const Pool& pool,
                    const PlanRequest& rq, LaunchConfig& out) {
  const Mapping& mp = *pool.map;
  std::string launch = flag(e, "launch", out.notes);
  if (const auto pos = launch.find("{model}"); pos != std::string::npos) launch.replace(pos, 7, model_id);
  std::vector<std::string> args{launch};
  auto add = [&](const std::string& key, const std::string& value) {
    const std::string f = flag(e, key, out.notes);
    if (f.empty()) return;
    args.push_back(value.empty() ? f : f + " " + value);
  };
  const bool quantized = bytes_per_element(pool.weights) < bytes_per_element(m.native_weight_dtype);
  const bool fp8_kv = pool.kv == DType::kFp8;
  const std::string batch = format_number(pool.batch);
  const std::string tokens = format_number(e.max_batched_tokens);
  const std::string fraction = format_number(e.memory_fraction);
  if (mp.cp > 1) out.notes.push_back(fmt::format("context parallelism cp={} has no flag in {}", mp.cp, e.name));
  if (quantized && pool.weights != DType::kFp8) {
    out.notes.push_back(fmt::format("{} weights: serve a checkpoint quantized to {} ({} has no on-the-fly {})",
                                    name(pool.weights), name(pool.weights), e.name, name(pool.weights)));
  }
  if (!e.launch) {
    out.notes.push_back(fmt::format(
        "the {} engine has no launch command in its profile: choose an --emit engine whose profile has one", e.name));
    return "";
  }
  // How this engine spells the plan: its profile's [launch] table (data/engines, each cited).
  const ServingEngine::Launch& how = *e.launch;
  add("tp", std::to_string(how.tp_counts_instance ? mp.tp * mp.dp_attn : mp.tp));
  if (mp.pp > 1) add("pp", std::to_string(mp.pp));
  if (mp.dp_attn > 1 && !how.options_file) {
    add("dp", std::to_string(mp.dp_attn));
    if (e.flags.count("dp_attention") != 0) add("dp_attention", "");
  }
  if (mp.ep > 1) add("ep", how.ep_switch ? "" : std::to_string(mp.ep));
  if (quantized && pool.weights == DType::kFp8) {
    if (how.fp8_from_checkpoint) {
      out.notes.push_back(
          fmt::format("fp8 weights: serve an FP8 checkpoint ({} reads its quantization from it)", e.display_name));
    } else {
      add("quantization", "fp8");
    }
  }
  if (fp8_kv && !how.options_file) add("kv_dtype", how.kv_fp8);
  // Caps that bind each attention-DP rank (vLLM, TensorRT-LLM) are the plan's batch over the ranks;
  // SGLang takes the instance's and divides them over its ranks itself.
  const int scopes = e.cap_scopes(mp.dp_attn);
  if (pool.batch > 0) {
    add("max_seqs", format_number(std::ceil(pool.batch / scopes)));
    if (scopes > 1) {
      out.notes.push_back(fmt::format("{} is per attention-DP rank: {} sequences over {} ranks",
                                      flag(e, "max_seqs", out.notes), batch, scopes));
    }
  }
  add("max_batched_tokens", tokens);
  add("max_model_len", format_number(rq.max_context > 0 ? rq.max_context : rq.isl + rq.osl));
  add("memory_fraction", fraction);
  if (how.options_file) {
    // The options file's keys are the profile's flag names; a dotted one is a nested key
    // (kv_cache_config.dtype: fp8).
    std::string yaml;
    auto option = [&](const std::string& key, const std::string& value) {
      const std::string f = flag(e, key, out.notes);
      if (f.empty()) return;
      const auto dot = f.find('.');
      yaml += dot == std::string::npos ? f + ": " + value + "\n"
                                       : f.substr(0, dot) + ":\n  " + f.substr(dot + 1) + ": " + value + "\n";
    };
    if (mp.dp_attn > 1) option("dp_attention", "true");
    if (fp8_kv) option("kv_dtype", how.kv_fp8);
    if (!yaml.empty()) {
      const std::string file = pool.name + "-llm-api-options.yaml";
      add("options_file", file);
      out.files.push_back({file, yaml});
    }
  }
  span_nodes(e, pool, args, out, add);
  std::string line;
  for (const auto& a : args) line += (line.empty() ? "" : " \\\n    ") + a;
  return line;
}

}  // namespace

LaunchConfig launch_config(const ServingEngine& e, const ModelSpec& m, const std::string& model_id,
                           const PlanRequest& rq, const PlanPoint& p) {
  LaunchConfig out;
  out.engine = e.name;
  std::vector<Pool> pools;
  if (p.prefill_map) {
    // The prefill pool's batch is set by the engine's token budget, not a sequence cap: none given.
    pools.push_back({"prefill", &*p.prefill_map, 0, p.weights, p.kv, rq.prefill_hw});
    pools.push_back({"decode", &p.map, p.batch, p.weights, p.kv, rq.hw});
    out.notes.emplace_back(
        "disaggregated: connect the pools with the engine's prefill/decode transfer (its KV connector), "
        "configured separately");
  } else {
    pools.push_back({"serve", &p.map, p.batch, p.weights, p.kv, rq.hw});
  }
  for (const Pool& pool : pools) {
    LaunchPool lp;
    lp.pool = pool.name;
    lp.chips_per_instance = pool.map->replica_chips();
    lp.instances = pool.name == "prefill" ? std::max(1, rq.prefill_chips / pool.map->replica_chips()) : pool.map->dp;
    lp.command = command(e, m, model_id, pool, rq, out);
    out.pools.push_back(std::move(lp));
  }
  const DType engine_kv = default_kv(&e, p.weights);
  out.notes.push_back(
      p.kv == engine_kv     ? fmt::format("KV cache assumed: {}, the engine's default for this checkpoint", name(p.kv))
      : p.kv == DType::kFp8 ? std::string("KV cache assumed: fp8, set above")
                            : fmt::format("KV cache assumed: {}, not the engine's default for this checkpoint ({}): "
                                          "set it by hand",
                                          name(p.kv), name(engine_kv)));
  for (const auto& lp : out.pools) {
    if (lp.command.empty()) continue;
    out.text += fmt::format("# {}: {} instance{} of {} chip{} each{}\n{}\n", lp.pool, lp.instances,
                            lp.instances == 1 ? "" : "s", lp.chips_per_instance, lp.chips_per_instance == 1 ? "" : "s",
                            lp.instances > 1 ? ", behind a router" : "", lp.command);
  }
  for (const auto& f : out.files) out.text += fmt::format("# {}\n{}", f.name, f.text);
  for (const auto& n : out.notes) out.text += "# note: " + n + "\n";
  return out;
}

}  // namespace llmecon
