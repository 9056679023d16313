// llmecon: the command-line shell over the facade. Parse flags, call the facade, print.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <fmt/format.h>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "llmecon/facade.hpp"
#include "output.hpp"
#include "progress.hpp"
#include "server.hpp"

namespace {

using llmecon::Json;

constexpr const char* kPlotHelp = "write the chart to this file: FILE.svg, or FILE.html for the web page's interactive charts";

int fail(const std::string& message) {
  std::fprintf(stderr, "llmecon: error: %s\n", message.c_str());
  return 2;
}

// Parses "1,2,4", "1:1024:x2" (geometric) or "0:8192:+1024" (arithmetic) into numbers.
std::optional<std::vector<double>> parse_list(const std::string& text, std::string& err) {
  std::vector<double> out;
  auto num = [&](const std::string& s, double& v) {
    try {
      std::size_t pos = 0;
      v = std::stod(s, &pos);
      return pos == s.size();
    } catch (...) {
      return false;
    }
  };
  if (text.find(':') != std::string::npos) {
    const auto a = text.find(':'), b = text.find(':', a + 1);
    if (b == std::string::npos) {
      err = "a range is START:STOP:xFACTOR or START:STOP:+STEP";
      return std::nullopt;
    }
    double lo = 0, hi = 0, step = 0;
    const std::string st = text.substr(b + 1);
    if (!num(text.substr(0, a), lo) || !num(text.substr(a + 1, b - a - 1), hi) || st.size() < 2 ||
        !num(st.substr(1), step) || (st[0] != 'x' && st[0] != '+')) {
      err = "a range is START:STOP:xFACTOR or START:STOP:+STEP, e.g. 1:4096:x2";
      return std::nullopt;
    }
    if ((st[0] == 'x' && (step <= 1 || lo <= 0)) || (st[0] == '+' && step <= 0) || hi < lo) {
      err = "the range must grow: FACTOR > 1 (START > 0) or STEP > 0, and STOP >= START";
      return std::nullopt;
    }
    for (double v = lo; v <= hi * (1 + 1e-12) && out.size() < 100000; v = st[0] == 'x' ? v * step : v + step) {
      out.push_back(v);
    }
    return out;
  }
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto comma = text.find(',', start);
    const std::string part = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    double v = 0;
    if (!num(part, v)) {
      err = "'" + part + "' is not a number";
      return std::nullopt;
    }
    out.push_back(v);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

// Turns a number given on the command line into JSON: whole numbers as integers.
Json number_json(double v) {
  if (v == static_cast<double>(static_cast<long long>(v))) return static_cast<long long>(v);
  return v;
}

struct StepFlags {
  std::string model = "deepseek-v3";
  std::string hw = "gb200";
  std::optional<int> chips;
  std::string phase = "decode";
  std::string batch;
  std::string context;
  std::optional<double> chunk;
  std::string weight_dtype, expert_dtype, act_dtype, kv_dtype, expert_touch;

  void add(CLI::App* app, bool lists) {
    app->add_option("--model,-m", model, "built-in model name or path to a config.json")->capture_default_str();
    app->add_option("--hw", hw, "chip name (see `llmecon hardware`)")->capture_default_str();
    app->add_option("--chips", chips, "chips in the scale-up domain (default: the whole domain)");
    app->add_option("--phase", phase, "decode or prefill")->capture_default_str();
    app->add_option("--batch,-b", batch, lists ? "batch sizes: 1,8,64 or 1:4096:x2" : "sequences per step (default 1)");
    app->add_option("--context,-c", context,
                    lists ? "context lengths: 1024,8192 or 1024:131072:x2" : "tokens of context (default 4096)");
    app->add_option("--chunk", chunk, "prefill: tokens processed in this pass (default: the whole context)");
    app->add_option("--weight-dtype", weight_dtype, "fp32, bf16, fp8, int8, fp4, int4 (default: as released)");
    app->add_option("--expert-dtype", expert_dtype, "routed-expert weights (default: --weight-dtype)");
    app->add_option("--act-dtype", act_dtype, "activations (default: the weight format)");
    app->add_option("--kv-dtype", kv_dtype, "KV cache format (default bf16)");
    app->add_option("--expert-touch", expert_touch, "expected (default) or all: routed experts read per step");
  }

  std::optional<Json> args(bool lists, std::string& err) const {
    Json a{{"model", model}, {"hw", hw}, {"phase", phase}};
    if (chips) a["chips"] = *chips;
    auto put_list = [&](const char* key, const std::string& text, const char* flag) -> bool {
      if (text.empty()) return true;
      auto v = parse_list(text, err);
      if (!v) {
        err = std::string(flag) + ": " + err;
        return false;
      }
      if (lists) {
        Json arr = Json::array();
        for (double x : *v) arr.push_back(number_json(x));
        a[key] = arr;
      } else {
        if (v->size() != 1) {
          err = std::string(flag) + ": expected one number (use `llmecon sweep` for lists)";
          return false;
        }
        a[key] = number_json(v->front());
      }
      return true;
    };
    if (!put_list("batch", batch, "--batch") || !put_list("context", context, "--context")) return std::nullopt;
    if (chunk) a["chunk"] = number_json(*chunk);
    if (!weight_dtype.empty()) a["weight_dtype"] = weight_dtype;
    if (!expert_dtype.empty()) a["expert_dtype"] = expert_dtype;
    if (!act_dtype.empty()) a["act_dtype"] = act_dtype;
    if (!kv_dtype.empty()) a["kv_dtype"] = kv_dtype;
    if (!expert_touch.empty()) a["expert_touch"] = expert_touch;
    return a;
  }
};

// Writes the command's chart: FILE.html is the web page's interactive charts (Chart.js and
// web/charts.js inlined, so the file works offline), anything else SVG. Returns the exit code.
int write_plot(const std::string& path, const std::string& command, const Json& result) {
  const bool html = path.size() > 5 && path.substr(path.size() - 5) == ".html";
  std::string text;
  if (html) {
    auto page = llmecon::cli::chart_html(command, result);
    if (!page) return fail("--plot: `" + command + "` has no web chart (hint: sweep, batch, context and plan have)");
    text = *page;
  } else {
    auto chart = llmecon::cli::chart_for(command, result);
    if (!chart) return fail("--plot: `" + command + "` has no chart (hint: use it with --decode for measure)");
    text = llmecon::render_svg(*chart);
  }
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) return fail(path + ": cannot write file (hint: check the directory)");
  std::fwrite(text.data(), 1, text.size(), f);
  std::fclose(f);
  return 0;
}

// The blackboard analyses share one shape: flags become facade arguments by name.
struct Opt {
  const char* flag;
  const char* key;
  const char* help;
  enum Kind { kNumber, kString, kList, kStringList } kind;
};

struct AnalysisSpec {
  const char* name;
  const char* help;
  bool board;  // takes --model/--hw/--chips/dtypes
  std::vector<Opt> opts;
};

struct AnalysisCommand {
  AnalysisSpec spec;
  CLI::App* app = nullptr;
  std::map<std::string, std::string> values;
};

std::vector<AnalysisSpec> analysis_specs() {
  using K = Opt::Kind;
  return {
      {"batch", "cost and latency against batch: B*, the unbatched penalty, latency and slow-mode floors, fast mode",
       true,
       {{"--context,-c", "context", "tokens of context (default 0: the lecture's B* without KV)", K::kNumber},
        {"--price-multiple", "price_multiple", "fast mode: price multiple (e.g. 6)", K::kNumber},
        {"--speed-multiple", "speed_multiple", "fast mode: speed multiple (e.g. 2.5)", K::kNumber}}},
      {"step", "the step interval from the HBM drain time, queueing, tokens/s per unit, traffic needed", true,
       {{"--batch,-b", "batch", "sequences per step (default 2.5 B*)", K::kNumber},
        {"--context,-c", "context", "tokens of context (default 0)", K::kNumber},
        {"--provider-tokens-per-s", "provider_tokens_per_s", "reference traffic (default 5e8)", K::kNumber}}},
      {"context", "the crossover context, MFU against context, KV from a pricing knee, sparse attention", true,
       {{"--batch,-b", "batch", "sequences per step (default 2.5 B*)", K::kNumber},
        {"--knee", "knee", "a pricing knee in tokens, to infer KV bytes per token", K::kNumber},
        {"--topk", "topk", "top-k sparse attention: tokens read (default 2048)", K::kNumber},
        {"--index-bytes", "index_bytes", "top-k indexer key bytes per token (default 128)", K::kNumber},
        {"--sqrt-block", "sqrt_block", "block size of sqrt(context) attention (default 64)", K::kNumber}}},
      {"price", "prices from cost (forward) and what a price sheet implies (inverse, --sheet)", true,
       {{"--context,-c", "context", "prompt length (default 8192)", K::kNumber},
        {"--batch,-b", "batch", "decode batch (default 2.5 B*)", K::kNumber},
        {"--sheet", "sheet", "price sheet to invert: claude-opus-4.6, gemini-3.1-pro, or one from --price-file",
         K::kString},
        {"--n-active", "n_active", "active parameters assumed for the inverse (default: the model's)", K::kNumber}}},
      {"layout", "expert placement, cross-rack traffic, the pipeline-boundary check, memory per chip, hops", true,
       {{"--context,-c", "context", "tokens of context (default 8192)", K::kNumber},
        {"--micro-batch", "micro_batch", "sequences per pipeline stage (default B*)", K::kNumber},
        {"--racks", "racks", "racks one MoE layer spans (default 2)", K::kNumber},
        {"--stages", "stages", "pipeline stages (default 4)", K::kNumber},
        {"--layers-per-stage", "layers_per_stage", "layers per stage (default 1)", K::kNumber},
        {"--hop-ms", "hop_ms", "rack-to-rack hop latency in ms (default 2)", K::kNumber}}},
      {"cache", "KV storage tiers: hold and retrieve cost, the best tier against hold time, TTLs", true,
       {{"--hold-s", "hold_s", "hold times in seconds: 300,3600 or 1:86400:x10", K::kList}}},
      {"lifecycle", "pre-training, RL and inference compute: the equal-cost split and over-training", false,
       {{"--model,-m", "model", "take N_active from this model", K::kString},
        {"--n-active", "n_active", "active parameters (default 100e9)", K::kNumber},
        {"--traffic-tokens-per-s", "traffic_tokens_per_s", "traffic (default 5e8)", K::kNumber},
        {"--lifetime-days", "lifetime_days", "deployment lifetime (default 60)", K::kNumber},
        {"--models", "models", "models sharing the traffic (default 10)", K::kNumber},
        {"--rl-multiplier", "rl_multiplier", "FLOPs per parameter per RL token, 2..6 (default 3)", K::kNumber},
        {"--rl-inefficiency", "rl_inefficiency", "1 / RL MFU (default 3)", K::kNumber},
        {"--inference-inefficiency", "inference_inefficiency", "1 / inference MFU (default 3)", K::kNumber},
        {"--policy", "policy", "thirds or half", K::kString}}},
      {"revnet", "training activation memory with and without reversible layers", false,
       {{"--model,-m", "model", "model (default deepseek-v3)", K::kString},
        {"--batch,-b", "batch", "sequences (default 8)", K::kNumber},
        {"--seq-len", "seq_len", "tokens per sequence (default 4096)", K::kNumber},
        {"--act-dtype", "act_dtype", "activation format (default bf16)", K::kString}}},
      {"lecture", "every claim of the lecture (C1-C24) recomputed, with real-hardware comparisons", false, {}},
      {"validate", "predict every row of a measurement CSV and report the error per metric", false,
       {{"file", "file", "measurement CSV (schema: shared/validation/README.md)", K::kString}}},
      {"calibrate", "fit a chip's efficiency to a measurement CSV; prints a --hw-file overlay", false,
       {{"file", "file", "measurement CSV", K::kString},
        {"--hw", "hw", "the chip to fit (rows measured on it)", K::kString},
        {"--folds", "folds", "cross-validation folds (default 5)", K::kNumber},
        {"--out", "out", "write the overlay TOML to this file", K::kString}}},
      {"measure", "measure this machine's roofline (memory bandwidth, GEMM rate, caches); --decode runs a real decode sweep", false,
       {{"--out", "out", "write the hardware TOML to this file", K::kString},
        {"--d-model", "d_model", "decode: model width (default 2048)", K::kNumber},
        {"--layers", "layers", "decode: layers (default 4)", K::kNumber},
        {"--threads", "threads", "threads (default: all)", K::kNumber}}},
      {"plan", "search mappings x batch x formats for the best deployment under SLOs; the Pareto frontier", false,
       {{"--model,-m", "model", "model (default deepseek-v3)", K::kString},
        {"--hw", "hw", "chip (default gb200)", K::kString},
        {"--chips", "chips", "chips to deploy on (default: one scale-up domain)", K::kNumber},
        {"--racks", "racks", "scale-up domains to deploy on (instead of --chips)", K::kNumber},
        {"--isl", "isl", "input tokens per request (default 2048)", K::kNumber},
        {"--osl", "osl", "output tokens per request (default 256)", K::kNumber},
        {"--ttft-ms", "ttft_ms", "time-to-first-token target", K::kNumber},
        {"--tpot-ms", "tpot_ms", "time-per-output-token target", K::kNumber},
        {"--max-usd-per-mtok", "max_usd_per_mtok", "cost target (blended input and output)", K::kNumber},
        {"--scaleup", "scaleup", "also plan on these scale-up domain sizes: 8,72,576", K::kList},
        {"--weight-dtypes", "weight_dtypes", "weight formats to search: bf16,fp8,fp4", K::kStringList},
        {"--kv-dtypes", "kv_dtypes", "KV formats to search: bf16,fp8", K::kStringList},
        {"--batches", "batches", "batch sizes per replica to search: 1:16384:x2", K::kList},
        {"--overlap", "overlap", "fraction of communication hidden under compute, 0..1 (default 0)", K::kNumber},
        {"--threads", "threads", "search threads (default 1)", K::kNumber},
        {"--spec-acceptance", "spec_acceptance", "speculative decoding / MTP acceptance rate", K::kNumber},
        {"--spec-draft", "spec_draft", "drafted tokens per step", K::kNumber},
        {"--frontier-max", "frontier_max", "thin the frontier to about this many points", K::kNumber},
        {"--prefill-hw", "prefill_hw", "disaggregated serving: the prefill pool's chip", K::kString},
        {"--prefill-chips", "prefill_chips", "disaggregated serving: the prefill pool's chips", K::kNumber}}},
  };
}

std::optional<Json> analysis_args(const AnalysisCommand& c, std::string& err) {
  Json a = Json::object();
  for (const auto& [key, text] : c.values) {
    if (text.empty()) continue;
    const Opt* opt = nullptr;
    for (const auto& o : c.spec.opts)
      if (key == o.key) opt = &o;
    const bool board_string = opt == nullptr && key != "chips";
    if (board_string || (opt != nullptr && opt->kind == Opt::kString)) {
      a[key] = text;
      continue;
    }
    if (opt != nullptr && opt->kind == Opt::kStringList) {
      Json arr = Json::array();
      std::size_t start = 0;
      while (start <= text.size()) {
        const auto comma = text.find(',', start);
        arr.push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
      a[key] = arr;
      continue;
    }
    auto v = parse_list(text, err);
    if (!v) {
      err = "--" + key + ": " + err;
      for (auto& ch : err) ch = ch == '_' ? '-' : ch;
      return std::nullopt;
    }
    if (opt != nullptr && opt->kind == Opt::kList) {
      Json arr = Json::array();
      for (double x : *v) arr.push_back(number_json(x));
      a[key] = arr;
    } else if (v->size() != 1) {
      err = "--" + key + ": expected one number";
      return std::nullopt;
    } else {
      a[key] = number_json(v->front());
    }
  }
  return a;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"llmecon: the economics of training and serving large language models"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "llmecon 0.1.0");
  bool as_json = false, as_csv = false;
  std::vector<std::string> hw_files;
  std::string plot_file;
  app.add_flag("--json", as_json, "print JSON");
  app.add_flag("--csv", as_csv, "print CSV");
  app.add_option("--hw-file", hw_files, "TOML file adding or overriding chips (repeatable)");

  auto* models = app.add_subcommand("models", "list built-in models");
  auto* hardware = app.add_subcommand("hardware", "list chips in the catalog");
  auto* model = app.add_subcommand("model", "inspect a model");
  model->require_subcommand(1);
  auto* show = model->add_subcommand("show", "parameters, layers and KV bytes per token");
  std::string show_model, show_kv = "bf16";
  show->add_option("name", show_model, "built-in name or config.json path")->required();
  show->add_option("--kv-dtype", show_kv, "KV cache format")->capture_default_str();

  llmecon::server::Options serve_opts;
  auto* serve = app.add_subcommand("serve", "the JSON API and the web page on one port (loopback by default)");
  serve->add_option("--host", serve_opts.host, "address to bind")->capture_default_str();
  serve->add_option("--port", serve_opts.port, "port")->capture_default_str()->check(CLI::Range(1, 65535));
  serve->add_option("--threads", serve_opts.threads, "pool threads, each serving many connections")
      ->capture_default_str()
      ->check(CLI::Range(1, 256));
  serve->add_option("--max-body", serve_opts.max_body, "request body limit in bytes")->capture_default_str();
  serve->add_option("--timeout", serve_opts.timeout_s, "seconds before an idle connection is closed")
      ->capture_default_str()
      ->check(CLI::Range(1, 3600));
  serve->add_option("--cache-bytes", serve_opts.cache_bytes, "memory for answers to repeated questions (0: off)")
      ->capture_default_str();
  serve->add_flag("--allow-files", serve_opts.allow_files,
                  "let requests read files (config paths, validate, calibrate) and run measure");
  serve->add_option("--max-connections", serve_opts.max_connections, "connections served at once")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  serve->add_option("--hw-file", hw_files, "TOML file adding or overriding chips (repeatable)");
  StepFlags rf, sf, pf;
  auto* report = app.add_subcommand("report", "a deployment report: memory fit and decode cost across batch sizes");
  pf.add(report, false);
  bool explain = false;
  auto* roof = app.add_subcommand("roofline", "one step on one scale-up domain");
  bool roof_ideal = false;
  rf.add(roof, false);
  roof->add_flag("--explain", explain, "print the derivation with values substituted");
  bool show_ops = false, show_range = false;
  roof->add_flag("--range", show_range, "p10/p50/p90 over spec ranges and efficiency priors");
  roof->add_flag("--ops", show_ops, "per-operator FLOPs and bytes (JSON: per layer too)");
  auto* sweep = app.add_subcommand("sweep", "roofline over lists of batch sizes and/or contexts");
  sf.add(sweep, true);
  sweep->add_option("--plot", plot_file, kPlotHelp);
  bool analysis_explain = false;
  bool ideal = false;
  bool measure_decode_flag = false, measure_quick = false, plan_range = false;
  std::vector<std::string> price_files;
  std::vector<AnalysisCommand> commands;
  for (auto& spec : analysis_specs()) {
    commands.emplace_back();
    commands.back().spec = std::move(spec);
  }
  for (auto& c : commands) {
    c.app = app.add_subcommand(c.spec.name, c.spec.help);
    if (c.spec.board) {
      c.app->add_option("--model,-m", c.values["model"], "built-in model name or config.json (default deepseek-v3)");
      c.app->add_option("--hw", c.values["hw"], "chip name (default gb200)");
      c.app->add_option("--chips", c.values["chips"], "chips pooled (default: the whole scale-up domain)");
      c.app->add_option("--weight-dtype", c.values["weight_dtype"], "weights format (default: as released)");
      c.app->add_option("--expert-dtype", c.values["expert_dtype"], "routed-expert weights format");
      c.app->add_option("--act-dtype", c.values["act_dtype"], "activations format");
      c.app->add_option("--kv-dtype", c.values["kv_dtype"], "KV cache format (default bf16)");
    }
    for (const auto& o : c.spec.opts) c.app->add_option(o.flag, c.values[o.key], o.help);
    c.app->add_flag("--explain", analysis_explain, "print the derivation with values substituted");
    if (std::string(c.spec.name) == "measure") {
      c.app->add_flag("--decode", measure_decode_flag, "also run the synthetic decode sweep");
      c.app->add_flag("--quick", measure_quick, "a small, fast version (used by the tests)");
    }
    if (std::string(c.spec.name) == "plan" || std::string(c.spec.name) == "validate") {
      c.app->add_flag("--ideal", ideal, "the pure roofline: no efficiency factors or fixed costs");
    }
    if (std::string(c.spec.name) == "plan") {
      c.app->add_flag("--range", plan_range, "p10/p50/p90 of the best deployment over spec ranges and priors");
    }
    c.app->add_flag("--json", as_json, "print JSON");
    c.app->add_flag("--csv", as_csv, "print CSV");
    c.app->add_option("--hw-file", hw_files, "TOML file adding or overriding chips (repeatable)");
    c.app->add_option("--price-file", price_files, "TOML price sheet adding or overriding one (repeatable)");
    const std::string n = c.spec.name;
    if (n == "batch" || n == "context" || n == "plan" || n == "measure") {
      c.app->add_option("--plot", plot_file, kPlotHelp);
    }
  }
  for (auto* sub : {roof, sweep, report}) {
    sub->add_flag("--ideal", roof_ideal, "the pure roofline: no efficiency factors or fixed costs");
  }
  for (auto* sub : {models, hardware, show, roof, sweep, report}) {
    sub->add_flag("--json", as_json, "print JSON");
    sub->add_flag("--csv", as_csv, "print CSV");
    sub->add_option("--hw-file", hw_files, "TOML file adding or overriding chips (repeatable)");
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::string msg = e.what();
    return fail(msg + " (hint: run with --help for usage)");
  }
  if (as_json && as_csv) return fail("--json and --csv: choose one output format");

  auto engine = llmecon::Engine::open(hw_files, price_files);
  if (!engine) return fail(engine.error().message());
  const llmecon::cli::Format fmt_out = as_json ? llmecon::cli::Format::kJson
                                       : as_csv ? llmecon::cli::Format::kCsv
                                                : llmecon::cli::Format::kText;

  if (*serve) return llmecon::server::serve(*engine, serve_opts);
  if (*models) return llmecon::cli::print_models(engine->models(), fmt_out);
  if (*hardware) return llmecon::cli::print_hardware(engine->hardware(), fmt_out);
  if (*show) {
    auto r = engine->model_show(Json{{"model", show_model}, {"kv_dtype", show_kv}});
    if (!r) return fail(r.error().message());
    return llmecon::cli::print_model(*r, fmt_out);
  }
  for (const auto& c : commands) {
    if (!c.app->parsed()) continue;
    std::string err;
    auto args = analysis_args(c, err);
    if (!args) return fail(err);
    if (ideal) (*args)["ideal"] = true;
    if (measure_decode_flag) (*args)["decode"] = true;
    if (measure_quick) (*args)["quick"] = true;
    if (plan_range) (*args)["range"] = true;
    std::string out_file;
    if (args->contains("out")) {
      out_file = (*args)["out"];
      args->erase("out");
    }
    llmecon::cli::ProgressBar bar(c.spec.name, fmt_out == llmecon::cli::Format::kText);
    auto r = engine->run(c.spec.name, *args, [&bar](double f) { bar.update(f); });
    bar.finish();
    if (!r) return fail(r.error().message());
    if (!plot_file.empty()) {
      if (int rc = write_plot(plot_file, c.spec.name, *r)) return rc;
    }
    if (std::string(c.spec.name) == "plan") return llmecon::cli::print_plan(*r, fmt_out);
    if (std::string(c.spec.name) == "validate") return llmecon::cli::print_validation(*r, fmt_out);
    if (std::string(c.spec.name) == "calibrate" || std::string(c.spec.name) == "measure") {
      if (!out_file.empty()) {
        std::FILE* f = std::fopen(out_file.c_str(), "w");
        if (f == nullptr) return fail(out_file + ": cannot write file (hint: check the directory)");
        const std::string t = (*r)["toml"];
        std::fwrite(t.data(), 1, t.size(), f);
        std::fclose(f);
      }
      if (std::string(c.spec.name) == "measure") return llmecon::cli::print_measure(*r, fmt_out);
      return llmecon::cli::print_calibration(*r, fmt_out);
    }
    if (std::string(c.spec.name) == "lecture") return llmecon::cli::print_lecture(*r, analysis_explain, fmt_out);
    return llmecon::cli::print_analysis(*r, analysis_explain, fmt_out);
  }
  if (*report) {
    std::string err;
    auto args = pf.args(false, err);
    if (!args) return fail(err);
    if (roof_ideal) (*args)["ideal"] = true;
    auto r = engine->report(*args);
    if (!r) return fail(r.error().message());
    return llmecon::cli::print_report(*r, fmt_out);
  }
  if (*roof || *sweep) {
    const bool is_sweep = sweep->parsed();
    std::string err;
    auto args = (is_sweep ? sf : rf).args(is_sweep, err);
    if (!args) return fail(err);
    if (roof_ideal) (*args)["ideal"] = true;
    if (is_sweep) {
      llmecon::cli::ProgressBar bar("sweep", fmt_out == llmecon::cli::Format::kText);
      auto r = engine->sweep(*args, [&bar](double f) { bar.update(f); });
      bar.finish();
      if (!r) return fail(r.error().message());
      if (!plot_file.empty()) {
        if (int rc = write_plot(plot_file, "sweep", *r)) return rc;
      }
      return llmecon::cli::print_sweep(*r, fmt_out);
    }
    if (show_ops) (*args)["ops"] = true;
    if (show_range) (*args)["range"] = true;
    if (explain) (*args)["explain"] = true;
    auto r = engine->roofline(*args);
    if (!r) return fail(r.error().message());
    return llmecon::cli::print_roofline(*r, fmt_out);
  }
  return fail("no subcommand (hint: run with --help)");
}
