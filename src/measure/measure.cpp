// Measuring this machine (docs/model.md §20).
#include "measure/measure.hpp"

#include "roofline/roofline.hpp"

#include <cblas.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <random>
#include <thread>
#include <vector>

namespace llmecon {
namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

Bytes sysconf_bytes(int name) {
  const long v = sysconf(name);
  return units::bytes(v > 0 ? static_cast<double>(v) : 0.0);
}

std::string cpu_name() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      return colon == std::string::npos ? line : line.substr(colon + 2);
    }
  }
  return "unknown CPU";
}

// The least wall time of `repeats` (at least one) calls of `run`.
template <class F>
double best_seconds(int repeats, F&& run) {
  double best = 1e30;
  for (int r = 0; r < std::max(1, repeats); ++r) {
    const double t0 = now();
    run();
    best = std::min(best, now() - t0);
  }
  return best;
}

// STREAM-style triad through OpenBLAS daxpy (a = a + s c, optimized and threaded whatever the
// build type): bytes moved = 3 x 8 x n (read a and c, write a).
void triad(std::vector<double>& a, const std::vector<double>& c) {
  cblas_daxpy(static_cast<int>(a.size()), 3.0, c.data(), 1, a.data(), 1);
}

std::vector<float> random_floats(std::size_t n, unsigned seed) {
  std::vector<float> v(n);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (auto& x : v) x = u(rng);
  return v;
}

void sgemm(int m, int n, int k, const float* a, const float* b, float* c) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a, k, b, n, 0.0f, c, n);
}

}  // namespace

MachineProfile measure_machine(const MeasureOptions& o) {
  MachineProfile p;
  p.cpu = cpu_name();
  p.threads = o.threads > 0 ? o.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  openblas_set_num_threads(p.threads);
  p.l1 = sysconf_bytes(_SC_LEVEL1_DCACHE_SIZE);
  p.l2 = sysconf_bytes(_SC_LEVEL2_CACHE_SIZE);
  p.l3 = sysconf_bytes(_SC_LEVEL3_CACHE_SIZE);
  p.memory = units::bytes(static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGESIZE)));
  // STREAM triad, best of repeats (first touch in parallel is not needed for a 1-socket box).
  const auto n = static_cast<std::size_t>(o.stream_bytes / 8.0);
  std::vector<double> a(n, 0.0), c(n, 2.0);
  triad(a, c);  // first touch
  const double best = best_seconds(o.repeats, [&] { triad(a, c); });
  p.stream = units::bytes_per_s(3.0 * 8.0 * static_cast<double>(n) / best);
  // SGEMM at several sizes.
  for (int s : o.gemm_sizes) {
    const auto sz = static_cast<std::size_t>(s) * static_cast<std::size_t>(s);
    const auto A = random_floats(sz, 1), B = random_floats(sz, 2);
    std::vector<float> C(sz);
    sgemm(s, s, s, A.data(), B.data(), C.data());  // warm up
    const double t = best_seconds(o.repeats, [&] { sgemm(s, s, s, A.data(), B.data(), C.data()); });
    const FlopsPerSecond rate = units::flop_per_s(2.0 * s * s * static_cast<double>(s) / t);
    p.gemm_sizes.push_back(GemmPoint{s, rate});
    p.gemm = max(p.gemm, rate);
  }
  // Decode-shaped SGEMMs: m rows by an N x N weight twice the last-level cache, so every call
  // streams the weight from memory (model.md §20).
  if (!o.gemm_rows.empty()) {
    const double llc = std::max(p.l3.si(), 8e6);
    const int N = static_cast<int>(std::clamp(std::ceil(std::sqrt(2.0 * llc / 4.0) / 64.0) * 64.0, 1024.0, 16384.0));
    p.weight_n = N;
    const auto nn = static_cast<std::size_t>(N);
    const int mmax = *std::max_element(o.gemm_rows.begin(), o.gemm_rows.end());
    const auto W = random_floats(nn * nn, 3);
    const auto X = random_floats(static_cast<std::size_t>(mmax) * nn, 4);
    std::vector<float> Y(static_cast<std::size_t>(mmax) * nn);
    for (int m : o.gemm_rows) {
      sgemm(m, N, N, X.data(), W.data(), Y.data());  // warm up
      const double t = best_seconds(o.repeats, [&] { sgemm(m, N, N, X.data(), W.data(), Y.data()); });
      p.gemm_rows.push_back(GemmPoint{m, units::flop_per_s(2.0 * m * static_cast<double>(N) * N / t)});
      if (m == 1) p.weight_stream = units::bytes_per_s(4.0 * static_cast<double>(N) * N / t);
    }
  }
  return p;
}

