// Efficiency defaults per hardware family (data/efficiency.toml; docs/model.md §18), loaded
// beside the chip catalog.
#include <algorithm>

#include "catalog/hardware.hpp"
#include "catalog/toml_reader.hpp"
#include "efficiency_fields.hpp"
#include "units/embedded.hpp"

namespace llmecon {

const std::vector<EfficiencyField>& efficiency_fields() {
  using K = EfficiencyField::Kind;
  // Fractions of peak lie in (0, 1]; counts and sizes within what a chip can be (model.md §18.3).
  auto number = [](const char* key, double Efficiency::*field, double lo, double hi) {
    return EfficiencyField{key, K::kNumber, field, nullptr, nullptr, lo, hi, "", ""};
  };
  auto bytes = [](const char* key, Bytes Efficiency::*field, const char* hint) {
    return EfficiencyField{key, K::kBytes, nullptr, field, nullptr, 0, 1e12, "at most 1 TB", hint};
  };
  auto seconds = [](const char* key, Seconds Efficiency::*field, const char* hint) {
    return EfficiencyField{key, K::kSeconds, nullptr, nullptr, field, 0, 10, "at most 10 s", hint};
  };
  static const std::vector<EfficiencyField> fields{
      number("compute", &Efficiency::compute, 1e-3, 1.0),
      number("tile_m", &Efficiency::tile_m, 0, 4096),
      number("tile_n", &Efficiency::tile_n, 0, 4096),
      number("compute_units", &Efficiency::compute_units, 0, 1e6),
      number("k_half", &Efficiency::k_half, 0, 65536),
      number("memory", &Efficiency::memory, 1e-3, 1.0),
      bytes("memory_half", &Efficiency::memory_half, "e.g. \"2 MB\""),
      number("comm", &Efficiency::comm, 1e-3, 1.0),
      seconds("step_overhead", &Efficiency::step_overhead, "e.g. \"50 us\""),
      seconds("kernel_overhead", &Efficiency::kernel_overhead, "e.g. \"50 us\""),
      number("layer_kernels", &Efficiency::layer_kernels, 0, 1000),
      bytes("kv_half", &Efficiency::kv_half, "e.g. \"50 MB\""),
      number("narrow_speedup", &Efficiency::narrow_speedup, 0.25, 1.0),
      number("attn_compute", &Efficiency::attn_compute, 1e-3, 1.0),
      number("attn_half", &Efficiency::attn_half, 0, 1e7),
      number("attn_compute_fa2", &Efficiency::attn_compute_fa2, 1e-3, 1.0)};
  return fields;
}

double EfficiencyField::si(const Efficiency& e) const {
  switch (kind) {
    case Kind::kBytes:
      return (e.*bytes).si();
    case Kind::kSeconds:
      return (e.*seconds).si();
    case Kind::kNumber:
      break;
  }
  return e.*number;
}

void EfficiencyField::copy(Efficiency& to, const Efficiency& from) const {
  switch (kind) {
    case Kind::kBytes:
      to.*bytes = from.*bytes;
      return;
    case Kind::kSeconds:
      to.*seconds = from.*seconds;
      return;
    case Kind::kNumber:
      to.*number = from.*number;
      return;
  }
}

std::string EfficiencyField::json_key() const {
  switch (kind) {
    case Kind::kBytes:
      return std::string(key) + "_bytes";
    case Kind::kSeconds:
      return std::string(key) + "_s";
    case Kind::kNumber:
      break;
  }
  return key;
}

bool Efficiency::ideal() const {
  static const Efficiency pure{};
  if (rows_n != 0) return false;
  return std::all_of(efficiency_fields().begin(), efficiency_fields().end(),
                     [this](const EfficiencyField& f) { return f.si(*this) == f.si(pure); });
}

const std::vector<std::string>& efficiency_keys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> k;
    for (const EfficiencyField& f : efficiency_fields()) k.emplace_back(f.key);
    k.emplace_back("rows");
    k.emplace_back("rows_compute");
    return k;
  }();
  return keys;
}

Status read_efficiency_fields(const TomlReader& rd, const toml::table& t, const std::string& path, Efficiency& e,
                              std::vector<std::string>& present) {
  for (const EfficiencyField& f : efficiency_fields()) {
    if (f.kind == EfficiencyField::Kind::kNumber) {
      TRY(v, rd.number(t, path, f.key, false, f.lo, f.hi));
      if (!v) continue;
      e.*f.number = *v;
    } else {
      Efficiency read;
      if (f.kind == EfficiencyField::Kind::kBytes) {
        TRY(v, rd.quantity<Bytes>(t, path, f.key, false));
        if (!v) continue;
        read.*f.bytes = *v;
      } else {
        TRY(v, rd.quantity<Seconds>(t, path, f.key, false));
        if (!v) continue;
        read.*f.seconds = *v;
      }
      if (f.si(read) > f.hi) return Error{rd.origin(), path + "." + f.key, f.limit, f.hint};
      f.copy(e, read);
    }
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
  if (key == "rows" || key == "rows_compute") {
    to.rows_m = from.rows_m;
    to.rows_compute = from.rows_compute;
    to.rows_n = from.rows_n;
  }
  for (const EfficiencyField& f : efficiency_fields())
    if (key == f.key) f.copy(to, from);
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
