// A validation row's notes, read through the declared arguments (internal to src/validate).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "simulate/simulate.hpp"
#include "validate/validate.hpp"

namespace llmecon {

/// The `key=value` items of a row's notes, in order: a key is lowercase letters, digits and '_'
/// starting an item (the text's start, or after ';', a space or a tab); its value runs to the
/// next ';', space or tab.
std::vector<std::pair<std::string, std::string>> note_items(std::string_view notes);

/// Checks every item of `m.notes` against notes_spec() and keeps the values in `m.settings`:
/// an unknown key (with the nearest known ones), a key given twice, a bad value or a restated
/// column that disagrees is an Error naming the row and the key.
Status read_row_notes(Measurement& m);

/// The row's settings that `train` declares, under its keys (train_tokens as tokens, ...).
Json train_settings(const Measurement& m);
/// The row's settings that `simulate` declares, under its keys (qps as rate, ...).
Json serve_settings(const Measurement& m);

/// `mfu_peak=`: 0 for a format named (bf16, fp8: the row's chip's peak in it), the peak in TFLOP/s
/// for a positive number, nothing for anything else.
std::optional<double> mfu_peak_tflops(const std::string& text);

/// `workload=NAME:offline|server|interactive` (the scenario defaults to the row's: offline for
/// offline_throughput, else server): the preset and, for server and interactive, its latency
/// limits.
struct RowWorkload {
  WorkloadPreset preset;
  std::string mode;  ///< "offline", "server" or "interactive"
  Slo slo;
};
Result<RowWorkload> row_workload(std::string_view text, const std::string& scenario);

}  // namespace llmecon
