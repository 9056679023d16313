// measure/measure.hpp: this machine's own roofline, measured (docs/model.md §20).
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

#include "catalog/efficiency.hpp"
#include "model/model.hpp"
#include "units/units.hpp"

namespace llmecon {

struct MeasureOptions {
  int threads = 0;              ///< 0 = all hardware threads
  double stream_bytes = 512e6;  ///< per array; well above the last-level cache
  std::vector<int> gemm_sizes = {256, 512, 1024, 2048};
  int repeats = 3;  ///< best of
  /// A small, fast profile (`measure --quick`, the tests).
  std::vector<int> gemm_rows = {1, 2, 4, 8, 16, 32, 64, 128, 256};  ///< rows of the decode-shaped SGEMMs
  static MeasureOptions quick() { return MeasureOptions{0, 64e6, {256, 512}, 2, {1, 16}}; }
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
  /// SGEMM of m rows (GemmPoint::n holds m) by an n x n fp32 weight twice the last-level cache:
  /// what a decode step's GEMMs are (model.md §20).
  std::vector<GemmPoint> gemm_rows;
  int weight_n = 0;
  /// Weight bytes per second a one-row SGEMM streams from memory; 0 when not measured.
  BytesPerSecond weight_stream{};
  Bytes l1{}, l2{}, l3{};
  Bytes memory{};
};

MachineProfile measure_machine(const MeasureOptions& o);

/// `p` with the SGEMM rate at `rows` rows (inserted in order when not yet measured; ignored for one
/// row or a zero rate) and the one-row weight stream (when above zero) replaced: the profile as
/// measured beside one point of the decode sweep (model.md §20).
MachineProfile paired_profile(const MachineProfile& p, int rows, FlopsPerSecond rate, BytesPerSecond stream);

/// The per-operator rules for this machine (model.md §18, §20): GEMMs of m rows at the rate measured
/// for m (interpolated; the best SGEMM rate past the last point), and a weight stream at the
/// fraction of the triad bandwidth a one-row SGEMM reaches.
Efficiency machine_efficiency(const MachineProfile& p);

/// A hardware file (TOML) describing this machine as a one-chip "accelerator", with its
/// [efficiency] when the weight stream was measured.
std::string machine_toml(const MachineProfile& p, const std::string& name = "cpu-local");

struct DecodeOptions {
  int d_model = 2048;
  int layers = 4;
  std::vector<int> batches = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512};
  int repeats = 5;  ///< best of, for the step and the profile timed beside it
  /// A small sweep for this machine: d = 1024 and enough layers (2 to 8) that the weights are
  /// twice the last-level cache.
  static DecodeOptions quick(const MachineProfile& p);
};

struct DecodePoint {
  int batch = 0;
  Seconds measured{};
  Seconds predicted{};
  /// What the prediction used, timed in turn with the step (model.md §20): the profile's SGEMM of
  /// `batch` rows (0 at one row) and the one-row weight stream.
  FlopsPerSecond rows_rate{};
  BytesPerSecond weight_stream{};
};

struct DecodeSweep {
  double params = 0;  ///< weights in the synthetic stack
  Bytes weight_bytes{};
  std::vector<DecodePoint> points;
  double knee_predicted = 0;  ///< decode_knee of the predicted times
  double knee_measured = 0;   ///< decode_knee of the measured times
};

/// The knee of a decode sweep (model.md §20): twice the batch at which time per token has fallen to
/// twice its floor (the least time per token over every point), interpolated geometrically; 0 when
/// the step never doubles over the sweep. Of the measured times, or the predicted ones. Pure, so it
/// is tested on synthetic timings.
double decode_knee(const std::vector<DecodePoint>& points, bool predicted = false);

/// The synthetic stack measure_decode runs, as a model the engine's roofline evaluates: d_model d,
/// `layers` layers of multi-head attention projections and a plain 4d MLP, fp32, no embedding.
ModelSpec synthetic_stack(int d, int layers);

/// Runs the synthetic decode sweep: per layer a fused QKV projection (d x 3d), the output
/// projection (d x d) and a 4d MLP (d x 4d, 4d x d) in fp32, weights far larger than the LLC.
/// When `p` measured its decode-shaped SGEMMs, each batch's step is timed in turn with the SGEMM
/// of that many rows and the one-row weight stream, and predicted from those (paired_profile), so
/// a shared machine's speed drifting between the profile and the sweep does not enter the error.
DecodeSweep measure_decode(const MachineProfile& p, const DecodeOptions& o);

}  // namespace llmecon
