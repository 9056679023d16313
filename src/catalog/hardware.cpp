// Hardware TOML parsing (docs/model.md §1, hardware fields). Strict: unknown keys and
// unit-less values are errors that carry file:line and a hint.
#include "catalog/hardware.hpp"

#include <algorithm>
#include <set>
#include <sstream>

#include "catalog/toml_reader.hpp"
#include "efficiency_fields.hpp"
#include "units/embedded.hpp"
#include "units/units_parse.hpp"

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

// [efficiency]: the fields it names replace the family's (model.md §18.3).
struct EfficiencyTable {
  Efficiency eff;
  std::vector<std::string> keys;
  std::string source;
};
Result<EfficiencyTable> read_efficiency(const TomlReader& rd, const toml::table& t) {
  std::vector<std::string> allowed{"source"};
  allowed.insert(allowed.end(), efficiency_keys().begin(), efficiency_keys().end());
  TRY_STATUS(rd.only_keys(t, "efficiency", allowed));
  EfficiencyTable out;
  TRY_STATUS(read_efficiency_fields(rd, t, "efficiency", out.eff, out.keys));
  TRY(src, rd.str(t, "efficiency", "source", false));
  out.source = src;
  return out;
}

// [price]: the rental rate (and its range) with its source.
Result<std::pair<Ranged<DollarsPerSecond>, std::string>> read_price(const TomlReader& rd, const toml::table& t) {
  TRY_STATUS(rd.only_keys(t, "price", {"rental", "rental_range", "source"}));
  TRY(r, rd.ranged<DollarsPerSecond>(t, "price", "rental", true));
  if (r->value.si() <= 0) return Error{rd.origin(), "price.rental", "must be positive", "e.g. rental = \"$2.00/h\""};
  TRY(src, rd.str(t, "price", "source", false));
  return std::make_pair(*r, src);
}

// The physical range of a chip's figures (model.md §1): anything outside is a typo or a unit slip,
// reported with the field instead of printing meaningless numbers.
Status check_sane(const Hardware& h, const std::string& origin) {
  auto within = [&origin](double v, double lo, double hi, const std::string& field,
                          const std::string& range) -> Status {
    if (v >= lo && v <= hi) return {};
    return Error{origin, field, "out of the physical range " + range + ", got " + format_number(v), "check the unit"};
  };
  for (std::size_t i = 0; i < kDTypeCount; ++i) {
    if (!h.compute[i]) continue;
    TRY_STATUS(within(h.compute[i]->value.si(), 1e9, 1e19, "compute." + std::string(kDTypeNames[i]),
                      "1 GFLOP/s .. 10 EFLOP/s"));
  }
  if (h.exp_rate) TRY_STATUS(within(h.exp_rate->si(), 1e9, 1e16, "compute.exp", "1 GFLOP/s .. 10 PFLOP/s"));
  TRY_STATUS(within(h.hbm_bandwidth.value.si(), 1e6, 1e16, "memory.hbm_bandwidth", "1 MB/s .. 10 PB/s"));
  TRY_STATUS(within(h.hbm_capacity.value.si(), 1e6, 1e15, "memory.hbm_capacity", "1 MB .. 1 PB"));
  TRY_STATUS(within(h.scale_up.bandwidth.si(), 1e6, 1e16, "scale_up.bandwidth", "1 MB/s .. 10 PB/s"));
  TRY_STATUS(within(h.scale_out.bandwidth.si(), 1e5, 1e16, "scale_out.bandwidth", "100 kB/s .. 10 PB/s"));
  TRY_STATUS(within(h.price.value.si() * 3600, 1e-6, 1e6, "price.rental", "$0.000001/h .. $1M/h"));
  return {};
}

// The entry's name, vendor, year, status, notes and sources.
Status read_identity(const TomlReader& rd, Hardware& h) {
  const toml::table& root = rd.root();
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

  return {};
}

// [compute]: a rate per format (with its range) and the exponential units'; [memory]: HBM and SRAM.
Status read_compute_memory(const TomlReader& rd, Hardware& h) {
  const toml::table& root = rd.root();
  // [compute]
  TRY(compute, rd.table(root, "", "compute"));
  if (compute == nullptr)
    return Error{rd.origin(), "compute", "missing table", "add [compute] with bf16 = \"... TFLOP/s\""};
  {
    TRY_STATUS(rd.only_keys(*compute, "compute",
                            {"fp32", "bf16", "fp8", "int8", "fp4", "int4", "fp32_range", "bf16_range", "fp8_range",
                             "int8_range", "fp4_range", "int4_range", "exp"}));
    for (std::size_t i = 0; i < kDTypeCount; ++i) {
      TRY(r, rd.ranged<FlopsPerSecond>(*compute, "compute", kDTypeNames[i], false));
      h.compute[i] = r;
    }
    if (!h.compute[static_cast<std::size_t>(DType::kBf16)]) {
      return Error{rd.origin(), "compute.bf16", "missing required field", "every chip needs a bf16 rate"};
    }
    TRY(exp, rd.quantity<FlopsPerSecond>(*compute, "compute", "exp", false));
    h.exp_rate = exp;
  }

  // [memory]
  TRY(mem, rd.table(root, "", "memory"));
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

  return {};
}

