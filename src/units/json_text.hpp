// units/json_text.hpp: JSON as text, the one way every module writes it.
//
// A value may hold bytes a user gave (a notes key, a path, a config string) that are not valid
// UTF-8; nlohmann's dump() throws on those, and an exception is not how llmecon reports input.
// Invalid bytes become U+FFFD instead.
//
//   const nlohmann::ordered_json j = {{"engine", "caf\xe9"}};
//   std::string s = json_text(j);     // "caf" then U+FFFD, where a bare dump throws
//   std::string t = json_text(j, 2);  // indented by 2
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace llmecon {

template <class JsonT>
std::string json_text(const JsonT& j, int indent = -1) {
  return j.dump(indent, ' ', false, JsonT::error_handler_t::replace);
}

}  // namespace llmecon