Efficiency machine_efficiency(const MachineProfile& p) {
  Efficiency e;
  if (p.weight_stream.si() > 0 && p.stream.si() > 0) e.memory = std::clamp(p.weight_stream / p.stream, 0.01, 1.0);
  // The small-row GEMM curve (model.md §20): each measured row count of two or more at its rate
  // over the best SGEMM's. One row is the weight stream above, the memory term's measurement.
  if (p.gemm.si() > 0) {
    for (const GemmPoint& g : p.gemm_rows) {
      if (g.n < 2 || e.rows_n == Efficiency::kRowPoints) continue;
      const auto i = static_cast<std::size_t>(e.rows_n++);
      e.rows_m[i] = g.n;
      e.rows_compute[i] = std::clamp(g.rate / p.gemm, 1e-6, 1.0);
    }
  }
  return e;
}

namespace {
// The [efficiency] table of a measured machine: the weight stream's fraction of the triad and the
// small-row GEMM curve, when they were measured.
std::string efficiency_toml(const MachineProfile& p) {
  const Efficiency e = machine_efficiency(p);
  if (p.weight_stream.si() <= 0 && e.rows_n == 0) return {};
  std::string out = "\n[efficiency]\n";
  std::string source;
  if (p.weight_stream.si() > 0) {
    out += fmt::format("memory = {:.4f}\n", e.memory);
    source =
        fmt::format("a one-row SGEMM streams its {} x {} fp32 weight at {:.4g} GB/s against the triad's {:.4g} GB/s",
                    p.weight_n, p.weight_n, p.weight_stream.si() / 1e9, p.stream.si() / 1e9);
  }
  if (e.rows_n > 0) {
    std::string rows, fractions;
    for (std::size_t i = 0; i < static_cast<std::size_t>(e.rows_n); ++i) {
      rows += fmt::format("{}{}", i ? ", " : "", e.rows_m[i]);
      fractions += fmt::format("{}{:.4f}", i ? ", " : "", e.rows_compute[i]);
    }
    out += fmt::format("rows = [{}]\nrows_compute = [{}]\n", rows, fractions);
    source +=
        fmt::format("{}SGEMMs of {} rows by that weight, over the best SGEMM rate", source.empty() ? "" : "; ", rows);
  }
  return out + fmt::format("source = \"measured: {}\"\n", source);
}
}  // namespace

std::string machine_toml(const MachineProfile& p, const std::string& name) {
  const double tf = p.gemm.si() / 1e12;
  return fmt::format(
      "# This machine, measured by `llmecon measure`: {} ({} threads)\n"
      "name = \"{}\"\ndisplay_name = \"{}\"\nvendor = \"local\"\nyear = 2026\nstatus = \"shipping\"\n"
      "sources = [\"measured by llmecon measure: STREAM-style triad, OpenBLAS SGEMM\"]\n"
      "notes = \"fp32 SGEMM best of sizes {}; every format runs at the fp32 rate; L1 {} L2 {} L3 {}. Price is a "
      "placeholder.\"\n\n"
      "[compute]\nfp32 = \"{:.6g} TFLOP/s\"\nbf16 = \"{:.6g} TFLOP/s\"\n\n"
      "[memory]\nhbm_capacity = \"{:.6g} GB\"\nhbm_bandwidth = \"{:.6g} GB/s\"\n\n"
      "[scale_up]\ndomain_size = 1\ntopology = \"none\"\nbandwidth = \"1 GB/s\"\n\n"
      "[scale_out]\nbandwidth = \"10 Gb/s\"\n\n[price]\nrental = \"$0.10/h\"\nsource = \"placeholder: edit to your "
      "cost\"\n{}",
      p.cpu, p.threads, name, p.cpu, p.gemm_sizes.empty() ? 0 : p.gemm_sizes.back().n, format(p.l1), format(p.l2),
      format(p.l3), tf, tf, p.memory.si() / 1e9, p.stream.si() / 1e9, efficiency_toml(p));
}

