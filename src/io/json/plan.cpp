// The JSON of a deployment search (encode.hpp): its points, frontier, ranking and refusals.
#include <algorithm>

#include "io/encode.hpp"
#include "units/json_text.hpp"

namespace llmecon {

Json to_json(const PlanPoint& p, const ModelSpec& m) {
  return Json{{"tp", p.map.tp},
              {"pp", p.map.pp},
              {"ep", p.map.ep},
              {"dp", p.map.dp},
              {"dp_attn", p.map.dp_attn},
              {"cp", p.map.cp},
              {"mapping", p.map.str()},
              {"batch", whole_json(p.batch)},
              {"weight_dtype", std::string(name(p.weights))},
              {"kv_dtype", std::string(name(p.kv))},
              // Narrower than the checkpoint as released: a quantized deployment, labelled as such.
              {"quantized", bytes_per_element(p.weights) < bytes_per_element(m.native_weight_dtype)},
              {"tokens_per_s_per_chip", p.decode.tokens_per_s_per_chip.si()},
              {"tokens_per_s_per_user", p.decode.tokens_per_s_per_user.si()},
              {"ttft_s", p.prefill.latency.si()},
              {"tpot_ms", p.decode.latency.si() * 1e3},
              {"usd_per_mtok_blended", p.usd_per_token.si() * 1e6},
              {"usd_per_mtok_input", p.input_usd_per_token.si() * 1e6},
              {"usd_per_mtok_output", p.decode.usd_per_token.si() * 1e6},
              {"joules_per_token", p.energy_per_token.si()},
              {"joules_per_token_input", p.input_energy_per_token.si()},
              {"joules_per_token_output", p.decode.energy_per_token.si()},
              {"tokens_per_s_per_mw", tokens_per_mw_json(p.decode.tokens_per_s_per_chip, p.decode.power_per_chip)},
              {"bound_decode", std::string(p.decode.bound)},
              {"bound_prefill", std::string(p.prefill.bound)},
              {"mem_per_chip_bytes", p.decode.memory.total().si()},
              {"meets_slo", p.meets_slo},
              {"prefill_mapping", p.prefill_map ? Json(p.prefill_map->str()) : Json(nullptr)},
              {"kv_transfer_s", p.kv_transfer.si()}};
}

// With --explain every point carries its own derivation, so any frontier point can be explained.
Json to_json(const PlanResult& r, const ModelSpec& m, const std::vector<std::size_t>& shown,
             const PlanRequest* explain_for) {
  auto point_json = [explain_for, &m](const PlanPoint& p) {
    Json j = to_json(p, m);
    if (explain_for != nullptr) j["explain"] = explain_plan_point(*explain_for, p);
    return j;
  };
  Json frontier = Json::array();
  for (const std::size_t i : shown) frontier.push_back(point_json(r.frontier[i]));
  Json rejected = Json::object();
  for (const auto& [k, v] : r.rejected) rejected[k] = v;
  // The ten best distinct mappings under the SLO, each at its best batch and formats.
  Json top = Json::array();
  std::vector<std::string> seen;
  for (const auto& pt : r.ranked) {
    const std::string key = pt.map.str();
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
    seen.push_back(key);
    top.push_back(point_json(pt));
    if (top.size() == 10) break;
  }
  // `feasible` is the answer's (a recommendation exists); `feasible_points` counts the layouts that fit.
  Json out{{"evaluated", r.evaluated},
           {"feasible", r.best.has_value()},
           {"feasible_points", r.feasible},
           {"meeting_slo", r.meeting_slo},
           {"frontier", frontier},
           {"best", r.best ? point_json(*r.best) : Json(nullptr)},
           {"top", top},
           {"rejected", rejected},
           {"empty_reason", r.empty_reason}};
  if (!r.best) out["reason"] = r.empty_reason.empty() ? std::string("no feasible point") : r.empty_reason;
  return out;
}

}  // namespace llmecon
