// The config readers' shared parts (internal to src/model): field access with errors that name
// the file and field, the readers every family uses, and the entry points config.cpp dispatches to.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "model/model.hpp"
#include "units/json_text.hpp"

namespace llmecon::config_internal {

using JsonValue = nlohmann::json;

// The sane range of model dimensions (model.md §2.4): physically possible with headroom.
constexpr int kMaxLayers = 10000;
constexpr int kMaxWidth = 1000000;
constexpr int kMaxExperts = 1000000;
constexpr int kMaxVocab = 10000000;
constexpr int kMaxContext = 100000000;
constexpr long long kMaxFfn = 10000000;

/// Field access with errors that name the file and field.
class Cfg {
 public:
  Cfg(const JsonValue& j, std::string origin, std::string prefix = "")
      : j_(j), origin_(std::move(origin)), prefix_(std::move(prefix)) {}

  bool has(const char* key) const { return j_.contains(key) && !j_.at(key).is_null(); }

  Result<int> integer(const char* key) const {
    if (!has(key)) {
      return Error{origin_, field(key), "missing required field",
                   "a config.json for this model_type needs \"" + std::string(key) + "\""};
    }
    return checked_int(key);
  }
  /// The layer count, checked against kMaxLayers before any layer is built (a config claiming
  /// 10^7 layers is an error, not gigabytes of layer structures).
  Result<int> layers(const char* key) const {
    TRY(n, integer(key));
    if (n > kMaxLayers) {
      return Error{origin_, field(key), "more than 10^4 layers (" + std::to_string(n) + ")",
                   "no real model has that many"};
    }
    return n;
  }
  Result<int> integer_or(const char* key, int fallback) const {
    if (!has(key)) return fallback;
    return checked_int(key);
  }
  /// Like integer_or but 0 is allowed (counts that may be absent, e.g. shared experts).
  Result<int> count_or(const char* key, int fallback) const {
    if (!has(key)) return fallback;
    if (j_.at(key).is_number_integer() && j_.at(key).get<long long>() == 0) return 0;
    return checked_int(key);
  }
  Result<bool> boolean_or(const char* key, bool fallback) const {
    if (!has(key)) return fallback;
    const JsonValue& v = j_.at(key);
    if (!v.is_boolean()) return Error{origin_, field(key), "expected true or false", ""};
    return v.get<bool>();
  }
  std::string string_or(const char* key, std::string fallback) const {
    if (!has(key) || !j_.at(key).is_string()) return fallback;
    return j_.at(key).get<std::string>();
  }
  /// A list of whole numbers in [lo, hi] (layer indices, flags); absent is empty.
  Result<std::vector<int>> int_list(const char* key, int lo, int hi) const {
    std::vector<int> out;
    if (!has(key)) return out;
    const JsonValue& v = j_.at(key);
    if (!v.is_array())
      return Error{origin_, field(key), "expected a list of integers, got " + std::string(v.type_name()), ""};
    for (const auto& e : v) {
      if (!e.is_number_integer()) {
        return Error{origin_, field(key), "expected integers, got " + json_text(e), "layer indices like [0, 1, 2]"};
      }
      const auto x = e.get<long long>();
      if (x < lo || x > hi) {
        return Error{origin_, field(key),
                     "entry " + json_text(e) + " outside [" + std::to_string(lo) + ", " + std::to_string(hi) + "]", ""};
      }
      out.push_back(static_cast<int>(x));
    }
    return out;
  }
  /// A text field that, when present, must be text.
  Result<std::string> text_or(const char* key, std::string fallback) const {
    if (!has(key)) return fallback;
    if (!j_.at(key).is_string())
      return Error{origin_, field(key), "expected a string, got " + json_text(j_.at(key)), ""};
    return j_.at(key).get<std::string>();
  }
  const JsonValue& raw() const { return j_; }
  std::string field(const char* key) const { return prefix_ + key; }
  const std::string& origin() const { return origin_; }

 private:
  Result<int> checked_int(const char* key) const {
    const JsonValue& v = j_.at(key);
    if (!v.is_number_integer() && !(v.is_number_float() && v.get<double>() == std::floor(v.get<double>()))) {
      return Error{origin_, field(key), "expected an integer, got " + std::string(v.type_name()), ""};
    }
    const double x = v.get<double>();
    if (x <= 0) {
      return Error{origin_, field(key), "must be positive, got " + json_text(v), "sizes and counts are at least 1"};
    }
    if (x > 1e9) return Error{origin_, field(key), "implausibly large: " + json_text(v), ""};
    return static_cast<int>(x);
  }

  const JsonValue& j_;
  std::string origin_;
  std::string prefix_;
};

/// The weights' released format from quantization_config (fp8, mxfp4) or dtype.
Result<DType> quant_dtype(const JsonValue& root, const std::string& origin);
/// Fields common to the GQA families.
Status read_gqa(const Cfg& c, ModelSpec& m);
/// Every layer's dense MLP width from `key`.
Status set_dense_ffn(const Cfg& c, ModelSpec& m, const char* key);
/// DeepSeek V2/V3, Kimi K2 (MLA, shared and routed experts, dense first layers).
Result<ModelSpec> parse_deepseek_v3_family(const Cfg& c, ModelSpec m);
/// A HuggingFace config.json of any family llmecon reads (families.cpp).
Result<ModelSpec> parse_hf(const JsonValue& root, const std::string& origin, ModelSpec m);

}  // namespace llmecon::config_internal