DecodeOptions DecodeOptions::quick(const MachineProfile& p) {
  DecodeOptions d;
  d.d_model = 1024;
  const double layer_bytes = 12.0 * 1024 * 1024 * 4;
  d.layers = static_cast<int>(std::clamp(std::ceil(2 * p.l3.si() / layer_bytes), 2.0, 8.0));
  d.batches = {1, 2, 4, 8, 16, 32, 64, 128, 256};
  d.repeats = 2;
  return d;
}

ModelSpec synthetic_stack(int d, int layers) {
  // Per layer: a fused QKV projection (d x 3d) and the output projection (d x d) of multi-head
  // attention, and a plain 4d MLP (d x 4d, 4d x d), in fp32 with no embedding: what
  // measure_decode runs.
  ModelSpec m;
  m.name = "synthetic-stack";
  m.family = "synthetic";
  m.origin = "llmecon measure";
  m.d_model = d;
  m.vocab = 0;
  m.mlp = MlpKind::kPlain;
  m.attn.heads = std::max(1, d / 64);
  m.attn.kv_heads = m.attn.heads;
  m.attn.head_dim = d / m.attn.heads;
  m.attn.v_head_dim = m.attn.head_dim;
  m.norms_per_layer = 0;
  m.native_weight_dtype = DType::kFp32;
  m.native_expert_dtype = DType::kFp32;
  for (int l = 0; l < layers; ++l) m.layers.push_back(Layer{Mixer::kFull, 0, false, 4 * d, -1});
  return m;
}

double decode_knee(const std::vector<DecodePoint>& points, bool predicted) {
  // Time per token falls as 1/B while the weight stream dominates, then flattens at its floor.
  // The knee is twice the batch at which it is down to twice the floor (model.md §20): for a
  // roofline t0 max(1, B / k) that is k exactly, and the floor is fitted across every point, so one
  // noisy point near B = 1 does not move it.
  if (points.size() < 2) return 0;
  auto t = [predicted](const DecodePoint& p) { return (predicted ? p.predicted : p.measured).si(); };
  // A sweep that never leaves the weight-bound plateau has no knee yet.
  if (t(points.back()) < 2 * t(points.front())) return 0;
  std::vector<double> per_token;
  per_token.reserve(points.size());
  for (const auto& p : points) per_token.push_back(t(p) / p.batch);
  const double floor = *std::min_element(per_token.begin(), per_token.end());
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (per_token[i] > 2 * floor) continue;
    if (i == 0) return 2.0 * points[0].batch;
    const double ca = per_token[i - 1], cb = per_token[i];
    const double ba = points[i - 1].batch, bb = points[i].batch;
    const double f = ca > cb ? std::log(ca / (2 * floor)) / std::log(ca / cb) : 1.0;
    return 2.0 * std::exp(std::log(ba) + f * (std::log(bb) - std::log(ba)));
  }
  return 0;
}

MachineProfile paired_profile(const MachineProfile& p, int rows, FlopsPerSecond rate, BytesPerSecond stream) {
  MachineProfile q = p;
  if (stream.si() > 0) q.weight_stream = stream;
  if (rows < 2 || !(rate.si() > 0)) return q;
  const auto at =
      std::lower_bound(q.gemm_rows.begin(), q.gemm_rows.end(), rows, [](const GemmPoint& g, int m) { return g.n < m; });
  if (at != q.gemm_rows.end() && at->n == rows) {
    at->rate = rate;
  } else {
    q.gemm_rows.insert(at, GemmPoint{rows, rate});
  }
  return q;
}

