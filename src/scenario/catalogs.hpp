// scenario/catalogs.hpp: every catalog a question is answered from, loaded once.
//
// The chips (data/hardware), the models (data/models), the API price sheets (data/prices), the
// efficiency families (data/efficiency.toml) and the serving-engine profiles (data/engines),
// embedded in the binary, with the user's hardware and price files over them.
//
//   auto cat = Catalogs::open({"my-chip.toml"}, {});
//   const Hardware* h100 = *cat->hw.get("h100-sxm", "--hw");
//   Efficiency eff = cat->efficiency(*h100);                  // its family's fitted constants
//   const ServingEngine* vllm = *cat->serving_engine("vllm");
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "catalog/efficiency.hpp"
#include "catalog/hardware.hpp"
#include "catalog/serving_engine.hpp"
#include "economics/pricing.hpp"
#include "model/model.hpp"
#include "units/error.hpp"

namespace llmecon {

struct Catalogs {
  HardwareCatalog hw;
  ModelCatalog models;
  PriceCatalog prices;
  std::vector<FamilyEfficiency> families;
  std::vector<ServingEngine> engines;

  /// The embedded catalogs, then each user hardware file and price file in order.
  static Result<Catalogs> open(const std::vector<std::string>& hw_files,
                               const std::vector<std::string>& price_files = {});
  /// The efficiency a chip gets by default (its family's), and where it comes from.
  [[nodiscard]] Efficiency efficiency(const Hardware& hw, std::string* source = nullptr) const;
  /// The serving-engine profile of this name, or an Error naming `flag` and the names there are.
  [[nodiscard]] Result<const ServingEngine*> serving_engine(std::string_view name,
                                                            const std::string& flag = "--engine") const;
  /// The parameters of a chip's efficiency fitted to measurements (the rest are sourced).
  [[nodiscard]] std::vector<std::string> fitted_parameters(const Hardware& hw) const;
  /// Whether that efficiency is a prior: its family has no measurements behind it (model.md §18.3).
  [[nodiscard]] bool efficiency_is_prior(const Hardware& hw) const;
};

}  // namespace llmecon
