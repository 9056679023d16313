// llmecon: the command-line shell over the facade. The subcommands, their flags and their help
// come from the command table (llmecon/args.hpp); this file only parses, calls Engine::run and
// prints.
#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "args/args.hpp"
#include "io/facade.hpp"
#include "output.hpp"
#include "progress.hpp"
#include "server.hpp"
#include "units/json_text.hpp"

namespace llmecon::cli {

int fail(const std::string& message) {
  std::fprintf(stderr, "llmecon: error: %s\n", message.c_str());
  return 2;
}

bool write_all(std::FILE* f, const std::string& text) {
  const bool wrote = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  const bool flushed = std::fflush(f) == 0;
  return wrote && flushed && std::ferror(f) == 0;
}

}  // namespace llmecon::cli

namespace {

using llmecon::ArgSpec;
using llmecon::ArgType;
using llmecon::CommandSpec;
using llmecon::Json;
using llmecon::cli::fail;
using llmecon::cli::Format;
using llmecon::cli::write_all;

constexpr const char* kPlotHelp =
    "write the chart to this file: FILE.svg, or FILE.html for the web page's interactive charts";

// Options every command takes (shell concerns, not facade arguments).
struct Shell {
  bool json = false, csv = false, markdown = false, grid = false;
  llmecon::cli::GridFlags grid_flags;
  std::vector<std::string> hw_files, price_files;
  std::string plot, out;
};

void add_shell_options(CLI::App* sub, Shell& s) {
  sub->add_flag("--json", s.json, "print JSON");
  sub->add_flag("--csv", s.csv, "print CSV");
  sub->add_option("--hw-file", s.hw_files, "TOML file adding or overriding chips (repeatable)");
  sub->add_option("--price-file", s.price_files, "TOML price sheet adding or overriding one (repeatable)");
}

// One command of the table as a CLI11 subcommand: every argument becomes a flag (or a positional)
// whose help shows the unit and the default the facade applies.
struct Command {
  const CommandSpec* spec = nullptr;
  CLI::App* app = nullptr;
  std::map<std::string, std::string> text;
  std::map<std::string, bool> flags;
  std::map<std::string, CLI::Option*> options;
};

std::string help_line(const ArgSpec& a) {
  std::string h = a.help;
  if (!a.unit.empty()) h += " [" + a.unit + "]";
  const std::string d = a.default_str();
  if (a.type != ArgType::kBool && !d.empty()) h += " (default: " + d + ")";
  return h;
}

void build(Command& c, CLI::App& root, std::map<std::string, CLI::App*>& parents, Shell& shell) {
  const std::string words = c.spec->cli_name();
  CLI::App* parent = &root;
  std::string leaf = words;
  if (const auto space = words.find(' '); space != std::string::npos) {
    const std::string head = words.substr(0, space);
    leaf = words.substr(space + 1);
    if (parents.count(head) == 0) {
      parents[head] = root.add_subcommand(head, "inspect a " + head);
      parents[head]->require_subcommand(1);
      parents[head]->fallthrough();
    }
    parent = parents[head];
  }
  c.app = parent->add_subcommand(leaf, c.spec->help);
  for (const ArgSpec& a : c.spec->args) {
    if (a.type == ArgType::kBool) {
      c.flags[a.key] = false;
      c.options[a.key] = c.app->add_flag(a.flag(), c.flags[a.key], help_line(a));
      continue;
    }
    std::string names = a.positional ? a.key : a.flag();
    if (!a.short_flag.empty() && !a.positional) names += "," + a.short_flag;
    CLI::Option* o = c.app->add_option(names, c.text[a.key], help_line(a));
    std::string type(llmecon::name(a.type));
    for (auto& ch : type) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    o->type_name(type);
    if (a.required) o->required();
    c.options[a.key] = o;
  }
  add_shell_options(c.app, shell);
  if (!c.spec->chart.empty()) c.app->add_option("--plot", shell.plot, kPlotHelp);
  c.app->add_flag("--grid", shell.grid,
                  "every combination of the flags given lists (--batch 1:4096:x2 --hw h100-sxm,b200), one JSON "
                  "line per point (--csv: CSV); docs/scale-out.md");
  if (c.spec->arg("shard") == nullptr) {
    c.app->add_option("--shard", shell.grid_flags.shard,
                      "with --grid: run only shard K of N (K/N): points i with "
                      "i mod N = K - 1");
  }
  c.app->add_option("--grid-threads", shell.grid_flags.threads, "with --grid: threads (0: every core)")
      ->capture_default_str()
      ->check(CLI::Range(0, 1024));
  if (c.spec->writes_toml) c.app->add_option("--out", shell.out, "write the TOML to this file");
}

// The facade's arguments from the parsed flags: numbers are read by the same parser as the
// API's, lists and names pass as text to the facade's one parser.
llmecon::Result<Json> args_of(const Command& c) {
  Json args = Json::object();
  for (const ArgSpec& a : c.spec->args) {
    const CLI::Option* o = c.options.at(a.key);
    if (o->count() == 0) continue;
    if (a.type == ArgType::kBool) {
      args[a.key] = true;
      continue;
    }
    TRY(v, llmecon::Args::from_text(a, c.text.at(a.key)));
    args[a.key] = std::move(v);
  }
  return args;
}

// Writes the command's chart: FILE.html is the web page's interactive charts (Chart.js and
// web/charts.js inlined, so the file works offline), anything else SVG. Returns the exit code.
int write_text(const std::string& path, const std::string& text);

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
    // simulate: the batch and KV use over time go beside the latency CDFs, in FILE-time.svg.
    if (command == "simulate") {
      const std::string stem =
          path.size() > 4 && path.substr(path.size() - 4) == ".svg" ? path.substr(0, path.size() - 4) : path;
      if (auto t = llmecon::cli::chart_for("simulate-time", result)) {
        if (int rc = write_text(stem + "-time.svg", llmecon::render_svg(*t))) return rc;
      }
    }
  }
  return write_text(path, text);
}

