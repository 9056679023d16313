// catalog/hardware.hpp: accelerators as sourced data, and the catalog that holds them.
//
// Every figure comes from a TOML file with units in its values and source URLs
// (data/hardware/*.toml, embedded in the binary). Users add or override chips with their own
// files.
//
//   auto cat = HardwareCatalog::builtin();              // Result<HardwareCatalog>
//   const Hardware* h = cat->find("h100-sxm");
//   FlopsPerSecond f = h->peak(DType::kBf16);             // 989.4 TFLOP/s
//   Seconds drain = h->hbm_capacity.value / h->hbm_bandwidth.value;
#pragma once

#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/dtype.hpp"
#include "catalog/efficiency.hpp"
#include "units/error.hpp"
#include "units/units.hpp"

namespace llmecon {

/// A default value and, where sources disagree, the range they span (lo <= value <= hi).
template <class Q>
struct Ranged {
  Q value{};
  std::optional<Q> lo;
  std::optional<Q> hi;
  [[nodiscard]] Q low() const { return lo.value_or(value); }
  [[nodiscard]] Q high() const { return hi.value_or(value); }
};

enum class Topology { kSwitch, kTorus, kMesh, kNone };
std::string_view name(Topology t);

/// A link class: per-chip bandwidth in one direction and a per-message latency.
struct Link {
  BytesPerSecond bandwidth{};
  Seconds latency{};
};

/// A cluster's measured collective bus bandwidths across nodes (nccl-tests' busbw: bytes on the
/// wire per rank over time) at one message size, by node count (model.md §15.4): what its scale-out
/// fabric delivers at scale, which the alpha-beta model of one link does not see.
struct MeasuredCollectives {
  std::vector<double> nodes;                                           ///< ascending
  std::vector<BytesPerSecond> all_reduce, all_gather, reduce_scatter;  ///< one per node count, or empty
  Bytes message{};
  std::string source;
};

/// A storage tier below HBM (host DDR, flash, disk), per chip share.
struct HostTier {
  std::string name;
  Bytes capacity{};
  BytesPerSecond bandwidth{};
  DollarsPerSecond price{};  ///< amortized cost of this capacity per chip share
  std::string source;
};

struct Hardware {
  std::string name;
  std::string display_name;
  std::string vendor;
  int year = 0;
  std::string status;
  std::vector<std::string> sources;
  std::string notes;
  std::string origin;  ///< the file it was read from ("builtin:..." for embedded files)

  /// Dense peak rate per dtype; nullopt where the chip has no rate for that format.
  std::array<std::optional<Ranged<FlopsPerSecond>>, kDTypeCount> compute;
  /// Exponentials per second of the special-function units (MUFU.EX2), one counted as one
  /// operation: the ceiling a fused attention forward meets at one exponential per score
  /// (model.md §24.3). Unset: no such ceiling.
  std::optional<FlopsPerSecond> exp_rate;
  Ranged<Bytes> hbm_capacity;
  Ranged<BytesPerSecond> hbm_bandwidth;
  std::optional<Bytes> sram;

  int domain_size = 1;
  /// Chips one host holds (a server, or a rack's compute tray); 0: unstated, taken as
  /// min(domain, 8). A serving instance past it spans nodes (plan --emit, model.md §17.4).
  int node_size = 0;
  [[nodiscard]] int chips_per_node() const { return node_size > 0 ? node_size : std::min(domain_size, 8); }
  Topology topology = Topology::kSwitch;
  Link scale_up;
  Link scale_out;
  std::optional<MeasuredCollectives> scale_out_measured;  ///< [scale_out.measured]
  std::vector<HostTier> host_tiers;
  Watts tdp{};
  Ranged<DollarsPerSecond> price;
  std::string price_source;
  /// Calibrated efficiency for this chip ([efficiency] table or an overlay file); unset: the
  /// family default applies.
  std::optional<Efficiency> efficiency;
  std::vector<std::string> efficiency_keys;  ///< the fields the table sets; the family gives the rest
  std::string efficiency_source;

  /// The dense peak for a format. A format without native support runs at the next wider
  /// supported format (fp8 on an A100 runs at the bf16 rate).
  [[nodiscard]] FlopsPerSecond peak(DType d) const;
  /// The format whose rate peak(d) uses.
  [[nodiscard]] DType effective_compute_dtype(DType d) const;
  /// HBM capacity / HBM bandwidth (model.md F8).
  [[nodiscard]] Seconds drain_time() const { return hbm_capacity.value / hbm_bandwidth.value; }
  [[nodiscard]] const HostTier* tier(std::string_view tier_name) const;
};

/// Parses one hardware TOML document. `origin` names the file in errors.
Result<Hardware> parse_hardware_toml(std::string_view text, const std::string& origin);

/// The set of known chips: the embedded catalog plus user files, later entries overriding
/// earlier ones by name.
class HardwareCatalog {
 public:
  /// The embedded catalog.
  static Result<HardwareCatalog> builtin();
  /// Adds or overrides chips from a file on disk.
  Status add_file(const std::string& path);
  /// Adds or overrides one chip.
  void put(Hardware h);

  [[nodiscard]] const Hardware* find(std::string_view name) const;
  /// find() or an Error naming `where` (a flag) with the closest known names as the hint.
  [[nodiscard]] Result<const Hardware*> get(std::string_view name, const std::string& where) const;
  [[nodiscard]] const std::vector<Hardware>& all() const { return chips_; }

 private:
  std::vector<Hardware> chips_;
};

/// Efficiency defaults per hardware family (data/efficiency.toml, embedded), each with its source:
/// the catalog's default for chips without an [efficiency] table of their own.
struct FamilyEfficiency {
  std::string family;
  std::vector<std::string> chips;
  Efficiency eff;
  std::string source;
  std::vector<std::string> fitted;  ///< parameters fitted to measurements; the rest are sourced
};
/// The keys of an efficiency table (model.md §18.3), in the order files write them.
const std::vector<std::string>& efficiency_keys();
Result<std::vector<FamilyEfficiency>> builtin_efficiency();
/// Parses an efficiency-defaults file ([[family]] tables); strict like every catalog file.
Result<std::vector<FamilyEfficiency>> parse_efficiency_toml(std::string_view text, const std::string& origin);
/// The family a chip belongs to, or nullptr.
const FamilyEfficiency* family_of(const Hardware& hw, const std::vector<FamilyEfficiency>& families);
/// The efficiency for a chip: its family's, with the fields its own [efficiency] table names
/// replaced; ideal when it has neither.
Efficiency efficiency_for(const Hardware& hw, const std::vector<FamilyEfficiency>& families,
                          std::string* source = nullptr);

}  // namespace llmecon
