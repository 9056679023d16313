// The pieces every text encoder shares (text.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "io/text.hpp"

namespace llmecon {

std::string params_text(double v) {
  if (v >= 1e12) return format_number(v / 1e12) + "T";
  if (v >= 1e9) return format_number(v / 1e9) + "B";
  return format_number(v / 1e6) + "M";
}

std::string money_per_tokens(double usd_per_mtok, const std::string& suffix) {
  if (usd_per_mtok == 0 || std::fabs(usd_per_mtok) >= 0.01) return "$" + format_number(usd_per_mtok) + "/Mtok" + suffix;
  if (std::fabs(usd_per_mtok) >= 1e-5) return "$" + format_number(usd_per_mtok * 1e3) + "/Gtok" + suffix;
  return "$" + format_number(usd_per_mtok * 1e6) + "/Ttok" + suffix;
}

std::string format_unit(double v, std::string_view unit) {
  if (unit == "s") return format(units::seconds(v));
  if (unit == "B") return format(units::bytes(v));
  if (unit == "B/s") return format(units::bytes_per_s(v));
  if (unit == "FLOP/s") return format(units::flop_per_s(v));
  if (unit == "FLOP") return format(units::flops(v));
  if (unit == "tok/s") return format(units::tokens_per_s(v));
  if (unit == "B/tok") return format(units::bytes_per_token(v));
  if (unit == "tok") return format(units::tokens(v));
  if (unit == "$/Mtok" || unit == "$/Mtok/h") return money_per_tokens(v, unit == "$/Mtok" ? "" : "/h");
  if (unit == "param") return params_text(v) + " params";
  if (unit == "$/h") return "$" + format_number(v) + "/h";
  if (unit == "x") return format_number(v) + "x";
  if (unit == "$") return "$" + format_number(v);
  if (unit == "W") return format(units::watts(v));
  if (unit == "day") return format_number(v) + " days";
  if (unit == "GPU-h" || unit == "MWh" || unit == "J/tok" || unit == "kWh") {
    return format_number(v) + " " + std::string(unit);
  }
  if (unit == "bool") return v != 0 ? "yes" : "no";
  return format_number(v);
}

std::string text_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> w(header.size());
  for (std::size_t i = 0; i < header.size(); ++i) w[i] = header[i].size();
  for (const auto& r : rows)
    for (std::size_t i = 0; i < r.size() && i < w.size(); ++i) w[i] = std::max(w[i], r[i].size());
  std::string out;
  auto line = [&](const std::vector<std::string>& r) {
    std::string s;
    for (std::size_t i = 0; i < r.size(); ++i) s += fmt::format("{:<{}}", r[i], w[i] + 2);
    while (!s.empty() && s.back() == ' ') s.pop_back();
    out += s + "\n";
  };
  line(header);
  for (const auto& r : rows) line(r);
  return out;
}

std::string text_lines(std::string_view heading, const std::vector<std::string>& lines, std::string_view indent) {
  std::string out(heading);
  for (const std::string& l : lines) out += std::string(indent) + l + "\n";
  return out;
}

std::string warnings_text(const std::vector<std::string>& warnings) {
  return text_lines("", warnings, "warning: ");
}

}  // namespace llmecon