// A file is written whole or not at all: to a temporary name beside it, then renamed over it, so a
// failed write never leaves half a chart. A path that is not a regular file (/dev/stdout, a pipe,
// a device) is written in place, with its errors checked the same way.
int write_text(const std::string& path, const std::string& text) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  const bool in_place = !ec && std::filesystem::exists(status) && !std::filesystem::is_regular_file(status);
  if (!ec && std::filesystem::is_directory(status)) return fail(path + ": is a directory (hint: give a file name)");
  const std::string target = in_place ? path : path + ".llmecon-tmp";
  std::FILE* f = std::fopen(target.c_str(), "w");
  if (f == nullptr) return fail(path + ": cannot write file (hint: check the directory and its permissions)");
  const bool ok = write_all(f, text);
  const bool closed = std::fclose(f) == 0;
  if (!ok || !closed) {
    if (!in_place) std::remove(target.c_str());
    return fail(path + (in_place ? ": the write failed" : ": the write failed, the file is as it was") +
                " (hint: check the free space on its disk)");
  }
  if (!in_place && std::rename(target.c_str(), path.c_str()) != 0) {
    std::remove(target.c_str());
    return fail(path + ": cannot replace the file (hint: check the directory's permissions)");
  }
  return 0;
}

// One way out for every command: JSON and CSV are generic; text is the answer's own (io/text.hpp).
// Exit codes (docs/cli.md): 0 an answer, 1 an answer that the configuration is infeasible (printed,
// with its reason and without a price, throughput or duration), 2 bad input.
constexpr int kInfeasible = 1;

bool infeasible(const Json& answer) {
  return answer.is_object() && answer.value("feasible", true) == false;
}

int emit(const std::string& command, const llmecon::Answer& answer, Format f) {
  const int rc = infeasible(answer.json) ? kInfeasible : 0;
  // Text that is not UTF-8 (a file name, a CSV id) is replaced, never thrown on.
  const std::string out = f == Format::kJson  ? llmecon::json_text(answer.json, 2) + "\n"
                          : f == Format::kCsv ? llmecon::csv_of(command, answer.json)
                                              : answer.text();
  if (!write_all(stdout, out)) return fail("stdout: the answer could not be written in full (hint: check the disk)");
  return rc;
}

// The subcommand the user meant when CLI11 rejects a flag: the deepest one parsed.
const Command* parsed_command(const std::vector<std::unique_ptr<Command>>& cmds) {
  for (const auto& c : cmds) {
    if (c->app->parsed()) return c.get();
  }
  return nullptr;
}

std::string flag_key(std::string flag) {
  while (!flag.empty() && flag.front() == '-') flag.erase(flag.begin());
  if (const auto eq = flag.find('='); eq != std::string::npos) flag.resize(eq);
  for (auto& ch : flag) ch = ch == '-' ? '_' : ch;
  return flag;
}

