// Workloads for the serving simulator: length distributions, traces, SLOs (docs/model.md §23.1).
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>

#include "args/arg_builders.hpp"
#include "args/args.hpp"
#include "catalog/toml_reader.hpp"
#include "simulate/simulate.hpp"
#include "units/embedded.hpp"

namespace llmecon {
namespace {

using argspec::kMaxTokens;
constexpr std::size_t kMaxTraceRows = 10'000'000;

std::string trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '"')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '"')) s.remove_suffix(1);
  return std::string(s);
}

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == sep) {
      out.push_back(trim(s.substr(start, i - start)));
      start = i + 1;
    }
  }
  return out;
}

std::optional<double> number(std::string_view s) {
  if (s.empty()) return std::nullopt;
  double v = 0;
  const auto* end = s.data() + s.size();
  auto [p, ec] = std::from_chars(s.data(), end, v);
  if (ec != std::errc() || p != end || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::string lower(std::string s) {
  for (auto& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

// Days from 1970-01-01 to a civil date (proleptic Gregorian).
long days_from_civil(long y, long m, long d) {
  y -= m <= 2 ? 1 : 0;
  const long era = (y >= 0 ? y : y - 399) / 400;
  const long yoe = y - era * 400;
  const long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

// "2023-11-16 18:15:46.6805900" (Azure's TIMESTAMP) as seconds since 1970, or a plain number.
std::optional<double> timestamp(const std::string& s) {
  if (auto v = number(s)) return v;
  int y = 0, mo = 0, d = 0, h = 0, mi = 0;
  double sec = 0;
  char tail = 0;
  // NOLINTNEXTLINE(cert-err34-c): every field is checked below.
  const int got = std::sscanf(s.c_str(), "%4d-%2d-%2d%*[ T]%2d:%2d:%lf%c", &y, &mo, &d, &h, &mi, &sec, &tail);
  if (got != 6 || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec < 0 || sec >= 61) {
    return std::nullopt;
  }
  return static_cast<double>(days_from_civil(y, mo, d)) * 86400.0 + h * 3600.0 + mi * 60.0 + sec;
}

Error row_error(const std::string& origin, std::size_t line, const std::string& column, const std::string& what,
                const std::string& hint = "") {
  return Error{origin, fmt::format("line {}, column {}", line, column), what, hint};
}

Result<int> tokens(const std::string& origin, std::size_t line, const std::string& column, const std::string& text,
                   bool allow_zero) {
  auto v = number(text);
  if (!v) return row_error(origin, line, column, "'" + text + "' is not a number", "token counts are whole numbers");
  if (*v < (allow_zero ? 0 : 1) || *v > kMaxTokens || *v != std::floor(*v)) {
    return row_error(origin, line, column, fmt::format("{} tokens is out of range", text),
                     allow_zero ? "0 to 10^8 whole tokens" : "1 to 10^8 whole tokens");
  }
  return static_cast<int>(*v);
}

// The trace's lines, blank ones skipped, with their 1-based numbers.
std::vector<std::pair<std::size_t, std::string_view>> lines_of(std::string_view text) {
  std::vector<std::pair<std::size_t, std::string_view>> out;
  std::size_t start = 0, no = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    ++no;
    std::string_view l = text.substr(start, end - start);
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    if (l.find_first_not_of(" \t") != std::string_view::npos) out.emplace_back(no, l);
    if (end == text.size()) break;
    start = end + 1;
  }
  return out;
}

Status check_time(const std::string& origin, std::size_t line, const std::string& column, double t, double prev) {
  if (t < 0) return row_error(origin, line, column, fmt::format("negative timestamp {}", t), "");
  if (t < prev) {
    return row_error(origin, line, column, fmt::format("timestamp {} is before the previous one ({})", t, prev),
                     "sort the trace by time");
  }
  return {};
}

Result<Trace> parse_jsonl(const std::vector<std::pair<std::size_t, std::string_view>>& rows,
                          const std::string& origin) {
  Trace tr;
  double prev = -1;
  bool mooncake = false;
  for (const auto& row : rows) {
    const std::size_t no = row.first;
    const auto j = nlohmann::json::parse(row.second, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return row_error(origin, no, "-", "not a JSON object", "one object a line");
    auto get = [&](std::initializer_list<const char*> keys) -> const nlohmann::json* {
      for (const char* k : keys) {
        if (j.contains(k)) return &j[k];
      }
      return nullptr;
    };
    const bool mc = j.contains("input_length");
    if (tr.requests.empty()) mooncake = mc;
    if (mc != mooncake) return row_error(origin, no, "-", "mixes Mooncake fields with timestamp_s/input_tokens", "");
    const auto* t = get({"timestamp_s", "timestamp"});
    const auto* in = get({"input_tokens", "input_length"});
    const auto* out = get({"output_tokens", "output_length"});
    const char* tname = mooncake ? "timestamp" : "timestamp_s";
    if (t == nullptr) return row_error(origin, no, tname, "missing", "every line needs a timestamp");
    if (in == nullptr) return row_error(origin, no, mooncake ? "input_length" : "input_tokens", "missing", "");
    if (out == nullptr) return row_error(origin, no, mooncake ? "output_length" : "output_tokens", "missing", "");
    if (!t->is_number()) return row_error(origin, no, tname, "not a number", "");
    TraceRequest r;
    // Mooncake's timestamps are milliseconds.
    r.t_s = t->get<double>() / (mooncake ? 1000.0 : 1.0);
    if (!std::isfinite(r.t_s)) return row_error(origin, no, tname, "not a finite number", "");
    TRY_STATUS(check_time(origin, no, tname, r.t_s, prev));
    prev = r.t_s;
    auto tok = [&](const nlohmann::json& v, const char* col, bool zero) -> Result<int> {
      if (!v.is_number()) return row_error(origin, no, col, "not a number", "token counts are whole numbers");
      return tokens(origin, no, col, fmt::format("{}", v.get<double>()), zero);
    };
    TRY(i, tok(*in, mooncake ? "input_length" : "input_tokens", false));
    TRY(o, tok(*out, mooncake ? "output_length" : "output_tokens", true));
    r.input = i;
    r.output = std::max(1, o);
    if (const auto* h = get({"hash_ids"})) {
      if (!h->is_array()) return row_error(origin, no, "hash_ids", "not an array", "");
      if (h->size() > 1'000'000) return row_error(origin, no, "hash_ids", "more than 10^6 blocks", "");
      for (const auto& x : *h) {
        if (!x.is_number_integer() && !x.is_number_unsigned()) {
          return row_error(origin, no, "hash_ids", "a hash id is not a whole number", "");
        }
        r.hashes.push_back(x.is_number_unsigned() ? x.get<std::uint64_t>()
                                                  : static_cast<std::uint64_t>(x.get<std::int64_t>()));
      }
    }
    if (const auto* p = get({"prefix_id"})) {
      if (!p->is_number_integer()) return row_error(origin, no, "prefix_id", "not a whole number", "");
      r.prefix_id = p->get<std::int64_t>();
      const auto* pt = get({"prefix_tokens"});
      if (pt == nullptr) return row_error(origin, no, "prefix_tokens", "missing", "a prefix id needs its length");
      TRY(pn, tok(*pt, "prefix_tokens", false));
      r.prefix_tokens = std::min(pn, r.input);
    }
    tr.requests.push_back(std::move(r));
    if (tr.requests.size() > kMaxTraceRows) return row_error(origin, no, "-", "more than 10^7 requests", "");
  }
  tr.format = mooncake ? "mooncake" : "jsonl";
  return tr;
}

Result<Trace> parse_csv(const std::vector<std::pair<std::size_t, std::string_view>>& rows, const std::string& origin) {
  const auto header = split(rows.front().second, ',');
  auto col = [&](std::initializer_list<const char*> names) -> std::optional<std::size_t> {
    for (std::size_t i = 0; i < header.size(); ++i) {
      for (const char* n : names) {
        if (lower(header[i]) == lower(n)) return i;
      }
    }
    return std::nullopt;
  };
  const auto ct = col({"timestamp_s", "TIMESTAMP", "Timestamp"});
  const auto ci = col({"input_tokens", "ContextTokens", "Request tokens"});
  const auto co = col({"output_tokens", "GeneratedTokens", "Response tokens"});
  const auto cp = col({"prefix_id"});
  const auto cpt = col({"prefix_tokens"});
  const std::size_t hl = rows.front().first;
  if (!ct) {
    return row_error(origin, hl, "timestamp_s", "missing column",
                     "a header with timestamp_s,input_tokens,output_tokens (or Azure's TIMESTAMP,ContextTokens,"
                     "GeneratedTokens)");
  }
  if (!ci)
    return row_error(origin, hl, "input_tokens", "missing column", "input_tokens, ContextTokens or Request tokens");
  if (!co) {
    return row_error(origin, hl, "output_tokens", "missing column",
                     "output_tokens, GeneratedTokens or Response tokens");
  }
  if (cp.has_value() != cpt.has_value()) {
    return row_error(origin, hl, cp ? "prefix_tokens" : "prefix_id", "missing column", "give both or neither");
  }
  Trace tr;
  tr.format = header[*ci] == "ContextTokens" ? "azure" : header[*ci] == "Request tokens" ? "burstgpt" : "csv";
  double prev = -1, first = 0;
  for (std::size_t k = 1; k < rows.size(); ++k) {
    const auto& [no, l] = rows[k];
    const auto f = split(l, ',');
    if (f.size() != header.size()) {
      return row_error(origin, no, "-", fmt::format("{} fields, the header has {}", f.size(), header.size()), "");
    }
    TraceRequest r;
    auto t = timestamp(f[*ct]);
    if (!t) {
      return row_error(origin, no, header[*ct], "'" + f[*ct] + "' is not a timestamp",
                       "seconds, or YYYY-MM-DD HH:MM:SS[.frac]");
    }
    if (tr.requests.empty()) first = *t;
    // A date-time becomes seconds from the first request; plain numbers stay as given.
    r.t_s = number(f[*ct]) ? *t : *t - first;
    TRY_STATUS(check_time(origin, no, header[*ct], r.t_s, prev));
    prev = r.t_s;
    TRY(i, tokens(origin, no, header[*ci], f[*ci], false));
    TRY(o, tokens(origin, no, header[*co], f[*co], true));
    r.input = i;
    r.output = std::max(1, o);  // a request with no output still returns its first token
    if (cp) {
      auto id = number(f[*cp]);
      if (!id || *id != std::floor(*id) || std::abs(*id) > 9e15) {
        return row_error(origin, no, "prefix_id", "'" + f[*cp] + "' is not a whole number", "");
      }
      r.prefix_id = static_cast<std::int64_t>(*id);
      TRY(pn, tokens(origin, no, "prefix_tokens", f[*cpt], true));
      r.prefix_tokens = std::min(pn, r.input);
      if (pn == 0) r.prefix_id = -1;
    }
    tr.requests.push_back(std::move(r));
    if (tr.requests.size() > kMaxTraceRows) return row_error(origin, no, "-", "more than 10^7 requests", "");
  }
  return tr;
}

}  // namespace

SimTime to_ticks(Seconds s) {
  const double t = s.si() * kSimTicksPerSecond;
  if (!(t > 0)) return 0;
  return std::max<SimTime>(1, static_cast<SimTime>(std::llround(std::min(t, 9e18))));
}

std::string_view name(ArrivalKind k) {
  switch (k) {
    case ArrivalKind::kPoisson:
      return "poisson";
    case ArrivalKind::kGamma:
      return "gamma";
    case ArrivalKind::kConstant:
      return "constant";
    case ArrivalKind::kClosed:
      return "closed";
    case ArrivalKind::kOffline:
      return "offline";
    case ArrivalKind::kTrace:
      return "trace";
  }
  return "?";
}

double LengthDist::mean() const {
  switch (kind) {
    case LengthKind::kFixed:
    case LengthKind::kNormal:
    case LengthKind::kLognormal:
      return a;
    case LengthKind::kUniform:
      return (a + b) / 2;
  }
  return a;
}

namespace {
// The standard normal's quantile, by bisection on its CDF (to 1e-12; p within (0, 1)).
double normal_quantile(double p) {
  double lo = -40, hi = 40;
  for (int i = 0; i < 100 && hi - lo > 1e-12; ++i) {
    const double mid = 0.5 * (lo + hi);
    (0.5 * std::erfc(-mid / std::sqrt(2.0)) < p ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}
}  // namespace

double LengthDist::quantile(double p) const {
  const double q = std::clamp(p, 1e-9, 1 - 1e-9);
  double x = a;
  switch (kind) {
    case LengthKind::kFixed:
      return a;
    case LengthKind::kUniform:
      x = a + q * (b - a);
      break;
    case LengthKind::kNormal:
      x = a + b * normal_quantile(q);
      break;
    case LengthKind::kLognormal:
      // A mean of `a` tokens: the log's mean is ln(a) - sigma^2 / 2.
      x = std::exp(std::log(a) - 0.5 * b * b + b * normal_quantile(q));
      break;
  }
  return std::clamp(std::round(x), 1.0, cap);
}

std::string LengthDist::str() const {
  switch (kind) {
    case LengthKind::kFixed:
      return fmt::format("fixed:{}", a);
    case LengthKind::kUniform:
      return fmt::format("uniform:{},{}", a, b);
    case LengthKind::kNormal:
      return cap < kMaxTokens ? fmt::format("normal:{},{},{}", a, b, cap) : fmt::format("normal:{},{}", a, b);
    case LengthKind::kLognormal:
      return cap < kMaxTokens ? fmt::format("lognormal:{},{},{}", a, b, cap) : fmt::format("lognormal:{},{}", a, b);
  }
  return "";
}

Result<std::vector<LoadStage>> parse_stages(std::string_view text, const std::string& flag) {
  std::vector<LoadStage> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view item = text.substr(start, comma - start);
    const std::size_t colon = item.find(':');
    const auto rate = colon == std::string_view::npos ? std::nullopt : parse_number_text(item.substr(0, colon));
    const auto secs = colon == std::string_view::npos ? std::nullopt : parse_number_text(item.substr(colon + 1));
    if (!rate || !secs || !(*rate > 0) || !(*secs > 0) || *rate > 1e7 || *secs > 1e7) {
      return Error{flag, "", "'" + std::string(item) + "' is not RATE:SECONDS", "5:600,10:600 (req/s for seconds)"};
    }
    out.push_back(LoadStage{units::requests_per_s(*rate), units::seconds(*secs)});
    start = comma + 1;
  }
  if (out.size() > 100) return Error{flag, "", "at most 100 stages", "5:600,10:600"};
  return out;
}

Result<LengthDist> parse_length_dist(std::string_view text, const std::string& flag) {
  const std::string s = trim(text);
  const auto colon = s.find(':');
  const std::string kind = colon == std::string::npos ? "fixed" : lower(s.substr(0, colon));
  const auto params =
      split(colon == std::string::npos ? std::string_view(s) : std::string_view(s).substr(colon + 1), ',');
  std::vector<double> v;
  for (const auto& p : params) {
    auto x = number(p);
    if (!x) {
      return Error{flag, "", "'" + p + "' is not a number",
                   "fixed:N, uniform:LOW,HIGH, normal:MEAN,SD or lognormal:MEAN,SIGMA"};
    }
    v.push_back(*x);
  }
  auto want = [&](std::size_t n, const char* form) -> Status {
    if (v.size() != n) return Error{flag, "", fmt::format("{} takes {} number(s)", kind, n), form};
    return {};
  };
  auto tokens_ok = [&](double x, const char* what) -> Status {
    if (x < 1 || x > kMaxTokens) return Error{flag, "", fmt::format("{} {} is out of range", what, x), "1 to 10^8"};
    return {};
  };
  LengthDist d;
  if (kind == "fixed") {
    TRY_STATUS(want(1, "fixed:N"));
    TRY_STATUS(tokens_ok(v[0], "length"));
    d = LengthDist{LengthKind::kFixed, std::round(v[0]), 0};
  } else if (kind == "uniform") {
    TRY_STATUS(want(2, "uniform:LOW,HIGH"));
    TRY_STATUS(tokens_ok(v[0], "low"));
    TRY_STATUS(tokens_ok(v[1], "high"));
    if (v[1] < v[0]) return Error{flag, "", "high is below low", "uniform:LOW,HIGH"};
    d = LengthDist{LengthKind::kUniform, v[0], v[1]};
  } else if (kind == "normal") {
    if (v.size() != 3) TRY_STATUS(want(2, "normal:MEAN,SD[,MAX]"));
    TRY_STATUS(tokens_ok(v[0], "mean"));
    if (v[1] < 0 || v[1] > kMaxTokens) return Error{flag, "", "the standard deviation is out of range", "0 to 10^8"};
    d = LengthDist{LengthKind::kNormal, v[0], v[1]};
  } else if (kind == "lognormal") {
    if (v.size() != 3) TRY_STATUS(want(2, "lognormal:MEAN,SIGMA[,MAX]"));
    TRY_STATUS(tokens_ok(v[0], "mean"));
    if (v[1] < 0 || v[1] > 4) return Error{flag, "", "sigma is out of range", "the sigma of the log, 0 to 4"};
    d = LengthDist{LengthKind::kLognormal, v[0], v[1]};
  } else {
    return Error{flag, "", "unknown distribution '" + kind + "'", "fixed, uniform, normal or lognormal"};
  }
  if (v.size() == 3) {
    TRY_STATUS(tokens_ok(v[2], "cap"));
    d.cap = std::round(v[2]);
  }
  return d;
}

Result<Trace> parse_trace(std::string_view text, const std::string& origin) {
  const auto rows = lines_of(text);
  if (rows.empty()) return Error{origin, "", "the trace is empty", "a CSV with a header, or JSON lines"};
  const std::string_view first = rows.front().second;
  const auto nb = first.find_first_not_of(" \t");
  if (first[nb] == '{') return parse_jsonl(rows, origin);
  if (rows.size() < 2) return Error{origin, "", "the trace has a header and no requests", ""};
  return parse_csv(rows, origin);
}

Result<std::vector<std::pair<int, int>>> parse_length_pairs(std::string_view text, const std::string& origin) {
  const auto rows = lines_of(text);
  if (rows.size() < 2) return Error{origin, "", "no (input, output) pairs", "a header input_tokens,output_tokens"};
  const auto header = split(rows.front().second, ',');
  std::optional<std::size_t> ci, co;
  for (std::size_t i = 0; i < header.size(); ++i) {
    if (header[i] == "input_tokens") ci = i;
    if (header[i] == "output_tokens") co = i;
  }
  if (!ci) return row_error(origin, rows.front().first, "input_tokens", "missing column", "");
  if (!co) return row_error(origin, rows.front().first, "output_tokens", "missing column", "");
  std::vector<std::pair<int, int>> out;
  for (std::size_t k = 1; k < rows.size(); ++k) {
    const auto f = split(rows[k].second, ',');
    if (f.size() != header.size()) return row_error(origin, rows[k].first, "-", "wrong number of fields", "");
    TRY(i, tokens(origin, rows[k].first, "input_tokens", f[*ci], false));
    TRY(o, tokens(origin, rows[k].first, "output_tokens", f[*co], false));
    out.emplace_back(i, o);
    if (out.size() > kMaxTraceRows) return row_error(origin, rows[k].first, "-", "more than 10^7 pairs", "");
  }
  return out;
}

Result<Slo> parse_slo(std::string_view text, const std::string& flag) {
  Slo slo;
  const std::string hint = "ttft_p99=2s,tpot_p99=50ms (metrics ttft, tpot, e2e; percentiles p50, p90, p99)";
  for (const auto& item : split(text, ',')) {
    if (item.empty()) continue;
    const auto eq = item.find('=');
    if (eq == std::string::npos) return Error{flag, "", "'" + item + "' has no '='", hint};
    const std::string key = lower(trim(std::string_view(item).substr(0, eq)));
    std::string val = lower(trim(std::string_view(item).substr(eq + 1)));
    const auto us = key.find("_p");
    if (us == std::string::npos) return Error{flag, "", "'" + key + "' names no percentile", hint};
    const std::string metric = key.substr(0, us);
    const auto pct = number(key.substr(us + 2));
    if (!pct || (*pct != 50 && *pct != 90 && *pct != 99)) return Error{flag, "", "percentile of '" + key + "'", hint};
    double scale = 1;
    if (val.size() > 2 && val.substr(val.size() - 2) == "ms") {
      scale = 1e-3;
      val.resize(val.size() - 2);
    } else if (!val.empty() && val.back() == 's') {
      val.pop_back();
    } else {
      return Error{flag, "", "'" + item + "' has no unit", "append s or ms"};
    }
    const auto v = number(val);
    if (!v || *v <= 0 || *v * scale > 1e6) return Error{flag, "", "'" + item + "' is not a positive time", hint};
    const double s = *v * scale;
    if (metric == "ttft") {
      slo.ttft_s = s;
      slo.ttft_pct = *pct;
    } else if (metric == "tpot" || metric == "itl") {
      slo.tpot_s = s;
      slo.tpot_pct = *pct;
    } else if (metric == "e2e") {
      slo.e2e_s = s;
      slo.e2e_pct = *pct;
    } else {
      return Error{flag, "", "unknown metric '" + metric + "'", hint};
    }
  }
  if (slo.empty()) return Error{flag, "", "no target given", hint};
  return slo;
}

Result<WorkloadPreset> parse_workload_toml(std::string_view text, const std::string& origin) {
  TRY(root, TomlReader::parse(text, origin));
  const TomlReader rd(root, origin);
  TRY_STATUS(rd.only_keys(
      root, "",
      {"name", "description", "model", "sources", "notes", "isl", "osl", "rate", "slo_server", "slo_interactive"}));
  WorkloadPreset w;
  TRY(name, rd.str(root, "", "name", true));
  TRY(description, rd.str(root, "", "description", true));
  TRY(model, rd.str(root, "", "model", false));
  TRY(sources, rd.strings(root, "", "sources", true));
  TRY(notes, rd.str(root, "", "notes", false));
  if (name.empty()) return Error{origin, "name", "must not be empty", ""};
  if (sources.empty()) return Error{origin, "sources", "a workload needs its source", "the URL its figures come from"};
  w.name = name;
  w.description = description;
  w.model = model;
  w.sources = sources;
  w.notes = notes;
  for (const char* key : {"isl", "osl"}) {
    TRY(text_value, rd.str(root, "", key, false));
    if (text_value.empty()) continue;
    auto d = parse_length_dist(text_value, key);
    if (!d) return Error{origin, key, d.error().what, d.error().hint};
    (std::string_view(key) == "isl" ? w.isl : w.osl) = *d;
  }
  TRY(rate, rd.number(root, "", "rate", false, 1e-6, 1e9));
  w.rate = rate;
  for (const char* key : {"slo_server", "slo_interactive"}) {
    TRY(slo, rd.str(root, "", key, false));
    if (!slo.empty()) {
      auto s = parse_slo(slo, key);
      if (!s) return Error{origin, key, s.error().what, s.error().hint};
    }
    (std::string_view(key) == "slo_server" ? w.slo_server : w.slo_interactive) = slo;
  }
  return w;
}

Result<std::vector<WorkloadPreset>> builtin_workloads() {
  std::vector<WorkloadPreset> out;
  for (const auto& f : embedded_workloads()) {
    TRY(w, parse_workload_toml(f.content, "builtin:" + std::string(f.path)));
    out.push_back(std::move(w));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return out;
}

}  // namespace llmecon
