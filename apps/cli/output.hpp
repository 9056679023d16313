// The CLI's output formats and its charts (--plot). Text comes from the facade's answer (the
// library's text encoders, io/text.hpp); JSON and CSV are generic.
#pragma once

#include <optional>
#include <string>

#include "io/facade.hpp"
#include "io/plot.hpp"

namespace llmecon::cli {

enum class Format { kText, kJson, kCsv };

/// The chart for a command's JSON result (sweep, batch, context, plan, measure), or nullopt.
std::optional<Chart> chart_for(const std::string& command, const Json& result);
/// A self-contained HTML page with the web page's charts for a command's JSON (sweep, batch,
/// context, plan), or nullopt.
std::optional<std::string> chart_html(const std::string& command, const Json& result);

}  // namespace llmecon::cli
