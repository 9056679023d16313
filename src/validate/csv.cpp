// The measurement CSV (shared/validation/README.md): rows, their columns checked, their notes
// read through the declared arguments (notes.cpp).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <map>
#include <set>

#include "notes.hpp"
#include "units/units_parse.hpp"
#include "validate/validate.hpp"

namespace llmecon {

namespace {

const std::vector<std::string> kHeader = {"id",  "split", "model",  "hardware",     "chips",    "tp",       "pp",
                                          "ep",  "dp",    "cp",     "weight_dtype", "kv_dtype", "scenario", "batch",
                                          "isl", "osl",   "metric", "value",        "unit",     "source",   "notes"};

const std::map<std::string, std::string>& metric_units() {
  static const std::map<std::string, std::string> m = {{"output_tokens_per_s", "tokens/s"},
                                                       {"input_tokens_per_s", "tokens/s"},
                                                       {"total_tokens_per_s", "tokens/s"},
                                                       {"ms_per_output_token", "ms"},
                                                       {"tpot_ms", "ms"},
                                                       {"tpot_p50_ms", "ms"},
                                                       {"tpot_p90_ms", "ms"},
                                                       {"tpot_p99_ms", "ms"},
                                                       {"itl_ms", "ms"},
                                                       {"itl_p50_ms", "ms"},
                                                       {"itl_p90_ms", "ms"},
                                                       {"itl_p99_ms", "ms"},
                                                       {"ttft_s", "s"},
                                                       {"ttft_p50_s", "s"},
                                                       {"ttft_p90_s", "s"},
                                                       {"ttft_p99_s", "s"},
                                                       {"e2e_p50_s", "s"},
                                                       {"e2e_p90_s", "s"},
                                                       {"e2e_p99_s", "s"},
                                                       {"requests_per_s", "req/s"},
                                                       {"prefill_latency_s", "s"},
                                                       {"decode_latency_s", "s"},
                                                       {"e2e_latency_s", "s"},
                                                       {"mfu", "fraction"},
                                                       {"hfu", "fraction"},
                                                       {"tflops_per_gpu", "TFLOP/s"},
                                                       {"training_gpu_hours", "GPU-hours"},
                                                       {"training_tokens_per_s_per_gpu", "tokens/s"}};
  return m;
}

const std::set<std::string>& scenarios() {
  static const std::set<std::string> s = {"decode_fixed_batch", "prefill", "offline_throughput", "online_load",
                                          "training_step"};
  return s;
}

// Splits CSV text into records of fields; quoted fields may hold commas, quotes ("") and newlines.
Result<std::vector<std::pair<int, std::vector<std::string>>>> split_csv(std::string_view text,
                                                                        const std::string& origin) {
  std::vector<std::pair<int, std::vector<std::string>>> out;
  std::vector<std::string> rec;
  std::string field;
  bool quoted = false, any = false;
  int line = 1, rec_line = 1;
  std::size_t col = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    ++col;
    if (quoted) {
      if (c == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          field += '"';
          ++i;
        } else {
          quoted = false;
        }
      } else {
        if (c == '\n') {
          ++line;
          col = 0;
        }
        field += c;
      }
      continue;
    }
    if (c == '"') {
      if (!field.empty()) {
        return Error{fmt::format("{}:{}", origin, line), fmt::format("column {}", rec.size() + 1),
                     "a quote inside an unquoted field", "quote the whole field and double inner quotes"};
      }
      quoted = true;
      any = true;
    } else if (c == ',') {
      rec.push_back(field);
      field.clear();
      any = true;
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      if (any || !field.empty()) {
        rec.push_back(field);
        out.emplace_back(rec_line, rec);
      }
      rec.clear();
      field.clear();
      any = false;
      ++line;
      rec_line = line;
      col = 0;
    } else {
      field += c;
      any = true;
    }
  }
  if (quoted) {
    return Error{fmt::format("{}:{}", origin, rec_line), fmt::format("column {}", rec.size() + 1),
                 "unterminated quoted field", "close the quote"};
  }
  if (any || !field.empty()) {
    rec.push_back(field);
    out.emplace_back(rec_line, rec);
  }
  return out;
}

