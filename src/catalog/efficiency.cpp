// Efficiency defaults per hardware family (data/efficiency.toml; docs/model.md §18), loaded
// beside the chip catalog.
#include <algorithm>

#include "llmecon/embedded.hpp"
#include "llmecon/hardware.hpp"
#include "llmecon/toml_reader.hpp"

namespace llmecon {

Result<std::vector<FamilyEfficiency>> parse_efficiency_toml(std::string_view text, const std::string& origin) {
  TRY(root, TomlReader::parse(text, origin));
  const TomlReader rd(root, origin);
  TRY_STATUS(rd.only_keys(root, "", {"family"}));
  TRY(families, rd.tables(root, "", "family", true));
  std::vector<FamilyEfficiency> out;
  for (const toml::table* t : families) {
    FamilyEfficiency fe;
    TRY(name, rd.str(*t, "family", "name", true));
    fe.family = name;
    const std::string path = "family[" + name + "]";
    TRY_STATUS(rd.only_keys(
        *t, path,
        {"name", "chips", "compute", "gemm_half_m", "memory", "comm", "step_overhead", "layer_overhead", "source"}));
    TRY(chips, rd.strings(*t, path, "chips", true, "chips = [\"h100-sxm\", ...]"));
    fe.chips = chips;
    for (const auto& [key, dst] : {std::pair<const char*, double*>{"compute", &fe.eff.compute},
                                   {"memory", &fe.eff.memory},
                                   {"comm", &fe.eff.comm}}) {
      TRY(v, rd.number(*t, path, key, true, 1e-6, 1.0));
      *dst = *v;
    }
    TRY(half, rd.number(*t, path, "gemm_half_m", false, 0.0, 1e9));
    fe.eff.gemm_half_m = half.value_or(0.0);
    TRY(so, rd.quantity<Seconds>(*t, path, "step_overhead", false));
    TRY(lo, rd.quantity<Seconds>(*t, path, "layer_overhead", false));
    fe.eff.step_overhead = so.value_or(Seconds{});
    fe.eff.layer_overhead = lo.value_or(Seconds{});
    TRY(src, rd.str(*t, path, "source", true));
    if (src.empty()) return Error{origin, path + ".source", "every default cites its source", ""};
    fe.source = src;
    out.push_back(std::move(fe));
  }
  return out;
}

Result<std::vector<FamilyEfficiency>> builtin_efficiency() {
  std::vector<FamilyEfficiency> out;
  for (const auto& f : embedded_efficiency()) {
    TRY(fams, parse_efficiency_toml(f.content, "builtin:" + std::string(f.path)));
    for (auto& fe : fams) out.push_back(std::move(fe));
  }
  return out;
}

Efficiency efficiency_for(const Hardware& hw, const std::vector<FamilyEfficiency>& families, std::string* source) {
  if (hw.efficiency) {
    if (source != nullptr) *source = hw.efficiency_source;
    return *hw.efficiency;
  }
  for (const auto& f : families) {
    if (std::find(f.chips.begin(), f.chips.end(), hw.name) != f.chips.end()) {
      if (source != nullptr) *source = f.family + ": " + f.source;
      return f.eff;
    }
  }
  if (source != nullptr) *source = "ideal (no family default)";
  return Efficiency{};
}

}  // namespace llmecon
