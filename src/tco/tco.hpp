// tco/tco.hpp: what an owned accelerator-hour costs (docs/model.md §25): capex per
// accelerator (chip, HBM, host, scale-up and scale-out fabric), opex (energy at the workload's
// load, colocation, maintenance, staff), capital (a capital-recovery factor over the life), and
// the comparison with renting; energy per hour.
//
//   auto cat = TcoCatalog::builtin();                 // data/tco.toml, embedded
//   TcoInputs in; in.chips = 1024; in.utilization = 0.8;
//   Analysis a = tco_analysis(hw, **cat->system("h100-sxm"), cat->defaults(), in);
#pragma once

#include <optional>
#include <random>
#include <string>
#include <vector>

#include "catalog/hardware.hpp"
#include "roofline/roofline.hpp"
#include "units/analysis.hpp"
#include "units/error.hpp"
#include "units/units.hpp"

namespace llmecon {

using DollarsPerByte = Quantity<dims::kUsd - dims::kByte>;
using DollarsPerJoule = Quantity<dims::kUsd - dims::kJoule>;

/// A number and, where sources disagree, its range (for --range).
struct RangedNumber {
  double value = 0;
  std::optional<double> lo, hi;
};

/// Facility, energy, capital and network defaults (data/tco.toml [defaults], [network], [memory]).
struct TcoDefaults {
  Ranged<Seconds> life;
  RangedNumber cost_of_capital;
  RangedNumber pue;
  Ranged<DollarsPerJoule> electricity;
  Ranged<DollarsPerJoule> colocation;  ///< per kWh of reserved critical IT capacity
  RangedNumber maintenance;            ///< share of capex per year
  Ranged<Dollars> staff;               ///< per accelerator per year
  RangedNumber load;                   ///< busy IT power over rated
  int radix = 64;
  Ranged<Dollars> switch_price;
  Ranged<Dollars> link_price;  ///< one fat-tree link: both transceivers and the cable
  int nics_per_accelerator = 1;
  Ranged<DollarsPerByte> hbm;
  /// Board power against utilization (model.md §25.6, [power]): a_c and a_m.
  double compute_weight = 1.7, memory_weight = 0.3;
  /// The scale-up fabric beyond a board (model.md §25.5, [scale_up]).
  int scale_up_links = 18;                                   ///< scale-up links per accelerator
  double scale_up_reach = 72;                                ///< accelerators one tier of scale-up switches joins
  Ranged<Dollars> scale_up_port;                             ///< one link's switch port and copper cable, in a rack
  Ranged<Dollars> scale_up_optical_link;                     ///< one link between racks: both optics and the fibre
  std::vector<std::pair<std::string, std::string>> sources;  ///< field -> source
};

/// A named owner (data/tco.toml [[profile]]): the cluster and utilization an owned price assumes,
/// and the defaults it replaces. `--cost owned:NAME` prices every command with it.
struct TcoProfile {
  std::string name;
  double chips = 1024;
  double utilization = 0.8;
  std::optional<Seconds> life;
  std::optional<double> cost_of_capital, pue;
  std::optional<DollarsPerJoule> electricity;
  std::string source;
};

/// One accelerator's system costs (data/tco.toml [[system]]).
struct TcoSystem {
  std::string hardware;
  Ranged<Dollars> accelerator;  ///< with its HBM
  Ranged<Dollars> host;         ///< share of the server or tray
  Ranged<Dollars> scale_up;     ///< share of the scale-up fabric beyond the board
  Watts idle_power{};
  Watts host_power{};  ///< host share at rating
  std::string source;
};

class TcoCatalog {
 public:
  static Result<TcoCatalog> builtin();
  /// Parses a catalog; with `base`, a user file whose sections ([defaults], [network], [memory])
  /// each replace the base's whole, and whose [[system]] entries add or replace by hardware.
  static Result<TcoCatalog> parse(std::string_view text, const std::string& origin, const TcoCatalog* base);
  [[nodiscard]] const TcoDefaults& defaults() const { return defaults_; }
  /// The system costs of a chip, or an Error naming --hw with the chips that have them.
  [[nodiscard]] Result<const TcoSystem*> system(std::string_view hardware) const;
  [[nodiscard]] const std::vector<TcoSystem>& systems() const { return systems_; }
  /// The profile of this name, or an Error naming `flag` with the profiles there are.
  [[nodiscard]] Result<const TcoProfile*> profile(std::string_view name, const std::string& flag) const;
  [[nodiscard]] const std::vector<TcoProfile>& profiles() const { return profiles_; }