Result<std::optional<double>> opt_number(const std::string& s, const std::string& where, const std::string& col,
                                         bool integer) {
  if (s.empty()) return std::optional<double>{};
  // Decimal only, as every input llmecon reads: no hex ("0x10"), no inf or nan.
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v)) {
    return Error{where, col, "'" + s + "' is not a number", ""};
  }
  if (v < 0) return Error{where, col, "must not be negative, got " + s, ""};
  if (integer && v != std::floor(v)) return Error{where, col, "expected a whole number, got " + s, ""};
  return std::optional<double>(v);
}

}  // namespace

Result<std::vector<Measurement>> read_validation_csv(std::string_view text, const std::string& origin) {
  auto recs = split_csv(text, origin);
  if (!recs) return recs.error();
  if (recs->empty()) return Error{origin, "", "empty file", "the first line is the header"};
  // The schema's 21 columns, optionally followed by `engine` (the serving engine of the row).
  const auto& header = recs->front().second;
  std::vector<std::string> with_engine = kHeader;
  with_engine.emplace_back("engine");
  const bool engine_column = header == with_engine;
  if (header != kHeader && !engine_column) {
    std::string want;
    for (const auto& h : kHeader) want += (want.empty() ? "" : ",") + h;
    return Error{origin + ":1", "header", "unexpected header", "expected " + want + " (and optionally ,engine)"};
  }
  const std::size_t columns = header.size();
  std::vector<Measurement> out;
  for (std::size_t r = 1; r < recs->size(); ++r) {
    const auto& [line, f] = (*recs)[r];
    const std::string where = fmt::format("{}:{}", origin, line);
    if (f.size() != columns) {
      return Error{where, fmt::format("column {}", std::min(f.size(), columns) + 1),
                   fmt::format("{} fields, expected {}", f.size(), columns), "quote fields that contain commas"};
    }
    auto col = [&](std::size_t i) { return fmt::format("column {} ({})", i + 1, header[i]); };
    Measurement m;
    m.line = line;
    m.id = f[0];
    m.model = f[2];
    m.hardware = f[3];
    if (m.id.empty()) return Error{where, col(0), "empty id", ""};
    auto chips = opt_number(f[4], where, col(4), true);
    if (!chips) return chips.error();
    if (!*chips || **chips < 1) return Error{where, col(4), "chips must be at least 1", ""};
    // A million chips is beyond any published deployment; degrees never exceed the chips.
    if (**chips > 1e6) return Error{where, col(4), "more than 10^6 chips", "a measured deployment has fewer"};
    m.chips = static_cast<int>(**chips);
    std::optional<int>* degrees[] = {&m.tp, &m.pp, &m.ep, &m.dp, &m.cp};
    for (std::size_t i = 0; i < 5; ++i) {
      auto v = opt_number(f[5 + i], where, col(5 + i), true);
      if (!v) return v.error();
      if (*v) {
        if (**v < 1) return Error{where, col(5 + i), "parallel degrees are at least 1", ""};
        if (**v > m.chips) return Error{where, col(5 + i), "a parallel degree larger than the chips", ""};
        *degrees[i] = static_cast<int>(**v);
      }
    }
    const double product =
        static_cast<double>(m.tp.value_or(1)) * m.pp.value_or(1) * m.dp.value_or(1) * m.cp.value_or(1);
    if (product > m.chips) {
      return Error{where, col(5),
                   fmt::format("tp x pp x dp x cp = {} is more than the {} chips", format_number(product), m.chips),
                   "the schema's degrees multiply to the chips"};
    }
    m.weight_dtype = f[10];
    m.kv_dtype = f[11];
    for (std::size_t i : {std::size_t{10}, std::size_t{11}}) {
      if (f[i].empty()) continue;  // not stated: the model's format, and an envelope note
      if (auto d = parse_dtype(f[i]); !d) return Error{where, col(i), d.error().what, d.error().hint};
    }
    m.scenario = f[12];
    if (scenarios().count(m.scenario) == 0) {
      return Error{where, col(12), "unknown scenario '" + m.scenario + "'",
                   "decode_fixed_batch, prefill, offline_throughput, online_load or training_step"};
    }
    for (auto [i, dst] : {std::pair<std::size_t, std::optional<double>*>{13, &m.batch}, {14, &m.isl}, {15, &m.osl}}) {
      auto v = opt_number(f[i], where, col(i), false);
      if (!v) return v.error();
      *dst = *v;
    }
    m.metric = f[16];
    auto mu = metric_units().find(m.metric);
    if (mu == metric_units().end())
      return Error{where, col(16), "unknown metric '" + m.metric + "'", "see the schema's metric table"};
    auto v = opt_number(f[17], where, col(17), false);
    if (!v) return v.error();
    if (!*v) return Error{where, col(17), "empty value", ""};
    if (**v <= 0) return Error{where, col(17), "a measured value must be positive, got " + f[17], ""};
    m.value = **v;
    m.unit = f[18];
    if (m.unit != mu->second)
      return Error{where, col(18), "unit '" + m.unit + "' for " + m.metric, "use " + mu->second};
    m.source = f[19];
    m.notes = f[20];
    if (engine_column) m.engine = f[21];
    // formats=experts:fp4,attn:fp8,kv:fp8 in the notes: one format per tensor class.
    if (const auto pos = m.notes.find("formats="); pos != std::string::npos) {
      const std::size_t end = m.notes.find_first_of(" ;\t", pos);
      const std::string list = m.notes.substr(pos + 8, end == std::string::npos ? std::string::npos : end - pos - 8);
      std::size_t at = 0;
      while (at <= list.size()) {
        const std::size_t comma = std::min(list.find(',', at), list.size());
        const std::string item = list.substr(at, comma - at);
        const std::size_t colon = item.find(':');
        const std::string cls = item.substr(0, colon);
        if (colon == std::string::npos ||
            (cls != "experts" && cls != "attn" && cls != "dense" && cls != "act" && cls != "kv")) {
          return Error{where, col(20), "formats: '" + item + "' is not class:format",
                       "formats=experts:fp4,attn:fp8,dense:fp8,act:fp8,kv:fp8"};
        }
        auto d = parse_dtype(item.substr(colon + 1));
        if (!d) return Error{where, col(20), "formats: " + d.error().what, d.error().hint};
        const std::string key = cls == "attn" ? "dense" : cls;
        if (m.formats.count(key) != 0 && m.formats[key] != *d) {
          return Error{where, col(20), "formats: attention and dense MLP weights differ",
                       "llmecon gives attention and the dense MLP one format"};
        }
        m.formats[key] = *d;
        at = comma + 1;
      }
    }
    if (auto st = read_row_notes(m); !st) m.notes_error = st.error().message();
    out.push_back(std::move(m));
  }
  return out;
}

std::string serving_family(const std::string& metric) {
  if (metric.rfind("ttft", 0) == 0) return "TTFT";
  if (metric.rfind("tpot", 0) == 0 || metric.rfind("itl", 0) == 0) return "TPOT";
  if (metric.rfind("e2e", 0) == 0) return "E2E";
  if (metric == "output_tokens_per_s" || metric == "input_tokens_per_s" || metric == "total_tokens_per_s" ||
      metric == "requests_per_s")
    return "throughput";
  return "";
}

bool is_speed_metric(const std::string& metric) {
  return metric != "mfu" && metric != "hfu" && metric != "tflops_per_gpu" && metric != "training_gpu_hours" &&
         metric != "training_tokens_per_s_per_gpu";
}

}  // namespace llmecon