// --grid: the flags given, in order, to the grid (apps/cli/grid.cpp).
int run_grid(const llmecon::Engine& e, const Command& c, const Shell& shell, Format f) {
  if (!shell.grid && !shell.grid_flags.shard.empty()) return fail("--shard: shards a grid (hint: add --grid)");
  if (!shell.grid) return fail("--grid-threads: sets a grid's threads (hint: add --grid)");
  if (!shell.plot.empty()) return fail("--plot: a grid has no chart (hint: read its CSV into pandas, or drop --grid)");
  if (!shell.out.empty()) return fail("--out: a grid prints its rows (hint: redirect them to a file)");
  std::vector<llmecon::cli::GivenFlag> given;
  for (const CLI::Option* o : c.app->parse_order()) {
    for (const ArgSpec& a : c.spec->args) {
      const auto it = c.options.find(a.key);
      if (it == c.options.end() || it->second != o) continue;
      if (std::any_of(given.begin(), given.end(), [&](const auto& g) { return g.arg == &a; })) continue;
      given.push_back({&a, a.type == ArgType::kBool ? std::string("true") : c.text.at(a.key)});
    }
  }
  return llmecon::cli::grid(e, *c.spec, given, shell.grid_flags, f);
}

// `llmecon commands`: the table as a list, JSON (the API's schema), CSV or docs/cli.md's reference.
int print_commands(const Shell& shell) {
  std::string out;
  if (shell.markdown) {
    out = llmecon::schema_markdown();
  } else if (shell.json) {
    out = llmecon::json_text(llmecon::schema_json(), 2) + "\n";
  } else if (shell.csv) {
    // One row per (command, argument), the argument's scalar fields as columns.
    std::vector<Json> rows;
    for (const Json& c : llmecon::schema_json()) {
      Json base{{"command", c["cli"]}, {"command_help", c["help"]}};
      if (c["args"].empty()) rows.push_back(base);
      for (const Json& arg : c["args"]) {
        Json row = base;
        for (const auto& [k, v] : arg.items()) {
          if (v.is_primitive()) row[k] = v;
        }
        rows.push_back(std::move(row));
      }
    }
    out = llmecon::to_csv(rows);
  } else {
    for (const auto& c : llmecon::commands()) out += fmt::format("{:<12} {}\n", c.cli_name(), c.help);
  }
  if (!write_all(stdout, out)) return fail("stdout: the table could not be written in full (hint: check the disk)");
  return 0;
}

