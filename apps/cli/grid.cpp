// --grid: a command over every combination of its list-valued flags, one line per point (JSON
// lines, or CSV with --csv), on every core; --shard K/N runs every N-th point from the K-th so
// Slurm arrays or GNU parallel spread a grid (docs/scale-out.md).
#include "io/grid.hpp"
#include "output.hpp"
#include "units/json_text.hpp"

namespace llmecon::cli {

namespace {

// simulate's own grid flags: one grid at a time.
constexpr const char* kSimulateGrid[] = {"grid_rates", "grid_layouts", "grid_engines"};

}  // namespace

int grid(const Engine& e, const CommandSpec& spec, const std::vector<GivenFlag>& given, const GridFlags& flags,
         Format f) {
  GridRequest g;
  g.command = spec.name;
  g.threads = flags.threads;
  std::string shard = flags.shard;
  for (const GivenFlag& flag : given) {
    const ArgSpec& a = *flag.arg;
    if (a.key == "shard") {  // simulate takes --shard itself: under --grid it shards this grid
      shard = flag.text;
      continue;
    }
    for (const char* own : kSimulateGrid) {
      if (a.key == own) {
        return fail(a.flag() +
                    ": simulate's own grid and --grid are two grids (hint: under --grid give lists to --rate, " +
                    "--tp/--pp/--ep or --engine, or drop --grid)");
      }
    }
    if (a.type == ArgType::kBool) {
      g.fixed[a.key] = true;
      continue;
    }
    auto axis = axis_from_text(a, flag.text);
    if (!axis) return fail(axis.error().message());
    if (*axis) {
      g.axes.emplace_back(a.key, std::move(**axis));
      continue;
    }
    auto v = Args::from_text(a, flag.text);
    if (!v) return fail(v.error().message());
    g.fixed[a.key] = std::move(*v);
  }
  if (!shard.empty()) {
    auto sh = parse_shard(shard, "--shard");
    if (!sh) return fail(sh.error().message());
    std::tie(g.shard_k, g.shard_n) = *sh;
  }
  auto t = run_grid(e, g);
  if (!t) return fail(t.error().message());
  std::string out;
  if (f == Format::kCsv) {
    out = grid_csv(*t);
  } else if (f == Format::kJson) {
    Json rows = Json::array();
    for (std::size_t i = 0; i < t->rows(); ++i) rows.push_back(grid_row(*t, i));
    out = json_text(Json{{"command", spec.name},
                         {"points", t->points},
                         {"shard", std::to_string(g.shard_k) + "/" + std::to_string(g.shard_n)},
                         {"rows", std::move(rows)}},
                    2) +
          "\n";
  } else {
    out = grid_json_lines(*t);
  }
  // A full disk or a closed pipe is an error, not a silent half file.
  if (!write_all(stdout, out)) {
    return fail("stdout: the grid could not be written in full (hint: check the disk or the pipe)");
  }
  return 0;
}

}  // namespace llmecon::cli
