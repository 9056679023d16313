// libFuzzer targets, one per input parser (built with -DLLMECON_FUZZ=ON and clang; see
// fuzz/CMakeLists.txt). Each target is compiled from this file with LLMECON_FUZZ_TARGET naming
// the parser. Any crash, sanitizer report or uncaught exception is a finding.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "catalog/hardware.hpp"
#include "catalog/serving_engine.hpp"
#include "economics/pricing.hpp"
#include "io/facade.hpp"
#include "model/model.hpp"
#include "request.hpp"
#include "simulate/simulate.hpp"
#include "tco/tco.hpp"
#include "units/json_text.hpp"
#include "validate/validate.hpp"

namespace {

const llmecon::Engine& engine() {
  static const llmecon::Engine e = llmecon::Engine::open({}).value();
  return e;
}

// The commands a fuzzed request may reach: the quick ones (plan, lecture, measure and friends
// take seconds by design, and the server bounds them with deadlines instead).
constexpr const char* kCommands[] = {"model",   "roofline", "sweep", "batch",     "step",
                                     "context", "price",    "cache", "lifecycle", "revnet"};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::string target = LLMECON_FUZZ_TARGET;
  if (target == "hf_config") {
    (void)llmecon::parse_model_config(text, "fuzz.json", "fuzz");
  } else if (target == "hardware_toml") {
    (void)llmecon::parse_hardware_toml(text, "fuzz.toml");
  } else if (target == "price_toml") {
    (void)llmecon::parse_price_sheet(text, "fuzz.toml");
  } else if (target == "validation_csv") {
    (void)llmecon::read_validation_csv(text, "fuzz.csv");
  } else if (target == "workload_trace") {
    // The first byte picks a parser; a trace that parses small is also simulated.
    if (size == 0) return 0;
    const std::string_view rest = text.substr(1);
    switch (data[0] % 5) {
      case 0: {
        auto tr = llmecon::parse_trace(rest, "fuzz.trace");
        if (tr && tr->requests.size() <= 32) {
          auto r = engine().run("simulate", llmecon::Json{{"model", "llama-3.1-8b"},
                                                          {"hw", "h100-sxm"},
                                                          {"chips", 1},
                                                          {"requests", 16},
                                                          {"offline", true},
                                                          {"isl", std::string(rest.substr(0, 24))}});
          (void)r;
        }
        break;
      }
      case 1:
        (void)llmecon::parse_length_pairs(rest, "fuzz.csv");
        break;
      case 2:
        (void)llmecon::parse_length_dist(rest, "--isl");
        break;
      case 3:
        (void)llmecon::parse_slo(rest, "--slo");
        break;
      default:
        (void)llmecon::parse_workload_toml(rest, "fuzz.toml");
        break;
    }
  } else if (target == "profile_toml") {
    // The first byte picks the profile: a serving engine's, or a TCO sheet over the built-in one.
    if (size == 0) return 0;
    const std::string_view rest = text.substr(1);
    if (data[0] % 2 == 0) {
      (void)llmecon::parse_engine_toml(rest, "fuzz.toml");
    } else {
      static const llmecon::TcoCatalog base = llmecon::TcoCatalog::builtin().value();
      (void)llmecon::TcoCatalog::parse(rest, "fuzz.toml", &base);
    }
  } else if (target == "facade_args" || target == "http_request") {
    if (size == 0) return 0;
    const std::string command = kCommands[data[0] % (sizeof(kCommands) / sizeof(kCommands[0]))];
    const std::string body(text.substr(1));
    // The server's own path: body to arguments (depth, range and type checks), then the facade.
    auto args = llmecon::server::parse_args(body);
    if (!args) return 0;
    if (target == "http_request" && llmecon::server::reads_files(engine(), command, *args)) return 0;
    auto r = engine().run(command, *args);
    if (r) (void)llmecon::json_text(*r);
  }
  return 0;
}
