// The CLI's text printers' shared pieces (internal to apps/cli): writing to stdout, a padded
// table, and reading a JSON number back as a quantity.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "output.hpp"

namespace llmecon::cli {

inline void out(const std::string& s) {
  std::fwrite(s.data(), 1, s.size(), stdout);
}

inline std::string params(double v) {
  if (v >= 1e12) return format_number(v / 1e12) + "T";
  if (v >= 1e9) return format_number(v / 1e9) + "B";
  return format_number(v / 1e6) + "M";
}

// A plain text table with columns padded to their widest cell.
inline void table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> w(header.size());
  for (std::size_t i = 0; i < header.size(); ++i) w[i] = header[i].size();
  for (const auto& r : rows)
    for (std::size_t i = 0; i < r.size() && i < w.size(); ++i) w[i] = std::max(w[i], r[i].size());
  auto line = [&](const std::vector<std::string>& r) {
    std::string s;
    for (std::size_t i = 0; i < r.size(); ++i) s += fmt::format("{:<{}}", r[i], w[i] + 2);
    while (!s.empty() && s.back() == ' ') s.pop_back();
    out(s + "\n");
  };
  line(header);
  for (const auto& r : rows) line(r);
}

inline Seconds secs(const Json& v) {
  return units::seconds(v.get<double>());
}
inline Bytes byt(const Json& v) {
  return units::bytes(v.get<double>());
}

}  // namespace llmecon::cli
