// The measured decode knee (model.md §20) as a pure function of timings, on synthetic curves:
// the timing test itself (measure_test.cpp) carries the `measure` label and is kept out of the
// default suite.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "catalog/hardware.hpp"
#include "measure/measure.hpp"
#include "roofline/roofline.hpp"

namespace llmecon {
namespace {

// A roofline curve max(B / knee, 1) x t0 sampled at powers of two.
std::vector<DecodePoint> roofline_curve(double knee, double t0, int bmax) {
  std::vector<DecodePoint> out;
  for (int b = 1; b <= bmax; b *= 2) {
    const double t = t0 * std::max(1.0, b / knee);
    out.push_back(DecodePoint{b, units::seconds(t), units::seconds(t)});
  }
  return out;
}

TEST(DecodeKnee, FindsTheRooflineKneeOnAPowerOfTwo) {
  // The step doubles at B = 2 x knee, so the knee is recovered exactly.
  EXPECT_DOUBLE_EQ(decode_knee(roofline_curve(16, 1e-3, 256)), 16.0);
  EXPECT_DOUBLE_EQ(decode_knee(roofline_curve(4, 2e-3, 64)), 4.0);
}

TEST(DecodeKnee, InterpolatesGeometricallyBetweenPoints) {
  // knee 12: the time is 2 t0 at B = 24, between the points 16 (t = 4/3 t0) and 32 (8/3 t0).
  const double k = decode_knee(roofline_curve(12, 1e-3, 256));
  EXPECT_GT(k, 8.0);
  EXPECT_LT(k, 16.0);
}

TEST(DecodeKnee, ASlowFirstPointDoesNotMoveIt) {
  // The floor is fitted across every point, so a batch-1 step 50% slow (a cold cache, a one-row
  // GEMM below the stream) leaves the knee where the curve has it.
  auto pts = roofline_curve(16, 1e-3, 256);
  pts.front().measured = units::seconds(pts.front().measured.si() * 1.5);
  EXPECT_DOUBLE_EQ(decode_knee(pts), 16.0);
  // And the predicted times give the predicted knee.
  for (auto& p : pts) p.predicted = units::seconds(1e-3 * std::max(1.0, p.batch / 32.0));
  EXPECT_DOUBLE_EQ(decode_knee(pts, true), 32.0);
}

TEST(DecodeKnee, ZeroWhenTheStepNeverDoubles) {
  EXPECT_EQ(decode_knee(roofline_curve(1024, 1e-3, 256)), 0.0);
  EXPECT_EQ(decode_knee({}), 0.0);
}

TEST(DecodeKnee, NoiseBelowTheKneeDoesNotMoveItMuch) {
  auto pts = roofline_curve(32, 1e-3, 512);
  // +-20% jitter on the flat part must not be read as a knee.
  for (std::size_t i = 1; i < pts.size() && pts[i].batch < 32; ++i) {
    pts[i].measured = units::seconds(pts[i].measured.si() * (i % 2 ? 1.2 : 0.8));
  }
  const double k = decode_knee(pts);
  EXPECT_GT(k, 16.0);
  EXPECT_LT(k, 64.0);
}

}  // namespace
}  // namespace llmecon

