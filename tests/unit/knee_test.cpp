// The measured decode knee (model.md §20) as a pure function of timings, on synthetic curves:
// the timing test itself (measure_test.cpp) carries the `measure` label and is kept out of the
// default suite.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "llmecon/hardware.hpp"
#include "llmecon/measure.hpp"
#include "llmecon/roofline.hpp"

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

}  // namespace
}  // namespace llmecon
