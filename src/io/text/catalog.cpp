// The text of the catalogs: models, chips, one model's shape (text.hpp).
#include <fmt/format.h>

#include <algorithm>

#include "io/text.hpp"

namespace llmecon {

std::string attention_name(const ModelSpec& m) {
  if (m.attn.kind == AttentionKind::kMla) return "mla";
  if (m.attn.kv_heads == m.attn.heads) return "mha";
  return m.attn.kv_heads == 1 ? "mqa" : "gqa";
}

std::string models_text(const ModelCatalog& models) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& entry : models.entries()) {
    auto m = models.load(entry.name);
    if (!m) {
      rows.push_back({entry.name, "?", params_text(0), params_text(0), "0", "dense"});
      continue;
    }
    rows.push_back({entry.name, m->family, params_text(m->params_total()), params_text(m->params_active()),
                    std::to_string(m->n_layers()), m->is_moe() ? "moe" : "dense"});
  }
  return text_table({"name", "family", "total", "active", "layers", "kind"}, rows);
}

std::string hardware_text(const HardwareCatalog& hw) {
  std::vector<std::vector<std::string>> rows;
  for (const Hardware& h : hw.all()) {
    auto rate = [&h](DType d) {
      const auto& c = h.compute[static_cast<std::size_t>(d)];
      return c ? format(c->value) : std::string("-");
    };
    rows.push_back({h.name, rate(DType::kBf16), rate(DType::kFp8), rate(DType::kFp4), format(h.hbm_capacity.value),
                    format(h.hbm_bandwidth.value), format(h.drain_time()),
                    std::to_string(h.domain_size) + " " + std::string(name(h.topology)),
                    fmt::format("${:.2f}", h.price.value.si() * 3600.0)});
  }
  return text_table({"name", "bf16", "fp8", "fp4", "HBM", "HBM bw", "drain", "scale-up", "$/chip-h"}, rows);
}

std::string model_text(const ModelSpec& m, DType kv, const ModelEntry* entry) {
  std::string out = fmt::format("{} ({}), from {}\n", m.name, m.family, m.origin);
  out += fmt::format("  parameters      {} total, {} active ({} in matmuls), sparsity {}\n",
                     params_text(m.params_total()), params_text(m.params_active()),
                     params_text(m.params_active_matmul()), format_number(m.sparsity(), 3));
  // Layer kinds in the order they first appear, as the JSON lists them.
  std::vector<std::pair<std::string, int>> kinds;
  for (const auto& l : m.layers) {
    const std::string key = std::string(name(l.mixer)) + (l.moe ? "+moe" : "");
    auto it = std::find_if(kinds.begin(), kinds.end(), [&key](const auto& k) { return k.first == key; });
    if (it == kinds.end()) {
      kinds.emplace_back(key, 1);
    } else {
      ++it->second;
    }
  }
  std::string said;
  for (const auto& [k, n] : kinds) said += fmt::format("{}{} x {}", said.empty() ? "" : ", ", n, k);
  out += fmt::format("  layers          {} ({})\n", m.n_layers(), said);
  out += fmt::format("  attention       {}, {} heads, {} KV heads, head dim {}\n", attention_name(m), m.attn.heads,
                     m.attn.kv_heads, m.attn.head_dim);
  if (m.is_moe()) {
    out += fmt::format("  experts         {} routed, {} per token, FFN {}, shared FFN {}\n", m.moe.experts, m.moe.top_k,
                       m.moe.expert_ffn, m.moe.shared_ffn);
  }
  out += fmt::format("  KV per token    {} at {}\n", format(m.kv_bytes_per_token(kv)), name(kv));
  out += fmt::format("  weights         {} as released ({} dense, {} experts)\n",
                     format(m.weight_bytes(m.native_weight_dtype, m.native_expert_dtype)), name(m.native_weight_dtype),
                     name(m.native_expert_dtype));
  if (entry != nullptr) {
    const PublishedParams& p = entry->published;
    out += fmt::format("  published       {} total{}  [{}]\n", params_text(p.total),
                       p.active > 0 ? ", " + params_text(p.active) + " active" : std::string(), p.source);
  }
  return out;
}

}  // namespace llmecon