// [scale_out.measured]: a cluster's collective bus bandwidths by node count, each list as long as
// `nodes` (ascending whole numbers), at least one collective given.
Status read_measured_collectives(const TomlReader& rd, const toml::table& out, Hardware& h) {
  TRY(t, rd.table(out, "scale_out", "measured"));
  if (t == nullptr) return {};
  const std::string path = "scale_out.measured";
  TRY_STATUS(rd.only_keys(*t, path, {"nodes", "all_reduce", "all_gather", "reduce_scatter", "message", "source"}));
  MeasuredCollectives m;
  TRY(nodes, rd.numbers(*t, path, "nodes", 1, 1e6));
  if (nodes.empty() || !std::is_sorted(nodes.begin(), nodes.end()) ||
      std::adjacent_find(nodes.begin(), nodes.end()) != nodes.end() ||
      std::any_of(nodes.begin(), nodes.end(), [](double n) { return n != std::floor(n); })) {
    return Error{rd.origin(), path + ".nodes", "expected ascending whole node counts", "nodes = [1, 2, 4, 8]"};
  }
  m.nodes = nodes;
  auto list = [&](const char* key, std::vector<BytesPerSecond>& into) -> Status {
    const toml::node* n = t->get(key);
    if (n == nullptr) return {};
    const toml::array* arr = n->as_array();
    if (arr == nullptr || arr->size() != m.nodes.size()) {
      return Error{rd.origin(), path + "." + key, "expected one bandwidth per node count",
                   std::to_string(m.nodes.size()) + " strings such as \"99.6 GB/s\""};
    }
    for (const auto& e : *arr) {
      const auto s = e.value<std::string>();
      if (!s) return Error{rd.origin(), path + "." + key, "expected strings with units", "\"99.6 GB/s\""};
      auto q = parse_quantity<BytesPerSecond>(*s);
      if (!q || !(q->si() > 0))
        return Error{rd.origin(), path + "." + key, "bad bandwidth '" + *s + "'", "\"99.6 GB/s\""};
      into.push_back(*q);
    }
    return {};
  };
  TRY_STATUS(list("all_reduce", m.all_reduce));
  TRY_STATUS(list("all_gather", m.all_gather));
  TRY_STATUS(list("reduce_scatter", m.reduce_scatter));
  if (m.all_reduce.empty() && m.all_gather.empty() && m.reduce_scatter.empty()) {
    return Error{rd.origin(), path, "no collective measured", "all_reduce, all_gather or reduce_scatter"};
  }
  TRY(msg, rd.quantity<Bytes>(*t, path, "message", true));
  m.message = *msg;
  TRY(src, rd.str(*t, path, "source", true));
  m.source = src;
  h.scale_out_measured = std::move(m);
  return {};
}