 private:
  TcoDefaults defaults_;
  std::vector<TcoSystem> systems_;
  std::vector<TcoProfile> profiles_;
};

/// A folded-Clos (fat-tree) scale-out network for n endpoints of switches with `radix` ports
/// (model.md §25.2): tiers, switches and links. Oversubscription o >= 1 at the leaves: each leaf
/// takes radix o / (o + 1) endpoints and sends radix / (o + 1) links up.
struct FatTree {
  int tiers = 0;  ///< 0: one endpoint, no network
  double switches = 0;
  double links = 0;  ///< every cable, endpoints to leaves included
  double leaves = 0, spines = 0, cores = 0;
};
FatTree fat_tree(double endpoints, int radix, double oversubscription);

struct TcoInputs {
  double chips = 1;
  double utilization = 1;             ///< share of hours the accelerators do paid work, (0, 1]
  double oversubscription = 1;        ///< at the leaves
  std::string topology = "fat-tree";  ///< "fat-tree", or "none" for one node without a scale-out network
  std::optional<Seconds> life;
  std::optional<double> cost_of_capital, pue, load;
  std::optional<DollarsPerJoule> electricity;
  std::optional<DollarsPerSecond> rent;  ///< per accelerator; the catalog's rental price when absent
};

/// The owned hour against the rented one.
struct TcoResult {
  Dollars capex{};  ///< per accelerator
  Dollars chip{}, memory{}, host{}, scale_up{}, scale_out{};
  FatTree network;
  double life_years = 0, cost_of_capital = 0;  ///< as applied (a life of at least an hour)
  Dollars capital_per_year{}, maintenance_per_year{}, staff_per_year{}, colocation_per_year{};
  Watts busy_power{}, idle_power{};  ///< IT power per accelerator
  double pue = 1;
  DollarsPerJoule electricity{};
  Joules energy_per_busy_hour{};  ///< at the facility (PUE included)
  Dollars energy_per_year{};      ///< at the stated utilization
  DollarsPerSecond owned{};       ///< per utilized accelerator-hour
  DollarsPerSecond rented{};
  std::optional<double> breakeven_utilization;  ///< where owning costs what renting does; none: never
};

TcoResult compute_tco(const Hardware& hw, const TcoSystem& sys, const TcoDefaults& d, const TcoInputs& in);

/// The inputs a profile states (a fat-tree of its chips at its utilization).
TcoInputs profile_inputs(const TcoProfile& p);

/// What `capex` more per accelerator adds to each utilized hour (model.md §25.4): its capital
/// recovery and maintenance over the inputs' life, rate and utilization.
DollarsPerSecond capex_per_hour(const TcoDefaults& d, const TcoInputs& in, Dollars capex);

/// The scale-up fabric capex per accelerator of a domain of `domain` accelerators (model.md
/// §25.5): none inside a board's own switches (an HGX board's NVSwitches are in its price); one
/// tier of switch ports and copper up to the reach; each further tier (a folded Clos, reach/2
/// down-ports per switch) adds two ports and an optical link per scale-up link. Anchored so that
/// the chip's own domain costs what its system states.
Dollars scale_up_fabric(const Hardware& hw, const TcoSystem& sys, const TcoDefaults& d, double domain);

/// The owned cost at utilization u of a result's yearly terms (model.md §25.4).
DollarsPerSecond owned_per_hour_at(const TcoResult& r, double utilization);

/// The analysis `llmecon tco` prints: capex and opex breakdowns, $/GPU-hour owned and rented,
/// break-even utilization, energy; with `explain`, each formula with its values.
Analysis tco_analysis(const Hardware& hw, const TcoSystem& sys, const TcoDefaults& d, const TcoInputs& in);

/// p10/p50/p90 over every sourced range of data/tco.toml, drawn together (model.md §21): the owned
/// hour ($/h), owned over rented, and the break-even utilization (1 where owning never pays).
struct TcoRange {
  int samples = 0;
  Quantiles owned_usd_per_hour, owned_over_rented, breakeven_utilization;
};
TcoRange tco_range(const Hardware& hw, const TcoSystem& sys, const TcoDefaults& d, const TcoInputs& in,
                   int samples = 500, unsigned seed = 20251201);

/// One draw of every ranged default, triangular with its mode at the default (model.md §21).
TcoDefaults sample_defaults(const TcoDefaults& d, std::mt19937_64& rng);
TcoSystem sample_system(const TcoSystem& s, std::mt19937_64& rng);

}  // namespace llmecon
