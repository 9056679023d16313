// Arguments checked against the command table (args.hpp): one parser for every shell.
#include "args/args.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "units/json_text.hpp"
#include "units/units.hpp"

namespace llmecon {
namespace {

constexpr std::size_t kMaxListLength = 100000;

bool is_integer(ArgType t) {
  return t == ArgType::kInteger || t == ArgType::kIntegerList;
}

std::vector<std::string> split_commas(std::string_view text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto comma = text.find(',', start);
    out.emplace_back(text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

// One number of `arg` (a scalar, or an element of a list): type, wholeness and bounds.
Result<Json> check_number(const ArgSpec& arg, const Json& v) {
  if (!v.is_number()) return Error{arg.flag(), "", "expected a number, got " + json_text(v), arg.help};
  const double x = v.get<double>();
  if (!std::isfinite(x)) return Error{arg.flag(), "", "must be finite", arg.help};
  if (is_integer(arg.type) && x != std::floor(x)) {
    return Error{arg.flag(), "", "expected a whole number, got " + json_text(v), arg.help};
  }
  if (arg.min && (arg.exclusive_min ? x <= *arg.min : x < *arg.min)) {
    return Error{arg.flag(), "",
                 fmt::format("must be {} {}, got {}", arg.exclusive_min ? "greater than" : "at least",
                             format_number(*arg.min), format_number(x, 10)),
                 arg.help};
  }
  if (arg.max && x > *arg.max) {
    return Error{arg.flag(), "",
                 fmt::format("must be at most {}, got {}", format_number(*arg.max), format_number(x, 10)), arg.help};
  }
  return is_integer(arg.type) ? whole_json(x) : v;
}

Result<Json> check_dtype(const ArgSpec& arg, const Json& v) {
  if (!v.is_string()) return Error{arg.flag(), "", "expected a format name, got " + json_text(v), "e.g. bf16, fp8"};
  auto d = parse_dtype(v.get<std::string>());
  if (!d) return d.error().at(arg.flag());
  return Json(std::string(name(*d)));
}

// The canonical JSON for one given value of `arg`.
Result<Json> check_value(const ArgSpec& arg, const Json& v) {
  switch (arg.type) {
    case ArgType::kString:
      // A number where text is taken (a length "2048", a rate) reads as its shortest decimal: Python's
      // isl=2048 and the CLI's --isl 2048 are one request.
      if (v.is_number() && std::isfinite(v.get<double>())) return Json(fmt::format("{}", v.get<double>()));
      if (!v.is_string()) return Error{arg.flag(), "", "expected a string, got " + json_text(v), arg.help};
      return v;
    case ArgType::kHardware:
      if (!v.is_string()) return Error{arg.flag(), "", "expected a string, got " + json_text(v), arg.help};
      return v;
    case ArgType::kChoice: {
      if (!v.is_string()) return Error{arg.flag(), "", "expected a string, got " + json_text(v), arg.help};
      const auto& s = v.get_ref<const std::string&>();
      if (std::find(arg.choices.begin(), arg.choices.end(), s) != arg.choices.end()) return v;
      std::string list;
      for (const auto& c : arg.choices) list += (list.empty() ? "" : " or ") + c;
      std::string noun(arg.key);
      std::replace(noun.begin(), noun.end(), '_', ' ');
      return Error{arg.flag(), "", "unknown " + noun + " '" + s + "'", "use " + list};
    }
    case ArgType::kModel:
      if (!v.is_string() && !v.is_object()) {
        return Error{arg.flag(), "",
                     "expected a model name, a config.json path or a config object, got " + json_text(v), ""};
      }
      return v;
    case ArgType::kBool:
      if (!v.is_boolean()) return Error{arg.flag(), "", "expected true or false, got " + json_text(v), arg.help};
      return v;
    case ArgType::kNumber:
    case ArgType::kInteger:
      return check_number(arg, v);
    case ArgType::kDType:
      return check_dtype(arg, v);
    case ArgType::kNumberList:
    case ArgType::kIntegerList:
    case ArgType::kDTypeList: {
      Json items = Json::array();
      if (v.is_array()) {
        items = v;
      } else if (v.is_string() && arg.type == ArgType::kDTypeList) {
        for (auto& s : split_commas(v.get<std::string>())) items.push_back(s);
      } else if (v.is_string()) {
        TRY(xs, parse_number_list(v.get<std::string>(), arg.flag()));
        for (double x : xs) items.push_back(whole_json(x));
      } else {
        items.push_back(v);  // one value is a one-element list
      }
      if (items.empty()) return Error{arg.flag(), "", "the list is empty", "give at least one value"};
      if (items.size() > std::min(kMaxListLength, arg.max_items)) {
        return Error{arg.flag(), "",
                     fmt::format("{} values; at most {}", items.size(), std::min(kMaxListLength, arg.max_items)),
                     "each value is a separate computation; give fewer"};
      }
      Json out = Json::array();
      for (const auto& e : items) {
        TRY(c, arg.type == ArgType::kDTypeList ? check_dtype(arg, e) : check_number(arg, e));
        out.push_back(std::move(c));
      }
      return out;
    }
  }
  return v;
}

}  // namespace

std::string_view name(ArgType t) {
  switch (t) {
    case ArgType::kString:
      return "string";
    case ArgType::kChoice:
      return "choice";
    case ArgType::kNumber:
      return "number";
    case ArgType::kInteger:
      return "integer";
    case ArgType::kBool:
      return "boolean";
    case ArgType::kDType:
      return "dtype";
    case ArgType::kNumberList:
      return "number_list";
    case ArgType::kIntegerList:
      return "integer_list";
    case ArgType::kDTypeList:
      return "dtype_list";
    case ArgType::kModel:
      return "model";
    case ArgType::kHardware:
      return "hardware";
  }
  return "?";
}

std::string flag_of(std::string_view key) {
  std::string f = "--" + std::string(key);
  std::replace(f.begin(), f.end(), '_', '-');
  return f;
}

Json whole_json(double v) {
  if (v == std::floor(v) && std::fabs(v) < 9e15) return static_cast<long long>(v);
  return v;
}

Json tokens_per_mw_json(TokensPerSecond rate, Watts power) {
  return power.si() > 0 ? Json(rate.si() / (power.si() * 1e-6)) : Json(nullptr);
}

namespace {
bool find_non_finite(const Json& j, std::string& path) {
  if (j.is_number_float()) return !std::isfinite(j.get<double>());
  if (!j.is_structured()) return false;
  const std::size_t at = path.size();
  if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i) {
      const Json& v = j[i];
      if (!v.is_structured() && (!v.is_number_float() || std::isfinite(v.get<double>()))) continue;
      path += "[" + std::to_string(i) + "]";
      if (find_non_finite(j[i], path)) return true;
      path.resize(at);
    }
    return false;
  }
  for (const auto& [k, v] : j.items()) {
    if (!v.is_structured() && (!v.is_number_float() || std::isfinite(v.get<double>()))) continue;
    path += (at == 0 ? "" : ".") + k;
    if (find_non_finite(v, path)) return true;
    path.resize(at);
  }
  return false;
}
}  // namespace

std::string first_non_finite(const Json& j) {
  std::string path;
  if (!find_non_finite(j, path)) return "";
  return path.empty() ? "(the value)" : path;
}

std::string ArgSpec::flag() const {
  const std::string f = flag_of(key);
  return positional ? f.substr(2) : f;
}

std::string ArgSpec::default_str() const {
  if (def.is_null()) return def_text;
  if (def.is_string()) return def.get<std::string>();
  if (def.is_boolean()) return def.get<bool>() ? "true" : "false";
  if (def.is_number()) return format_number(def.get<double>());
  std::string out;
  for (const auto& e : def)
    out += (out.empty() ? "" : ",") + (e.is_string() ? e.get<std::string>() : format_number(e.get<double>()));
  return out;
}

const ArgSpec* CommandSpec::arg(std::string_view key) const {
  for (const auto& a : args) {
    if (a.key == key) return &a;
  }
  return nullptr;
}

std::optional<double> parse_number_text(std::string_view text) {
  double v = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc() || ptr != end || !std::isfinite(v)) return std::nullopt;
  return v;
}

