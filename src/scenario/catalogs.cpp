// The catalogs a question is answered from (catalogs.hpp).
#include "scenario/catalogs.hpp"

namespace llmecon {

Result<Catalogs> Catalogs::open(const std::vector<std::string>& hw_files, const std::vector<std::string>& price_files) {
  Catalogs c;
  TRY(hw, HardwareCatalog::builtin());
  c.hw = std::move(hw);
  for (const auto& f : hw_files) TRY_STATUS(c.hw.add_file(f));
  TRY(models, ModelCatalog::builtin());
  c.models = std::move(models);
  TRY(families, builtin_efficiency());
  c.families = std::move(families);
  TRY(engines, builtin_engines());
  c.engines = std::move(engines);
  TRY(prices, PriceCatalog::builtin());
  c.prices = std::move(prices);
  for (const auto& f : price_files) TRY_STATUS(c.prices.add_file(f));
  return c;
}

Efficiency Catalogs::efficiency(const Hardware& h, std::string* source) const {
  return efficiency_for(h, families, source);
}

Result<const ServingEngine*> Catalogs::serving_engine(std::string_view name, const std::string& flag) const {
  if (const ServingEngine* e = find_engine(engines, name)) return e;
  std::string names;
  for (const auto& e : engines) names += (names.empty() ? "" : ", ") + e.name;
  return Error{flag, "", "unknown serving engine '" + std::string(name) + "'", "one of: " + names};
}

std::vector<std::string> Catalogs::fitted_parameters(const Hardware& h) const {
  const FamilyEfficiency* f = family_of(h, families);
  return f != nullptr ? f->fitted : std::vector<std::string>{};
}

bool Catalogs::efficiency_is_prior(const Hardware& h) const {
  const FamilyEfficiency* f = family_of(h, families);
  return f != nullptr && f->source.rfind("prior", 0) == 0;
}

}  // namespace llmecon
