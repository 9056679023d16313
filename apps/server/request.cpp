// Reading API requests (request.hpp).
#include "request.hpp"

#include <algorithm>
#include <filesystem>

#include "args/args.hpp"
#include "units/json_text.hpp"

namespace llmecon::server {

Error request_error(const std::string& what, const std::string& hint) {
  return Error{"request", "", what, hint};
}

// Deepest nesting of [ and { outside strings: the parser copes with any depth, but copying and
// printing recurse, so a megabyte of brackets must not reach them.
int nesting_depth(std::string_view text) {
  int depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return deepest;
}

// A request body as an argument object, or the error the server answers with HTTP 400.
Result<Json> parse_args(const std::string& body) {
  if (body.empty()) return Json::object();
  if (nesting_depth(body) > 32)
    return request_error("JSON nested deeper than 32 levels", "send one flat JSON object of arguments");
  Json args;
  try {
    args = Json::parse(body);
  } catch (const Json::parse_error& e) {
    return request_error("malformed JSON at byte " + std::to_string(e.byte), "send one JSON object of arguments");
  } catch (const Json::exception& e) {
    return request_error(std::string("malformed JSON: ") + (e.id == 406 ? "a number out of range" : "invalid value"),
                         "send one JSON object of arguments");
  }
  if (!args.is_object()) return request_error("expected a JSON object of arguments", "");
  return args;
}

// Whether answering would read a file (a config path as model, validate, calibrate) or measure
// the machine: refused unless the server runs with --allow-files, and never cached.
// The command table says which commands read files or measure; a model argument given as a
// string that is not a catalog name is a path.
bool reads_files(const Engine& engine, const std::string& command, const Json& args) {
  const CommandSpec* spec = find_command(command);
  if (spec == nullptr) return false;
  if (spec->reads_files || spec->measures) return true;
  for (const ArgSpec& a : spec->args) {
    // A path argument (a trace, a length table) names a file; a workload preset's name does not.
    if (a.path && args.contains(a.key) && !args[a.key].is_null()) return true;
    if (a.key == "workload" && args.contains(a.key) && args[a.key].is_string()) {
      const std::string& w = args[a.key].get_ref<const std::string&>();
      if (w.find('/') != std::string::npos || w.find(".toml") != std::string::npos) return true;
    }
    if (a.type != ArgType::kModel || !args.contains(a.key) || !args[a.key].is_string()) continue;
    const std::string& m = args[a.key].get_ref<const std::string&>();
    if (engine.model_catalog().entry(m) != nullptr) continue;
    // A path names a directory or a .json file. Whether anything by a bare name exists in the
    // server's directory is never looked up: "etc" and "nonexistent" get the same answer.
    if (m.find('/') != std::string::npos || m.find(".json") != std::string::npos) return true;
  }
  return false;
}

std::optional<Error> unknown_bare_model(const Engine& engine, const std::string& command, const Json& args) {
  const CommandSpec* spec = find_command(command);
  if (spec == nullptr) return std::nullopt;
  for (const ArgSpec& a : spec->args) {
    if (a.type != ArgType::kModel || !args.contains(a.key) || !args[a.key].is_string()) continue;
    const std::string& m = args[a.key].get_ref<const std::string&>();
    if (engine.model_catalog().entry(m) == nullptr) return engine.model_catalog().unknown_model(m, a.flag());
  }
  return std::nullopt;
}

std::string error_json(const Error& e) {
  return json_text(Json{{"error", e.message()}});
}

Error internal_error(const std::exception& e) {
  return request_error(std::string("internal error: ") + e.what(), "please report it");
}

// GET /api/roofline?model=...&batch=64: each value read as the command's schema types it, by the
// same parser as the CLI's flags; keys the command does not take pass on as text, for the
// facade to name.
Result<Json> query_args(const std::string& command, const std::vector<std::pair<std::string, std::string>>& params) {
  const CommandSpec* spec = find_command(command);
  Json args = Json::object();
  for (const auto& [k, v] : params) {
    const ArgSpec* arg = spec != nullptr ? spec->arg(k) : nullptr;
    if (arg == nullptr) {
      args[k] = v;
    } else if (arg->type == ArgType::kBool) {
      if (v != "true" && v != "false")
        return Error{arg->flag(), "", "expected true or false, got '" + v + "'", arg->help};
      args[k] = v == "true";
    } else {
      TRY(value, Args::from_text(*arg, v));
      args[k] = std::move(value);
    }
  }
  return args;
}

}  // namespace llmecon::server
