// The facade's entry points: catalogs, dispatch through the command table, and the shared
// argument helpers of src/io/commands.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "commands/commands.hpp"
#include "io/facade.hpp"
#include "tco/tco.hpp"

namespace llmecon {
namespace {

// Each command of the table (args.hpp) and the function that answers it; a unit test checks
// that every CommandSpec has one.
struct Impl {
  const char* name;
  cmd::Fn run;
};
constexpr Impl kImpls[] = {
    {"models", cmd::models},       {"hardware", cmd::hardware}, {"model", cmd::model_show}, {"roofline", cmd::roofline},
    {"sweep", cmd::sweep},         {"report", cmd::report},     {"batch", cmd::batch},      {"step", cmd::step},
    {"context", cmd::context},     {"price", cmd::price},       {"layout", cmd::layout},    {"cache", cmd::cache},
    {"lifecycle", cmd::lifecycle}, {"revnet", cmd::revnet},     {"lecture", cmd::lecture},  {"plan", cmd::plan},
    {"simulate", cmd::simulate},   {"validate", cmd::validate}, {"train", cmd::train},      {"scale", cmd::scale},
    {"calibrate", cmd::calibrate}, {"measure", cmd::measure},   {"tco", cmd::tco},
};

}  // namespace

Result<Engine> Engine::open(const std::vector<std::string>& hw_files, const std::vector<std::string>& price_files) {
  Engine e;
  TRY(hw, HardwareCatalog::builtin());
  e.hw_ = std::move(hw);
  for (const auto& f : hw_files) TRY_STATUS(e.hw_.add_file(f));
  TRY(models, ModelCatalog::builtin());
  e.models_ = std::move(models);
  TRY(families, builtin_efficiency());
  e.families_ = std::move(families);
  TRY(engines, builtin_engines());
  e.engines_ = std::move(engines);
  TRY(prices, PriceCatalog::builtin());
  e.prices_ = std::move(prices);
  for (const auto& f : price_files) TRY_STATUS(e.prices_.add_file(f));
  return e;
}

Result<Json> Engine::run(const std::string& command, const Json& args, const Progress& progress,
                         const Cancel& cancel) const {
  const CommandSpec* spec = find_command(command);
  if (spec == nullptr) return unknown_command(command);
  TRY(a, Args::parse(*spec, args));
  for (const Impl& i : kImpls) {
    if (command != i.name) continue;
    Result<Json> r = i.run(*this, a, progress, cancel);
    // A figure that cannot be computed is null with its reason, never an inf or NaN that the
    // JSON writer would turn into a silent null. One that slips through is a bug, reported as such.
    if (r) {
      if (std::string path = first_non_finite(*r); !path.empty()) {
        return Error{command, path, "internal error: this figure is not finite",
                     "a bug in llmecon; please report the command line that gave it"};
      }
    }
    return r;
  }
  LLMECON_ASSERT(false, "a command in the table has no implementation");
  return unknown_command(command);
}

bool Engine::implements(const std::string& command) {
  return std::any_of(std::begin(kImpls), std::end(kImpls), [&](const Impl& i) { return command == i.name; });
}

const std::vector<std::string>& Engine::commands() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& c : llmecon::commands()) out.push_back(c.name);
    return out;
  }();
  return names;
}

Json Engine::models() const {
  return run("models", Json::object()).value();
}
Json Engine::hardware() const {
  return run("hardware", Json::object()).value();
}
Result<Json> Engine::model_show(const Json& args) const {
  return run("model", args);
}
Result<Json> Engine::roofline(const Json& args) const {
  return run("roofline", args);
}
Result<Json> Engine::sweep(const Json& args, const Progress& progress) const {
  return run("sweep", args, progress);
}
Result<Json> Engine::report(const Json& args) const {
  return run("report", args);
}
Result<Json> Engine::batch(const Json& args) const {
  return run("batch", args);
}
Result<Json> Engine::step(const Json& args) const {
  return run("step", args);
}
Result<Json> Engine::context(const Json& args) const {
  return run("context", args);
}
Result<Json> Engine::price(const Json& args) const {
  return run("price", args);
}
Result<Json> Engine::layout(const Json& args) const {
  return run("layout", args);
}
Result<Json> Engine::cache(const Json& args) const {
  return run("cache", args);
}
Result<Json> Engine::lifecycle(const Json& args) const {
  return run("lifecycle", args);
}
Result<Json> Engine::revnet(const Json& args) const {
  return run("revnet", args);
}
Result<Json> Engine::plan(const Json& args, const Progress& progress) const {
  return run("plan", args, progress);
}
Result<Json> Engine::lecture(const Json& args) const {
  return run("lecture", args);
}
Result<Json> Engine::validate(const Json& args) const {
  return run("validate", args);
}
Result<Json> Engine::calibrate(const Json& args) const {
  return run("calibrate", args);
}
Result<Json> Engine::measure(const Json& args) const {
  return run("measure", args);
}

