// What an owned accelerator-hour costs (docs/model.md §25).
#include "tco/tco.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "catalog/toml_reader.hpp"
#include "roofline/roofline.hpp"
#include "units/embedded.hpp"

namespace llmecon {
namespace {

constexpr double kHoursPerYear = 8766.0;  // 365.25 days
// A host idles at half its rated power (estimate; model.md §25.3).
constexpr double kHostIdleShare = 0.5;

std::string num(double v) {
  return format_number(v);
}
std::string usd(double v) {
  return format(units::usd(v));
}

// `key` and `key_range = [lo, hi]` as plain numbers within [lo, hi].
Result<RangedNumber> ranged_number(const TomlReader& rd, const toml::table& t, const std::string& path,
                                   std::string_view key, double lo, double hi) {
  TRY(v, rd.number(t, path, key, true, lo, hi));
  RangedNumber r;
  r.value = *v;
  const std::string rkey = std::string(key) + "_range";
  if (const toml::node* n = t.get(rkey)) {
    const toml::array* arr = n->as_array();
    if (arr == nullptr || arr->size() != 2 || !(*arr)[0].value<double>() || !(*arr)[1].value<double>()) {
      return Error{line_of(*n, "data/tco.toml"), TomlReader::join(path, rkey), "expected two numbers",
                   "write " + rkey + " = [low, high]"};
    }
    r.lo = *(*arr)[0].value<double>();
    r.hi = *(*arr)[1].value<double>();
    if (!(*r.lo <= r.value && r.value <= *r.hi)) {
      return Error{line_of(*n, "data/tco.toml"), TomlReader::join(path, rkey), "the default lies outside its range",
                   "order the range [low, high] and keep the default inside it"};
    }
  }
  return r;
}

template <class Q>
Result<Ranged<Q>> required(const TomlReader& rd, const toml::table& t, const std::string& path, std::string_view key) {
  TRY(v, rd.ranged<Q>(t, path, key, true));
  return *v;
}

// A range that is a point draws nothing from the stream.
double triangular(double lo, double mode, double hi, std::mt19937_64& rng) {
  if (!(hi > lo)) return mode;
  return llmecon::triangular(lo, mode, hi, std::uniform_real_distribution<double>(0.0, 1.0)(rng));
}
template <class Q>
Ranged<Q> draw(const Ranged<Q>& r, std::mt19937_64& rng) {
  Ranged<Q> out = r;
  out.value = Q(detail::RawTag{}, triangular(r.low().si(), r.value.si(), r.high().si(), rng));
  return out;
}
// A user file's entry replaces the base's of the same key, or is added after them.
template <class T, class Key>
void replace_or_add(std::vector<T>& entries, T entry, Key key) {
  auto same = std::find_if(entries.begin(), entries.end(), [&](const T& x) { return key(x) == key(entry); });
  if (same != entries.end()) {
    *same = std::move(entry);
  } else {
    entries.push_back(std::move(entry));
  }
}

// The capital-recovery factor: the yearly payment that repays 1 over `years` at `rate`.
double capital_recovery(double rate, double years) {
  return rate > 0 ? rate * std::pow(1 + rate, years) / (std::pow(1 + rate, years) - 1) : 1.0 / years;
}

RangedNumber draw(const RangedNumber& r, std::mt19937_64& rng) {
  RangedNumber out = r;
  out.value = triangular(r.lo.value_or(r.value), r.value, r.hi.value_or(r.value), rng);
  return out;
}

}  // namespace

// ---- data/tco.toml ----

// [defaults]: the owner's life, cost of capital, PUE, electricity, colocation, maintenance, staff
// and host load, each with its range and source (model.md §25).
Status read_defaults(const TomlReader& rd, const toml::table& def, TcoDefaults& d) {
  TRY_STATUS(rd.only_keys(def, "defaults",
                          {"life",
                           "life_range",
                           "life_source",
                           "cost_of_capital",
                           "cost_of_capital_range",
                           "cost_of_capital_source",
                           "pue",
                           "pue_range",
                           "pue_source",
                           "electricity",
                           "electricity_range",
                           "electricity_source",
                           "colocation",
                           "colocation_range",
                           "colocation_source",
                           "maintenance",
                           "maintenance_range",
                           "maintenance_source",
                           "staff",
                           "staff_range",
                           "staff_source",
                           "load",
                           "load_range",
                           "load_source"}));
  TRY(life, required<Seconds>(rd, def, "defaults", "life"));
  d.life = life;
  TRY(capital, ranged_number(rd, def, "defaults", "cost_of_capital", 0, 1));
  d.cost_of_capital = capital;
  TRY(pue, ranged_number(rd, def, "defaults", "pue", 1, 5));
  d.pue = pue;
  TRY(elec, required<DollarsPerJoule>(rd, def, "defaults", "electricity"));
  d.electricity = elec;
  TRY(colo, required<DollarsPerJoule>(rd, def, "defaults", "colocation"));
  d.colocation = colo;
  TRY(maint, ranged_number(rd, def, "defaults", "maintenance", 0, 1));
  d.maintenance = maint;
  TRY(staff, required<Dollars>(rd, def, "defaults", "staff"));
  d.staff = staff;
  TRY(load, ranged_number(rd, def, "defaults", "load", 0.01, 1));
  d.load = load;
  for (const char* k :
       {"life", "cost_of_capital", "pue", "electricity", "colocation", "maintenance", "staff", "load"}) {
    TRY(src, rd.str(def, "defaults", std::string(k) + "_source", true));
    d.sources.emplace_back(k, src);
  }
  return {};
}

// [network], [memory], [power] and [scale_up]: what a cluster's fabric, HBM and power cost; each
// section is required of the built-in file (`builtin`) and replaces the base's whole in a user's.
Status read_costs(const TomlReader& rd, const toml::table& root, bool builtin, TcoDefaults& d) {
  TRY(net, rd.table(root, "", "network", builtin));
  if (net != nullptr) {
    TRY_STATUS(rd.only_keys(*net, "network",
                            {"radix", "radix_source", "switch", "switch_range", "switch_source", "link", "link_range",
                             "link_source", "nics_per_accelerator", "nics_source"}));
    TRY(radix, rd.number(*net, "network", "radix", true, 4, 1024));
    d.radix = static_cast<int>(*radix);
    TRY(sw, required<Dollars>(rd, *net, "network", "switch"));
    d.switch_price = sw;
    TRY(link, required<Dollars>(rd, *net, "network", "link"));
    d.link_price = link;
    TRY(nics, rd.number(*net, "network", "nics_per_accelerator", true, 0, 16));
    d.nics_per_accelerator = static_cast<int>(*nics);
    for (const char* k : {"radix", "switch", "link", "nics"}) {
      TRY(src, rd.str(*net, "network", std::string(k) + "_source", true));
      d.sources.emplace_back(k, src);
    }
  }
  TRY(mem, rd.table(root, "", "memory", builtin));
  if (mem != nullptr) {
    TRY_STATUS(rd.only_keys(*mem, "memory", {"hbm", "hbm_range", "hbm_source"}));
    TRY(hbm, required<DollarsPerByte>(rd, *mem, "memory", "hbm"));
    d.hbm = hbm;
    TRY(hsrc, rd.str(*mem, "memory", "hbm_source", true));
    d.sources.emplace_back("hbm", hsrc);
  }

  TRY(power, rd.table(root, "", "power", builtin));
  if (power != nullptr) {
    TRY_STATUS(rd.only_keys(*power, "power", {"compute_weight", "memory_weight", "source"}));
    TRY(wc, rd.number(*power, "power", "compute_weight", true, 0, 100));
    TRY(wm, rd.number(*power, "power", "memory_weight", true, 0, 100));
    d.compute_weight = *wc;
    d.memory_weight = *wm;
    TRY(psrc, rd.str(*power, "power", "source", true));
    d.sources.emplace_back("power", psrc);
  }
  TRY(fabric, rd.table(root, "", "scale_up", builtin));
  if (fabric != nullptr) {
    const toml::table* up = fabric;
    TRY_STATUS(rd.only_keys(
        *up, "scale_up",
        {"links_per_accelerator", "reach", "port", "port_range", "optical_link", "optical_link_range", "source"}));
    TRY(links, rd.number(*up, "scale_up", "links_per_accelerator", true, 1, 1024));
    d.scale_up_links = static_cast<int>(*links);
    TRY(reach, rd.number(*up, "scale_up", "reach", true, 2, 1e6));
    d.scale_up_reach = *reach;
    TRY(port, required<Dollars>(rd, *up, "scale_up", "port"));
    d.scale_up_port = port;
    TRY(optical, required<Dollars>(rd, *up, "scale_up", "optical_link"));
    d.scale_up_optical_link = optical;
    TRY(usrc, rd.str(*up, "scale_up", "source", true));
    d.sources.emplace_back("scale_up", usrc);
  }
  return {};
}

// One [[profile]]: an owner's cluster (chips, utilization) and what it overrides.
Result<TcoProfile> read_profile(const TomlReader& rd, const toml::table* t, const std::string& path) {
  TcoProfile pr;
  TRY(name, rd.str(*t, path, "name", true));
  pr.name = name;
  TRY(chips, rd.number(*t, path, "chips", true, 1, 1e8));
  pr.chips = *chips;
  TRY(util, rd.number(*t, path, "utilization", true, 1e-3, 1));
  pr.utilization = *util;
  TRY(life, rd.quantity<Seconds>(*t, path, "life", false));
  pr.life = life;
  if (pr.life && pr.life->si() < 3600.0) {
    return Error{rd.origin(), TomlReader::join(path, "life"), "shorter than an hour", "e.g. life = \"5 y\""};
  }
  TRY(capital, rd.number(*t, path, "cost_of_capital", false, 0, 1));
  pr.cost_of_capital = capital;
  TRY(pue, rd.number(*t, path, "pue", false, 1, 5));
  pr.pue = pue;
  TRY(elec, rd.quantity<DollarsPerJoule>(*t, path, "electricity", false));
  pr.electricity = elec;
  TRY(src, rd.str(*t, path, "source", true));
  pr.source = src;
  return pr;
}

// One [[system]]: a chip's server prices and power.
Result<TcoSystem> read_system(const TomlReader& rd, const toml::table* t, const std::string& path) {
  TcoSystem s;
  TRY(name, rd.str(*t, path, "hardware", true));
  s.hardware = name;
  TRY(acc, required<Dollars>(rd, *t, path, "accelerator"));
  s.accelerator = acc;
  TRY(host, required<Dollars>(rd, *t, path, "host"));
  s.host = host;
  TRY(up, required<Dollars>(rd, *t, path, "scale_up"));
  s.scale_up = up;
  TRY(idle, rd.quantity<Watts>(*t, path, "idle_power", true));
  s.idle_power = *idle;
  TRY(hp, rd.quantity<Watts>(*t, path, "host_power", true));
  s.host_power = *hp;
  TRY(src, rd.str(*t, path, "source", true));
  s.source = src;
  return s;
}

Result<TcoCatalog> TcoCatalog::parse(std::string_view text, const std::string& origin, const TcoCatalog* base) {
  TRY(root, TomlReader::parse(text, origin));
  const TomlReader rd(root, origin);
  TRY_STATUS(rd.only_keys(root, "", {"defaults", "network", "memory", "power", "scale_up", "profile", "system"}));
  // A user file (with a base) replaces the sections it has, each whole, and adds or replaces
  // systems by hardware name.
  TcoCatalog c = base != nullptr ? *base : TcoCatalog{};
  TcoDefaults& d = c.defaults_;
  TRY(def, rd.table(root, "", "defaults", base == nullptr));
  if (def != nullptr) TRY_STATUS(read_defaults(rd, *def, d));
  TRY_STATUS(read_costs(rd, root, base == nullptr, d));
  TRY(profiles, rd.tables(root, "", "profile", false));
  for (std::size_t i = 0; i < profiles.size(); ++i) {
    const toml::table* t = profiles[i];
    const std::string path = fmt::format("profile[{}]", i);
    TRY_STATUS(rd.only_keys(
        *t, path, {"name", "chips", "utilization", "life", "cost_of_capital", "pue", "electricity", "source"}));
    TRY(pr, read_profile(rd, t, path));
    replace_or_add(c.profiles_, std::move(pr), [](const TcoProfile& x) { return x.name; });
  }

  TRY(systems, rd.tables(root, "", "system", base == nullptr));
  for (std::size_t i = 0; i < systems.size(); ++i) {
    const toml::table* t = systems[i];
    const std::string path = fmt::format("system[{}]", i);
    TRY_STATUS(rd.only_keys(*t, path,
                            {"hardware", "accelerator", "accelerator_range", "host", "host_range", "scale_up",
                             "scale_up_range", "idle_power", "host_power", "source"}));
    TRY(s, read_system(rd, t, path));
    replace_or_add(c.systems_, std::move(s), [](const TcoSystem& x) { return x.hardware; });
  }
  return c;
}

Result<TcoCatalog> TcoCatalog::builtin() {
  for (const auto& f : embedded_tco()) return parse(f.content, "builtin:" + std::string(f.path), nullptr);
  return Error{"builtin:tco.toml", "", "missing", "a build without data/tco.toml"};
}

Result<const TcoSystem*> TcoCatalog::system(std::string_view hardware) const {
  for (const auto& s : systems_)
    if (s.hardware == hardware) return &s;
  std::string list;
  for (const auto& s : systems_) list += (list.empty() ? "" : ", ") + s.hardware;
  return Error{"--hw", "", "no system costs for '" + std::string(hardware) + "'",
               "data/tco.toml prices " + list + "; add a [[system]] for it with --tco-file"};
}

Result<const TcoProfile*> TcoCatalog::profile(std::string_view name, const std::string& flag) const {
  for (const auto& p : profiles_)
    if (p.name == name) return &p;
  std::string list;
  for (const auto& p : profiles_) list += (list.empty() ? "" : ", ") + p.name;
  return Error{flag, "", "no owner profile '" + std::string(name) + "'",
               "data/tco.toml has " + list + "; --tco-file adds [[profile]] entries"};
}

TcoInputs profile_inputs(const TcoProfile& p) {
  TcoInputs in;
  in.chips = p.chips;
  in.utilization = p.utilization;
  in.life = p.life;
  in.cost_of_capital = p.cost_of_capital;
  in.pue = p.pue;
  in.electricity = p.electricity;
  return in;
}

DollarsPerSecond capex_per_hour(const TcoDefaults& d, const TcoInputs& in, Dollars capex) {
  const double years = std::max(1.0 / kHoursPerYear, in.life.value_or(d.life.value).si() / (kHoursPerYear * 3600.0));
  const double rate = in.cost_of_capital.value_or(d.cost_of_capital.value);
  const double u = std::clamp(in.utilization, 1e-6, 1.0);
  return units::usd_per_hour(capex.si() * (capital_recovery(rate, years) + d.maintenance.value) / (kHoursPerYear * u));
}

// ---- model.md §25.5: the scale-up fabric ----

namespace {
// The fabric model's capex per accelerator of a domain, before anchoring: zero within the board.
double fabric_model(const Hardware& hw, const TcoSystem& sys, const TcoDefaults& d, double domain) {
  const double board = sys.scale_up.value.si() > 0 ? 1.0 : hw.domain_size;
  if (domain <= board) return 0.0;
  const double links = d.scale_up_links, port = d.scale_up_port.value.si();
  double cost = links * port;  // the first tier: a port and a copper cable per link
  // Each further tier multiplies the reach by reach/2 (half of each switch's ports go up).
  double reach = d.scale_up_reach;
  while (domain > reach) {
    cost += links * (2.0 * port + d.scale_up_optical_link.value.si());
    reach *= std::max(2.0, d.scale_up_reach / 2.0);
  }
  return cost;
}
}  // namespace

Dollars scale_up_fabric(const Hardware& hw, const TcoSystem& sys, const TcoDefaults& d, double domain) {
  const double own = fabric_model(hw, sys, d, hw.domain_size);
  return units::usd(std::max(0.0, sys.scale_up.value.si() + fabric_model(hw, sys, d, domain) - own));
}

// ---- model.md §25.2: the scale-out network ----

FatTree fat_tree(double endpoints, int radix, double oversubscription) {
  FatTree f;
  if (endpoints <= 1) return f;
  const double r = radix, o = std::max(1.0, oversubscription);
  const double down = std::floor(r * o / (o + 1.0));  // endpoints per leaf
  const double up = r - down;                         // uplinks per leaf
  if (endpoints <= r) {
    f.tiers = 1;
    f.leaves = 1;
    f.switches = 1;
    f.links = endpoints;
    return f;
  }
  f.leaves = std::ceil(endpoints / down);
  if (f.leaves <= r) {
    // Two tiers: every leaf reaches every spine.
    f.tiers = 2;
    f.spines = std::ceil(f.leaves * up / r);
    f.links = endpoints + f.leaves * up;
  } else {
    // Three tiers: aggregation switches split their ports half down, half up to the core.
    f.tiers = 3;
    f.spines = std::ceil(f.leaves * up / (r / 2.0));
    f.cores = std::ceil(f.spines * (r / 2.0) / r);
    f.links = endpoints + f.leaves * up + f.spines * (r / 2.0);
  }
  f.switches = f.leaves + f.spines + f.cores;
  return f;
}

// ---- model.md §25.3-25.4: owned against rented ----

namespace {
// Capital, maintenance, staff and colocation: paid whether the accelerator works or not.
double fixed_per_year(const TcoResult& r) {
  return (r.capital_per_year + r.maintenance_per_year + r.staff_per_year + r.colocation_per_year).si();
}
// Facility joules a year at utilization u: busy power for u of the hours, idle power for the rest.
double yearly_joules(const TcoResult& r, double u) {
  return (u * r.busy_power.si() + (1 - u) * r.idle_power.si()) * kHoursPerYear * 3600.0 * r.pue;
}
}  // namespace

TcoResult compute_tco(const Hardware& hw, const TcoSystem& sys, const TcoDefaults& d, const TcoInputs& in) {
  TcoResult r;
  const double n = std::max(1.0, in.chips);
  r.memory = units::usd(hw.hbm_capacity.value.si() * d.hbm.value.si());
  r.chip = units::usd(std::max(0.0, sys.accelerator.value.si() - r.memory.si()));
  r.host = sys.host.value;
  r.scale_up = sys.scale_up.value;
  if (in.topology != "none") {
    r.network = fat_tree(n * d.nics_per_accelerator, d.radix, in.oversubscription);
    r.scale_out =
        units::usd((r.network.switches * d.switch_price.value.si() + r.network.links * d.link_price.value.si()) / n);
  }
  r.capex = r.chip + r.memory + r.host + r.scale_up + r.scale_out;
  // At least an hour: a shorter life is not a depreciation schedule (and would divide by zero).
  r.life_years = std::max(1.0 / kHoursPerYear, in.life.value_or(d.life.value).si() / (kHoursPerYear * 3600.0));
  r.cost_of_capital = in.cost_of_capital.value_or(d.cost_of_capital.value);
  r.capital_per_year = r.capex * capital_recovery(r.cost_of_capital, r.life_years);
  r.maintenance_per_year = r.capex * d.maintenance.value;
  r.staff_per_year = d.staff.value;
  const Watts rated = hw.tdp + sys.host_power;
  r.busy_power = rated * in.load.value_or(d.load.value);
  r.idle_power = sys.idle_power + sys.host_power * kHostIdleShare;
  r.pue = in.pue.value_or(d.pue.value);
  r.electricity = in.electricity.value_or(d.electricity.value);
  r.energy_per_busy_hour = units::joules(r.busy_power.si() * 3600.0 * r.pue);
  // Colocation reserves the rated critical IT power all year.
  r.colocation_per_year = units::usd(rated.si() * kHoursPerYear * 3600.0 * d.colocation.value.si());
  const double u = std::clamp(in.utilization, 1e-6, 1.0);
  r.energy_per_year = units::usd(yearly_joules(r, u) * r.electricity.si());
  r.owned = owned_per_hour_at(r, u);
  r.rented = in.rent.value_or(hw.price.value);
  // Break-even: fixed + idle energy + u (busy - idle) energy = u x hours x rent.
  const double elec = r.electricity.si();
  const double fixed = fixed_per_year(r) + yearly_joules(r, 0.0) * elec;
  const double denom = kHoursPerYear * 3600.0 * r.rented.si() - (yearly_joules(r, 1.0) - yearly_joules(r, 0.0)) * elec;
  if (denom > 0 && fixed / denom <= 1.0) r.breakeven_utilization = fixed / denom;
  return r;
}

DollarsPerSecond owned_per_hour_at(const TcoResult& r, double utilization) {
  const double u = std::clamp(utilization, 1e-6, 1.0);
  const double year = fixed_per_year(r) + yearly_joules(r, u) * r.electricity.si();
  return units::usd_per_hour(year / (kHoursPerYear * u));
}

// ---- the analysis `llmecon tco` prints ----

Analysis tco_analysis(const Hardware& hw, const TcoSystem& sys, const TcoDefaults& d, const TcoInputs& in) {
  const TcoResult r = compute_tco(hw, sys, d, in);
  Analysis a("tco");
  const double u = std::clamp(in.utilization, 1e-6, 1.0);  // as compute_tco takes it
  const double capex = r.capex.si();
  a.figure("usd_per_gpu_hour_owned", r.owned, "owned, per utilized accelerator-hour (§25.4)");
  a.figure("usd_per_gpu_hour_rented", r.rented, "rented (the catalog's price, or --usd-per-hour)");
  a.figure("owned_over_rented", r.owned / r.rented, "x", "owned over rented");
  if (r.breakeven_utilization) {
    a.figure("breakeven_utilization", *r.breakeven_utilization, "", "utilization above which owning is cheaper");
  } else {
    a.figure("breakeven_utilization", std::nan(""), "", "utilization above which owning is cheaper",
             "owning costs more than renting even at full utilization");
  }
  a.figure("capex_per_gpu_usd", capex, "$", "capex per accelerator");
  a.figure("network_capex_per_gpu_usd", r.scale_out.si(), "$", "scale-out fabric per accelerator (§25.2)");
  a.figure("memory_share_of_capex", r.memory.si() / capex, "", "HBM's share of capex");
  a.figure("network_tiers", r.network.tiers, "", "fat-tree tiers");
  a.figure("switches", r.network.switches, "", "scale-out switches");
  a.figure("links", r.network.links, "", "scale-out links (endpoint links included)");
  a.figure("busy_power_w", r.busy_power.si(), "W", "IT power per accelerator when busy (load x rated)");
  a.figure("idle_power_w", r.idle_power.si(), "W", "IT power per accelerator when idle");
  a.figure("kwh_per_gpu_hour", r.energy_per_busy_hour.si() / 3.6e6, "", "facility kWh per busy accelerator-hour");
  a.figure(
      "usd_per_year_owned",
      (r.capital_per_year + r.maintenance_per_year + r.staff_per_year + r.colocation_per_year + r.energy_per_year).si(),
      "$", "per accelerator per year at this utilization");
  Table cx{"capex",
           {{"term", "", "term"}, {"usd", "$", "per accelerator"}, {"share", "", "share"}},
           {{"chip", r.chip.si(), r.chip.si() / capex},
            {"memory (HBM)", r.memory.si(), r.memory.si() / capex},
            {"host", r.host.si(), r.host.si() / capex},
            {"scale-up fabric", r.scale_up.si(), r.scale_up.si() / capex},
            {"scale-out fabric", r.scale_out.si(), r.scale_out.si() / capex},
            {"facility (colocation: in opex)", 0.0, 0.0},
            {"total", capex, 1.0}},
           "capex per accelerator"};
  a.tables.push_back(std::move(cx));
  const double year =
      (r.capital_per_year + r.maintenance_per_year + r.staff_per_year + r.colocation_per_year + r.energy_per_year).si();
  auto per_hour = [&](double v) { return v / (kHoursPerYear * u); };
  Table ox{"per_year",
           {{"term", "", "term"},
            {"usd_per_year", "$", "per year"},
            {"usd_per_gpu_hour", "$", "per utilized hour"},
            {"share", "", "share"}},
           {},
           "cost per accelerator per year"};
  for (const auto& [name, v] : std::vector<std::pair<const char*, double>>{
           {"capital (depreciation and return)", r.capital_per_year.si()},
           {"maintenance", r.maintenance_per_year.si()},
           {"staff", r.staff_per_year.si()},
           {"colocation (space, power capacity, cooling)", r.colocation_per_year.si()},
           {"energy", r.energy_per_year.si()}}) {
    ox.rows.push_back({name, v, per_hour(v), v / year});
  }
  ox.rows.push_back({"total", year, per_hour(year), 1.0});
  a.tables.push_back(std::move(ox));

  // At least an hour: a shorter life is not a depreciation schedule (and would divide by zero).
  a.explain(fmt::format("capex = chip {} + HBM {} ({} x {}/GB) + host {} + scale-up {} + scale-out {} = {} (§25.1)",
                        usd(r.chip.si()), usd(r.memory.si()), format(hw.hbm_capacity.value),
                        num(d.hbm.value.si() * 1e9), usd(r.host.si()), usd(r.scale_up.si()), usd(r.scale_out.si()),
                        usd(capex)));
  if (r.network.tiers > 0) {
    a.explain(
        fmt::format("fat-tree of {} endpoints, radix {}, oversubscription {}: {} tiers, {} leaves + {} spines + "
                    "{} cores = {} switches, {} links; ({} x {} + {} x {}) / {} = {} per accelerator (§25.2)",
                    num(in.chips * d.nics_per_accelerator), d.radix, num(in.oversubscription), r.network.tiers,
                    num(r.network.leaves), num(r.network.spines), num(r.network.cores), num(r.network.switches),
                    num(r.network.links), num(r.network.switches), usd(d.switch_price.value.si()), num(r.network.links),
                    usd(d.link_price.value.si()), num(in.chips), usd(r.scale_out.si())));
  }
  a.explain(fmt::format("capital = capex x r (1+r)^L / ((1+r)^L - 1) = {} x CRF({}, {} y) = {} per year (§25.4)",
                        usd(capex), num(r.cost_of_capital), num(r.life_years), usd(r.capital_per_year.si())));
  a.explain(
      fmt::format("power: busy = load {} x (TDP {} + host {}) = {}; idle = {} + host/2 = {}; x PUE {} at {}/kWh "
                  "(§25.3)",
                  num(in.load.value_or(d.load.value)), format(hw.tdp), format(sys.host_power), format(r.busy_power),
                  format(sys.idle_power), format(r.idle_power), num(r.pue), num(r.electricity.si() * 3.6e6)));
  a.explain(fmt::format(
      "owned = (capital {} + maintenance {} + staff {} + colocation {} + energy {}) / (8766 h x {}) "
      "= {}; rented {}",
      usd(r.capital_per_year.si()), usd(r.maintenance_per_year.si()), usd(r.staff_per_year.si()),
      usd(r.colocation_per_year.si()), usd(r.energy_per_year.si()), num(u), format(r.owned), format(r.rented)));
  a.note("system costs: " + sys.source);
  for (const auto& [k, src] : d.sources) a.note(fmt::format("{}: {}", k, src));
  return a;
}

TcoDefaults sample_defaults(const TcoDefaults& d, std::mt19937_64& rng) {
  TcoDefaults s = d;
  s.life = draw(d.life, rng);
  s.cost_of_capital = draw(d.cost_of_capital, rng);
  s.pue = draw(d.pue, rng);
  s.electricity = draw(d.electricity, rng);
  s.colocation = draw(d.colocation, rng);
  s.maintenance = draw(d.maintenance, rng);
  s.staff = draw(d.staff, rng);
  s.load = draw(d.load, rng);
  s.switch_price = draw(d.switch_price, rng);
  s.link_price = draw(d.link_price, rng);
  s.hbm = draw(d.hbm, rng);
  s.scale_up_port = draw(d.scale_up_port, rng);
  s.scale_up_optical_link = draw(d.scale_up_optical_link, rng);
  return s;
}

TcoRange tco_range(const Hardware& hw, const TcoSystem& sys, const TcoDefaults& d, const TcoInputs& in, int samples,
                   unsigned seed) {
  std::mt19937_64 rng(seed);
  std::vector<double> owned, ratio, breakeven;
  TcoRange out;
  out.samples = std::max(1, samples);
  for (int i = 0; i < out.samples; ++i) {
    const TcoDefaults dd = sample_defaults(d, rng);
    const TcoSystem s = sample_system(sys, rng);
    const TcoResult r = compute_tco(hw, s, dd, in);
    owned.push_back(r.owned.si() * 3600.0);
    ratio.push_back(r.owned / r.rented);
    breakeven.push_back(r.breakeven_utilization.value_or(1.0));
  }
  // The headline (every input at its default) placed among the draws.
  const TcoResult point = compute_tco(hw, sys, d, in);
  out.owned_usd_per_hour = quantiles(std::move(owned), point.owned.si() * 3600.0);
  out.owned_over_rented = quantiles(std::move(ratio), point.owned / point.rented);
  out.breakeven_utilization = quantiles(std::move(breakeven), point.breakeven_utilization.value_or(1.0));
  return out;
}

TcoSystem sample_system(const TcoSystem& sys, std::mt19937_64& rng) {
  TcoSystem s = sys;
  s.accelerator = draw(sys.accelerator, rng);
  s.host = draw(sys.host, rng);
  s.scale_up = draw(sys.scale_up, rng);
  return s;
}

}  // namespace llmecon
