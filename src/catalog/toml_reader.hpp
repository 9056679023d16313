// catalog/toml_reader.hpp: the one strict reader every TOML catalog goes through (hardware,
// prices, efficiency defaults, the model index). Unknown keys, values without units and
// out-of-range numbers are errors that carry file:line, the dotted field and a hint.
//
// Include it only from .cpp files that parse TOML: it brings in toml++.
//
//   auto root = TomlReader::parse(text, "prices.toml");       // Result<toml::table>
//   TomlReader rd(*root, "prices.toml");
//   TRY_STATUS(rd.only_keys(*root, "", {"model", "base"}));
//   TRY(in, rd.quantity<DollarsPerToken>(base, "base", "input", true));
#pragma once

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#define TOML_EXCEPTIONS 1
#include <toml++/toml.h>

#include "catalog/hardware.hpp"  // Ranged
#include "units/error.hpp"
#include "units/units.hpp"
#include "units/units_parse.hpp"

namespace llmecon {

inline std::string line_of(const toml::node& n, const std::string& origin) {
  const auto& src = n.source();
  if (src.begin.line == 0) return origin;
  return origin + ":" + std::to_string(src.begin.line);
}

class TomlReader {
 public:
  TomlReader(const toml::table& root, std::string origin) : root_(root), origin_(std::move(origin)) {}

