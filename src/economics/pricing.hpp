// economics/pricing.hpp: API price sheets, and what prices imply (docs/model.md §9).
//
//   auto sheets = PriceCatalog::builtin();
//   const PriceSheet* s = sheets->find("claude-opus-4.6");
//   Analysis inv = price_inverse(*s, board, /*n_active=*/100e9);   // decode MFU, KV bytes, tiers
//   Analysis fwd = price_forward(board, /*context=*/8192, /*batch=*/2000);
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "economics/economics.hpp"
#include "units/analysis.hpp"
#include "units/error.hpp"

namespace llmecon {

struct CacheWrite {
  Seconds ttl{};
  DollarsPerToken price{};
};

struct PriceSheet {
  std::string provider;
  std::string model;
  std::string date;
  std::vector<std::string> sources;
  std::string notes;
  DollarsPerToken input{};
  DollarsPerToken output{};
  std::optional<double> long_context_threshold;  ///< tokens
  std::optional<DollarsPerToken> long_input;
  std::optional<DollarsPerToken> long_output;
  std::optional<DollarsPerToken> cache_read;
  std::vector<CacheWrite> cache_writes;
  std::optional<double> fast_price_multiple;
  std::optional<double> fast_speed_multiple;
};

Result<PriceSheet> parse_price_sheet(std::string_view toml_text, const std::string& origin);

class PriceCatalog {
 public:
  static Result<PriceCatalog> builtin();
  Status add_file(const std::string& path);
  [[nodiscard]] const PriceSheet* find(std::string_view model) const;
  [[nodiscard]] const std::vector<PriceSheet>& all() const { return sheets_; }

 private:
  std::vector<PriceSheet> sheets_;
};

/// Forward: from hardware and model, the prices cost implies (input/output ratio, long-context
/// knee, cache-hit and cache-write prices relative to base input).
Analysis price_forward(const Board& b, double context, double batch);

/// Inverse: what a price sheet implies: decode MFU from the output/input ratio (F14), KV bytes
/// per token from the context knee (F11, given N_active and the board's R), the fast-mode batch
/// ratio (D2), and which memory tier each cache TTL uses (F33, the board's tiers).
Analysis price_inverse(const PriceSheet& s, const Board& b, double n_active);

}  // namespace llmecon
