// The embedded catalogs, loaded once per test binary.
#pragma once

#include "llmecon/hardware.hpp"
#include "llmecon/model.hpp"

namespace llmecon::testing_catalogs {

inline const HardwareCatalog& hw() {
  static const HardwareCatalog c = HardwareCatalog::builtin().value();
  return c;
}

inline const ModelCatalog& models() {
  static const ModelCatalog c = ModelCatalog::builtin().value();
  return c;
}

}  // namespace llmecon::testing_catalogs
