// args/arg_builders.hpp: the pieces every command's argument list is built from.
//
// Each analysis declares its own arguments with these (src/train/args.cpp, src/simulate/args.cpp,
// ...); the command table in src/io assembles them, and `validate` reads a row's notes through
// the same declarations. A builder sets what every use of that argument shares: its type, unit,
// bounds, default and help.
//
//   using namespace llmecon::argspec;
//   ArgSpec b = short_flag(integer("batch", "sequences per step", "seq", 1, 1, kMaxSequences), "-b");
//   ArgSpec r = choice("recompute", "activation recomputation", {"selective", "none", "full"});
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "args/args.hpp"

namespace llmecon::argspec {

// The sane range of every flag (model.md §2.5): physically possible, with headroom.
inline constexpr double kMaxCount = 2e9;      ///< chips and other whole counts: no integer overflow downstream
inline constexpr double kMaxTokens = 1e8;     ///< a context, prompt, output or chunk: 10^8 tokens (§2.4)
inline constexpr double kMaxSequences = 1e8;  ///< sequences in one batch
inline constexpr double kMaxFactor = 1e6;     ///< multiples, inefficiencies, model counts
inline constexpr double kMaxMs = 1e9;         ///< latencies and targets: about 11 days
inline constexpr double kMaxRate = 1e15;      ///< tokens per second of traffic
inline constexpr double kMaxUsd = 1e9;        ///< dollars per million tokens

ArgSpec arg(std::string key, ArgType type, std::string help);
ArgSpec with_default(ArgSpec a, Json def);
ArgSpec with_text(ArgSpec a, std::string text);  ///< the default in words, when it depends on others
ArgSpec bounded(ArgSpec a, std::optional<double> lo, std::optional<double> hi = std::nullopt);
ArgSpec unit(ArgSpec a, std::string u);
ArgSpec capped(ArgSpec a, std::size_t items);  ///< lists: the most values one request may give
ArgSpec short_flag(ArgSpec a, std::string s);

/// --model: a built-in name or a config.json; `fallback` nullptr for no default.
ArgSpec model(const char* fallback = "deepseek-v3");
/// --hw: a chip of the catalog; `fallback` nullptr for no default.
ArgSpec hw(const char* fallback = "gb200");
ArgSpec chips(const char* text = "the whole scale-up domain", const char* help = "chips in the scale-up domain");
ArgSpec dtype(std::string key, std::string help, std::string text);
ArgSpec flag(std::string key, std::string help);
ArgSpec number(std::string key, std::string help, std::string u, Json def, double lo, double hi);
ArgSpec integer(std::string key, std::string help, std::string u, Json def, double lo, double hi = kMaxCount);
/// A whole number with no default, `text` saying what its absence means.
ArgSpec optional_integer(std::string key, std::string help, std::string u, double lo, double hi, std::string text);
/// One of `choices`; the first is the default.
ArgSpec choice(std::string key, std::string help, std::vector<std::string> choices);
/// A file the command reads, with no default (`text` says what its absence means).
ArgSpec path(std::string key, std::string help, std::string text);

/// A user's own price per chip-hour of --hw, for every command that costs something.
ArgSpec usd_per_hour();
/// How every dollar is priced (model.md §25.4): rented, or owned[:PROFILE].
ArgSpec cost();
/// TOML overriding data/tco.toml.
ArgSpec tco_file();
/// usd_per_hour, cost and tco_file: every command that prices chip-hours.
std::vector<ArgSpec> pricing();
/// `a` with pricing() appended.
std::vector<ArgSpec> priced(std::vector<ArgSpec> a);
/// The formats of one deployment: weights (experts follow unless given), activations, KV.
std::vector<ArgSpec> formats();
/// The serving engine whose defaults a deployment takes (data/engines, model.md §18.4).
ArgSpec serving_engine();
/// The built-in engine profiles' names, in data/engines' order; `launchable`: only those whose
/// profile has a launch command (plan --emit).
std::vector<std::string> engine_names(bool launchable);
ArgSpec explain();
ArgSpec ideal();
/// A service-level target (--ttft-ms ...): positive, none when absent.
ArgSpec target(ArgSpec a, double hi, std::string u);
/// The measurement CSV a command reads (positional, required).
ArgSpec file();

/// Disaggregated serving: the prefill pool's chip (none: prefill on the decode pool).
ArgSpec prefill_hw();

/// A command of the table; traits are set on the returned value.
CommandSpec command(std::string name, std::string help, std::vector<ArgSpec> args, bool long_running = false);

}  // namespace llmecon::argspec
