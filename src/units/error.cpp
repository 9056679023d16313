#include "units/error.hpp"

#include <algorithm>
#include <filesystem>
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
  // Only regular files, and only up to kMaxInputFileBytes: /dev/zero, a FIFO or a directory
  // never reach the parsers.
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status)) return Error{path, "", "cannot open file", hint};
  if (!std::filesystem::is_regular_file(status)) {
    return Error{path, "", "not a regular file",
                 "give the path of a file (devices, pipes and directories are not read)"};
  }
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) return Error{path, "", "cannot open file", hint};
  if (size > kMaxInputFileBytes) {
    return Error{path, "", "larger than 64 MiB",
                 "inputs are configs, catalogs and measurement tables, all far smaller"};
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{path, "", "cannot open file", hint};
  std::string text(static_cast<std::size_t>(size), '\0');
  in.read(text.data(), static_cast<std::streamsize>(size));
  text.resize(static_cast<std::size_t>(in.gcount()));
  return text;
}

std::string closest_names(std::string_view name, const std::vector<std::string>& known, std::size_t max_distance) {
  auto dist = [](std::string_view a, std::string_view b) {
    std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
      cur[0] = i;
      for (std::size_t j = 1; j <= b.size(); ++j) {
        cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0u : 1u)});
      }
      std::swap(prev, cur);
    }
    return prev[b.size()];
  };
  std::vector<std::pair<std::size_t, std::string>> scored;
  for (const auto& k : known) {
    // A name that contains the query ("h100" in "h100-sxm") ranks first.
    const bool contains = !name.empty() && k.find(name) != std::string::npos;
    scored.emplace_back(contains ? 0 : dist(name, k), k);
  }
  std::sort(scored.begin(), scored.end());
  std::string out;
  for (std::size_t i = 0; i < scored.size() && i < 3 && scored[i].first <= max_distance; ++i) {
    out += (i ? ", " : "") + scored[i].second;
  }
  return out;
}

}  // namespace llmecon
