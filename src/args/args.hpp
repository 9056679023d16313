// args/args.hpp: every command and its arguments, declared once.
//
// The command table (commands()) says, for each command, its arguments with their types,
// defaults, bounds, units and help. Everything above the engine reads it: the facade validates
// every request against it (unknown keys with a did-you-mean, strict types, ranges and lists
// parsed one way), the CLI builds its options and help from it, `GET /api/` and
// `llmecon commands --json` publish it, the Python module builds its signatures from it, and the
// flag reference in docs/cli.md is generated from it.
//
//   const CommandSpec* c = find_command("roofline");
//   auto a = Args::parse(*c, Json{{"batch", "64"}});   // error: --batch: expected a number
//   auto b = Args::parse(*c, Json{{"batch", 64}});
//   double batch = b->number("batch");                 // 64; absent: the table's default, 1
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/dtype.hpp"
#include "units/error.hpp"
#include "units/units.hpp"

namespace llmecon {

using Json = nlohmann::ordered_json;

enum class ArgType {
  kString,       ///< free text (a price-sheet name, a file path)
  kChoice,       ///< one of `choices`
  kNumber,       ///< a real number
  kInteger,      ///< a whole number
  kBool,         ///< true or false (a CLI flag without a value)
  kDType,        ///< a number format name: bf16, fp8, ...
  kNumberList,   ///< numbers: a JSON array, one number, or text "1,2,4", "1:4096:x2", "0:8192:+1024"
  kIntegerList,  ///< as kNumberList, each a whole number
  kDTypeList,    ///< formats: a JSON array of names, or text "bf16,fp8"
  kModel,        ///< a built-in model name, a config.json path, or the config object itself
  kHardware,     ///< a chip name from the catalog
};

/// The JSON name of an ArgType ("number", "number_list", ...).
std::string_view name(ArgType t);

struct ArgSpec {
  std::string key;  ///< JSON key and Python keyword; the flag is --key with dashes
  ArgType type = ArgType::kString;
  std::string help;                  ///< one line
  std::string unit;                  ///< of the value as given ("tok", "s", "ms", "$/Mtok", ""), shown in help
  Json def;                          ///< the default applied when absent; null when the default depends on others
  std::string def_text;              ///< the default in words when `def` is null ("the whole scale-up domain")
  std::optional<double> min, max;    ///< bounds of a number (each element of a list), inclusive
  bool exclusive_min = false;        ///< the value must exceed `min`
  std::size_t max_items = 100000;    ///< lists: the most values one request may give (work is bounded)
  std::vector<std::string> choices;  ///< kChoice
  std::string short_flag;            ///< "-m", or empty
  bool positional = false;           ///< the CLI takes it without a flag (a file, a model name)
  bool path = false;                 ///< names a file the command reads (the server reads none by default)
  bool required = false;

  [[nodiscard]] std::string flag() const;  ///< "--weight-dtype" (or the key for a positional)
  /// The default as help shows it: "1", "gb200", "the whole scale-up domain", or "" when none.
  [[nodiscard]] std::string default_str() const;
};

struct CommandSpec {
  std::string name;  ///< facade, API and Python name
  std::string cli;   ///< the CLI's words ("model show"); the name when empty
  std::string help;  ///< one line
  std::vector<ArgSpec> args;
  bool long_running = false;  ///< may take more than a few milliseconds (the server queues it)
  bool reads_files = false;   ///< reads a path it is given (validate, calibrate)
  bool measures = false;      ///< times this machine
  std::string chart;          ///< "svg", "svg+html" when --plot draws it; empty when no chart
  bool writes_toml = false;   ///< the CLI's --out writes the result's "toml"
  /// Keys that another command takes, with what this one takes instead ({"context", "plan takes
  /// --isl/--osl ..."}), so a misplaced flag gets an answer.
  std::vector<std::pair<std::string, std::string>> redirects;
  /// The most one API call may ask of a numeric argument (work per request over HTTP).
  std::vector<std::pair<std::string, double>> api_caps;
  /// The table this command belongs to (commands()), so an argument it does not take can name the
  /// commands that do; null for a spec outside it (a validation row's notes).
  const std::vector<CommandSpec>* siblings = nullptr;

