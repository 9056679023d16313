// Reading API requests for `llmecon serve`: bodies and query strings into facade arguments, and
// the error replies.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "io/facade.hpp"

namespace llmecon::server {

Error request_error(const std::string& what, const std::string& hint);
/// Deepest nesting of [ and { outside strings.
int nesting_depth(std::string_view text);
/// A request body as an argument object, or the error the server answers with HTTP 400.
Result<Json> parse_args(const std::string& body);
/// Whether answering would read a file (a config path as model, validate, calibrate) or measure
/// the machine: refused unless the server runs with --allow-files, and never cached.
bool reads_files(const Engine& engine, const std::string& command, const Json& args);
std::string error_json(const Error& e);
Error internal_error(const std::exception& e);
/// With files off: the error for a model argument that is a bare name outside the catalog, answered
/// without looking at the file system (nullopt when every model argument is a catalog name).
std::optional<Error> unknown_bare_model(const Engine& engine, const std::string& command, const Json& args);
/// GET query parameters as the command's arguments, typed by its schema.
Result<Json> query_args(const std::string& command, const std::vector<std::pair<std::string, std::string>>& params);

}  // namespace llmecon::server