Result<RooflineResult> Engine::evaluate(const Json& args) const {
  TRY(a, Args::parse(*find_command("roofline"), args));
  return cmd::evaluate(*this, a);
}

Efficiency Engine::efficiency(const Hardware& hw, std::string* source) const {
  return efficiency_for(hw, families_, source);
}

Result<const ServingEngine*> Engine::serving_engine(std::string_view name, const std::string& flag) const {
  for (const auto& e : engines_)
    if (e.name == name) return &e;
  std::string names;
  for (const auto& e : engines_) names += (names.empty() ? "" : ", ") + e.name;
  return Error{flag, "", "unknown serving engine '" + std::string(name) + "'", "one of: " + names};
}

std::vector<std::string> Engine::fitted_parameters(const Hardware& hw) const {
  const FamilyEfficiency* f = family_of(hw, families_);
  return f != nullptr ? f->fitted : std::vector<std::string>{};
}

bool Engine::efficiency_is_prior(const Hardware& hw) const {
  const FamilyEfficiency* f = family_of(hw, families_);
  return f != nullptr && f->source.rfind("prior", 0) == 0;
}

namespace cmd {
namespace {
// A chip data/tco.toml does not price idles at a tenth of its TDP and carries a host of half of
// it, as an HGX H100 system does (70 W and 350 W of 700 W; model.md §25.6, estimate).
constexpr double kUnpricedIdleShare = 0.1;
constexpr double kUnpricedHostShare = 0.5;
}  // namespace

Uncertainty uncertainty(const Args& a) {
  return a.flag("ideal") ? Uncertainty{0, 0, 1, 1, true} : Uncertainty{};
}

Json quantiles_json(const Quantiles& x) {
  return Json{{"p10", x.p10}, {"p50", x.p50}, {"p90", x.p90}};
}

Result<ModelSpec> load_model(const Engine& e, const Args& a) {
  const Json& m = a.raw("model");
  if (m.is_object()) {
    // A config.json pasted into the page or passed from Python, named after its
    // _name_or_path (or model_type).
    std::string name = "pasted-config";
    const char* key = m.contains("_name_or_path") ? "_name_or_path" : "model_type";
    if (m.contains(key) && m[key].is_string()) {
      name = m[key].get<std::string>();
      if (auto slash = name.find_last_of('/'); slash != std::string::npos) name = name.substr(slash + 1);
      std::transform(name.begin(), name.end(), name.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      name = name.empty() ? "pasted-config" : "pasted:" + name;
    }
    return parse_model_config(m.dump(), "--model", name);
  }
  return e.model_catalog().resolve(m.get<std::string>(), "--model");
}

Result<TcoCatalog> tco_catalog(const Args& a) {
  static const Result<TcoCatalog> builtin = TcoCatalog::builtin();
  if (!builtin) return builtin.error();
  if (!a.has("tco_file")) return *builtin;
  const std::string path = a.text("tco_file");
  std::ifstream f(path);
  if (!f) return Error{path, "", "cannot open file", "give a TOML file in the layout of data/tco.toml"};
  std::stringstream text;
  text << f.rdbuf();
  return TcoCatalog::parse(text.str(), path, &*builtin);
}

Result<std::optional<std::string>> owner_profile(const Args& a) {
  const std::string cost = a.has("cost") ? a.text("cost") : "rented";
  if (cost == "rented") return std::optional<std::string>{};
  if (cost == "owned") return std::optional<std::string>{"cluster"};
  if (cost.rfind("owned:", 0) == 0 && cost.size() > 6) return std::optional<std::string>{cost.substr(6)};
  return Error{"--cost", "", "unknown cost basis '" + cost + "'",
               "rented (the catalog's price), owned (data/tco.toml's cluster profile) or owned:PROFILE"};
}

Result<PowerModel> power_model(const Args& a, const Hardware& hw) {
  TRY(cat, tco_catalog(a));
  TRY(profile_name, owner_profile(a));
  const TcoDefaults& d = cat.defaults();
  PowerModel pm;
  pm.pue = d.pue.value;
  pm.host_load = d.load.value;
  pm.compute_weight = d.compute_weight;
  pm.memory_weight = d.memory_weight;
  if (profile_name) {
    TRY(p, cat.profile(*profile_name, "--cost"));
    pm.pue = p->pue.value_or(pm.pue);
  }
  if (auto sys = cat.system(hw.name)) {
    pm.idle = (*sys)->idle_power;
    pm.host = (*sys)->host_power;
  } else {
    // A chip data/tco.toml does not price: an HGX-like system (model.md §25.6, estimate).
    pm.idle = hw.tdp * kUnpricedIdleShare;
    pm.host = hw.tdp * kUnpricedHostShare;
  }
  return pm;
}

Result<std::shared_ptr<const Hardware>> priced_hardware(const Engine& e, const Args& a, const std::string& name) {
  TRY(hw, e.hardware_catalog().get(name, "--hw"));
  TRY(profile_name, owner_profile(a));
  if (profile_name && a.has("usd_per_hour")) {
    return Error{"--cost", "", "--usd-per-hour is a rental price", "give --usd-per-hour or --cost owned, not both"};
  }
  if (!a.has("usd_per_hour") && !profile_name) {
    return std::shared_ptr<const Hardware>(std::shared_ptr<const Hardware>(), hw);
  }
  auto own = std::make_shared<Hardware>(*hw);
  if (!profile_name) {
    // A user's own rate is a point: it replaces the catalog's range too.
    own->price = Ranged<DollarsPerSecond>{units::usd_per_hour(a.number("usd_per_hour")), std::nullopt, std::nullopt};
    own->price_source = "--usd-per-hour";
    return std::shared_ptr<const Hardware>(std::move(own));
  }
  // Owned (model.md §25.4): the profile's cluster at its utilization; the range spans p10-p90
  // of data/tco.toml's sourced ranges, as `tco --range` draws them.
  TRY(cat, tco_catalog(a));
  TRY(profile, cat.profile(*profile_name, "--cost"));
  TRY(sys, cat.system(hw->name));
  const TcoInputs in = profile_inputs(*profile);
  const TcoResult r = compute_tco(*hw, *sys, cat.defaults(), in);
  const Quantiles q = tco_range(*hw, *sys, cat.defaults(), in, 200).owned_usd_per_hour;
  own->price = Ranged<DollarsPerSecond>{r.owned, units::usd_per_hour(std::min(q.p10, r.owned.si() * 3600.0)),
                                        units::usd_per_hour(std::max(q.p90, r.owned.si() * 3600.0))};
  own->price_source = fmt::format("owned ({}: {} accelerators at utilization {}; data/tco.toml)", profile->name,
                                  format_number(profile->chips), format_number(profile->utilization));
  return std::shared_ptr<const Hardware>(std::move(own));
}

Result<const Hardware*> prefill_hardware(const Engine& e, const Args& a, std::shared_ptr<const Hardware>& holder) {
  TRY(phw, e.hardware_catalog().get(a.text("prefill_hw"), "--prefill-hw"));
  TRY(owner, owner_profile(a));
  if (!owner) return phw;
  auto owned = priced_hardware(e, a, phw->name);
  if (!owned) return owned.error().at("--prefill-hw");
  holder = *owned;
  return holder.get();
}

Precision precision_from(const Args& a, const ModelSpec& m) {
  Precision p = Precision::native(m);
  if (auto w = a.dtype("weight_dtype")) p = Precision::with_weights(m, *w, *w, p.kv);
  if (auto x = a.dtype("expert_dtype")) p.experts = *x;
  if (auto x = a.dtype("act_dtype")) p.act = *x;
  if (auto x = a.dtype("kv_dtype")) p.kv = *x;
  return p;
}

}  // namespace cmd
}  // namespace llmecon
