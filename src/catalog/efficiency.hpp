// catalog/efficiency.hpp: what real kernels reach, operator by operator (docs/model.md §18).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "units/units.hpp"

namespace llmecon {

/// What real kernels achieve (docs/model.md §18). The default-constructed value is the pure
/// roofline (`--ideal`); hardware families carry sourced or fitted values (data/efficiency.toml).
struct Efficiency {
  double compute = 1.0;  ///< fraction of peak FLOP/s a large GEMM reaches (GEMM microbenchmarks)
  /// Rows of one GEMM tile: a GEMM of m rows computes ceil(m / tile_m) tiles of rows, so a
  /// decode GEMM of 1 row runs at 1 / tile_m of the rate (0: no tiling).
  double tile_m = 0;
  double tile_n = 0;         ///< columns of one tile, for wave quantization (0: none)
  double compute_units = 0;  ///< SMs, CUs or cores one wave of tiles fills (0: no wave quantization)
  double memory = 1.0;       ///< fraction of HBM bandwidth a large streaming read reaches
  /// Bytes one kernel reads at which it reaches half of that (the bandwidth-latency product):
  /// a kernel reading b bytes reaches memory x b / (b + memory_half). 0: no size effect.
  Bytes memory_half{};
  double comm = 1.0;          ///< fraction of link bandwidth collectives reach
  Seconds step_overhead{};    ///< fixed cost per forward pass (scheduler, sampling, graph replay)
  Seconds kernel_overhead{};  ///< fixed cost per kernel launched (launch and ramp, between kernels)
  double layer_kernels = 0;   ///< kernels per layer besides GEMMs and attention (norms, activations, RoPE)
  /// Reduction depth at which a 16-bit GEMM reaches half its large-k rate: each tile's fixed
  /// prologue and epilogue against its k-loop, so a GEMM of depth k computes at k / (k + k_half).
  /// A format r times faster per element runs the same fixed time as r times the depth
  /// (model.md §18.3). 0: no depth effect.
  double k_half = 0;
  /// Share of a narrower format's nominal speed-up (its peak over the 16-bit peak) that a large
  /// GEMM in it keeps: MXFP8 on Blackwell runs 1.83x BF16 where the peaks say 2x (0.915). 1: all.
  double narrow_speedup = 1.0;
  /// Fraction of peak a fused attention kernel reaches on long sequences (0: e_c, as a GEMM).
  double attn_compute = 0;
  /// Sequence length at which a fused attention kernel reaches half of attn_compute: its query
  /// tiles' fixed cost against their sweep over the keys (0: no length effect).
  double attn_half = 0;
  /// Fraction of peak FlashAttention-2 reaches on long sequences, where a stack runs it instead of
  /// the family's fused kernel (on Hopper it lacks TMA and wgmma; 0: as attn_compute). It ramps
  /// with the sequence over the same attn_half.
  double attn_compute_fa2 = 0;
  /// KV bytes one decode-attention kernel reads at which it reaches half of `memory` (0: as any
  /// kernel, memory_half): attention kernels ramp up over a longer time than a plain weight stream
  /// (split-K reductions, page-table walks, tails), so they need more bytes in flight.
  Bytes kv_half{};
  /// Measured GEMM rates at small row counts (a machine measured by `llmecon measure`, model.md
  /// §20): a GEMM of rows_m[i] rows reaches rows_compute[i] of peak. Between points the fraction is
  /// interpolated log-log; below the first it stays at the first (a kernel of fewer rows is no
  /// faster per row); up to the last point it replaces the tile rule. rows_n = 0: none.
  static constexpr int kRowPoints = 12;
  std::array<double, kRowPoints> rows_m{}, rows_compute{};
  int rows_n = 0;

