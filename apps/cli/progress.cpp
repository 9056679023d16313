#include "progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace llmecon::cli {

ProgressBar::ProgressBar(std::string label, bool text_output)
    : label_(std::move(label)),
      enabled_(text_output && isatty(STDERR_FILENO) == 1 && isatty(STDOUT_FILENO) == 1),
      start_(Clock::now()),
      last_(start_) {
  if (const char* d = std::getenv("LLMECON_PROGRESS_DELAY_MS")) delay_ = std::chrono::milliseconds(std::atol(d));
}

ProgressBar::~ProgressBar() {
  finish();
}

void ProgressBar::update(double fraction) {
  if (!enabled_) return;
  const auto now = Clock::now();
  if (now - start_ < delay_) return;
  if (drawn_ && now - last_ < std::chrono::milliseconds(50) && fraction < 1.0) return;
  last_ = now;
  drawn_ = true;
  constexpr int kWidth = 30;
  const double f = std::clamp(fraction, 0.0, 1.0);
  const int full = static_cast<int>(f * kWidth);
  std::string bar(static_cast<std::size_t>(full), '#');
  bar.append(static_cast<std::size_t>(kWidth - full), '.');
  const double secs = std::chrono::duration<double>(now - start_).count();
  std::fprintf(stderr, "\r%s [%s] %3d%%  %.1f s", label_.c_str(), bar.c_str(), static_cast<int>(f * 100), secs);
  std::fflush(stderr);
}

void ProgressBar::finish() {
  if (!drawn_) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  drawn_ = false;
}

}  // namespace llmecon::cli
