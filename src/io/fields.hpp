// io/fields.hpp: an answer's scalars written one by one, in the order its JSON lists them, so the
// grid (io/grid.hpp) fills columns without building a JSON document per point.
//
//   class Count final : public FieldSink { void put(std::string_view, const Field&) override { ++n; } int n = 0; };
//   Count c;
//   roofline_fields(result, c);  // c.n: the scalars `llmecon roofline --json` prints
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "args/args.hpp"
#include "roofline/roofline.hpp"

namespace llmecon {

/// One scalar of an answer: a number (an integer where the JSON writes one), a bool, text, or
/// null. Text is borrowed: it lives as long as the value it was read from.
struct Field {
  enum class Kind : std::uint8_t { kNull, kNumber, kInteger, kBool, kText };
  Kind kind = Kind::kNull;
  double number = 0;
  std::string_view text;

  static Field real(double v) { return {Kind::kNumber, v, {}}; }
  static Field integer(double v) { return {Kind::kInteger, v, {}}; }
  static Field boolean(bool v) { return {Kind::kBool, v ? 1.0 : 0.0, {}}; }
  static Field text_of(std::string_view v) { return {Kind::kText, 0, v}; }
  /// A primitive JSON value (a non-primitive one reads as null).
  static Field of(const Json& v) {
    if (v.is_boolean()) return boolean(v.get<bool>());
    if (v.is_number_integer()) return integer(v.get<double>());
    if (v.is_number()) return real(v.get<double>());
    if (v.is_string()) return text_of(v.get_ref<const std::string&>());
    return {};
  }
  /// As JSON, the way the answer writes it.
  [[nodiscard]] Json json() const {
    switch (kind) {
      case Kind::kNumber:
        return number;
      case Kind::kInteger:
        return static_cast<long long>(number);
      case Kind::kBool:
        return number != 0;
      case Kind::kText:
        return std::string(text);
      case Kind::kNull:
        break;
    }
    return nullptr;
  }
};

/// Where an encoder writes an answer's scalars, key by key, in the answer's order.
class FieldSink {
 public:
  FieldSink() = default;
  FieldSink(const FieldSink&) = delete;
  FieldSink& operator=(const FieldSink&) = delete;
  virtual ~FieldSink() = default;
  virtual void put(std::string_view key, const Field& v) = 0;
};

/// The scalars of to_json(r) (every key roofline's answer documents), in its order; to_json writes
/// exactly these.
void roofline_fields(const RooflineResult& r, FieldSink& out);

}  // namespace llmecon
