// Printing facade results as text tables, JSON or CSV.
#pragma once

#include <string>
#include <vector>

#include <optional>

#include "io/facade.hpp"
#include "io/plot.hpp"

namespace llmecon::cli {

enum class Format { kText, kJson, kCsv };

int print_models(const Json& models);
int print_hardware(const Json& hw);
int print_model(const Json& m);
int print_roofline(const Json& r);
int print_sweep(const Json& s);
int print_report(const Json& r);
/// Any blackboard analysis (batch, step, context, price, layout, cache, lifecycle, revnet).
int print_analysis(const Json& a, bool explain);
int print_lecture(const Json& claims, bool explain);
int print_plan(const Json& plan);
int print_simulate(const Json& r);
int print_validation(const Json& v);
int print_calibration(const Json& c);
int print_measure(const Json& m);
/// The chart for a command's JSON result (sweep, batch, context, plan, measure), or nullopt.
std::optional<Chart> chart_for(const std::string& command, const Json& result);
/// A self-contained HTML page with the web page's charts for a command's JSON (sweep, batch,
/// context, plan), or nullopt.
std::optional<std::string> chart_html(const std::string& command, const Json& result);
/// A value with the unit an analysis gives it ("s", "B", "$/Mtok", "x", ...).
std::string format_unit(double v, const std::string& unit);

}  // namespace llmecon::cli
