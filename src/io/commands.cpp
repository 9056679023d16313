// The command table (args.hpp): every command, every argument, once.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <limits>

#include "args/arg_builders.hpp"
#include "args/args.hpp"
#include "commands/commands.hpp"
#include "units/units.hpp"

namespace llmecon {
namespace cmd {

using namespace argspec;  // NOLINT(google-build-using-namespace): the builders read as a table
using T = ArgType;

std::vector<ArgSpec> step_args(bool lists) {
  std::vector<ArgSpec> a{model(), hw(), chips(), choice("phase", "decode or prefill", names_in(kPhaseNames))};
  if (lists) {
    a.push_back(short_flag(
        unit(with_default(bounded(arg("batch", T::kIntegerList, "batch sizes: 1,8,64 or 1:4096:x2"), 1, kMaxSequences),
                          Json::array({1})),
             "seq"),
        "-b"));
    a.push_back(short_flag(
        unit(with_default(bounded(arg("context", T::kIntegerList, "context lengths: 1024,8192 or 1024:131072:x2"), 0,
                                  kMaxTokens),
                          Json::array({4096})),
             "tok"),
        "-c"));
  } else {
    a.push_back(short_flag(integer("batch", "sequences per step", "seq", 1, 1, kMaxSequences), "-b"));
    a.push_back(short_flag(integer("context", "tokens of context", "tok", 4096, 0, kMaxTokens), "-c"));
  }
  a.push_back(with_text(
      unit(bounded(arg("chunk", T::kInteger, "prefill: tokens processed in this pass"), 1, kMaxTokens), "tok"),
      "the whole context"));
  for (auto& f : formats()) a.push_back(std::move(f));
  a.push_back(choice("expert_touch", "routed experts read per step: expected or all", names_in(kExpertTouchNames)));
  a.push_back(serving_engine());
  for (auto& p : pricing()) a.push_back(std::move(p));
  a.push_back(ideal());
  return a;
}

// The blackboard analyses pool one scale-up domain of one chip.
std::vector<ArgSpec> board(std::vector<ArgSpec> own) {
  std::vector<ArgSpec> a{model(), hw(), chips("the whole scale-up domain (at most that)")};
  for (auto& f : formats()) a.push_back(std::move(f));
  for (auto& o : own) a.push_back(std::move(o));
  a.push_back(explain());
  return a;
}

ArgSpec practical_batch(const char* help) {
  return with_text(unit(bounded(arg("batch", T::kNumber, help), 1, kMaxSequences), "seq"), "2.5 B*");
}

CommandSpec charted(CommandSpec c) {
  c.chart = "svg+html";
  return c;
}

// The commands in the order the CLI lists them, each family registered beside its
// implementation (src/io/commands/*.cpp).
std::vector<CommandSpec> build() {
  std::vector<CommandSpec> out;
  for (auto family : {catalog_specs, roofline_specs, board_specs, plan_specs, simulate_specs, train_specs, tco_specs,
                      validate_specs}) {
    for (CommandSpec& c : family()) out.push_back(std::move(c));
  }
  return out;
}

}  // namespace cmd

const std::vector<CommandSpec>& commands() {
  static std::vector<CommandSpec> table = cmd::build();
  static const bool linked = [] {
    // Each spec points to the table it sits in (not to a copy), set once before any caller reads it.
    for (CommandSpec& x : table) x.siblings = &table;
    return true;
  }();
  (void)linked;
  return table;
}

const CommandSpec* find_command(std::string_view name) {
  for (const auto& c : commands()) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

Error unknown_command(std::string_view name) {
  std::vector<std::string> names;
  std::string list;
  for (const auto& c : commands()) {
    names.push_back(c.name);
    list += (list.empty() ? "" : ", ") + c.name;
  }
  return Error{"command", "", "unknown command '" + std::string(name) + "'",
               "did you mean " + closest_names(name, names) + "? the commands are " + list};
}

Json schema_json() {
  Json out = Json::array();
  for (const auto& c : commands()) {
    Json args = Json::array();
    for (const auto& a : c.args) {
      Json j{{"key", a.key},
             {"flag", a.flag()},
             {"type", std::string(name(a.type))},
             {"help", a.help},
             {"unit", a.unit},
             {"default", a.def},
             {"default_text", a.default_str()},
             {"required", a.required},
             {"positional", a.positional}};
      j["min"] = a.min ? Json(*a.min) : Json(nullptr);
      j["max"] = a.max ? Json(*a.max) : Json(nullptr);
      if (a.exclusive_min) j["exclusive_min"] = true;
      if (a.type == ArgType::kNumberList || a.type == ArgType::kIntegerList || a.type == ArgType::kDTypeList) {
        j["max_items"] = a.max_items;
      }
      if (!a.choices.empty()) j["choices"] = a.choices;
      if (a.type == ArgType::kDType || a.type == ArgType::kDTypeList) {
        Json names = Json::array();
        for (const auto n : kDTypeNames) names.push_back(std::string(n));
        j["choices"] = names;
      }
      if (!a.short_flag.empty()) j["short"] = a.short_flag;
      args.push_back(std::move(j));
    }
    out.push_back({{"name", c.name},
                   {"cli", c.cli_name()},
                   {"help", c.help},
                   {"long_running", c.long_running},
                   {"reads_files", c.reads_files},
                   {"measures", c.measures},
                   {"chart", c.chart},
                   {"args", std::move(args)}});
  }
  return out;
}

std::string schema_markdown() {
  std::string out =
      "<!-- Generated by `llmecon commands --markdown` from the command table (src/io/commands.cpp); "
      "a test fails when it is stale. -->\n\n"
      "Every command also takes `--json` or `--csv`, `--hw-file FILE` and `--price-file FILE`. The API "
      "(`/api/<command>`) and Python (`llmecon.<command>(...)`) take the same arguments by key "
      "(dashes as underscores). Lists and ranges (`1,8,64`, `1:4096:x2`, `0:8192:+1024`) are accepted as "
      "text everywhere, and as JSON arrays in the API and Python.\n";
  for (const auto& c : commands()) {
    std::string sentence = c.help;
    sentence[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(sentence[0])));
    out += fmt::format("\n### `llmecon {}`\n\n{}.", c.cli_name(), sentence);
    if (c.long_running) out += " Long-running: the server queues it.";
    if (!c.chart.empty())
      out += c.chart == "svg" ? " `--plot FILE.svg` draws it." : " `--plot FILE.svg|FILE.html` draws it.";
    if (c.writes_toml) out += " `--out FILE` writes the TOML.";
    out += "\n\n";
    if (c.args.empty()) {
      out += "No arguments.\n";
      continue;
    }
    out += "| flag | key | type | default | unit | range | what |\n|---|---|---|---|---|---|---|\n";
    for (const auto& a : c.args) {
      std::string flag = a.flag();
      if (!a.short_flag.empty()) flag += ", " + a.short_flag;
      std::string type(name(a.type));
      if (!a.choices.empty()) {
        type.clear();
        for (const auto& ch : a.choices) type += (type.empty() ? "" : " \\| ") + ch;
      }
      std::string range;
      if (a.min || a.max) {
        range = (a.min ? (a.exclusive_min ? "> " : "≥ ") + format_number(*a.min) : std::string()) +
                (a.min && a.max ? ", " : "") + (a.max ? "≤ " + format_number(*a.max) : std::string());
      }
      std::string def = a.required ? "required" : a.default_str();
      out += fmt::format("| `{}` | `{}` | {} | {} | {} | {} | {} |\n", flag, a.key, type, def, a.unit, range, a.help);
    }
  }
  return out;
}

}  // namespace llmecon
