// llmecon/measure.hpp: this machine's own roofline, measured (docs/model.md §20).
//
// STREAM-style memory bandwidth (multi-threaded triad), single-precision GEMM rate through
// OpenBLAS at several sizes, and cache sizes; then a real decode step of a synthetic transformer
// layer stack across batch sizes, against llmecon's prediction for the measured numbers.
//
//   MachineProfile p = measure_machine({});
//   std::string toml = machine_toml(p);           // a --hw-file for this machine
//   DecodeSweep s = measure_decode(p, {});        // measured vs predicted step time per batch
#pragma once

#include <string>
#include <vector>

#include "llmecon/model.hpp"
#include "llmecon/units.hpp"

namespace llmecon {

struct MeasureOptions {
  int threads = 0;              ///< 0 = all hardware threads
  double stream_bytes = 512e6;  ///< per array; well above the last-level cache
  std::vector<int> gemm_sizes = {256, 512, 1024, 2048};
  int repeats = 3;  ///< best of
  /// A small, fast profile (`measure --quick`, the tests).
  static MeasureOptions quick() { return MeasureOptions{0, 64e6, {256, 512}, 2}; }
};

struct GemmPoint {
  int n = 0;
  FlopsPerSecond rate{};
};

struct MachineProfile {
  std::string cpu;
  int threads = 0;
  BytesPerSecond stream{};  ///< triad a = a + s c (OpenBLAS daxpy), counting 3 arrays of traffic
  FlopsPerSecond gemm{};    ///< best SGEMM rate
  std::vector<GemmPoint> gemm_sizes;
  Bytes l1{}, l2{}, l3{};
  Bytes memory{};
};

MachineProfile measure_machine(const MeasureOptions& o);

/// A hardware file (TOML) describing this machine as a one-chip "accelerator".
std::string machine_toml(const MachineProfile& p, const std::string& name = "cpu-local");

struct DecodeOptions {
  int d_model = 2048;
  int layers = 4;
  std::vector<int> batches = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512};
  int repeats = 3;
  /// A small sweep for this machine: d = 1024 and enough layers (2 to 8) that the weights are
  /// twice the last-level cache.
  static DecodeOptions quick(const MachineProfile& p);
};

struct DecodePoint {
  int batch = 0;
  Seconds measured{};
  Seconds predicted{};
};

struct DecodeSweep {
  double params = 0;  ///< weights in the synthetic stack
  Bytes weight_bytes{};
  std::vector<DecodePoint> points;
  double knee_predicted = 0;  ///< F x 4 B / (2 BW): the balance batch (F6 with S = 1)
  double knee_measured = 0;   ///< half the batch at which the step time doubles from B = 1
};

/// The measured knee of a decode sweep: half the batch at which the step time first reaches twice
/// the first point's, interpolated geometrically between points; 0 when it never doubles. Pure, so
/// it is tested on synthetic timings.
double decode_knee(const std::vector<DecodePoint>& points);

/// The synthetic stack measure_decode runs, as a model the engine's roofline evaluates: d_model d,
/// `layers` layers of multi-head attention projections and a plain 4d MLP, fp32, no embedding.
ModelSpec synthetic_stack(int d, int layers);

/// Runs the synthetic decode sweep: per layer a fused QKV projection (d x 3d), the output
/// projection (d x d) and a 4d MLP (d x 4d, 4d x d) in fp32, weights far larger than the LLC.
DecodeSweep measure_decode(const MachineProfile& p, const DecodeOptions& o);

}  // namespace llmecon
