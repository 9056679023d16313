// Price sheets and the forward/inverse price analyses (docs/model.md §9).
#include "economics/pricing.hpp"

#include <fmt/format.h>

#include <cmath>

#include "catalog/toml_reader.hpp"
#include "units/embedded.hpp"

namespace llmecon {
namespace {

std::string money(DollarsPerToken p) {
  return "$" + format_number(p.si() * 1e6) + "/Mtok";
}

}  // namespace

Result<PriceSheet> parse_price_sheet(std::string_view text, const std::string& origin) {
  TRY(root, TomlReader::parse(text, origin));
  const TomlReader rd(root, origin);
  TRY_STATUS(rd.only_keys(root, "",
                          {"provider", "model", "date", "sources", "notes", "base", "long_context", "cache", "fast"}));
  PriceSheet s;
  TRY(provider, rd.str(root, "", "provider", false));
  TRY(model, rd.str(root, "", "model", true));
  TRY(date, rd.str(root, "", "date", true));
  TRY(notes, rd.str(root, "", "notes", false));
  if (model.empty()) return Error{origin, "model", "must not be empty", ""};
  if (date.empty()) return Error{origin, "date", "must not be empty", "price sheets carry the date they were read"};
  s.provider = provider;
  s.model = model;
  s.date = date;
  s.notes = notes;
  TRY(sources, rd.strings(root, "", "sources", true, "cite where the prices come from: sources = [\"https://...\"]"));
  s.sources = sources;
  TRY(base, rd.table(root, "", "base", true));
  TRY_STATUS(rd.only_keys(*base, "base", {"input", "output"}));
  TRY(in, rd.quantity<DollarsPerToken>(*base, "base", "input", true));
  TRY(out, rd.quantity<DollarsPerToken>(*base, "base", "output", true));
  if (in->si() <= 0 || out->si() <= 0) return Error{origin, "base", "prices must be positive", ""};
  s.input = *in;
  s.output = *out;
  TRY(lc, rd.table(root, "", "long_context"));
  if (lc != nullptr) {
    TRY_STATUS(rd.only_keys(*lc, "long_context", {"threshold", "input", "output"}));
    TRY(th, rd.quantity<Tokens>(*lc, "long_context", "threshold", true));
    TRY(li, rd.quantity<DollarsPerToken>(*lc, "long_context", "input", true));
    TRY(lo, rd.quantity<DollarsPerToken>(*lc, "long_context", "output", true));
    s.long_context_threshold = th->si();
    s.long_input = *li;
    s.long_output = *lo;
  }
  TRY(cache, rd.table(root, "", "cache"));
  if (cache != nullptr) {
    TRY_STATUS(rd.only_keys(*cache, "cache", {"read", "write"}));
    TRY(r, rd.quantity<DollarsPerToken>(*cache, "cache", "read", false));
    if (r) s.cache_read = *r;
    TRY(writes, rd.tables(*cache, "cache", "write", false));
    for (const toml::table* w : writes) {
      TRY_STATUS(rd.only_keys(*w, "cache.write", {"ttl", "price"}));
      TRY(ttl, rd.quantity<Seconds>(*w, "cache.write", "ttl", true));
      TRY(pr, rd.quantity<DollarsPerToken>(*w, "cache.write", "price", true));
      if (ttl->si() <= 0) return Error{origin, "cache.write.ttl", "must be positive", "e.g. ttl = \"5 min\""};
      s.cache_writes.push_back(CacheWrite{*ttl, *pr});
    }
  }
  TRY(fast, rd.table(root, "", "fast"));
  if (fast != nullptr) {
    TRY_STATUS(rd.only_keys(*fast, "fast", {"price_multiple", "speed_multiple"}));
    // A fast mode costs more and runs faster: each multiple is at least 1.
    TRY(pm, rd.number(*fast, "fast", "price_multiple", true, 1.0, 1e3));
    TRY(sm, rd.number(*fast, "fast", "speed_multiple", true, 1.0, 1e3));
    s.fast_price_multiple = pm;
    s.fast_speed_multiple = sm;
  }
  return s;
}

Result<PriceCatalog> PriceCatalog::builtin() {
  PriceCatalog c;
  for (const auto& f : embedded_prices()) {
    auto s = parse_price_sheet(f.content, "builtin:" + std::string(f.path));
    if (!s) return s.error();
    c.sheets_.push_back(std::move(s).value());
  }
  return c;
}

Status PriceCatalog::add_file(const std::string& path) {
  auto text = read_text_file(path, "check the path given to --price-file");
  if (!text) return text.error();
  auto s = parse_price_sheet(*text, path);
  if (!s) return s.error();
  for (auto& e : sheets_) {
    if (e.model == s->model) {
      e = std::move(s).value();
      return {};
    }
  }
  sheets_.push_back(std::move(s).value());
  return {};
}

const PriceSheet* PriceCatalog::find(std::string_view model) const {
  for (const auto& s : sheets_) {
    if (s.model == model) return &s;
  }
  return nullptr;
}

Analysis price_forward(const Board& b, double context, double batch) {
  Analysis a("price (forward)");
  a.step_model = kStepIdealPooled;
  // Input: one prefill pass over the prompt (F14), per token. Output: one decode step at batch B.
  const DollarsPerToken in = b.cost(1, 0, context);
  const DollarsPerToken out = b.cost(batch, context);
  a.figure("usd_per_mtok_input", in, "prefill cost per token (F14)");
  a.figure("usd_per_mtok_output", out, "decode cost per token at this batch and context");
  a.figure("output_over_input", out / in, "x", "decode cost / prefill cost (F14)");
  const double mfu = b.t_compute(batch) / b.t_step(batch, context);
  a.figure("decode_mfu", mfu, "x", "decode compute time / step time");
  a.note(fmt::format(
      "output costs {}x input because decode at batch {} and {} tokens of context runs at about 1/{} of "
      "prefill's MFU (F14)",
      format_number(out / in, 3), format_number(batch), format_number(context), format_number(out / in, 3)));
  a.explain(fmt::format("input = t_prefill(c = {}) x price / c = {}; output = t_step(B = {}, c) x price / B = {} (F14)",
                        format_number(context), money(in), format_number(batch), money(out)));
  a.explain(fmt::format("output / input = {}; decode MFU = t_compute / t_step = {}", format_number(out / in),
                        format_number(mfu)));
  const double knee = (units::flops(2.0 * b.n_active) / b.flops).si() * b.mem_bw.si() / b.kv.si();
  a.figure("long_context_knee", knee, "tok", "where KV fetch overtakes compute: the surcharge knee (F10)");
  // Cache: a hit retrieves stored KV instead of recomputing; a write pays base input plus holding.
  const auto tiers = tier_costs(b);
  for (double ttl : {300.0, 3600.0}) {
    const std::size_t i = best_tier(tiers, units::seconds(ttl));
    const Dollars hold = tiers[i].hold_rate * units::seconds(ttl);
    const double write = (in.si() + hold.si()) / in.si();
    const double hit = tiers[i].retrieve.si() / in.si();
    const std::string tag = ttl < 1000 ? "5m" : "1h";
    const std::string when = ttl < 1000 ? "5-minute" : "1-hour";
    a.figure("cache_write_" + tag + "_over_input", write, "x",
             "cache write, " + when + " TTL: (prefill + hold on " + tiers[i].name + ") / prefill");
    a.figure("cache_hit_" + tag + "_over_input", hit, "x",
             "cache hit, " + when + " TTL: retrieve from " + tiers[i].name + " / prefill");
    a.explain(fmt::format("{} TTL: {} holds for {}, retrieve {} of base input; write {}x base (F32)", tag,
                          tiers[i].name, "$" + format_number(hold.si() * 1e6) + "/Mtok", format_number(hit),
                          format_number(write)));
  }
  return a;
}

Analysis price_inverse(const PriceSheet& s, const Board& b, double n_active) {
  Analysis a("price (inverse): " + s.provider + " " + s.model + " (" + s.date + ")");
  const double ratio = s.output / s.input;
  a.figure("output_over_input", ratio, "x", "output price / input price");
  a.figure("decode_mfu", 1.0 / ratio, "x", "decode MFU relative to prefill, input / output (F14)");
  a.note(
      fmt::format("{} prices output at {}x input: if prices follow cost, its decode runs at about 1/{} of "
                  "prefill's MFU (F14)",
                  s.model, format_number(ratio, 3), format_number(ratio, 3)));
  a.explain(fmt::format("decode MFU ~ input / output (F14) = {} / {} = {}", money(s.input), money(s.output),
                        format_number(1.0 / ratio)));
  if (s.long_context_threshold) {
    const double knee = *s.long_context_threshold;
    a.figure("knee_tokens", knee, "tok", "long-context price threshold");
    a.figure("long_output_multiple", *s.long_output / s.output, "x", "output price above the knee / below");
    a.figure("long_input_multiple", *s.long_input / s.input, "x", "input price above the knee / below");
    const double kv = n_active * b.bytes_per_param / (b.R() * knee);  // F11
    a.figure("kv_bytes_per_token", kv, "B/tok", "N_active x bytes/param / (R x knee) (F11)");
    a.explain(fmt::format("kv = N_active x bytes/param / (R x knee) (F11) = {} x {} / ({} x {}) = {}",
                          format_number(n_active), format_number(b.bytes_per_param), format_number(b.R()),
                          format_number(knee), format(units::bytes_per_token(kv))));
  }
  if (s.fast_price_multiple && s.fast_speed_multiple) {
    a.figure("fast_batch_ratio", *s.fast_price_multiple * *s.fast_speed_multiple, "x",
             "B_std / B_fast = price x speed multiples (D2)");
    a.explain(fmt::format("fast mode: B_std / B_fast = {} x {} = {} (D2)", format_number(*s.fast_price_multiple),
                          format_number(*s.fast_speed_multiple),
                          format_number(*s.fast_price_multiple * *s.fast_speed_multiple)));
  }
  if (s.cache_read) {
    a.figure("cache_read_over_input", *s.cache_read / s.input, "x", "cache hit price / base input");
  }
  const auto tiers = tier_costs(b);
  Table t{
      "cache_ttl_tiers",
      {{"ttl_s", "s", "TTL"}, {"write_over_input", "x", "write price / input"}, {"drain_rule_tier", "", "tier (F33)"}},
      {},
      "what each cache-write TTL implies"};
  for (const auto& w : s.cache_writes) {
    const std::size_t rule = drain_rule_tier(tiers, w.ttl);
    t.rows.push_back({w.ttl.si(), w.price / s.input, tiers[rule].name});
    a.explain(fmt::format("TTL {}: the tier whose drain time is nearest is {} ({}) (F33)", format(w.ttl),
                          tiers[rule].name, format(tiers[rule].drain)));
  }
  if (!t.rows.empty()) a.tables.push_back(std::move(t));
  return a;
}

}  // namespace llmecon
