#include "llmecon/error.hpp"

#include <fstream>
#include <sstream>

namespace llmecon {

std::string Error::message() const {
  std::string out;
  if (!where.empty()) out += where + ": ";
  if (!field.empty()) out += field + ": ";
  out += what;
  if (!hint.empty()) out += " (hint: " + hint + ")";
  return out;
}

Error Error::at(std::string new_where) const {
  Error e = *this;
  e.where = std::move(new_where);
  return e;
}

Error Error::in_field(const std::string& prefix) const {
  Error e = *this;
  e.field = field.empty() ? prefix : prefix + "." + field;
  return e;
}

Result<std::string> read_text_file(const std::string& path, const std::string& hint) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{path, "", "cannot open file", hint};
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace llmecon