  // Rejects keys of `t` (at path `path`) not in `allowed`.
  Status only_keys(const toml::table& t, const std::string& path,
                   std::initializer_list<std::string_view> allowed) const {
    return only_keys(t, path, std::vector<std::string_view>(allowed));
  }
  Status only_keys(const toml::table& t, const std::string& path, const std::vector<std::string>& allowed) const {
    return only_keys(t, path, std::vector<std::string_view>(allowed.begin(), allowed.end()));
  }
  Status only_keys(const toml::table& t, const std::string& path, const std::vector<std::string_view>& allowed) const {
    for (const auto& [k, v] : t) {
      const std::string_view key = k.str();
      bool ok = std::find(allowed.begin(), allowed.end(), key) != allowed.end();
      if (!ok) {
        std::string list;
        for (auto a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
        return Error{line_of(v, origin_), join(path, key), "unknown key", "allowed keys: " + list};
      }
    }
    return {};
  }

  static std::string join(const std::string& path, std::string_view key) {
    return path.empty() ? std::string(key) : path + "." + std::string(key);
  }

  Result<std::string> str(const toml::table& t, const std::string& path, std::string_view key, bool required) const {
    const toml::node* n = t.get(key);
    if (n == nullptr) {
      if (!required) return std::string();
      return Error{origin_, join(path, key), "missing required field", "add " + std::string(key) + " = \"...\""};
    }
    if (auto s = n->value<std::string>()) return *s;
    return Error{line_of(*n, origin_), join(path, key), "expected a string", ""};
  }

  Result<long long> integer(const toml::table& t, const std::string& path, std::string_view key) const {
    const toml::node* n = t.get(key);
    if (n == nullptr) return Error{origin_, join(path, key), "missing required field", "add an integer"};
    if (auto v = n->value_exact<int64_t>()) return static_cast<long long>(*v);
    return Error{line_of(*n, origin_), join(path, key), "expected an integer", ""};
  }

  template <class Q>
  Result<std::optional<Q>> quantity(const toml::table& t, const std::string& path, std::string_view key,
                                    bool required) const {
    const toml::node* n = t.get(key);
    if (n == nullptr) {
      if (!required) return std::optional<Q>{};
      return Error{origin_, join(path, key), "missing required field",
                   "add " + std::string(key) + " = \"<value> <unit>\" with a unit like " + example_units(Q::kDim)};
    }
    auto s = n->value<std::string>();
    if (!s) {
      return Error{line_of(*n, origin_), join(path, key), "expected a quoted value with a unit",
                   "write it as a string, e.g. \"3.35 TB/s\"; units: " + example_units(Q::kDim)};
    }
    auto q = parse_quantity<Q>(*s);
    if (!q) {
      Error e = q.error();
      e.where = line_of(*n, origin_);
      e.field = join(path, key);
      return e;
    }
    if (q->si() < 0.0) {
      return Error{line_of(*n, origin_), join(path, key), "must not be negative", ""};
    }
    return std::optional<Q>(*q);
  }

  // key and key_range = ["lo", "hi"].
  template <class Q>
  Result<std::optional<Ranged<Q>>> ranged(const toml::table& t, const std::string& path, std::string_view key,
                                          bool required) const {
    auto v = quantity<Q>(t, path, key, required);
    if (!v) return v.error();
    if (!v->has_value()) return std::optional<Ranged<Q>>{};
    Ranged<Q> r;
    r.value = **v;
    const std::string rkey = std::string(key) + "_range";
    if (const toml::node* n = t.get(rkey)) {
      const toml::array* arr = n->as_array();
      if (arr == nullptr || arr->size() != 2) {
        return Error{line_of(*n, origin_), join(path, rkey), "expected a two-element array",
                     "write " + rkey + " = [\"<low> <unit>\", \"<high> <unit>\"]"};
      }
      Q ends[2];
      for (std::size_t i = 0; i < 2; ++i) {
        auto s = (*arr)[i].value<std::string>();
        if (!s) return Error{line_of(*n, origin_), join(path, rkey), "expected strings with units", ""};
        auto q = parse_quantity<Q>(*s);
        if (!q) return q.error().at(line_of(*n, origin_)).in_field(join(path, rkey));
        ends[i] = *q;
      }
      if (!(ends[0] <= r.value && r.value <= ends[1])) {
        return Error{line_of(*n, origin_), join(path, rkey),
                     "the default " + std::string(key) + " lies outside its range",
                     "order the range [low, high] and keep the default inside it"};
      }
      r.lo = ends[0];
      r.hi = ends[1];
    }
    return std::optional<Ranged<Q>>(r);
  }

  /// The sub-table `key`, nullptr when absent, an error when `key` holds something else.
  Result<const toml::table*> table(const toml::table& t, const std::string& path, std::string_view key,
                                   bool required = false) const {
    const toml::node* n = t.get(key);
    if (n == nullptr) {
      if (!required) return static_cast<const toml::table*>(nullptr);
      return Error{origin_, join(path, key), "missing table", "add [" + join(path, key) + "]"};
    }
    if (const toml::table* tt = n->as_table()) return tt;
    return Error{line_of(*n, origin_), join(path, key), "expected a table", "write [" + join(path, key) + "]"};
  }

  /// A plain number (a fraction, a ratio, a count of rows), within [lo, hi].
  Result<std::optional<double>> number(const toml::table& t, const std::string& path, std::string_view key,
                                       bool required, double lo, double hi) const {
    const toml::node* n = t.get(key);
    if (n == nullptr) {
      if (!required) return std::optional<double>{};
      return Error{origin_, join(path, key), "missing required field", "add " + std::string(key) + " = <number>"};
    }
    auto v = n->value<double>();
    if (!v || !std::isfinite(*v)) return Error{line_of(*n, origin_), join(path, key), "expected a number", ""};
    if (*v < lo || *v > hi) {
      return Error{line_of(*n, origin_), join(path, key),
                   "must lie in [" + format_number(lo) + ", " + format_number(hi) + "], got " + format_number(*v), ""};
    }
    return std::optional<double>(*v);
  }

  /// An array of plain numbers, each within [lo, hi]; absent: empty.
  Result<std::vector<double>> numbers(const toml::table& t, const std::string& path, std::string_view key, double lo,
                                      double hi) const {
    std::vector<double> out;
    const toml::node* n = t.get(key);
    if (n == nullptr) return out;
    const toml::array* arr = n->as_array();
    if (arr == nullptr) return Error{line_of(*n, origin_), join(path, key), "expected an array of numbers", ""};
    for (const auto& e : *arr) {
      auto v = e.value<double>();
      if (!v || !std::isfinite(*v)) return Error{line_of(*n, origin_), join(path, key), "expected numbers", ""};
      if (*v < lo || *v > hi) {
        return Error{
            line_of(*n, origin_), join(path, key),
            "each must lie in [" + format_number(lo) + ", " + format_number(hi) + "], got " + format_number(*v), ""};
      }
      out.push_back(*v);
    }
    return out;
  }

  Result<std::optional<bool>> boolean(const toml::table& t, const std::string& path, std::string_view key) const {
    const toml::node* n = t.get(key);
    if (n == nullptr) return std::optional<bool>{};
    if (auto v = n->value_exact<bool>()) return std::optional<bool>(*v);
    return Error{line_of(*n, origin_), join(path, key), "expected true or false", ""};
  }

  /// An array of strings (sources, chip names); required ones must not be empty.
  Result<std::vector<std::string>> strings(const toml::table& t, const std::string& path, std::string_view key,
                                           bool required, const std::string& hint = "") const {
    std::vector<std::string> out;
    const toml::node* n = t.get(key);
    if (n == nullptr) {
      if (!required) return out;
      return Error{origin_, join(path, key), "missing required field", hint};
    }
    const toml::array* arr = n->as_array();
    if (arr == nullptr) return Error{line_of(*n, origin_), join(path, key), "expected an array of strings", hint};
    for (const auto& e : *arr) {
      auto v = e.value<std::string>();
      if (!v) return Error{line_of(*n, origin_), join(path, key), "expected strings", hint};
      out.push_back(*v);
    }
    if (required && out.empty()) return Error{line_of(*n, origin_), join(path, key), "must not be empty", hint};
    return out;
  }

  /// The tables of an array of tables ([[family]], [[model]], [[cache.write]]).
  Result<std::vector<const toml::table*>> tables(const toml::table& t, const std::string& path, std::string_view key,
                                                 bool required) const {
    std::vector<const toml::table*> out;
    const toml::node* n = t.get(key);
    if (n == nullptr) {
      if (!required) return out;
      return Error{origin_, join(path, key), "missing required field", "add [[" + join(path, key) + "]] tables"};
    }
    const toml::array* arr = n->as_array();
    if (arr == nullptr)
      return Error{line_of(*n, origin_), join(path, key), "expected [[" + join(path, key) + "]] tables", ""};
    for (const auto& e : *arr) {
      const toml::table* tt = e.as_table();
      if (tt == nullptr) return Error{line_of(e, origin_), join(path, key), "expected tables", ""};
      out.push_back(tt);
    }
    return out;
  }

  const std::string& origin() const { return origin_; }
  const toml::table& root() const { return root_; }

  /// Parses TOML text; a syntax error names origin:line.
  static Result<toml::table> parse(std::string_view text, const std::string& origin) {
    try {
      return toml::parse(text, std::string_view(origin));
    } catch (const toml::parse_error& e) {
      return Error{origin + ":" + std::to_string(e.source().begin.line), "",
                   "malformed TOML: " + std::string(e.description()), "check quotes, brackets and '=' near that line"};
    }
  }

 private:
  const toml::table& root_;
  std::string origin_;
};

}  // namespace llmecon