// `llmecon serve`: the server's options (apps/server).
CLI::App* add_serve(CLI::App& app, llmecon::server::Options& serve_opts, Shell& shell) {
  auto* serve = app.add_subcommand("serve", "the JSON API and the web page on one port (loopback by default)");
  serve->footer(
      "Off loopback (--host 0.0.0.0 or a LAN address) every machine that can reach the port can run every "
      "command, at the cost of this machine's CPU: there is no authentication and no TLS, so put it behind a "
      "proxy that has both. Requests must name the server by an IP address or a name given with --allow-host "
      "(a page elsewhere that points its DNS name here is refused); the API sends no CORS headers, so only "
      "the page this server serves can call it from a browser. --allow-files is never safe off loopback.");
  serve->add_option("--host", serve_opts.host, "address to bind (off loopback: see below)")->capture_default_str();
  serve->add_option("--allow-host", serve_opts.allowed_hosts,
                    "off loopback: a DNS name requests may give as Host, besides IP addresses (repeatable)");
  serve->add_option("--port", serve_opts.port, "port")->capture_default_str()->check(CLI::Range(1, 65535));
  serve->add_option("--threads", serve_opts.threads, "pool threads, each serving many connections")
      ->capture_default_str()
      ->check(CLI::Range(1, 256));
  serve->add_option("--max-body", serve_opts.max_body, "request body limit in bytes")
      ->capture_default_str()
      ->check(CLI::Range(1, 1 << 30));
  serve->add_option("--timeout", serve_opts.timeout_s, "seconds before an idle connection is closed")
      ->capture_default_str()
      ->check(CLI::Range(1, 3600));
  serve->add_option("--cache-bytes", serve_opts.cache_bytes, "memory for answers to repeated questions (0: off)")
      ->capture_default_str()
      ->check(CLI::Range(0LL, 1LL << 40));
  serve->add_flag("--allow-files", serve_opts.allow_files,
                  "let requests read files (config paths, validate, calibrate) and run measure");
  serve->add_option("--max-connections", serve_opts.max_connections, "connections served at once")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  serve->add_option("--max-per-ip", serve_opts.max_per_ip, "connections one client address may hold at once")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  serve->add_option("--max-queue", serve_opts.max_queue, "long requests waiting for a compute thread; past it, 503")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  serve
      ->add_option("--deadline-ms", serve_opts.deadline_ms,
                   "a long request still running this many milliseconds after it was queued is cancelled (503)")
      ->capture_default_str()
      ->check(CLI::Range(10, 3600000));
  serve
      ->add_option("--receive-deadline", serve_opts.receive_deadline_s,
                   "seconds a client has to send a whole request (headers and body); a slower one is cut off")
      ->capture_default_str()
      ->check(CLI::Range(1, 3600));
  serve->add_option("--hw-file", shell.hw_files, "TOML file adding or overriding chips (repeatable)");
  return serve;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"llmecon: the economics of training and serving large language models"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "llmecon 0.1.0");
  Shell shell;
  add_shell_options(&app, shell);

  std::vector<std::unique_ptr<Command>> cmds;
  std::map<std::string, CLI::App*> parents;
  for (const CommandSpec& spec : llmecon::commands()) {
    auto c = std::make_unique<Command>();
    c->spec = &spec;
    build(*c, app, parents, shell);
    cmds.push_back(std::move(c));
  }

  auto* list =
      app.add_subcommand("commands", "the command table: every command and argument (--json: the API's schema)");
  list->add_flag("--json", shell.json, "print the schema as JSON (GET /api/ serves the same)");
  list->add_flag("--markdown", shell.markdown, "print docs/cli.md's flag reference");
  list->add_flag("--csv", shell.csv, "print the table as CSV: one row per command and argument");

  llmecon::server::Options serve_opts;
  auto* serve = add_serve(app, serve_opts, shell);

  // An unknown command lists the commands (CLI11 would only say that one is required).
  if (argc > 1 && argv[1][0] != '-') {
    const std::string word = argv[1];
    if (word != "serve" && word != "commands" && parents.count(word) == 0 && llmecon::find_command(word) == nullptr) {
      return fail(llmecon::unknown_command(word).message());
    }
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ExtrasError& e) {
    // A flag the command does not take: the nearest it does, or the command that takes it.
    const Command* c = parsed_command(cmds);
    std::string extra = e.what();
    if (c != nullptr) {
      for (int i = 1; i < argc; ++i) {
        const std::string w = argv[i];
        if (w.size() > 1 && w[0] == '-' && (extra.find(w) != std::string::npos)) {
          return fail(llmecon::unknown_argument(*c->spec, flag_key(w)).message());
        }
      }
    }
    return fail(extra + " (hint: run with --help for usage)");
  } catch (const CLI::ParseError& e) {
    const std::string what = e.what();
    // A flag given twice: say so, not CLI11's "At Most 1 required but received 2".
    if (const auto at = what.find(": At Most 1 required"); at != std::string::npos) {
      return fail(what.substr(0, at) + ": given more than once (hint: give each flag once; several values are a " +
                  "list, --batch 1,8,64, and --grid runs every combination)");
    }
    return fail(what + " (hint: run with --help for usage)");
  }
  if (shell.json && shell.csv) return fail("--json and --csv: choose one output format");

  if (*list) return print_commands(shell);

  auto engine = llmecon::Engine::open(shell.hw_files, shell.price_files);
  if (!engine) return fail(engine.error().message());
  if (*serve) {
    if (serve_opts.allow_files && serve_opts.host != "127.0.0.1" && serve_opts.host != "::1") {
      return fail(
          "--allow-files: lets every client read this machine's files; it is refused off loopback "
          "(hint: serve on 127.0.0.1 and reach it through an SSH tunnel)");
    }
    return llmecon::server::serve(*engine, serve_opts);
  }

  const Command* c = parsed_command(cmds);
  if (c == nullptr) return fail("no command (hint: `llmecon commands` lists them)");
  const Format fmt_out = shell.json ? Format::kJson : shell.csv ? Format::kCsv : Format::kText;
  if (shell.grid || !shell.grid_flags.shard.empty() || c->app->count("--grid-threads") > 0) {
    return run_grid(*engine, *c, shell, fmt_out);
  }
  auto args = args_of(*c);
  if (!args) return fail(args.error().message());
  const std::string& name = c->spec->name;
  llmecon::cli::ProgressBar bar(name, fmt_out == Format::kText);
  auto answer = engine->answer(name, *args, [&bar](double f) { bar.update(f); });
  bar.finish();
  if (!answer) return fail(answer.error().message());
  Json* r = &answer->json;
  if (!shell.plot.empty() && infeasible(*r)) {
    // Nothing to draw: the answer says why (and exits 1).
    std::fprintf(stderr, "llmecon: --plot: no chart written: the configuration is infeasible\n");
  } else if (!shell.plot.empty()) {
    if (int rc = write_plot(shell.plot, name, *r)) return rc;
  }
  if (!shell.out.empty()) {
    if (int rc = write_text(shell.out, (*r)["toml"].get<std::string>())) return rc;
  }
  // simulate --chrome-trace FILE: the events go to the file, not to the terminal.
  if (r->is_object() && r->contains("chrome_trace") && args->contains("chrome_trace")) {
    if (int rc = write_text((*args)["chrome_trace"].get<std::string>(), llmecon::json_text((*r)["chrome_trace"])))
      return rc;
    r->erase("chrome_trace");
  }
  return emit(name, *answer, fmt_out);
}