  [[nodiscard]] const ArgSpec* arg(std::string_view key) const;
  [[nodiscard]] std::string cli_name() const { return cli.empty() ? name : cli; }
};

/// Every command, in the order the CLI lists them.
const std::vector<CommandSpec>& commands();
/// The command of this name, or nullptr.
const CommandSpec* find_command(std::string_view name);
/// An error for an unknown command: it lists the commands, nearest first.
Error unknown_command(std::string_view name);

/// An error for a key `spec` does not take: the nearest of its flags, or the command that takes it.
Error unknown_argument(const CommandSpec& spec, std::string_view key);

/// The schema as JSON: an array of {name, cli, help, long_running, reads_files, measures, chart,
/// args: [{key, flag, type, help, unit, default, default_text, min, max, choices, required}]}.
Json schema_json();
/// docs/cli.md's flag reference (Markdown), generated from the table.
std::string schema_markdown();

/// The flag of an argument key: "weight_dtype" is "--weight-dtype".
std::string flag_of(std::string_view key);
/// A number as JSON the way every answer writes one: whole numbers as integers ("batch": 64).
Json whole_json(double v);
/// Tokens per second per megawatt of facility power (model.md §25.6): null for a chip without a
/// stated TDP, which draws no modelled power.
Json tokens_per_mw_json(TokensPerSecond rate, Watts power);
/// The path ("rows[3].tpot_s") of the first number in `j` that is not finite, or "" when none.
/// JSON has no inf or NaN; written out they become null, so a result never holds one (model.md §0).
std::string first_non_finite(const Json& j);

/// A number written the way every shell reads one: decimal, optional exponent ("64", "1e9",
/// "2.5"); no hex, no spaces, not empty.
std::optional<double> parse_number_text(std::string_view text);
/// "1,2,4", "1:4096:x2" (geometric) or "0:8192:+1024" (arithmetic): at most 100,000 numbers.
/// Errors name `flag`.
Result<std::vector<double>> parse_number_list(std::string_view text, const std::string& flag);

/// A command's arguments after validation against its spec: only known keys, each of its
/// declared type (lists as arrays, whole numbers as integers). Absent keys read as the table's
/// default.
class Args {
 public:
  /// Checks `raw` (a JSON object; null values count as absent) against `spec`.
  static Result<Args> parse(const CommandSpec& spec, const Json& raw);
  /// Converts one CLI value (the text after the flag) to the JSON the facade takes for `arg`:
  /// numbers are parsed here, lists and names pass as text and are parsed by Args::parse.
  static Result<Json> from_text(const ArgSpec& arg, std::string_view text);
  /// One given value of `arg` checked as parse() checks it: its canonical JSON, or the Error
  /// parse() would give (each value is checked on its own, so a grid checks an axis once per value).
  static Result<Json> check(const ArgSpec& arg, const Json& v);

  [[nodiscard]] bool has(std::string_view key) const;
  [[nodiscard]] double number(std::string_view key) const;  ///< given, else the table's default
  [[nodiscard]] double number_or(std::string_view key, double fallback) const;
  [[nodiscard]] std::string text(std::string_view key) const;
  [[nodiscard]] std::string text_or(std::string_view key, const std::string& fallback) const;
  [[nodiscard]] bool flag(std::string_view key) const;
  [[nodiscard]] std::vector<double> numbers(std::string_view key) const;
  [[nodiscard]] std::vector<DType> dtypes(std::string_view key) const;
  [[nodiscard]] std::optional<DType> dtype(std::string_view key) const;
  /// The validated value as given (null when absent).
  [[nodiscard]] const Json& raw(std::string_view key) const;
  /// The validated arguments, only those given.
  [[nodiscard]] const Json& json() const { return given_; }
  /// The validated arguments with every static default filled in.
  [[nodiscard]] Json with_defaults() const;
  [[nodiscard]] const CommandSpec& spec() const { return *spec_; }

 private:
  const CommandSpec* spec_ = nullptr;
  Json given_;
  [[nodiscard]] const Json& value(std::string_view key) const;
};

}  // namespace llmecon