namespace llmecon {
namespace {

// measure --decode predicts through the engine's roofline: for its synthetic stack that is F1
// with S = 1 and no KV, max(2 B P / F, 4 P / BW), to within the attention core and KV writes.
TEST(DecodeKnee, TheSyntheticStackThroughTheEngineIsF1) {
  const ModelSpec m = synthetic_stack(1024, 4);
  const double P = 4 * 12.0 * 1024 * 1024;
  EXPECT_NEAR(m.params_total(), P, 1e-4 * P);  // plus the final norm vector
  MachineProfile p;
  p.gemm = units::flop_per_s(200e9);
  p.stream = units::bytes_per_s(20e9);
  p.memory = units::bytes(64e9);
  auto hw = parse_hardware_toml(machine_toml(p), "measured");
  ASSERT_TRUE(hw) << hw.error().message();
  for (double B : {1.0, 8.0, 64.0, 512.0}) {
    RooflineInput in;
    in.model = &m;
    in.hw = &*hw;
    in.step = Step{Phase::kDecode, B, 1, 0};
    in.precision = Precision{DType::kFp32, DType::kFp32, DType::kFp32, DType::kFp32};
    const double engine = roofline_unchecked(in).t_step.si();
    const double f1 = std::max(2.0 * B * P / 200e9, 4.0 * P / 20e9);
    EXPECT_NEAR(engine, f1, 0.01 * f1) << "B = " << B;
  }
}

// The per-operator rule on a measured machine (model.md §20): a GEMM of m rows runs at the rate
// measured for m rows, interpolated log-log between the measured counts; one row is the weight
// stream and sets the memory fraction instead.
TEST(DecodeKnee, SmallRowGemmsRunAtTheirMeasuredRate) {
  MachineProfile p;
  p.gemm = units::flop_per_s(200e9);
  p.stream = units::bytes_per_s(80e9);
  p.weight_stream = units::bytes_per_s(20e9);
  p.memory = units::bytes(64e9);
  p.weight_n = 4096;
  p.gemm_rows = {GemmPoint{1, units::flop_per_s(10e9)}, GemmPoint{2, units::flop_per_s(12e9)},
                 GemmPoint{8, units::flop_per_s(48e9)}, GemmPoint{32, units::flop_per_s(160e9)}};
  const Efficiency e = machine_efficiency(p);
  EXPECT_DOUBLE_EQ(e.memory, 0.25);
  ASSERT_EQ(e.rows_n, 3);                      // one row is the stream, not a compute point
  EXPECT_DOUBLE_EQ(e.compute_at(1, 0), 0.06);  // below the first point: its rate
  EXPECT_DOUBLE_EQ(e.compute_at(2, 0), 0.06);
  EXPECT_NEAR(e.compute_at(4, 0), 0.12, 1e-12);  // log-log between 2 and 8
  EXPECT_NEAR(e.compute_at(16, 0), std::sqrt(0.24 * 0.8), 1e-12);
  EXPECT_DOUBLE_EQ(e.compute_at(32, 0), 0.8);
  EXPECT_DOUBLE_EQ(e.compute_at(64, 0), 1.0);  // past the last point: the best SGEMM rate
  // The hardware file carries the curve, and reads back the same.
  auto hw = parse_hardware_toml(machine_toml(p), "measured");
  ASSERT_TRUE(hw) << hw.error().message();
  ASSERT_TRUE(hw->efficiency.has_value());
  ASSERT_EQ(hw->efficiency->rows_n, 3);
  for (int i = 0; i < 3; ++i) {
    const auto k = static_cast<std::size_t>(i);
    EXPECT_DOUBLE_EQ(hw->efficiency->rows_m[k], e.rows_m[k]);
    EXPECT_NEAR(hw->efficiency->rows_compute[k], e.rows_compute[k], 1e-4);
  }
  // A batch-1 decode step on it streams weights (its GEMMs at 12 GFLOP/s would take 5/6 of the
  // stream's time); at 4 rows they run at 24 of 200 GFLOP/s and take longer than the stream: the
  // step is what the small-row kernel allows.
  const ModelSpec m = synthetic_stack(1024, 4);
  RooflineInput in;
  in.model = &m;
  in.hw = &*hw;
  in.eff = e;
  in.precision = Precision{DType::kFp32, DType::kFp32, DType::kFp32, DType::kFp32};
  in.step = Step{Phase::kDecode, 1, 1, 0};
  EXPECT_EQ(roofline_unchecked(in).bound, Bound::kWeights);
  in.step = Step{Phase::kDecode, 4, 1, 0};
  const RooflineResult r4 = roofline_unchecked(in);
  EXPECT_EQ(r4.bound, Bound::kCompute);
  EXPECT_NEAR(r4.t_compute.si(), 2.0 * 4 * m.params_active_matmul() / 24e9, 0.02 * r4.t_compute.si());
}

TEST(DecodeKnee, AMeasuredCurveInAHardwareFileIsChecked) {
  MachineProfile p;
  p.gemm = units::flop_per_s(200e9);
  p.stream = units::bytes_per_s(20e9);
  p.memory = units::bytes(64e9);
  const std::string base = machine_toml(p);
  for (const char* bad : {"rows = [2, 4]\nrows_compute = [0.1]\n", "rows = [4, 2]\nrows_compute = [0.1, 0.2]\n",
                          "rows = [2]\nrows_compute = [1.5]\n"}) {
    auto hw = parse_hardware_toml(base + "\n[efficiency]\n" + bad + "source = \"test\"\n", "bad.toml");
    ASSERT_FALSE(hw) << bad;
    EXPECT_NE(hw.error().message().find("efficiency.rows"), std::string::npos) << hw.error().message();
  }
}

// measure --decode predicts each batch from the profile timed beside it (model.md §20): the rate at
// that many rows replaces the profile's, or joins the curve in order, and the one-row stream
// replaces the memory fraction's measurement; one row and unmeasured values change nothing else.
TEST(DecodeKnee, APairedProfileReplacesWhatWasTimedBesideTheStep) {
  MachineProfile p;
  p.gemm = units::flop_per_s(200e9);
  p.stream = units::bytes_per_s(80e9);
  p.weight_stream = units::bytes_per_s(20e9);
  p.gemm_rows = {GemmPoint{1, units::flop_per_s(10e9)}, GemmPoint{8, units::flop_per_s(48e9)},
                 GemmPoint{32, units::flop_per_s(160e9)}};
  const MachineProfile same = paired_profile(p, 8, units::flop_per_s(40e9), units::bytes_per_s(16e9));
  ASSERT_EQ(same.gemm_rows.size(), 3u);
  EXPECT_DOUBLE_EQ(same.gemm_rows[1].rate.si(), 40e9);
  EXPECT_DOUBLE_EQ(same.weight_stream.si(), 16e9);
  EXPECT_DOUBLE_EQ(machine_efficiency(same).memory, 0.2);
  EXPECT_DOUBLE_EQ(machine_efficiency(same).compute_at(8, 0), 0.2);
  const MachineProfile past = paired_profile(p, 64, units::flop_per_s(190e9), BytesPerSecond{});
  ASSERT_EQ(past.gemm_rows.size(), 4u);
  EXPECT_EQ(past.gemm_rows[3].n, 64);
  EXPECT_DOUBLE_EQ(past.weight_stream.si(), 20e9);  // not re-measured: kept
  EXPECT_DOUBLE_EQ(machine_efficiency(past).compute_at(64, 0), 0.95);
  const MachineProfile between = paired_profile(p, 4, units::flop_per_s(20e9), BytesPerSecond{});
  ASSERT_EQ(between.gemm_rows.size(), 4u);
  EXPECT_EQ(between.gemm_rows[1].n, 4);
  EXPECT_EQ(between.gemm_rows[2].n, 8);
  const MachineProfile one = paired_profile(p, 1, units::flop_per_s(99e9), units::bytes_per_s(18e9));
  ASSERT_EQ(one.gemm_rows.size(), 3u);
  EXPECT_DOUBLE_EQ(one.gemm_rows[0].rate.si(), 10e9);  // one row is the stream, set apart
  EXPECT_DOUBLE_EQ(one.weight_stream.si(), 18e9);
}

}  // namespace
}  // namespace llmecon
