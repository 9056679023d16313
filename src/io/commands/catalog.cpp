// Catalog commands: the built-in models, the chips, and one model's shape.
#include "commands.hpp"

namespace llmecon::cmd {

Result<Answer> models(const Engine& e, const Args&, const Progress&, const Cancel&) {
  const ModelCatalog& cat = e.model_catalog();
  Json out = Json::array();
  for (const auto& entry : cat.entries()) {
    auto m = cat.load(entry.name);
    Json row{{"name", entry.name}, {"source", entry.source}};
    if (m) {
      row["family"] = m->family;
      row["params_total"] = m->params_total();
      row["params_active"] = m->params_active();
      row["layers"] = m->n_layers();
      row["moe"] = m->is_moe();
    } else {
      row["error"] = m.error().message();
    }
    out.push_back(row);
  }
  return Answer{std::move(out), [&cat] { return models_text(cat); }};
}

Result<Answer> hardware(const Engine& e, const Args&, const Progress&, const Cancel&) {
  Json out = Json::array();
  for (const auto& h : e.hardware_catalog().all()) {
    Json compute = Json::object();
    for (std::size_t i = 0; i < kDTypeCount; ++i) {
      if (h.compute[i]) compute[std::string(kDTypeNames[i])] = h.compute[i]->value.si();
    }
    Json tiers = Json::array();
    for (const auto& t : h.host_tiers) {
      tiers.push_back({{"name", t.name},
                       {"capacity_bytes", t.capacity.si()},
                       {"bandwidth_bytes_per_s", t.bandwidth.si()},
                       {"usd_per_hour", t.price.si() * 3600.0}});
    }
    out.push_back({{"name", h.name},
                   {"display_name", h.display_name},
                   {"vendor", h.vendor},
                   {"year", h.year},
                   {"status", h.status},
                   {"flops_per_s", compute},
                   {"hbm_bytes", h.hbm_capacity.value.si()},
                   {"hbm_bytes_per_s", h.hbm_bandwidth.value.si()},
                   {"drain_time_s", h.drain_time().si()},
                   {"scaleup_domain", h.domain_size},
                   {"scaleup_topology", std::string(name(h.topology))},
                   {"scaleup_bytes_per_s", h.scale_up.bandwidth.si()},
                   {"scaleout_bytes_per_s", h.scale_out.bandwidth.si()},
                   {"host_tiers", tiers},
                   {"tdp_w", h.tdp.si()},
                   {"usd_per_hour", h.price.value.si() * 3600.0},
                   {"usd_per_hour_range", {h.price.low().si() * 3600.0, h.price.high().si() * 3600.0}},
                   {"sources", h.sources},
                   {"origin", h.origin}});
    if (h.exp_rate) out.back()["exp_per_s"] = h.exp_rate->si();
  }
  return Answer{std::move(out), [&cat = e.hardware_catalog()] { return hardware_text(cat); }};
}

Result<Answer> model_show(const Engine& e, const Args& a, const Progress&, const Cancel&) {
  TRY(m, load_model(e.catalogs(), a));
  const DType kv = *a.dtype("kv_dtype");
  Json layers = Json::object();
  for (const auto& l : m.layers) {
    const std::string key = std::string(name(l.mixer)) + (l.moe ? "+moe" : "");
    layers[key] = layers.value(key, 0) + 1;
  }
  Json out{{"name", m.name},
           {"family", m.family},
           {"origin", m.origin},
           {"params_total", m.params_total()},
           {"params_active", m.params_active()},
           {"params_active_matmul", m.params_active_matmul()},
           {"params_embedding", m.params_embedding()},
           {"sparsity", m.sparsity()},
           {"layers", m.n_layers()},
           {"layer_kinds", layers},
           {"d_model", m.d_model},
           {"vocab", m.vocab},
           {"attention", attention_name(m)},
           {"heads", m.attn.heads},
           {"kv_heads", m.attn.kv_heads},
           {"head_dim", m.attn.head_dim},
           {"kv_dtype", std::string(name(kv))},
           {"kv_bytes_per_token", m.kv_bytes_per_token(kv).si()},
           {"native_weight_dtype", std::string(name(m.native_weight_dtype))},
           {"native_expert_dtype", std::string(name(m.native_expert_dtype))},
           {"weight_bytes_native", m.weight_bytes(m.native_weight_dtype, m.native_expert_dtype).si()},
           {"max_context", m.max_context}};
  if (m.is_moe()) {
    out["experts"] = m.moe.experts;
    out["experts_per_token"] = m.moe.top_k;
    out["expert_ffn"] = m.moe.expert_ffn;
    out["shared_ffn"] = m.moe.shared_ffn;
  }
  const ModelEntry* entry = e.model_catalog().entry(m.name);
  if (entry != nullptr) {
    out["source"] = entry->source;
    out["published"] = {
        {"total", entry->published.total}, {"active", entry->published.active}, {"source", entry->published.source}};
  }
  return Answer{std::move(out), [m = std::move(m), kv, entry] { return model_text(m, kv, entry); }};
}

// The catalog family's commands in the table (commands.hpp).
std::vector<Command> catalog_commands() {
  using namespace argspec;  // NOLINT(google-build-using-namespace): the builders read as a table
  std::vector<Command> out;
  auto add = [&out](CommandSpec c, Fn run) { out.push_back(Command{std::move(c), run}); };

  add(command("models", "the built-in models", {}), models);
  add(command("hardware", "the chip catalog: FLOP/s per format, HBM, drain time, scale-up domain, price", {}),
      hardware);
  {
    ArgSpec name = model(nullptr);
    name.positional = true;
    name.required = true;
    CommandSpec c = command("model", "parameters, layers and KV bytes per token of a model",
                            {name, with_default(dtype("kv_dtype", "KV cache format", ""), "bf16")});
    c.cli = "model show";
    add(std::move(c), model_show);
  }
  return out;
}

}  // namespace llmecon::cmd
