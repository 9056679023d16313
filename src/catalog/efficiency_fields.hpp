// Reading the fields of an efficiency table (data/efficiency.toml families and a chip's own
// [efficiency] table); internal to the catalog.
#pragma once

#include <string>
#include <vector>

#include "catalog/efficiency.hpp"
#include "catalog/toml_reader.hpp"

namespace llmecon {

/// Reads every efficiency field `t` holds into `e`, each checked against its sane range
/// (model.md §18.3), and appends its key to `present`. Other keys are left to the caller.
Status read_efficiency_fields(const TomlReader& rd, const toml::table& t, const std::string& path, Efficiency& e,
                              std::vector<std::string>& present);

}  // namespace llmecon
