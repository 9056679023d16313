// The embedded model catalog (data/models/index.toml and the configs it names).
#include <algorithm>
#include <cmath>
#include <filesystem>

#include "catalog/toml_reader.hpp"

#include "catalog/hardware.hpp"
#include "model/model.hpp"
#include "units/embedded.hpp"

namespace llmecon {
namespace {

const EmbeddedFile* embedded_model_file(std::string_view path) {
  for (const auto& f : embedded_models()) {
    if (f.path == path) return &f;
  }
  return nullptr;
}

// "70.6B" -> {70.6e9, 0.05e9}; "1T" -> {1e12, 0.5e12}: value and half a unit of the last digit.
Result<std::pair<double, double>> parse_count(const std::string& s, const std::string& where) {
  if (s.empty()) return Error{where, "", "empty parameter count", "write e.g. \"70.6B\""};
  double scale = 1.0;
  std::string num = s;
  switch (s.back()) {
    case 'M':
      scale = 1e6;
      num.pop_back();
      break;
    case 'B':
      scale = 1e9;
      num.pop_back();
      break;
    case 'T':
      scale = 1e12;
      num.pop_back();
      break;
    default:
      break;
  }
  char* end = nullptr;
  const double v = std::strtod(num.c_str(), &end);
  if (end == num.c_str() || *end != '\0' || v <= 0) {
    return Error{where, "", "bad parameter count '" + s + "'", "write e.g. \"70.6B\" or \"1T\""};
  }
  const auto dot = num.find('.');
  const int decimals = dot == std::string::npos ? 0 : static_cast<int>(num.size() - dot - 1);
  return std::pair<double, double>{v * scale, 0.5 * std::pow(10.0, -decimals) * scale};
}

}  // namespace

Result<ModelCatalog> ModelCatalog::builtin() {
  const EmbeddedFile* index = embedded_model_file("index.toml");
  if (index == nullptr) return Error{"builtin:index.toml", "", "missing from the binary", "rebuild llmecon"};
  const std::string origin = "builtin:index.toml";
  TRY(root, TomlReader::parse(index->content, origin));
  const TomlReader rd(root, origin);
  TRY_STATUS(rd.only_keys(root, "", {"model"}));
  TRY(models, rd.tables(root, "", "model", true));
  ModelCatalog cat;
  for (const toml::table* t : models) {
    ModelEntry e;
    TRY(name, rd.str(*t, "model", "name", true));
    const std::string path = "model[" + name + "]";
    TRY_STATUS(rd.only_keys(*t, path,
                            {"name", "file", "source", "notes", "published_total", "published_active",
                             "active_tolerance", "active_includes_embedding", "published_source"}));
    TRY(file, rd.str(*t, path, "file", true));
    TRY(source, rd.str(*t, path, "source", true));
    TRY(notes, rd.str(*t, path, "notes", false));
    e.name = name;
    e.file = file;
    e.source = source;
    e.notes = notes;
    const std::string where = origin + "[" + e.name + "]";
    if (e.name.empty() || e.file.empty() || e.source.empty()) {
      return Error{where, "", "every entry needs name, file and source", ""};
    }
    TRY(total, rd.str(*t, path, "published_total", false));
    if (!total.empty()) {
      TRY(c, parse_count(total, where));
      e.published.total = c.first;
      e.published.total_rounding = c.second;
    }
    TRY(active, rd.str(*t, path, "published_active", false));
    if (!active.empty()) {
      TRY(c, parse_count(active, where));
      e.published.active = c.first;
      e.published.active_rounding = c.second;
    }
    TRY(tol, rd.number(*t, path, "active_tolerance", false, 0.0, 1.0));
    e.published.active_tolerance = tol.value_or(0.01);
    TRY(emb, rd.boolean(*t, path, "active_includes_embedding"));
    e.published.active_includes_embedding = emb.value_or(true);
    TRY(psrc, rd.str(*t, path, "published_source", false));
    e.published.source = psrc;
    const EmbeddedFile* f = embedded_model_file(e.file);
    if (f == nullptr) return Error{"builtin:" + e.file, "", "missing from the binary", "rebuild llmecon"};
    TRY(spec, parse_model_config(f->content, "builtin:" + e.file, e.name));
    e.spec = std::move(spec);
    cat.entries_.push_back(std::move(e));
  }
  return cat;
}

const ModelEntry* ModelCatalog::entry(std::string_view n) const {
  for (const auto& e : entries_) {
    if (e.name == n) return &e;
  }
  return nullptr;
}

std::vector<std::string> ModelCatalog::names() const {
  std::vector<std::string> out;
  for (const auto& e : entries_) out.push_back(e.name);
  return out;
}

Result<ModelSpec> ModelCatalog::load(std::string_view n) const {
  const ModelEntry* e = entry(n);
  if (e == nullptr) return Error{"", "", "unknown model '" + std::string(n) + "'", ""};
  return e->spec;
}

Result<ModelSpec> ModelCatalog::resolve(std::string_view name_or_path, const std::string& flag) const {
  if (entry(name_or_path) != nullptr) return load(name_or_path);
  const std::string s(name_or_path);
  std::error_code ec;
  if (s.find('/') != std::string::npos || s.find(".json") != std::string::npos || std::filesystem::exists(s, ec)) {
    return load_model_file(s);
  }
  return unknown_model(s, flag);
}

Error ModelCatalog::unknown_model(std::string_view name, const std::string& flag) const {
  return Error{
      flag, "", "unknown model '" + std::string(name) + "'",
      "did you mean " + closest_names(name, names()) + "? `llmecon models` lists all, or pass a path to a config.json"};
}

}  // namespace llmecon