Result<std::vector<double>> parse_number_list(std::string_view text, const std::string& flag) {
  std::vector<double> out;
  if (text.find(':') != std::string_view::npos) {
    const auto a = text.find(':'), b = text.find(':', a + 1);
    const char* shape = "a range is START:STOP:xFACTOR or START:STOP:+STEP, e.g. 1:4096:x2";
    if (b == std::string_view::npos) return Error{flag, "", "malformed range '" + std::string(text) + "'", shape};
    const std::string_view st = text.substr(b + 1);
    // Plain doubles, not optionals: GCC 12 at -O3 misreads optionals here (maybe-uninitialized).
    double lo = 0, hi = 0, step = 0;
    auto read = [](std::string_view s, double& into) {
      const auto v = parse_number_text(s);
      if (v.has_value()) into = *v;
      return v.has_value();
    };
    const bool ok = read(text.substr(0, a), lo) && read(text.substr(a + 1, b - a - 1), hi) && st.size() >= 2 &&
                    read(st.substr(1), step) && (st[0] == 'x' || st[0] == '+');
    if (!ok) return Error{flag, "", "malformed range '" + std::string(text) + "'", shape};
    const bool geometric = st[0] == 'x';
    if ((geometric && (step <= 1 || lo <= 0)) || (!geometric && step <= 0) || hi < lo) {
      return Error{flag, "", "the range must grow: FACTOR > 1 (START > 0) or STEP > 0, and STOP >= START", shape};
    }
    for (double v = lo; v <= hi * (1 + 1e-12); v = geometric ? v * step : v + step) {
      if (out.size() == kMaxListLength) {
        return Error{flag, "", fmt::format("the range has more than {} values", kMaxListLength), "use a larger step"};
      }
      out.push_back(v);
    }
    return out;
  }
  for (const auto& part : split_commas(text)) {
    const auto v = parse_number_text(part);
    if (!v) return Error{flag, "", "'" + part + "' is not a number", "give numbers like 64, 1e9 or a list 1,8,64"};
    out.push_back(*v);
  }
  return out;
}

