// Long API requests as jobs, for a client that wants progress and a cancel button (the page):
// `"job": true` in a POST starts one and answers 202 with its id; GET /api/jobs/<id> reports its
// state, progress and elapsed time, and its answer once done; DELETE /api/jobs/<id> cancels it.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>

#include "args/args.hpp"

namespace llmecon::server {

struct Job {
  enum class State { kQueued, kRunning, kDone, kFailed, kCancelled };
  std::string id;
  std::string command;
  std::string format;  ///< json, csv or text, as the request asked
  std::atomic<double> progress{0};
  std::atomic<bool> cancel{false};
  std::chrono::steady_clock::time_point created = std::chrono::steady_clock::now();

  void start();
  /// The answer: the HTTP status the plain request would have had, its body, and the JSON too when
  /// the body is text or CSV.
  void finish(int status, std::string body, std::string json_too);
  /// {"job", "command", "state", "progress", "elapsed_s"}, with "answer" (the body, as JSON when
  /// the format is json) and, for a text or CSV answer, "json", or "error" once it has one.
  [[nodiscard]] Json snapshot() const;
  [[nodiscard]] bool finished() const;

 private:
  mutable std::mutex mu_;
  State state_ = State::kQueued;
  int status_ = 0;
  std::string body_, json_too_;
  std::chrono::steady_clock::time_point ended_{};
};

/// The jobs the server holds: at most `capacity`; a new one evicts the oldest finished one, and is
/// refused (nullptr) when every one is still running.
class JobTable {
 public:
  explicit JobTable(std::size_t capacity) : capacity_(capacity) {}
  std::shared_ptr<Job> create(const std::string& command, const std::string& format);
  [[nodiscard]] std::shared_ptr<Job> find(const std::string& id) const;

 private:
  std::size_t capacity_;
  mutable std::mutex mu_;
  std::list<std::shared_ptr<Job>> jobs_;  // oldest first
  std::uint64_t next_ = 1;
};

}  // namespace llmecon::server