// [scale_up] and [scale_out]: the domain, its topology and both links.
Status read_fabric(const TomlReader& rd, Hardware& h) {
  const toml::table& root = rd.root();
  // [scale_up], [scale_out]
  TRY(up, rd.table(root, "", "scale_up"));
  if (up == nullptr)
    return Error{rd.origin(), "scale_up", "missing table", "add [scale_up] with domain_size, topology, bandwidth"};
  {
    TRY_STATUS(rd.only_keys(*up, "scale_up", {"domain_size", "topology", "bandwidth", "latency", "chips_per_node"}));
    TRY(n, rd.integer(*up, "scale_up", "domain_size"));
    if (n < 1 || n > 1000000) {
      return Error{rd.origin(), "scale_up.domain_size", "must lie in [1, 10^6], got " + std::to_string(n),
                   "chips in one scale-up domain (8, 72, 576, ...)"};
    }
    h.domain_size = static_cast<int>(n);
    if (up->contains("chips_per_node")) {
      TRY(per_node, rd.integer(*up, "scale_up", "chips_per_node"));
      if (per_node < 1 || per_node > n) {
        return Error{rd.origin(), "scale_up.chips_per_node",
                     "must lie in [1, domain_size], got " + std::to_string(per_node), "chips one host or tray holds"};
      }
      h.node_size = static_cast<int>(per_node);
    }
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
  TRY(out, rd.table(root, "", "scale_out"));
  if (out != nullptr) {
    TRY_STATUS(rd.only_keys(*out, "scale_out", {"bandwidth", "latency", "measured"}));
    TRY_STATUS(read_measured_collectives(rd, *out, h));
    TRY(bw, rd.quantity<BytesPerSecond>(*out, "scale_out", "bandwidth", true));
    h.scale_out.bandwidth = *bw;
    TRY(lat, rd.quantity<Seconds>(*out, "scale_out", "latency", false));
    h.scale_out.latency = lat.value_or(units::us(5));
  } else {
    return Error{rd.origin(), "scale_out", "missing table", "add [scale_out] with bandwidth = \"400 Gb/s\""};
  }

  return {};
}

// [[host_tiers]]: host memory and flash behind the chip, each with its capacity, bandwidth and price.
Status read_host_tiers(const TomlReader& rd, Hardware& h) {
  const toml::table& root = rd.root();
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

  return {};
}

Result<Hardware> build(const TomlReader& rd) {
  const toml::table& root = rd.root();
  Hardware h;
  h.origin = rd.origin();
  TRY_STATUS(rd.only_keys(root, "",
                          {"name", "display_name", "vendor", "year", "status", "sources", "notes", "compute", "memory",
                           "scale_up", "scale_out", "host_tiers", "power", "price", "efficiency"}));
  TRY_STATUS(read_identity(rd, h));
  TRY_STATUS(read_compute_memory(rd, h));
  TRY_STATUS(read_fabric(rd, h));
  TRY_STATUS(read_host_tiers(rd, h));

  TRY(power, rd.table(root, "", "power"));
  if (power != nullptr) {
    TRY_STATUS(rd.only_keys(*power, "power", {"tdp"}));
    TRY(tdp, rd.quantity<Watts>(*power, "power", "tdp", false));
    h.tdp = tdp.value_or(Watts{});
  }

  TRY(price, rd.table(root, "", "price"));
  if (price == nullptr) return Error{rd.origin(), "price", "missing table", "add [price] with rental = \"$2.00/h\""};
  {
    TRY(p, read_price(rd, *price));
    h.price = p.first;
    h.price_source = p.second;
  }
  TRY(eff, rd.table(root, "", "efficiency"));
  if (eff != nullptr) {
    TRY(e, read_efficiency(rd, *eff));
    h.efficiency = e.eff;
    h.efficiency_keys = e.keys;
    h.efficiency_source = e.source;
  }
  TRY_STATUS(check_sane(h, rd.origin()));
  return h;
}

}  // namespace

Result<Hardware> parse_hardware_toml(std::string_view text, const std::string& origin) {
  TRY(root, TomlReader::parse(text, origin));
  return build(TomlReader(root, origin));
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
  TRY(text, read_text_file(path, "check the path given to --hw-file"));
  TRY(root, TomlReader::parse(text, path));
  // An overlay (a known chip's name with [efficiency], as `llmecon calibrate` writes, and/or
  // [price], a user's own $/hour) updates that chip; a file with [compute] is a whole chip.
  if (!root.contains("compute")) {
    const TomlReader rd(root, path);
    TRY_STATUS(rd.only_keys(root, "", {"name", "efficiency", "price"}));
    TRY(name, rd.str(root, "", "name", true));
    Hardware* h = nullptr;
    for (auto& c : chips_) {
      if (c.name == name) h = &c;
    }
    if (h == nullptr) {
      return Error{path, "name", "an overlay for unknown hardware '" + name + "'",
                   "overlays name a chip from `llmecon hardware`; a new chip needs [compute], [memory], ..."};
    }
    TRY(eff, rd.table(root, "", "efficiency"));
    TRY(price, rd.table(root, "", "price"));
    if (eff == nullptr && price == nullptr) {
      return Error{path, "", "an overlay holds [efficiency] or [price]", "or give a whole chip with [compute]"};
    }
    if (eff != nullptr) {
      TRY(e, read_efficiency(rd, *eff));
      h->efficiency = e.eff;
      h->efficiency_keys = e.keys;
      h->efficiency_source = e.source.empty() ? path : e.source;
    }
    if (price != nullptr) {
      TRY(p, read_price(rd, *price));
      h->price = p.first;
      h->price_source = p.second.empty() ? path : p.second;
    }
    return {};
  }
  TRY(h, build(TomlReader(root, path)));
  put(std::move(h));
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