DecodeSweep measure_decode(const MachineProfile& p, const DecodeOptions& o) {
  DecodeSweep s;
  const int d = o.d_model;
  openblas_set_num_threads(p.threads);
  // Per layer: QKV d x 3d, O d x d, MLP d x 4d and 4d x d, each weight uniform with variance
  // 1 / fan-in so activations keep their scale through the stack with no extra kernel.
  struct Weights {
    std::vector<float> qkv, out, up, down;
  };
  auto scaled = [](std::size_t n, unsigned seed, int fan_in) {
    std::vector<float> v = random_floats(n, seed);
    const auto k = static_cast<float>(std::sqrt(3.0 / fan_in));
    for (auto& x : v) x *= k;
    return v;
  };
  std::vector<Weights> layers;
  for (int l = 0; l < o.layers; ++l) {
    const auto dd = static_cast<std::size_t>(d);
    const auto seed = static_cast<unsigned>(l);
    layers.push_back(Weights{scaled(dd * 3 * dd, 10u + seed, d), scaled(dd * dd, 20u + seed, d),
                             scaled(dd * 4 * dd, 30u + seed, d), scaled(4 * dd * dd, 40u + seed, 4 * d)});
  }
  s.params = static_cast<double>(o.layers) * 12.0 * d * static_cast<double>(d);
  s.weight_bytes = units::bytes(4.0 * s.params);
  const int bmax = o.batches.empty() ? 1 : *std::max_element(o.batches.begin(), o.batches.end());
  const std::vector<float> x0 = random_floats(static_cast<std::size_t>(bmax) * static_cast<std::size_t>(d), 5);
  std::vector<float> x(x0.size());
  std::vector<float> h(static_cast<std::size_t>(bmax) * 4 * static_cast<std::size_t>(d));
  std::vector<float> y(static_cast<std::size_t>(bmax) * static_cast<std::size_t>(d));
  auto step = [&](int B) {
    std::copy_n(x0.begin(), static_cast<std::size_t>(B) * static_cast<std::size_t>(d), x.begin());
    for (const auto& L : layers) {
      sgemm(B, 3 * d, d, x.data(), L.qkv.data(), h.data());
      sgemm(B, d, d, x.data(), L.out.data(), y.data());
      sgemm(B, 4 * d, d, y.data(), L.up.data(), h.data());
      sgemm(B, d, 4 * d, h.data(), L.down.data(), x.data());
    }
  };
  step(1);  // warm up
  // The profile's decode-shaped SGEMM (m rows by an N x N weight past the last-level cache), timed
  // in turn with each step.
  const int N = p.weight_n;
  const auto nn = static_cast<std::size_t>(N);
  std::vector<float> W, X, Y;
  if (N > 0) {
    W = random_floats(nn * nn, 3);
    X = random_floats(static_cast<std::size_t>(bmax) * nn, 4);
    Y.resize(static_cast<std::size_t>(bmax) * nn);
  }
  const ModelSpec stack = synthetic_stack(d, o.layers);
  // The engine's per-operator step for this machine and this stack (model.md §18, §20): GEMMs at
  // the rate measured for their row count, weights at the bandwidth a one-row SGEMM streams.
  auto predict = [&](DecodePoint& pt) {
    const MachineProfile q = paired_profile(p, pt.batch, pt.rows_rate, pt.weight_stream);
    const Result<Hardware> parsed = parse_hardware_toml(machine_toml(q), "measured");
    LLMECON_ASSERT(parsed.ok(), "machine_toml writes a valid hardware file");
    RooflineInput in;
    in.eff = machine_efficiency(q);
    in.model = &stack;
    in.hw = &parsed.value();
    in.chips = 1;
    in.step = Step{Phase::kDecode, static_cast<double>(pt.batch), 1, 0};
    in.precision = Precision{DType::kFp32, DType::kFp32, DType::kFp32, DType::kFp32};
    pt.predicted = roofline_unchecked(in).t_step;
  };
  for (int B : o.batches) {
    // Each repeat times the step, then the profile's SGEMM of B rows and its one-row stream, one
    // after the other; each keeps its best, so the three are timed under the same conditions.
    double step_s = 1e30, rows_s = 1e30, stream_s = 1e30;
    for (int r = 0; r < std::max(1, o.repeats); ++r) {
      step_s = std::min(step_s, best_seconds(1, [&] { step(B); }));
      if (N == 0) continue;
      if (B > 1) rows_s = std::min(rows_s, best_seconds(1, [&] { sgemm(B, N, N, X.data(), W.data(), Y.data()); }));
      stream_s = std::min(stream_s, best_seconds(1, [&] { sgemm(1, N, N, X.data(), W.data(), Y.data()); }));
    }
    DecodePoint pt{B, units::seconds(step_s), Seconds{}, FlopsPerSecond{}, BytesPerSecond{}};
    if (N > 0) {
      const double nn2 = static_cast<double>(N) * N;
      if (B > 1) pt.rows_rate = units::flop_per_s(2.0 * B * nn2 / rows_s);
      pt.weight_stream = units::bytes_per_s(4.0 * nn2 / stream_s);
    }
    predict(pt);
    s.points.push_back(pt);
  }
  s.knee_measured = decode_knee(s.points);
  s.knee_predicted = decode_knee(s.points, true);
  return s;
}

}  // namespace llmecon
