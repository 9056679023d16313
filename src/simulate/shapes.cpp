// Workload shapes beyond lengths and arrivals (docs/model.md §23.1): inference-perf's shared
// prefixes.
#include <fmt/format.h>

#include <cmath>

#include "args/arg_builders.hpp"
#include "args/args.hpp"
#include "simulate/simulate.hpp"

namespace llmecon {

void SharedPrefix::apply(Workload& w) const {
  w.prefix_hit = 1;
  w.prefix_groups = groups;
  w.prefix_tokens = prefix;
  w.isl = LengthDist::fixed(prefix + question);
  if (users > 0) w.requests = static_cast<long>(groups) * users;
}

std::string SharedPrefix::str() const {
  return fmt::format("{} shared prompt{} of {} tokens{}, each request adding a question of {} tokens", groups,
                     groups == 1 ? "" : "s", prefix, users > 0 ? fmt::format(", {} users each", users) : "", question);
}

Result<SharedPrefix> parse_shared_prefix(std::string_view text, const std::string& flag) {
  const char* form = "GROUPS:PREFIX:QUESTION[:USERS], e.g. 10:2048:256:20";
  std::vector<double> v;
  std::size_t start = 0;
  while (start <= text.size() && v.size() < 5) {
    const std::size_t colon = std::min(text.find(':', start), text.size());
    const auto x = parse_number_text(text.substr(start, colon - start));
    if (!x || *x != std::floor(*x)) {
      return Error{flag, "", fmt::format("'{}' is not a whole number", text.substr(start, colon - start)), form};
    }
    v.push_back(*x);
    start = colon + 1;
  }
  if (v.size() < 3 || v.size() > 4) return Error{flag, "", "takes three or four numbers", form};
  const double groups = v[0], prefix = v[1], question = v[2], users = v.size() == 4 ? v[3] : 0;
  if (groups < 1 || groups > 1e6) return Error{flag, "", "groups must be 1 to 10^6", form};
  if (prefix < 1 || question < 0 || prefix + question > argspec::kMaxTokens) {
    return Error{flag, "", "the prefix must be at least 1 token and prefix + question at most 10^8", form};
  }
  if (v.size() == 4 && (users < 1 || groups * users > 1e8)) {
    return Error{flag, "", "users must be at least 1, with groups x users at most 10^8", form};
  }
  return SharedPrefix{static_cast<int>(groups), static_cast<int>(prefix), static_cast<int>(question),
                      static_cast<int>(users)};
}

}  // namespace llmecon
