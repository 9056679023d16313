// units/names.hpp: an enum's names, typed once.
//
// An enum that users name (on the command line, in a validation row, in JSON) keeps one table of
// its values and names, in the order the command table lists them; name(), parse and the command
// table's choices all read it, so a name is never typed twice.
//
//   enum class Color { kRed, kBlue };
//   constexpr NameTable<Color, 2> kColorNames{{{Color::kRed, "red"}, {Color::kBlue, "blue"}}};
//   std::string_view n = name_in(kColorNames, Color::kBlue);        // "blue"
//   std::optional<Color> c = value_in(kColorNames, "red");          // Color::kRed
//   std::vector<std::string> choices = names_in(kColorNames);       // {"red", "blue"}
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace llmecon {

template <class E, std::size_t N>
using NameTable = std::array<std::pair<E, std::string_view>, N>;

/// The name of `e` ("?" for a value the table lacks, which is a programmer error).
template <class E, std::size_t N>
constexpr std::string_view name_in(const NameTable<E, N>& table, E e) {
  for (const auto& [v, n] : table) {
    if (v == e) return n;
  }
  return "?";
}

/// The value named `s`, or nullopt.
template <class E, std::size_t N>
constexpr std::optional<E> value_in(const NameTable<E, N>& table, std::string_view s) {
  for (const auto& [v, n] : table) {
    if (n == s) return v;
  }
  return std::nullopt;
}

/// Every name, in the table's order (a command's choices).
template <class E, std::size_t N>
std::vector<std::string> names_in(const NameTable<E, N>& table) {
  std::vector<std::string> out;
  out.reserve(N);
  for (const auto& [v, n] : table) out.emplace_back(n);
  return out;
}

}  // namespace llmecon
