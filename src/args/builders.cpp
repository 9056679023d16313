// The argument builders (arg_builders.hpp): what every use of an argument shares.
#include "args/arg_builders.hpp"

#include "catalog/serving_engine.hpp"

namespace llmecon::argspec {

using T = ArgType;

ArgSpec arg(std::string key, ArgType type, std::string help) {
  ArgSpec a;
  a.key = std::move(key);
  a.type = type;
  a.help = std::move(help);
  return a;
}
ArgSpec with_default(ArgSpec a, Json def) {
  a.def = std::move(def);
  return a;
}
ArgSpec with_text(ArgSpec a, std::string text) {
  a.def_text = std::move(text);
  return a;
}
ArgSpec bounded(ArgSpec a, std::optional<double> lo, std::optional<double> hi) {
  a.min = lo;
  a.max = hi;
  return a;
}
ArgSpec unit(ArgSpec a, std::string u) {
  a.unit = std::move(u);
  return a;
}
ArgSpec capped(ArgSpec a, std::size_t items) {
  a.max_items = items;
  return a;
}
ArgSpec short_flag(ArgSpec a, std::string s) {
  a.short_flag = std::move(s);
  return a;
}

ArgSpec model(const char* fallback) {
  ArgSpec a = short_flag(
      arg("model", T::kModel, "built-in model name or path to a config.json (API, Python: or the config object)"),
      "-m");
  if (fallback != nullptr) a.def = fallback;
  return a;
}
ArgSpec hw(const char* fallback) {
  ArgSpec a = arg("hw", T::kHardware, "chip name (see `llmecon hardware`)");
  if (fallback != nullptr) a.def = fallback;
  return a;
}
ArgSpec chips(const char* text, const char* help) {
  return unit(with_text(bounded(arg("chips", T::kInteger, help), 1, kMaxCount), text), "chip");
}
ArgSpec dtype(std::string key, std::string help, std::string text) {
  return with_text(arg(std::move(key), T::kDType, std::move(help) + ": fp32, bf16, fp8, int8, fp4, int4"),
                   std::move(text));
}
ArgSpec flag(std::string key, std::string help) {
  return with_default(arg(std::move(key), T::kBool, std::move(help)), false);
}
ArgSpec number(std::string key, std::string help, std::string u, Json def, double lo, double hi) {
  return unit(with_default(bounded(arg(std::move(key), T::kNumber, std::move(help)), lo, hi), std::move(def)),
              std::move(u));
}
ArgSpec integer(std::string key, std::string help, std::string u, Json def, double lo, double hi) {
  return unit(with_default(bounded(arg(std::move(key), T::kInteger, std::move(help)), lo, hi), std::move(def)),
              std::move(u));
}
ArgSpec choice(std::string key, std::string help, std::vector<std::string> choices) {
  ArgSpec a = with_default(arg(std::move(key), T::kChoice, std::move(help)), choices.front());
  a.choices = std::move(choices);
  return a;
}
// A user's own price per chip-hour of --hw, for every command that costs something.
ArgSpec usd_per_hour() {
  ArgSpec a = with_text(
      unit(bounded(arg("usd_per_hour", T::kNumber, "your own price per chip-hour of --hw"), 1e-6, 1e6), "$/h"),
      "the catalog's rental price");
  return a;
}
// How every dollar is priced (model.md §25.4): the catalog's rent, or tco's owned hour under a
// data/tco.toml profile.
ArgSpec cost() {
  ArgSpec a = with_default(arg("cost", T::kString,
                               "rented (the catalog's price) or owned[:PROFILE]: tco's owned hour under "
                               "data/tco.toml's cluster (the default owner), hyperscaler or enterprise, or a "
                               "--tco-file profile"),
                           "rented");
  // The built-in bases, for the page and the schema; a --tco-file may add profiles.
  a.choices = {"rented", "owned", "owned:hyperscaler", "owned:enterprise"};
  return a;
}
ArgSpec tco_file() {
  ArgSpec a =
      with_text(arg("tco_file", T::kString, "TOML overriding data/tco.toml sections, systems or profiles"), "none");
  a.path = true;
  return a;
}
// Every command that prices chip-hours: a rate, a cost basis, and the owned-cost data.
std::vector<ArgSpec> pricing() {
  return {usd_per_hour(), cost(), tco_file()};
}
std::vector<ArgSpec> priced(std::vector<ArgSpec> a) {
  for (auto& p : pricing()) a.push_back(std::move(p));
  return a;
}
// A service-level target: positive, none when absent.
ArgSpec target(ArgSpec a, double hi, std::string u) {
  a = with_text(unit(bounded(std::move(a), 0, hi), std::move(u)), "none");
  a.exclusive_min = true;
  return a;
}
// The serving engine whose defaults a deployment takes (data/engines, model.md §18.4).
ArgSpec serving_engine() {
  return choice("engine",
                "serving engine profile: its KV memory rule, sequence cap, host time per step and sustained GEMM "
                "share (data/engines)",
                engine_names(false));
}
std::vector<std::string> engine_names(bool launchable) {
  // The profiles are data (data/engines/*.toml): adding an engine is adding a file.
  static const std::vector<ServingEngine> engines = [] {
    auto e = builtin_engines();
    LLMECON_ASSERT(e.ok(), "the built-in engine profiles parse (tested)");
    return e.ok() ? std::move(e).value() : std::vector<ServingEngine>{};
  }();
  std::vector<std::string> out;
  for (const ServingEngine& e : engines)
    if (!launchable || e.launch) out.push_back(e.name);
  return out;
}
ArgSpec explain() {
  return flag("explain", "add the derivation: each formula with its values substituted");
}
ArgSpec ideal() {
  return flag("ideal", "the pure roofline: no efficiency factors or fixed costs");
}
ArgSpec file() {
  ArgSpec a = arg("file", T::kString, "measurement CSV (schema: shared/validation/README.md)");
  a.positional = true;
  a.required = true;
  return a;
}

// The formats of one deployment: weights (experts follow unless given), activations, KV.
std::vector<ArgSpec> formats() {
  return {dtype("weight_dtype", "weight format", "as released"),
          dtype("expert_dtype", "routed-expert weight format", "--weight-dtype when given, else as released"),
          dtype("act_dtype", "activation format", "--weight-dtype when given, else as released"),
          dtype("kv_dtype", "KV cache format", "as released (bf16)")};
}

ArgSpec optional_integer(std::string key, std::string help, std::string u, double lo, double hi, std::string text) {
  return with_text(unit(bounded(arg(std::move(key), T::kInteger, std::move(help)), lo, hi), std::move(u)),
                   std::move(text));
}
ArgSpec path(std::string key, std::string help, std::string text) {
  ArgSpec a = with_text(arg(std::move(key), T::kString, std::move(help)), std::move(text));
  a.path = true;
  return a;
}
CommandSpec command(std::string name, std::string help, std::vector<ArgSpec> args, bool long_running) {
  CommandSpec c;
  c.name = std::move(name);
  c.help = std::move(help);
  c.args = std::move(args);
  c.long_running = long_running;
  return c;
}
ArgSpec prefill_hw() {
  return with_text(arg("prefill_hw", T::kHardware, "disaggregated serving: the prefill pool's chip"),
                   "none: prefill on the decode pool");
}

}  // namespace llmecon::argspec
