// units/embedded.hpp: data files compiled into the binary (see cmake/Embed.cmake).
#pragma once

#include <optional>
#include <span>
#include <string_view>

namespace llmecon {

/// One embedded file: its path relative to data/ and its bytes.
struct EmbeddedFile {
  std::string_view path;
  std::string_view content;
};

/// Every shipped hardware file, data/hardware/*.toml.
std::span<const EmbeddedFile> embedded_hardware();
/// Every shipped model file, data/models/* (configs and index.toml).
std::span<const EmbeddedFile> embedded_models();
/// Every shipped price sheet, data/prices/*.toml.
std::span<const EmbeddedFile> embedded_prices();
/// The serving-engine profiles, data/engines/*.toml.
std::span<const EmbeddedFile> embedded_engines();
/// The named workloads, data/workloads/*.toml.
std::span<const EmbeddedFile> embedded_workloads();
/// The ownership-cost defaults, data/tco.toml.
std::span<const EmbeddedFile> embedded_tco();
/// The efficiency defaults, data/efficiency.toml.
std::span<const EmbeddedFile> embedded_efficiency();
/// The web page's assets, web/* (served by `llmecon serve`).
std::span<const EmbeddedFile> embedded_web();

/// The file at exactly `path` among `files`, or nullopt.
inline std::optional<std::string_view> find_embedded(std::span<const EmbeddedFile> files, std::string_view path) {
  for (const auto& f : files) {
    if (f.path == path) return f.content;
  }
  return std::nullopt;
}

}  // namespace llmecon
