// The CLI's output formats and its charts (--plot). Text comes from the facade's answer (the
// library's text encoders, io/text.hpp); JSON and CSV are generic.
#pragma once

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "io/facade.hpp"
#include "io/plot.hpp"

namespace llmecon::cli {

enum class Format { kText, kJson, kCsv };

/// The chart for a command's JSON result (sweep, batch, context, plan, measure), or nullopt.
std::optional<Chart> chart_for(const std::string& command, const Json& result);
/// A self-contained HTML page with the web page's charts for a command's JSON (sweep, batch,
/// context, plan), or nullopt.
std::optional<std::string> chart_html(const std::string& command, const Json& result);

/// Prints "llmecon: error: MESSAGE" on stderr; returns the exit code of bad input, 2.
int fail(const std::string& message);
/// Every byte of `text` written to `f` and flushed, or false: a full disk is not a success.
bool write_all(std::FILE* f, const std::string& text);

/// A flag given on the command line, in the order given.
struct GivenFlag {
  const ArgSpec* arg = nullptr;
  std::string text;  ///< "true" for a flag without a value
};
struct GridFlags {
  std::string shard;  ///< "K/N", or empty
  int threads = 0;    ///< 0: every core
};
/// `llmecon COMMAND --grid ...` (apps/cli/grid.cpp): every combination of the list-valued flags,
/// the first given varying slowest, as JSON lines (CSV with --csv); returns the exit code.
int grid(const Engine& e, const CommandSpec& spec, const std::vector<GivenFlag>& given, const GridFlags& flags,
         Format f);

}  // namespace llmecon::cli
