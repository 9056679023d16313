// A progress bar for long sweeps and plans, drawn on stderr only when both output streams are a
// terminal and the output is text (never when piped or with --json/--csv). It stays silent for the
// first quarter second so quick commands do not flicker; LLMECON_PROGRESS_DELAY_MS overrides that.
#pragma once

#include <chrono>
#include <string>

namespace llmecon::cli {

class ProgressBar {
 public:
  ProgressBar(std::string label, bool text_output);
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  /// Fraction done, 0..1. Cheap when nothing needs drawing.
  void update(double fraction);
  /// Clears the bar, if one was drawn.
  void finish();

 private:
  using Clock = std::chrono::steady_clock;
  std::string label_;
  bool enabled_;
  bool drawn_ = false;
  Clock::time_point start_;
  Clock::time_point last_;
  std::chrono::milliseconds delay_{250};
};

}  // namespace llmecon::cli