Error unknown_argument(const CommandSpec& spec, std::string_view key) {
  const std::string f = flag_of(key);
  for (const auto& [k, why] : spec.redirects) {
    if (k == key) return Error{f, "", spec.cli_name() + " does not take it", why};
  }
  std::vector<std::string> flags;
  for (const auto& a : spec.args) {
    if (!a.positional) flags.push_back(a.flag());
  }
  std::string takers;
  if (spec.siblings != nullptr) {
    for (const auto& c : *spec.siblings) {
      if (c.name != spec.name && c.arg(key) != nullptr) takers += (takers.empty() ? "" : ", ") + c.cli_name();
    }
  }
  std::string hint;
  // Only near misses are suggested: a third of the flag's letters, at least two.
  const std::string near = closest_names(f, flags, std::max<std::size_t>(2, f.size() / 3));
  if (!near.empty()) hint = "did you mean " + near + "?";
  if (!takers.empty()) hint += (hint.empty() ? "" : " ") + f + " is for " + takers;
  if (hint.empty() && !flags.empty()) {
    // No near miss: the flags that share a word of three letters or more with it (--budget-usd:
    // --budget-flops; --target-loss: --loss), else every flag the command takes.
    auto words = [](std::string_view text) {
      std::vector<std::string> out;
      std::size_t start = 0;
      while (start <= text.size()) {
        const std::size_t end = std::min(text.find_first_of("_-", start), text.size());
        if (end - start >= 3) out.emplace_back(text.substr(start, end - start));
        start = end + 1;
      }
      return out;
    };
    const std::vector<std::string> mine = words(key);
    std::string shared, all;
    for (const std::string& flag : flags) {
      all += (all.empty() ? "" : ", ") + flag;
      const std::vector<std::string> theirs = words(std::string_view(flag).substr(2));
      if (std::any_of(mine.begin(), mine.end(),
                      [&](const std::string& w) { return std::find(theirs.begin(), theirs.end(), w) != theirs.end(); }))
        shared += (shared.empty() ? "" : ", ") + flag;
    }
    hint = shared.empty() ? spec.cli_name() + " takes " + all : "did you mean " + shared + "?";
  }
  if (hint.empty()) hint = spec.cli_name() + " takes no arguments";
  return Error{f, "", "unknown argument of " + spec.cli_name(), hint};
}

