// Efficiency defaults per hardware family (data/efficiency.toml; docs/model.md §18), loaded
// beside the chip catalog.
#include <algorithm>
#include <type_traits>

#include "efficiency_fields.hpp"
#include "llmecon/embedded.hpp"
#include "llmecon/hardware.hpp"
#include "llmecon/toml_reader.hpp"

namespace llmecon {

const std::vector<std::string>& efficiency_keys() {
  static const std::vector<std::string> keys{
      "compute",      "tile_m",  "tile_n",         "compute_units",   "k_half",        "memory",
      "memory_half",  "comm",    "step_overhead",  "kernel_overhead", "layer_kernels", "rows",
      "rows_compute", "kv_half", "narrow_speedup", "attn_compute",    "attn_half"};
  return keys;
}

Status read_efficiency_fields(const TomlReader& rd, const toml::table& t, const std::string& path, Efficiency& e,
                              std::vector<std::string>& present) {
  // Fractions of peak lie in (0, 1]; counts and sizes within what a chip can be (model.md §18.3).
  struct Number {
    const char* key;
    double* field;
    double lo, hi;
  };
  for (const Number& f :
       {Number{"compute", &e.compute, 1e-3, 1.0}, Number{"memory", &e.memory, 1e-3, 1.0},
        Number{"comm", &e.comm, 1e-3, 1.0}, Number{"tile_m", &e.tile_m, 0, 4096}, Number{"tile_n", &e.tile_n, 0, 4096},
        Number{"compute_units", &e.compute_units, 0, 1e6}, Number{"k_half", &e.k_half, 0, 65536},
        Number{"layer_kernels", &e.layer_kernels, 0, 1000}, Number{"narrow_speedup", &e.narrow_speedup, 0.25, 1.0},
        Number{"attn_compute", &e.attn_compute, 1e-3, 1.0}, Number{"attn_half", &e.attn_half, 0, 1e7}}) {
    TRY(v, rd.number(t, path, f.key, false, f.lo, f.hi));
    if (!v) continue;
    *f.field = *v;
    present.emplace_back(f.key);
  }
  // A measured small-row GEMM curve: row counts ascending, each with its fraction of peak.
  TRY(rows, rd.numbers(t, path, "rows", 1, 1e6));
  TRY(fractions, rd.numbers(t, path, "rows_compute", 1e-6, 1.0));
  if (rows.size() != fractions.size()) {
    return Error{rd.origin(), path + ".rows_compute", "needs one fraction per entry of rows",
                 "rows = [2, 4, 8], rows_compute = [0.07, 0.1, 0.2]"};
  }
  if (rows.size() > static_cast<std::size_t>(Efficiency::kRowPoints)) {
    return Error{rd.origin(), path + ".rows", "at most " + std::to_string(Efficiency::kRowPoints) + " points", ""};
  }
  for (std::size_t i = 1; i < rows.size(); ++i) {
    if (rows[i] <= rows[i - 1]) return Error{rd.origin(), path + ".rows", "row counts must ascend", "e.g. [2, 4, 8]"};
  }
  if (!rows.empty()) {
    e.rows_n = static_cast<int>(rows.size());
    std::copy(rows.begin(), rows.end(), e.rows_m.begin());
    std::copy(fractions.begin(), fractions.end(), e.rows_compute.begin());
    present.emplace_back("rows");
    present.emplace_back("rows_compute");
  }
  // Sizes and fixed costs: a quantity with its unit, at most `most` (written as `hint`).
  auto bounded = [&](const char* key, auto* field, double most, const char* limit, const char* hint) -> Status {
    using Q = std::remove_pointer_t<decltype(field)>;
    TRY(v, rd.quantity<Q>(t, path, key, false));
    if (!v) return {};
    if (v->si() > most) return Error{rd.origin(), path + "." + key, limit, hint};
    *field = *v;
    present.emplace_back(key);
    return {};
  };
  TRY_STATUS(bounded("memory_half", &e.memory_half, 1e12, "at most 1 TB", "e.g. \"2 MB\""));
  TRY_STATUS(bounded("kv_half", &e.kv_half, 1e12, "at most 1 TB", "e.g. \"50 MB\""));
  TRY_STATUS(bounded("step_overhead", &e.step_overhead, 10, "at most 10 s", "e.g. \"50 us\""));
  TRY_STATUS(bounded("kernel_overhead", &e.kernel_overhead, 10, "at most 10 s", "e.g. \"50 us\""));
  return {};
}

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
    std::vector<std::string> allowed{"name", "chips", "source", "fitted"};
    allowed.insert(allowed.end(), efficiency_keys().begin(), efficiency_keys().end());
    TRY_STATUS(rd.only_keys(*t, path, allowed));
    TRY(chips, rd.strings(*t, path, "chips", true, "chips = [\"h100-sxm\", ...]"));
    fe.chips = chips;
    std::vector<std::string> present;
    TRY_STATUS(read_efficiency_fields(rd, *t, path, fe.eff, present));
    for (const char* key : {"compute", "memory", "comm"}) {
      if (std::find(present.begin(), present.end(), key) == present.end()) {
        return Error{origin, path + "." + key, "missing required field", "a fraction of peak in (0, 1]"};
      }
    }
    TRY(fitted, rd.strings(*t, path, "fitted", false, "fitted = [\"step_overhead\", ...]"));
    for (const auto& f : fitted) {
      if (std::find(present.begin(), present.end(), f) == present.end()) {
        return Error{origin, path + ".fitted", "'" + f + "' is not a parameter this family sets",
                     "name parameters of this table"};
      }
    }
    fe.fitted = fitted;
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

namespace {
// Copies the field named `key` from `from` into `to`.
void copy_field(Efficiency& to, const Efficiency& from, const std::string& key) {
  if (key == "compute") to.compute = from.compute;
  if (key == "tile_m") to.tile_m = from.tile_m;
  if (key == "tile_n") to.tile_n = from.tile_n;
  if (key == "compute_units") to.compute_units = from.compute_units;
  if (key == "k_half") to.k_half = from.k_half;
  if (key == "narrow_speedup") to.narrow_speedup = from.narrow_speedup;
  if (key == "attn_compute") to.attn_compute = from.attn_compute;
  if (key == "attn_half") to.attn_half = from.attn_half;
  if (key == "rows" || key == "rows_compute") {
    to.rows_m = from.rows_m;
    to.rows_compute = from.rows_compute;
    to.rows_n = from.rows_n;
  }
  if (key == "memory") to.memory = from.memory;
  if (key == "memory_half") to.memory_half = from.memory_half;
  if (key == "kv_half") to.kv_half = from.kv_half;
  if (key == "comm") to.comm = from.comm;
  if (key == "step_overhead") to.step_overhead = from.step_overhead;
  if (key == "kernel_overhead") to.kernel_overhead = from.kernel_overhead;
  if (key == "layer_kernels") to.layer_kernels = from.layer_kernels;
}
}  // namespace

const FamilyEfficiency* family_of(const Hardware& hw, const std::vector<FamilyEfficiency>& families) {
  for (const auto& f : families) {
    if (std::find(f.chips.begin(), f.chips.end(), hw.name) != f.chips.end()) return &f;
  }
  return nullptr;
}

Efficiency efficiency_for(const Hardware& hw, const std::vector<FamilyEfficiency>& families, std::string* source) {
  Efficiency e;
  std::string from = "ideal (no family default)";
  if (const FamilyEfficiency* f = family_of(hw, families)) {
    e = f->eff;
    from = f->family + ": " + f->source;
  }
  if (hw.efficiency) {
    for (const auto& key : hw.efficiency_keys) copy_field(e, *hw.efficiency, key);
    from = hw.efficiency_source.empty() ? "the chip's [efficiency] table, over " + from
                                        : hw.efficiency_source + " (over " + from + ")";
  }
  if (source != nullptr) *source = from;
  return e;
}

}  // namespace llmecon