  /// The compute fraction of a GEMM of m rows, n columns and depth k on one chip, in a format
  /// `rate` times the 16-bit rate: padding to whole tiles of rows, wave quantization once the tiles
  /// outnumber the compute units (fewer tiles are spread over the units by splitting k), the
  /// tiles' fixed cost against their depth, and a narrower format's kept speed-up. Attention and
  /// other non-GEMM work: n = 0, k = 0.
  [[nodiscard]] double compute_at(double m, double n, double k = 0, double rate = 1) const {
    const double depth = k_half > 0 && k > 0 ? k / (k + k_half * rate) : 1.0;
    const double narrow = rate > 1 ? narrow_speedup : 1.0;
    if (rows_n > 0 && m > 0 && m <= rows_m[static_cast<std::size_t>(rows_n - 1)]) return rows_at(m) * depth * narrow;
    double f = compute * depth * narrow;
    if (tile_m > 0 && m > 0) f *= m / (std::ceil(m / tile_m) * tile_m);
    if (tile_n > 0 && compute_units > 0 && n > 0 && m > 0) {
      const double tiles = std::ceil(m / std::max(tile_m, 1.0)) * std::ceil(n / tile_n);
      if (tiles > compute_units) f *= tiles / (std::ceil(tiles / compute_units) * compute_units);
    }
    return f;
  }
  /// The compute fraction of a fused attention kernel over sequences of `seq` tokens: the family's
  /// kernel, or FlashAttention-2 where `fa2` and the family states its rate.
  [[nodiscard]] double attention_at(double seq, bool fa2 = false) const {
    const double top = fa2 && attn_compute_fa2 > 0 ? attn_compute_fa2 : attn_compute;
    if (top <= 0) return compute;
    return attn_half > 0 && seq > 0 ? top * seq / (seq + attn_half) : top;
  }
  /// Whether a fused attention kernel has a rate of its own here (else it runs at e_c, as a GEMM).
  [[nodiscard]] bool attention_rated(bool fa2 = false) const {
    return attn_compute > 0 || (fa2 && attn_compute_fa2 > 0);
  }
  /// The measured fraction of peak at m rows (rows_n > 0, m at most the last point).
  [[nodiscard]] double rows_at(double m) const {
    if (m <= rows_m[0]) return rows_compute[0];
    std::size_t i = 1;
    while (i + 1 < static_cast<std::size_t>(rows_n) && rows_m[i] < m) ++i;
    const double t = std::log(m / rows_m[i - 1]) / std::log(rows_m[i] / rows_m[i - 1]);
    return std::exp(std::log(rows_compute[i - 1]) + t * (std::log(rows_compute[i]) - std::log(rows_compute[i - 1])));
  }
  /// The memory fraction of a kernel that reads `bytes`.
  [[nodiscard]] double memory_at(Bytes bytes) const { return memory_at(bytes, memory_half); }
  /// The same with the half-rate bytes `half` (kv_half for an attention kernel).
  [[nodiscard]] double memory_at(Bytes bytes, Bytes half) const {
    const double b = bytes.si(), h = half.si();
    return h > 0 && b > 0 ? memory * b / (b + h) : memory;
  }
  /// These rates as a serving engine sustains them through a whole forward pass: every GEMM rate
  /// (the large-GEMM ceiling and measured row points) times `s`, the engine's `compute_sustained`
  /// (model.md §18.4). The pure roofline stays pure.
  [[nodiscard]] Efficiency sustained(double s) const {
    if (s == 1.0 || ideal()) return *this;
    Efficiency e = *this;
    e.compute *= s;
    for (double& f : e.rows_compute) f *= s;
    return e;
  }
  /// Every field as the default-constructed value holds it: the pure roofline.
  [[nodiscard]] bool ideal() const;
};

/// One scalar field of Efficiency as data/efficiency.toml, a chip's [efficiency] table, the JSON
/// and `calibrate`'s TOML name it: a plain number, or a quantity in bytes or seconds. The table
/// efficiency_fields() lists them all, so a new field is declared in the struct and there alone;
/// the measured row curve (rows, rows_compute) is apart.
struct EfficiencyField {
  enum class Kind { kNumber, kBytes, kSeconds };
  const char* key = "";
  Kind kind = Kind::kNumber;
  double Efficiency::*number = nullptr;
  Bytes Efficiency::*bytes = nullptr;
  Seconds Efficiency::*seconds = nullptr;
  double lo = 0, hi = 0;   ///< the accepted range: of the number, or of the quantity in SI units
  const char* limit = "";  ///< quantities: the range's upper end in words ("at most 1 TB")
  const char* hint = "";   ///< quantities: a value with its unit ("e.g. \"2 MB\"")

  /// The field's value in SI units (numbers as they are).
  [[nodiscard]] double si(const Efficiency& e) const;
  void copy(Efficiency& to, const Efficiency& from) const;
  /// Its JSON key: the TOML key, with _bytes or _s for a quantity.
  [[nodiscard]] std::string json_key() const;
};
const std::vector<EfficiencyField>& efficiency_fields();

}  // namespace llmecon