Result<Args> Args::parse(const CommandSpec& spec, const Json& raw) {
  if (!raw.is_object()) return Error{"request", "", "expected a JSON object of arguments", ""};
  Args out;
  out.spec_ = &spec;
  out.given_ = Json::object();
  for (const auto& [k, v] : raw.items()) {
    const ArgSpec* arg = spec.arg(k);
    if (arg == nullptr) return unknown_argument(spec, k);
    if (v.is_null()) continue;  // Python's None, JSON's null: as if absent
    TRY(c, check_value(*arg, v));
    out.given_[k] = std::move(c);
  }
  for (const auto& a : spec.args) {
    if (a.required && !out.given_.contains(a.key)) {
      return Error{a.flag(), "", "is required", a.help};
    }
  }
  return out;
}

Result<Json> Args::check(const ArgSpec& arg, const Json& v) {
  return check_value(arg, v);
}

Result<Json> Args::from_text(const ArgSpec& arg, std::string_view text) {
  if (arg.type != ArgType::kNumber && arg.type != ArgType::kInteger) return Json(std::string(text));
  TRY(xs, parse_number_list(text, arg.flag()));
  if (xs.size() != 1) {
    return Error{arg.flag(), "", "expected one number, got a list",
                 "lists are for sweep --batch/--context, plan --batches and cache --hold-s"};
  }
  return whole_json(xs.front());
}

const Json& Args::value(std::string_view key) const {
  if (auto it = given_.find(key); it != given_.end()) return *it;
  const ArgSpec* a = spec_->arg(key);
  LLMECON_ASSERT(a != nullptr, "a command read an argument its spec does not declare");
  return a->def;
}

bool Args::has(std::string_view key) const {
  return given_.contains(key);
}

double Args::number(std::string_view key) const {
  const Json& v = value(key);
  LLMECON_ASSERT(v.is_number(), "number() on an argument without a numeric default");
  return v.get<double>();
}

double Args::number_or(std::string_view key, double fallback) const {
  const Json& v = value(key);
  return v.is_number() ? v.get<double>() : fallback;
}

std::string Args::text(std::string_view key) const {
  const Json& v = value(key);
  LLMECON_ASSERT(v.is_string(), "text() on an argument without a text default");
  return v.get<std::string>();
}

std::string Args::text_or(std::string_view key, const std::string& fallback) const {
  const Json& v = value(key);
  return v.is_string() ? v.get<std::string>() : fallback;
}

bool Args::flag(std::string_view key) const {
  const Json& v = value(key);
  return v.is_boolean() && v.get<bool>();
}

std::vector<double> Args::numbers(std::string_view key) const {
  std::vector<double> out;
  for (const auto& e : value(key)) out.push_back(e.get<double>());
  return out;
}

std::vector<DType> Args::dtypes(std::string_view key) const {
  std::vector<DType> out;
  for (const auto& e : value(key)) out.push_back(*parse_dtype(e.get<std::string>()));
  return out;
}

std::optional<DType> Args::dtype(std::string_view key) const {
  const Json& v = value(key);
  if (!v.is_string()) return std::nullopt;
  return *parse_dtype(v.get<std::string>());
}

const Json& Args::raw(std::string_view key) const {
  return value(key);
}

Json Args::with_defaults() const {
  Json out = Json::object();
  for (const auto& a : spec_->args) {
    const Json& v = value(a.key);
    if (!v.is_null()) out[a.key] = v;
  }
  return out;
}

}  // namespace llmecon
