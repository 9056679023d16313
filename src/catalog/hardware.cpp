// Hardware TOML parsing (docs/model.md §1, hardware fields). Strict: unknown keys and
// unit-less values are errors that carry file:line and a hint.
#include "llmecon/hardware.hpp"

#include <algorithm>
#include <set>
#include <sstream>

#define TOML_EXCEPTIONS 1
#include <toml++/toml.h>

#include "llmecon/embedded.hpp"
#include "llmecon/units_parse.hpp"

namespace llmecon {

std::string_view name(Topology t) {
  switch (t) {
    case Topology::kSwitch:
      return "switch";
    case Topology::kTorus:
      return "torus";
    case Topology::kMesh:
      return "mesh";
    case Topology::kNone:
      return "none";
  }
  return "?";
}

FlopsPerSecond Hardware::peak(DType d) const {
  return compute[static_cast<std::size_t>(effective_compute_dtype(d))]->value;
}

DType Hardware::effective_compute_dtype(DType d) const {
  // Walk from d towards wider formats until a rate exists. int formats fall back to the float
  // format of the same width first.
  auto idx = static_cast<std::size_t>(d);
  if (compute[idx]) return d;
  if (d == DType::kInt4 && compute[static_cast<std::size_t>(DType::kFp4)]) return DType::kFp4;
  if (d == DType::kInt4 || d == DType::kFp4) {
    if (compute[static_cast<std::size_t>(DType::kFp8)]) return DType::kFp8;
    if (compute[static_cast<std::size_t>(DType::kInt8)]) return DType::kInt8;
  }
  if (d == DType::kInt8 && compute[static_cast<std::size_t>(DType::kFp8)]) return DType::kFp8;
  for (std::size_t i = std::min<std::size_t>(idx, static_cast<std::size_t>(DType::kFp8)) + 1; i-- > 0;) {
    if (compute[i]) return static_cast<DType>(i);
  }
  return DType::kBf16;  // parse guarantees bf16 exists
}

const HostTier* Hardware::tier(std::string_view tier_name) const {
  for (const auto& t : host_tiers) {
    if (t.name == tier_name) return &t;
  }
  return nullptr;
}

namespace {

std::string line_of(const toml::node& n, const std::string& origin) {
  const auto& src = n.source();
  if (src.begin.line == 0) return origin;
  return origin + ":" + std::to_string(src.begin.line);
}

class Reader {
 public:
  Reader(const toml::table& root, std::string origin) : root_(root), origin_(std::move(origin)) {}

