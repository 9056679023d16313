// Alpha-beta collectives (docs/model.md §15).
#include "parallel/comm.hpp"

#include <algorithm>
#include <cmath>

namespace llmecon {

std::string_view name(Collective c) {
  switch (c) {
    case Collective::kAllReduce:
      return "all_reduce";
    case Collective::kAllGather:
      return "all_gather";
    case Collective::kReduceScatter:
      return "reduce_scatter";
    case Collective::kAllToAll:
      return "all_to_all";
    case Collective::kSendRecv:
      return "send_recv";
  }
  return "?";
}

std::string_view name(Algorithm a) {
  switch (a) {
    case Algorithm::kRing:
      return "ring";
    case Algorithm::kTree:
      return "tree";
    case Algorithm::kDirect:
      return "direct";
  }
  return "?";
}

double bytes_on_wire(Collective c, Algorithm a, int n, double bytes) {
  if (n <= 1 && c != Collective::kSendRecv) return 0.0;
  const double frac = (n - 1.0) / n;
  switch (c) {
    case Collective::kAllReduce:
      // Ring and tree both move 2(n-1)/n S per chip (reduce-scatter then all-gather); a direct
      // one-shot all-reduce sends the whole buffer to every peer.
      return a == Algorithm::kDirect ? (n - 1.0) * bytes : 2.0 * frac * bytes;
    case Collective::kAllGather:
    case Collective::kReduceScatter:
    case Collective::kAllToAll:
      return frac * bytes;
    case Collective::kSendRecv:
      return bytes;
  }
  return 0.0;
}

double latency_steps(Collective c, Algorithm a, int n) {
  if (n <= 1 && c != Collective::kSendRecv) return 0.0;
  if (c == Collective::kSendRecv || a == Algorithm::kDirect) return 1.0;
  const double log_n = std::ceil(std::log2(static_cast<double>(n)));
  switch (c) {
    case Collective::kAllReduce:
      return a == Algorithm::kTree ? 2.0 * log_n : 2.0 * (n - 1.0);
    case Collective::kAllGather:
    case Collective::kReduceScatter:
      return a == Algorithm::kTree ? log_n : n - 1.0;
    case Collective::kAllToAll:
      return a == Algorithm::kRing ? n - 1.0 : 1.0;
    case Collective::kSendRecv:
      return 1.0;
  }
  return 0.0;
}

Seconds collective_time(Collective c, Algorithm a, int n, Bytes bytes, const Link& link) {
  return link.latency * latency_steps(c, a, n) + units::bytes(bytes_on_wire(c, a, n, bytes.si())) / link.bandwidth;
}

Link scale_up_link(const Hardware& hw, Collective c, Algorithm a, int n) {
  Link l = hw.scale_up;
  if (n <= 1) return l;
  switch (hw.topology) {
    case Topology::kSwitch:
    case Topology::kNone:
      break;
    case Topology::kMesh:
      // A full mesh gives each peer 1/(n-1) of a chip's links: direct patterns use them all at
      // once, a ring uses one link out of each chip (model.md §15.3).
      if (a == Algorithm::kRing) l.bandwidth = l.bandwidth / static_cast<double>(n - 1);
      break;
    case Topology::kTorus: {
      // All-to-all on a torus is bisection-bound: per-chip throughput falls as the side grows,
      // about 4 / side of the link bandwidth (2D below 256 chips per pod, else 3D).
      if (c == Collective::kAllToAll) {
        const double dims = hw.domain_size <= 256 ? 2.0 : 3.0;
        const double side = std::pow(static_cast<double>(n), 1.0 / dims);
        l.bandwidth = l.bandwidth * std::min(1.0, 4.0 / side);
      }
      break;
    }
  }
  return l;
}

Seconds group_collective_time(Collective c, Algorithm a, int n, Bytes bytes, const Hardware& hw, int domain) {
  const int d = std::max(1, domain);
  if (n <= d) return collective_time(c, a, n, bytes, scale_up_link(hw, c, a, n));
  const int inner = d;
  const int outer = (n + d - 1) / d;
  if (c == Collective::kAllToAll) {
    // Of the (n-1)/n of traffic that leaves the chip, (n-d)/n leaves the domain (F17).
    const double leaving = (n - static_cast<double>(d)) / n;
    const double staying = (d - 1.0) / n;
    const Seconds up = hw.scale_up.latency + units::bytes(staying * bytes.si()) / hw.scale_up.bandwidth;
    const Seconds out = hw.scale_out.latency + units::bytes(leaving * bytes.si()) / hw.scale_out.bandwidth;
    return max(up, out);  // both link classes run at once; the slower dominates
  }
  if (c == Collective::kSendRecv) return collective_time(c, a, n, bytes, hw.scale_out);
  // Hierarchical: reduce-scatter inside, the collective across domains on 1/inner of the data,
  // then all-gather inside (for all-reduce); gathers and scatters likewise.
  const Seconds in = collective_time(c, a, inner, bytes, scale_up_link(hw, c, a, inner));
  const Seconds across = collective_time(c, a, outer, bytes / static_cast<double>(inner), hw.scale_out);
  return in + across;
}

std::optional<Seconds> measured_collective_time(Collective c, int n, Bytes bytes, const Hardware& hw, int domain) {
  const int d = std::max(1, domain);
  if (!hw.scale_out_measured || n <= d) return std::nullopt;
  const MeasuredCollectives& m = *hw.scale_out_measured;
  const std::vector<BytesPerSecond>* bw = c == Collective::kAllReduce       ? &m.all_reduce
                                          : c == Collective::kAllGather     ? &m.all_gather
                                          : c == Collective::kReduceScatter ? &m.reduce_scatter
                                                                            : nullptr;
  if (bw == nullptr || bw->empty()) return std::nullopt;
  const double nodes = std::ceil(static_cast<double>(n) / d);
  double busbw = bw->front().si();
  if (nodes >= m.nodes.back()) {
    busbw = bw->back().si();
  } else if (nodes > m.nodes.front()) {
    const auto hi = static_cast<std::size_t>(std::upper_bound(m.nodes.begin(), m.nodes.end(), nodes) - m.nodes.begin());
    const std::size_t lo = hi - 1;
    const double f = std::log(nodes / m.nodes[lo]) / std::log(m.nodes[hi] / m.nodes[lo]);
    busbw = std::exp(std::log((*bw)[lo].si()) + f * std::log((*bw)[hi].si() / (*bw)[lo].si()));
  }
  return units::seconds(bytes_on_wire(c, Algorithm::kRing, n, bytes.si()) / busbw);
}

Seconds best_all_reduce(int n, Bytes bytes, const Hardware& hw, int domain) {
  Seconds best = group_collective_time(Collective::kAllReduce, Algorithm::kRing, n, bytes, hw, domain);
  best = min(best, group_collective_time(Collective::kAllReduce, Algorithm::kTree, n, bytes, hw, domain));
  best = min(best, group_collective_time(Collective::kAllReduce, Algorithm::kDirect, n, bytes, hw, domain));
  return best;
}

Seconds expert_all_to_all(int ep, int ranks_per_domain, int top_k, int group_limit, double tokens, double token_bytes,
                          const Hardware& hw) {
  if (ep <= 1 || tokens <= 0) return Seconds{};
  const double n = ep, k = std::max(1, top_k);
  const double ranks = n * (1.0 - std::pow(1.0 - 1.0 / n, k));  // distinct ranks a token reaches
  const double domains = std::ceil(n / std::max(1, ranks_per_domain));
  if (domains <= 1) {
    return group_collective_time(Collective::kAllToAll, Algorithm::kDirect, ep,
                                 units::bytes(tokens * token_bytes * ranks), hw, ranks_per_domain);
  }
  double remote = (domains - 1.0) * (1.0 - std::pow(1.0 - 1.0 / domains, k));
  if (group_limit > 0)
    remote = std::min(remote, std::min(static_cast<double>(group_limit), domains) * (1.0 - 1.0 / domains));
  const Seconds out = hw.scale_out.latency + units::bytes(tokens * token_bytes * remote) / hw.scale_out.bandwidth;
  const Seconds up = hw.scale_up.latency + units::bytes(tokens * token_bytes * ranks) / hw.scale_up.bandwidth;
  return max(out, up);  // both link classes run at once
}

}  // namespace llmecon
