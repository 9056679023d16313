// parallel/comm.hpp: collective communication under an alpha-beta model (docs/model.md §15).
//
// A collective over n chips moving S bytes per chip costs latency terms (alpha per message step)
// plus bytes over the link bandwidth (beta = 1 / bandwidth). Groups that span scale-up domains are
// hierarchical: the part inside a domain uses scale-up links, the rest scale-out.
//
//   Link nvlink{units::gb_per_s(450), units::us(2)};
//   Seconds t = collective_time(Collective::kAllReduce, Algorithm::kRing, 8, units::mb(16), nvlink);
#pragma once

#include <optional>
#include <string_view>

#include "catalog/hardware.hpp"
#include "units/units.hpp"

namespace llmecon {

enum class Collective { kAllReduce, kAllGather, kReduceScatter, kAllToAll, kSendRecv };
enum class Algorithm { kRing, kTree, kDirect };
std::string_view name(Collective c);
std::string_view name(Algorithm a);

/// Bytes each chip sends over its links for a collective of S bytes per chip on n chips
/// (model.md §15.1): ring all-reduce 2(n-1)/n S, all-gather and reduce-scatter (n-1)/n S,
/// all-to-all (n-1)/n S, send/recv S.
double bytes_on_wire(Collective c, Algorithm a, int n, double bytes);

/// Message steps that pay the link latency: ring all-reduce 2(n-1), tree 2 ceil(log2 n), direct 1.
double latency_steps(Collective c, Algorithm a, int n);

/// Time of one collective on one link class.
Seconds collective_time(Collective c, Algorithm a, int n, Bytes bytes, const Link& link);

/// The scale-up link a collective of n chips sees on this chip's topology: full bandwidth on a
/// switch; on a full mesh a ring gets one link of n-1; on a torus all-to-all is bisection-bound.
Link scale_up_link(const Hardware& hw, Collective c, Algorithm a, int n);

/// A group of n chips placed on hardware with `domain` chips per scale-up domain: inside one
/// domain it uses scale-up links; across domains the inner part runs on scale-up and the outer
/// part (n / domain groups) on scale-out (model.md §15.2). All-to-all sends the fraction of its
/// traffic that leaves the domain over scale-out.
Seconds group_collective_time(Collective c, Algorithm a, int n, Bytes bytes, const Hardware& hw, int domain);
/// The cheapest of ring, tree and direct all-reduce for `bytes` per chip on `n` chips (model.md §15):
/// what a tensor-parallel all-reduce costs, before the comm efficiency.
/// A ring all-reduce, all-gather or reduce-scatter over n chips spanning scale-up domains, at the
/// bus bandwidth the chip's cluster measured at that many nodes (`domain` chips each; log-linear
/// between node counts, held past the ends): bytes on the wire over it (model.md §15.4). nullopt
/// where nothing was measured for it, or n fits one domain.
std::optional<Seconds> measured_collective_time(Collective c, int n, Bytes bytes, const Hardware& hw, int domain);
Seconds best_all_reduce(int n, Bytes bytes, const Hardware& hw, int domain);

/// An expert-parallel dispatch or combine (model.md §16.4), before the comm efficiency: each of a
/// chip's `tokens` tokens sends `token_bytes` once to every distinct rank of the `ep` group that
/// holds one of its `top_k` routed experts (uniform routing reaches ep (1 - (1 - 1/ep)^k) ranks;
/// the receiver copies the token to its own experts), on scale-up inside a domain of
/// `ranks_per_domain` ranks. Across domains a token crosses scale-out once per remote domain
/// holding one of its experts (at most `group_limit` domains under node-limited routing; 0: no
/// limit), then fans out on scale-up to the ranks that hold them.
Seconds expert_all_to_all(int ep, int ranks_per_domain, int top_k, int group_limit, double tokens, double token_bytes,
                          const Hardware& hw);

}  // namespace llmecon
