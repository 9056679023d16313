// scenario/scenario.hpp: one deployment question, resolved once from a command's arguments.
//
// Every shell (CLI, server, Python) reaches the analyses through the facade, and every command
// that runs a model on a chip resolves its arguments here, the same way: the model (a built-in
// name, a config.json path or the config itself), the chip priced at the catalog's rate, the
// user's --usd-per-hour or an owned cluster's (--cost owned[:PROFILE]), what it draws, the
// serving engine, the formats (model.md §4.7), the efficiency (ideal or the chip family's), the
// chips and the parallel degrees stated. Degrees left unstated are filled by one rule
// (layout.hpp, model.md §17.5), for the CLI and for validate's rows alike.
//
//   TRY(s, resolve_scenario(catalogs, args));
//   DeploymentInput in = s.deployment();  // model, chip, formats, efficiency, engine, power
//   in.map = Mapping{.tp = s.chips};      // or complete_layout(in, s.chips, s.stated, load): layout.hpp
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "args/args.hpp"
#include "parallel/parallel.hpp"
#include "scenario/catalogs.hpp"
#include "tco/tco.hpp"

namespace llmecon {

struct Scenario {
  std::shared_ptr<const ModelSpec> model;  ///< on the heap, so a Scenario can move
  std::shared_ptr<const Hardware> hw;      ///< the catalog's chip, or a copy at the price asked for
  const ServingEngine* engine = nullptr;   ///< when the command takes --engine
  Precision precision;
  Efficiency eff;  ///< Efficiency{} under --ideal
  PowerModel power;
  int chips = 1;                     ///< --chips, --racks x the domain, or the command's default
  Mapping stated{0, 0, 0, 0, 0, 0};  ///< the degrees given (--tp, --pp, --ep, --dp-attn, --cp); 0: unstated
  bool ideal = false;                ///< --ideal: the pure roofline, no engine memory rule
  bool kv_stated = false;            ///< --kv-dtype given; else the engine's default (model.md §18.4)

  /// The deployment on one replica: model, chip, formats, efficiency, power, and the engine's
  /// memory rule and host time (model.md §18.4) unless ideal. Its mapping is the caller's.
  [[nodiscard]] DeploymentInput deployment() const;
  /// `in` served by `on` instead (simulate's grid over engines): its KV format when none is
  /// stated, and its memory rule and host time unless ideal.
  void serve_on(DeploymentInput& in, const ServingEngine& on) const;
};

/// How a command's chip count defaults when neither --chips nor --racks is given.
struct ScenarioDefaults {
  int chips_up_to = 0;                ///< one scale-up domain, capped here (0: the whole domain)
  std::optional<std::string> engine;  ///< the engine to load instead of --engine's (plan --emit)
};

/// The scenario a command's arguments describe (model.md §17.5 for what stays unstated). Errors
/// name the flag: an unknown model, chip or engine, --chips with --racks, a price and an owned
/// cost basis together.
Result<Scenario> resolve_scenario(const Catalogs& cat, const Args& a, const ScenarioDefaults& d = {});

// The pieces, for commands that need only some of them.
/// The `model` argument: a built-in name, a config.json path, or the config object itself.
Result<ModelSpec> load_model(const Catalogs& cat, const Args& a);
/// data/tco.toml (read once), with --tco-file over it when the command takes one and it is given.
Result<std::shared_ptr<const TcoCatalog>> tco_catalog(const Args& a);
/// The owner profile --cost names: none for rented, "cluster" for owned, NAME for owned:NAME.
Result<std::optional<std::string>> owner_profile(const Args& a);
/// What a chip of `hw` draws (model.md §25.6): idle and host power from data/tco.toml's system
/// (an HGX-like estimate for chips it does not price), PUE from --cost's profile or the defaults.
Result<PowerModel> power_model(const Args& a, const Hardware& hw);
/// The chip named `name`, priced at --usd-per-hour when given, or owned under --cost owned[:NAME]
/// (tco at the profile's cluster and utilization): the catalog's entry, or a copy with that
/// price. The pointer stays valid however the holder moves.
Result<std::shared_ptr<const Hardware>> priced_hardware(const Catalogs& cat, const Args& a, const std::string& name);
/// The prefill pool's chip, --prefill-hw: the catalog's entry, or under --cost owned a copy at its
/// owned price, kept alive by `holder` (--usd-per-hour prices the decode chip only).
Result<const Hardware*> prefill_hardware(const Catalogs& cat, const Args& a, std::shared_ptr<const Hardware>& holder);
/// The formats from --weight-dtype, --expert-dtype, --act-dtype and --kv-dtype, on the model's
/// released ones (model.md §4.7); KV left unstated is the serving engine's default for those
/// weights when one serves it (model.md §18.4), else bf16.
Precision precision_from(const Args& a, const ModelSpec& m, const ServingEngine* engine = nullptr);
/// The efficiency a command runs at: none under --ideal, else the chip family's.
Efficiency efficiency_from(const Catalogs& cat, const Args& a, const Hardware& hw);

}  // namespace llmecon
