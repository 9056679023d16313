// The blackboard analyses (economics.hpp) and the lecture's claims.
#include <fmt/format.h>

#include <cmath>

#include "commands.hpp"
#include "economics/economics.hpp"
#include "economics/economics_args.hpp"
#include "lecture/lecture.hpp"

namespace llmecon::cmd {
namespace {

struct BoardArgs {
  ModelSpec model;
  Board board;
};

// The analyses pool one scale-up domain of one chip (model.md §6).
Result<BoardArgs> board_args(const Engine& e, const Args& a) {
  BoardArgs out;
  TRY(model, load_model(e.catalogs(), a));
  out.model = std::move(model);
  TRY(hw, priced_hardware(e.catalogs(), a, a.text("hw")));
  const double chips = a.number_or("chips", hw->domain_size);
  if (chips > hw->domain_size) {
    return Error{"--chips", "",
                 fmt::format("{} chips exceed the {}-chip scale-up domain of {}", chips, hw->domain_size, hw->name),
                 "the blackboard analyses pool one scale-up domain"};
  }
  out.board = board_from(out.model, *hw, static_cast<int>(chips), precision_from(a, out.model));
  return out;
}

// An analysis on the board: its JSON with the model, chip and chips first, and its text.
Answer on_board(Analysis an, const Board& b, bool explain, Json extra = Json::object(),
                std::vector<Analysis> parts = {}) {
  Json out{{"model", b.model}, {"hardware", b.hardware}, {"chips", b.chips}};
  Json j = to_json(an);
  for (auto& [k, v] : j.items()) out[k] = v;
  for (auto& [k, v] : extra.items()) out[k] = v;
  return Answer{std::move(out), [an = std::move(an), head = TextHead{b.model, b.hardware, static_cast<double>(b.chips)},
                                 explain, parts = std::move(parts)] { return text(an, head, explain, {}, parts); }};
}

// The practical batch when none is given: 2.5 x B* (model.md §6).
double practical_batch(const Args& a, const Board& b) {
  return a.number_or("batch", std::ceil(kPracticalBatchFactor * b.R() * b.S()));
}

}  // namespace

Result<Answer> batch(const Engine& e, const Args& a, const Progress&, const Cancel&) {
  TRY(b, board_args(e, a));
  const double ctx = a.number("context");
  Json extra = Json::object();
  std::vector<Analysis> parts;
  if (a.has("price_multiple") || a.has("speed_multiple")) {
    parts.push_back(fast_mode_analysis(b.board, ctx, a.number("price_multiple"), a.number("speed_multiple")));
    extra["fast_mode"] = to_json(parts.back());
  }
  extra["context"] = whole_json(ctx);
  return on_board(batch_analysis(b.board, ctx), b.board, a.flag("explain"), std::move(extra), std::move(parts));
}

Result<Answer> step(const Engine& e, const Args& a, const Progress&, const Cancel&) {
  TRY(b, board_args(e, a));
  return on_board(step_analysis(b.board, practical_batch(a, b.board), a.number("context"),
                                units::tokens_per_s(a.number("provider_tokens_per_s"))),
                  b.board, a.flag("explain"));
}

Result<Answer> context(const Engine& e, const Args& a, const Progress&, const Cancel&) {
  TRY(b, board_args(e, a));
  return on_board(context_analysis(b.board, practical_batch(a, b.board), a.number("knee"), a.number("topk"),
                                   a.number("index_bytes"), a.number("sqrt_block")),
                  b.board, a.flag("explain"));
}

Result<Answer> price(const Engine& e, const Args& a, const Progress&, const Cancel&) {
  TRY(b, board_args(e, a));
  Json extra = Json::object();
  std::vector<Analysis> parts;
  if (a.has("sheet")) {
    const std::string sheet = a.text_or("sheet", "");
    const PriceSheet* s = e.price_catalog().find(sheet);
    if (s == nullptr) {
      std::vector<std::string> names;
      for (const auto& p : e.price_catalog().all()) names.push_back(p.model);
      return Error{"--sheet", "", "unknown price sheet '" + sheet + "'",
                   "known: " + closest_names(sheet, names) + "; add one with --price-file"};
    }
    parts.push_back(price_inverse(*s, b.board, a.number_or("n_active", b.board.n_active)));
    Json inv = to_json(parts.back());
    inv["sources"] = s->sources;
    extra["inverse"] = inv;
  }
  return on_board(price_forward(b.board, a.number("context"), practical_batch(a, b.board)), b.board, a.flag("explain"),
                  std::move(extra), std::move(parts));
}

Result<Answer> layout(const Engine& e, const Args& a, const Progress&, const Cancel&) {
  TRY(b, board_args(e, a));
  Board board = b.board;
  board.hop_latency = units::ms(a.number("hop_ms"));
  return on_board(
      layout_analysis(board, a.number("context"), a.number_or("micro_batch", std::ceil(board.R() * board.S())),
                      static_cast<int>(a.number("racks")), static_cast<int>(a.number("stages")),
                      static_cast<int>(a.number("layers_per_stage"))),
      board, a.flag("explain"));
}

Result<Answer> cache(const Engine& e, const Args& a, const Progress&, const Cancel&) {
  TRY(b, board_args(e, a));
  return on_board(cache_analysis(b.board, a.numbers("hold_s")), b.board, a.flag("explain"));
}

Result<Answer> lifecycle(const Engine& e, const Args& a, const Progress&, const Cancel&) {
  LifecycleInputs in;
  if (a.has("model")) {
    TRY(m, load_model(e.catalogs(), a));
    in.n_active = m.params_active_matmul();
  }
  in.n_active = a.number_or("n_active", in.n_active);
  in.traffic = units::tokens_per_s(a.number("traffic_tokens_per_s"));
  in.lifetime_s = a.number("lifetime_days") * 86400;
  in.models_sharing_traffic = a.number("models");
  in.rl_multiplier = a.number("rl_multiplier");
  in.rl_inefficiency = a.number("rl_inefficiency");
  in.inference_inefficiency = a.number("inference_inefficiency");
  in.policy = a.text("policy");
  Analysis an = lifecycle_analysis(in);
  Json out = to_json(an);
  return Answer{std::move(out),
                [an = std::move(an), explain = a.flag("explain")] { return text(an, TextHead{}, explain); }};
}

Result<Answer> revnet(const Engine& e, const Args& a, const Progress&, const Cancel&) {
  TRY(m, load_model(e.catalogs(), a));
  Analysis an = revnet_analysis(m, a.number("batch"), a.number("seq_len"), *a.dtype("act_dtype"));
  Json out = to_json(an);
  out["model"] = m.name;
  return Answer{std::move(out), [an = std::move(an), name = m.name, explain = a.flag("explain")] {
                  return text(an, TextHead{name, "", {}}, explain);
                }};
}

Result<Answer> lecture(const Engine& e, const Args& a, const Progress&, const Cancel&) {
  TRY(claims, lecture_claims(e.hardware_catalog(), e.model_catalog()));
  Json out = Json::array();
  for (const auto& c : claims) {
    const bool categorical = c.check == Check::kEqual;
    Json real = Json::array();
    for (const auto& r : c.real) {
      real.push_back(
          {{"label", r.label}, {"computed", r.text.empty() ? Json(r.computed) : Json(r.text)}, {"why", r.why}});
    }
    out.push_back({{"id", c.id},
                   {"claim", c.claim},
                   {"expected", categorical ? Json(c.expected_text) : Json(c.expected)},
                   {"computed", categorical ? Json(c.computed_text) : Json(c.computed)},
                   {"unit", c.unit},
                   {"tolerance", c.tolerance},
                   {"check", std::string(name(c.check))},
                   {"pass", c.pass},
                   {"inputs", c.inputs},
                   {"corrected", c.corrected ? Json(*c.corrected) : Json(nullptr)},
                   {"corrected_note", c.corrected_note},
                   {"real", real},
                   {"source", c.source},
                   {"explain", c.derivation}});
  }
  return Answer{std::move(out),
                [claims = std::move(claims), explain = a.flag("explain")] { return text(claims, explain); }};
}

// The board family's commands in the table (commands.hpp); each analysis declares its arguments
// (economics_args.hpp).
std::vector<Command> board_commands() {
  using argspec::command, argspec::explain;
  return {
      {charted(
           command("batch",
                   "cost and latency against batch: B*, the unbatched penalty, latency and slow-mode floors, fast mode",
                   batch_arguments())),
       batch},
      {command("step", "the step interval from the HBM drain time, queueing, tokens/s per unit, traffic needed",
               step_arguments()),
       step},
      {charted(command("context",
                       "the crossover context, MFU against context, KV from a pricing knee, sparse attention",
                       context_arguments())),
       context},
      {command("price", "prices from cost (forward) and what a price sheet implies (inverse, --sheet)",
               price_arguments()),
       price},
      {command("layout", "expert placement, cross-rack traffic, the pipeline-boundary check, memory per chip, hops",
               layout_arguments()),
       layout},
      {command("cache", "KV storage tiers: hold and retrieve cost, the best tier against hold time, TTLs",
               cache_arguments()),
       cache},
      {command("lifecycle", "pre-training, RL and inference compute: the equal-cost split and over-training",
               lifecycle_arguments()),
       lifecycle},
      {command("revnet", "training activation memory with and without reversible layers", revnet_arguments()), revnet},
      {command("lecture", "every claim of the lecture (C1-C24) recomputed, with real-hardware comparisons", {explain()},
               true),
       lecture},
  };
}

}  // namespace llmecon::cmd
