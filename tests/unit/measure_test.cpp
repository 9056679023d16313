// A small, fast version of `llmecon measure --decode` on this machine. Only robust facts are
// asserted: the time per token falls with batch until the knee, and the measured knee lies
// within a factor of 4 of the predicted one (docs/model.md §20).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "catalog/hardware.hpp"
#include "measure/measure.hpp"

namespace llmecon {
namespace {

TEST(Measure, MachineProfileIsAUsableHardwareFile) {
  MeasureOptions o;
  o.stream_bytes = 32e6;
  o.gemm_sizes = {128, 256};
  o.gemm_rows = {1, 4, 16};
  o.repeats = 2;
  const MachineProfile p = measure_machine(o);
  EXPECT_GT(p.stream.si(), 1e8);  // more than 0.1 GB/s
  EXPECT_GT(p.gemm.si(), 1e8);    // more than 0.1 GFLOP/s
  EXPECT_EQ(p.gemm_sizes.size(), 2u);
  auto h = parse_hardware_toml(machine_toml(p), "measured.toml");
  ASSERT_TRUE(h) << h.error().message();
  EXPECT_EQ(h->name, "cpu-local");
  EXPECT_NEAR(h->hbm_bandwidth.value.si(), p.stream.si(), 1e-5 * p.stream.si());
  // The decode-shaped GEMMs: one per row count, and the weight stream a one-row GEMM reaches,
  // carried into the hardware file as its memory fraction.
  EXPECT_EQ(p.gemm_rows.size(), o.gemm_rows.size());
  EXPECT_GT(p.weight_stream.si(), 1e8);
  ASSERT_TRUE(h->efficiency.has_value());
  EXPECT_NEAR(h->efficiency->memory, machine_efficiency(p).memory, 1e-4);
  // and the small-row curve, from the counts of two rows or more.
  EXPECT_EQ(h->efficiency->rows_n, 2);
}

TEST(Measure, DecodeBatchingCurveHasItsKnee) {
  MeasureOptions o;
  o.stream_bytes = 64e6;
  o.gemm_sizes = {256, 512};
  o.repeats = 2;
  const MachineProfile p = measure_machine(o);
  DecodeOptions d;
  d.d_model = 1024;
  const double layer_bytes = 12.0 * 1024 * 1024 * 4;
  d.layers = static_cast<int>(std::clamp(std::ceil(2 * p.l3.si() / layer_bytes), 2.0, 8.0));
  d.batches = {1, 2, 4, 8, 16, 32, 64, 128};
  d.repeats = 3;  // best of three: timing on a shared machine is noisy
  const DecodeSweep s = measure_decode(p, d);
  ASSERT_EQ(s.points.size(), d.batches.size());
  ASSERT_GT(s.knee_measured, 0) << "the step time never doubled: no knee in the sweep";
  const double ratio = s.knee_measured / s.knee_predicted;
  EXPECT_GT(ratio, 0.25) << "measured " << s.knee_measured << " predicted " << s.knee_predicted;
  EXPECT_LT(ratio, 4.0) << "measured " << s.knee_measured << " predicted " << s.knee_predicted;
  // Below the knee each doubling of the batch cuts the time per token (allowing 25% noise), and
  // overall by well over half from B = 1 to the knee.
  const double first = s.points.front().measured.si();
  double last = first;
  for (const auto& pt : s.points) {
    if (pt.batch > std::min(s.knee_measured, s.knee_predicted)) break;
    const double per_token = pt.measured.si() / pt.batch;
    EXPECT_LE(per_token, last * 1.25) << "batch " << pt.batch;
    last = per_token;
  }
  const auto at_knee = std::find_if(s.points.begin(), s.points.end(),
                                    [&](const DecodePoint& pt) { return pt.batch >= s.knee_measured; });
  ASSERT_NE(at_knee, s.points.end());
  EXPECT_LT(at_knee->measured.si() / at_knee->batch, 0.6 * first);
}

}  // namespace
}  // namespace llmecon
