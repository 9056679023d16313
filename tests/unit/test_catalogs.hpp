// The embedded catalogs, loaded once per test binary.
#pragma once

#include "catalog/efficiency.hpp"
#include "catalog/hardware.hpp"
#include "model/model.hpp"
#include "scenario/catalogs.hpp"

namespace llmecon::testing_catalogs {

inline const HardwareCatalog& hw() {
  static const HardwareCatalog c = HardwareCatalog::builtin().value();
  return c;
}

inline const ModelCatalog& models() {
  static const ModelCatalog c = ModelCatalog::builtin().value();
  return c;
}

/// The efficiency families of data/efficiency.toml.
inline const std::vector<FamilyEfficiency>& families() {
  static const std::vector<FamilyEfficiency> f = builtin_efficiency().value();
  return f;
}

/// Every embedded catalog, as the facade opens them.
inline const Catalogs& all() {
  static const Catalogs c = Catalogs::open({}).value();
  return c;
}

}  // namespace llmecon::testing_catalogs