  // Rejects keys of `t` (at path `path`) not in `allowed`.
  Status only_keys(const toml::table& t, const std::string& path,
                   std::initializer_list<std::string_view> allowed) const {
    for (const auto& [k, v] : t) {
      const std::string_view key = k.str();
      bool ok = std::find(allowed.begin(), allowed.end(), key) != allowed.end();
      if (!ok) {
        std::string list;
        for (auto a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
        return Error{line_of(v, origin_), join(path, key), "unknown key", "allowed keys: " + list};
      }
    }
    return {};
  }

  static std::string join(const std::string& path, std::string_view key) {
    return path.empty() ? std::string(key) : path + "." + std::string(key);
  }

  Result<std::string> str(const toml::table& t, const std::string& path, std::string_view key, bool required) const {
    const toml::node* n = t.get(key);
    if (n == nullptr) {
      if (!required) return std::string();
      return Error{origin_, join(path, key), "missing required field", "add " + std::string(key) + " = \"...\""};
    }
    if (auto s = n->value<std::string>()) return *s;
    return Error{line_of(*n, origin_), join(path, key), "expected a string", ""};
  }

  Result<long long> integer(const toml::table& t, const std::string& path, std::string_view key) const {
    const toml::node* n = t.get(key);
    if (n == nullptr) return Error{origin_, join(path, key), "missing required field", "add an integer"};
    if (auto v = n->value_exact<int64_t>()) return static_cast<long long>(*v);
    return Error{line_of(*n, origin_), join(path, key), "expected an integer", ""};
  }

  template <class Q>
  Result<std::optional<Q>> quantity(const toml::table& t, const std::string& path, std::string_view key,
                                    bool required) const {
    const toml::node* n = t.get(key);
    if (n == nullptr) {
      if (!required) return std::optional<Q>{};
      return Error{origin_, join(path, key), "missing required field",
                   "add " + std::string(key) + " = \"<value> <unit>\" with a unit like " + example_units(Q::kDim)};
    }
    auto s = n->value<std::string>();
    if (!s) {
      return Error{line_of(*n, origin_), join(path, key), "expected a quoted value with a unit",
                   "write it as a string, e.g. \"3.35 TB/s\"; units: " + example_units(Q::kDim)};
    }
    auto q = parse_quantity<Q>(*s);
    if (!q) {
      Error e = q.error();
      e.where = line_of(*n, origin_);
      e.field = join(path, key);
      return e;
    }
    if (q->si() < 0.0) {
      return Error{line_of(*n, origin_), join(path, key), "must not be negative", ""};
    }
    return std::optional<Q>(*q);
  }

  // key and key_range = ["lo", "hi"].
  template <class Q>
  Result<std::optional<Ranged<Q>>> ranged(const toml::table& t, const std::string& path, std::string_view key,
                                          bool required) const {
    auto v = quantity<Q>(t, path, key, required);
    if (!v) return v.error();
    if (!v->has_value()) return std::optional<Ranged<Q>>{};
    Ranged<Q> r;
    r.value = **v;
    const std::string rkey = std::string(key) + "_range";
    if (const toml::node* n = t.get(rkey)) {
      const toml::array* arr = n->as_array();
      if (arr == nullptr || arr->size() != 2) {
        return Error{line_of(*n, origin_), join(path, rkey), "expected a two-element array",
                     "write " + rkey + " = [\"<low> <unit>\", \"<high> <unit>\"]"};
      }
      Q ends[2];
      for (std::size_t i = 0; i < 2; ++i) {
        auto s = (*arr)[i].value<std::string>();
        if (!s) return Error{line_of(*n, origin_), join(path, rkey), "expected strings with units", ""};
        auto q = parse_quantity<Q>(*s);
        if (!q) return q.error().at(line_of(*n, origin_)).in_field(join(path, rkey));
        ends[i] = *q;
      }
      if (!(ends[0] <= r.value && r.value <= ends[1])) {
        return Error{line_of(*n, origin_), join(path, rkey),
                     "the default " + std::string(key) + " lies outside its range",
                     "order the range [low, high] and keep the default inside it"};
      }
      r.lo = ends[0];
      r.hi = ends[1];
    }
    return std::optional<Ranged<Q>>(r);
  }

  const toml::table* table(const toml::table& t, std::string_view key) const {
    const toml::node* n = t.get(key);
    return n ? n->as_table() : nullptr;
  }

  const std::string& origin() const { return origin_; }
  const toml::table& root() const { return root_; }

 private:
  const toml::table& root_;
  std::string origin_;
};

// [efficiency]: fractions in (0, 1], gemm_half_m >= 0 rows, overheads as times.
Result<std::pair<Efficiency, std::string>> read_efficiency(const Reader& rd, const toml::table& t) {
  TRY_STATUS(rd.only_keys(t, "efficiency",
                          {"compute", "gemm_half_m", "memory", "comm", "step_overhead", "layer_overhead", "source"}));
  Efficiency e;
  for (const auto& [key, field] : {std::pair<const char*, double*>{"compute", &e.compute},
                                   {"memory", &e.memory},
                                   {"comm", &e.comm},
                                   {"gemm_half_m", &e.gemm_half_m}}) {
    if (const toml::node* n = t.get(key)) {
      auto v = n->value<double>();
      const bool fraction = std::string(key) != "gemm_half_m";
      if (!v || *v < 0 || (fraction && (*v <= 0 || *v > 1))) {
        return Error{line_of(*n, rd.origin()), std::string("efficiency.") + key,
                     fraction ? "expected a fraction in (0, 1]" : "expected a number of rows >= 0", ""};
      }
      *field = *v;
    }
  }
  TRY(so, rd.quantity<Seconds>(t, "efficiency", "step_overhead", false));
  TRY(lo, rd.quantity<Seconds>(t, "efficiency", "layer_overhead", false));
  e.step_overhead = so.value_or(Seconds{});
  e.layer_overhead = lo.value_or(Seconds{});
  TRY(src, rd.str(t, "efficiency", "source", false));
  return std::make_pair(e, src);
}

Result<Hardware> build(const Reader& rd) {
  const toml::table& root = rd.root();
  Hardware h;
  h.origin = rd.origin();
  TRY_STATUS(rd.only_keys(root, "",
                          {"name", "display_name", "vendor", "year", "status", "sources", "notes", "compute", "memory",
                           "scale_up", "scale_out", "host_tiers", "power", "price", "efficiency"}));
  TRY(nm, rd.str(root, "", "name", true));
  if (nm.empty()) return Error{rd.origin(), "name", "must not be empty", ""};
  h.name = nm;
  TRY(dn, rd.str(root, "", "display_name", false));
  h.display_name = dn.empty() ? nm : dn;
  TRY(vendor, rd.str(root, "", "vendor", false));
  h.vendor = vendor;
  if (root.get("year")) {
    TRY(year, rd.integer(root, "", "year"));
    h.year = static_cast<int>(year);
  }
  TRY(status, rd.str(root, "", "status", false));
  h.status = status.empty() ? "shipping" : status;
  TRY(notes, rd.str(root, "", "notes", false));
  h.notes = notes;
  if (const toml::node* s = root.get("sources")) {
    const toml::array* arr = s->as_array();
    if (arr == nullptr) return Error{line_of(*s, rd.origin()), "sources", "expected an array of URLs", ""};
    for (const auto& e : *arr) {
      auto v = e.value<std::string>();
      if (!v) return Error{line_of(*s, rd.origin()), "sources", "expected strings", ""};
      h.sources.push_back(*v);
    }
  } else {
    return Error{rd.origin(), "sources", "missing required field",
                 "every catalog entry cites its sources: sources = [\"https://...\"]"};
  }

  // [compute]
  const toml::table* compute = rd.table(root, "compute");
  if (compute == nullptr)
    return Error{rd.origin(), "compute", "missing table", "add [compute] with bf16 = \"... TFLOP/s\""};
  {
    std::vector<std::string_view> allowed;
    TRY_STATUS(rd.only_keys(*compute, "compute",
                            {"fp32", "bf16", "fp8", "int8", "fp4", "int4", "fp32_range", "bf16_range", "fp8_range",
                             "int8_range", "fp4_range", "int4_range"}));
    for (std::size_t i = 0; i < kDTypeCount; ++i) {
      TRY(r, rd.ranged<FlopsPerSecond>(*compute, "compute", kDTypeNames[i], false));
      h.compute[i] = r;
    }
    if (!h.compute[static_cast<std::size_t>(DType::kBf16)]) {
      return Error{rd.origin(), "compute.bf16", "missing required field", "every chip needs a bf16 rate"};
    }
  }

  // [memory]
  const toml::table* mem = rd.table(root, "memory");
  if (mem == nullptr)
    return Error{rd.origin(), "memory", "missing table", "add [memory] with hbm_capacity and hbm_bandwidth"};
  {
    TRY_STATUS(rd.only_keys(*mem, "memory",
                            {"hbm_capacity", "hbm_bandwidth", "hbm_capacity_range", "hbm_bandwidth_range", "sram"}));
    TRY(cap, rd.ranged<Bytes>(*mem, "memory", "hbm_capacity", true));
    TRY(bw, rd.ranged<BytesPerSecond>(*mem, "memory", "hbm_bandwidth", true));
    h.hbm_capacity = *cap;
    h.hbm_bandwidth = *bw;
    if (h.hbm_capacity.value.si() <= 0 || h.hbm_bandwidth.value.si() <= 0) {
      return Error{rd.origin(), "memory", "HBM capacity and bandwidth must be positive", ""};
    }
    TRY(sram, rd.quantity<Bytes>(*mem, "memory", "sram", false));
    h.sram = sram;
  }

  // [scale_up], [scale_out]
  const toml::table* up = rd.table(root, "scale_up");
  if (up == nullptr)
    return Error{rd.origin(), "scale_up", "missing table", "add [scale_up] with domain_size, topology, bandwidth"};
  {
    TRY_STATUS(rd.only_keys(*up, "scale_up", {"domain_size", "topology", "bandwidth", "latency"}));
    TRY(n, rd.integer(*up, "scale_up", "domain_size"));
    if (n < 1) return Error{rd.origin(), "scale_up.domain_size", "must be at least 1", ""};
    h.domain_size = static_cast<int>(n);
    TRY(topo, rd.str(*up, "scale_up", "topology", true));
    if (topo == "switch")
      h.topology = Topology::kSwitch;
    else if (topo == "torus")
      h.topology = Topology::kTorus;
    else if (topo == "mesh")
      h.topology = Topology::kMesh;
    else if (topo == "none")
      h.topology = Topology::kNone;
    else
      return Error{rd.origin(), "scale_up.topology", "unknown topology '" + topo + "'",
                   "use switch, torus, mesh or none"};
    TRY(bw, rd.quantity<BytesPerSecond>(*up, "scale_up", "bandwidth", true));
    h.scale_up.bandwidth = *bw;
    TRY(lat, rd.quantity<Seconds>(*up, "scale_up", "latency", false));
    h.scale_up.latency = lat.value_or(units::us(2));
  }
  if (const toml::table* out = rd.table(root, "scale_out")) {
    TRY_STATUS(rd.only_keys(*out, "scale_out", {"bandwidth", "latency"}));
    TRY(bw, rd.quantity<BytesPerSecond>(*out, "scale_out", "bandwidth", true));
    h.scale_out.bandwidth = *bw;
    TRY(lat, rd.quantity<Seconds>(*out, "scale_out", "latency", false));
    h.scale_out.latency = lat.value_or(units::us(5));
  } else {
    return Error{rd.origin(), "scale_out", "missing table", "add [scale_out] with bandwidth = \"400 Gb/s\""};
  }

  // [[host_tiers]]
  if (const toml::node* tiers = root.get("host_tiers")) {
    const toml::array* arr = tiers->as_array();
    if (arr == nullptr) return Error{line_of(*tiers, rd.origin()), "host_tiers", "expected [[host_tiers]] tables", ""};
    for (std::size_t i = 0; i < arr->size(); ++i) {
      const toml::table* t = (*arr)[i].as_table();
      const std::string path = "host_tiers[" + std::to_string(i) + "]";
      if (t == nullptr) return Error{rd.origin(), path, "expected a table", ""};
      TRY_STATUS(rd.only_keys(*t, path, {"name", "capacity", "bandwidth", "price", "source"}));
      HostTier tier;
      TRY(tn, rd.str(*t, path, "name", true));
      tier.name = tn;
      TRY(cap, rd.quantity<Bytes>(*t, path, "capacity", true));
      TRY(bw, rd.quantity<BytesPerSecond>(*t, path, "bandwidth", true));
      TRY(pr, rd.quantity<DollarsPerSecond>(*t, path, "price", true));
      TRY(src, rd.str(*t, path, "source", false));
      tier.capacity = *cap;
      tier.bandwidth = *bw;
      tier.price = *pr;
      tier.source = src;
      if (tier.capacity.si() <= 0 || tier.bandwidth.si() <= 0) {
        return Error{rd.origin(), path, "capacity and bandwidth must be positive", ""};
      }
      h.host_tiers.push_back(std::move(tier));
    }
  }

  if (const toml::table* power = rd.table(root, "power")) {
    TRY_STATUS(rd.only_keys(*power, "power", {"tdp"}));
    TRY(tdp, rd.quantity<Watts>(*power, "power", "tdp", false));
    h.tdp = tdp.value_or(Watts{});
  }

  const toml::table* price = rd.table(root, "price");
  if (price == nullptr) return Error{rd.origin(), "price", "missing table", "add [price] with rental = \"$2.00/h\""};
  {
    TRY_STATUS(rd.only_keys(*price, "price", {"rental", "rental_range", "source"}));
    TRY(r, rd.ranged<DollarsPerSecond>(*price, "price", "rental", true));
    h.price = *r;
    TRY(src, rd.str(*price, "price", "source", false));
    h.price_source = src;
  }
  if (const toml::table* eff = rd.table(root, "efficiency")) {
    TRY(e, read_efficiency(rd, *eff));
    h.efficiency = e.first;
    h.efficiency_source = e.second;
  }
  return h;
}

}  // namespace

Result<Hardware> parse_hardware_toml(std::string_view text, const std::string& origin) {
  try {
    toml::table root = toml::parse(text, origin);
    Reader rd(root, origin);
    return build(rd);
  } catch (const toml::parse_error& e) {
    std::ostringstream w;
    w << origin;
    if (e.source().begin.line > 0) w << ":" << e.source().begin.line;
    return Error{w.str(), "", "malformed TOML: " + std::string(e.description()),
                 "check quotes, brackets and '=' near that line"};
  }
}

Result<HardwareCatalog> HardwareCatalog::builtin() {
  HardwareCatalog cat;
  for (const auto& f : embedded_hardware()) {
    auto h = parse_hardware_toml(f.content, "builtin:" + std::string(f.path));
    if (!h) return h.error();
    cat.put(std::move(h).value());
  }
  std::sort(cat.chips_.begin(), cat.chips_.end(), [](const Hardware& a, const Hardware& b) { return a.name < b.name; });
  return cat;
}

Status HardwareCatalog::add_file(const std::string& path) {
  auto text = read_text_file(path, "check the path given to --hw-file");
  if (!text) return text.error();
  // An overlay (name plus [efficiency], as `llmecon calibrate` writes) updates a known chip.
  try {
    toml::table root = toml::parse(*text, std::string_view(path));
    if (root.contains("efficiency") && !root.contains("compute")) {
      const std::string name = root["name"].value_or(std::string());
      Hardware* h = nullptr;
      for (auto& c : chips_)
        if (c.name == name) h = &c;
      if (h == nullptr) {
        return Error{path, "name", "an efficiency overlay for unknown hardware '" + name + "'",
                     "overlays name a chip from `llmecon hardware`"};
      }
      for (const auto& [k, v] : root) {
        if (k.str() != "name" && k.str() != "efficiency") {
          return Error{path, std::string(k.str()), "unknown key in an efficiency overlay",
                       "an overlay holds name and [efficiency]"};
        }
      }
      Reader rd(root, path);
      auto e = read_efficiency(rd, *root["efficiency"].as_table());
      if (!e) return e.error();
      h->efficiency = e->first;
      h->efficiency_source = e->second.empty() ? path : e->second;
      return {};
    }
  } catch (const toml::parse_error&) {
    // fall through: parse_hardware_toml reports the location
  }
  auto h = parse_hardware_toml(*text, path);
  if (!h) return h.error();
  put(std::move(h).value());
  return {};
}

void HardwareCatalog::put(Hardware h) {
  for (auto& c : chips_) {
    if (c.name == h.name) {
      c = std::move(h);
      return;
    }
  }
  chips_.push_back(std::move(h));
}

const Hardware* HardwareCatalog::find(std::string_view n) const {
  for (const auto& c : chips_) {
    if (c.name == n) return &c;
  }
  return nullptr;
}

Result<const Hardware*> HardwareCatalog::get(std::string_view n, const std::string& where) const {
  if (const Hardware* h = find(n)) return h;
  std::vector<std::string> names;
  for (const auto& c : chips_) names.push_back(c.name);
  return Error{where, "", "unknown hardware '" + std::string(n) + "'",
               "did you mean " + closest_names(n, names) + "? `llmecon hardware` lists all"};
}

}  // namespace llmecon
