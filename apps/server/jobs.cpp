// Long API requests as jobs (jobs.hpp).
#include "jobs.hpp"

#include <algorithm>
#include <utility>

namespace llmecon::server {

namespace {
const char* state_name(Job::State s) {
  switch (s) {
    case Job::State::kQueued:
      return "queued";
    case Job::State::kRunning:
      return "running";
    case Job::State::kDone:
      return "done";
    case Job::State::kFailed:
      return "failed";
    case Job::State::kCancelled:
      return "cancelled";
  }
  return "?";
}
}  // namespace

void Job::start() {
  std::lock_guard lock(mu_);
  state_ = State::kRunning;
}

void Job::finish(int status, std::string body, std::string json_too) {
  std::lock_guard lock(mu_);
  status_ = status;
  body_ = std::move(body);
  json_too_ = std::move(json_too);
  ended_ = std::chrono::steady_clock::now();
  state_ = status == 200 ? State::kDone : cancel.load() ? State::kCancelled : State::kFailed;
  if (state_ == State::kDone) progress = 1.0;
}

bool Job::finished() const {
  std::lock_guard lock(mu_);
  return state_ != State::kQueued && state_ != State::kRunning;
}

Json Job::snapshot() const {
  std::lock_guard lock(mu_);
  const auto end = state_ == State::kQueued || state_ == State::kRunning ? std::chrono::steady_clock::now() : ended_;
  Json j{{"job", id},
         {"command", command},
         {"state", state_name(state_)},
         {"progress", progress.load()},
         {"elapsed_s", std::chrono::duration<double>(end - created).count()}};
  if (state_ == State::kDone) {
    j["status"] = status_;
    j["answer"] = format == "json" ? Json::parse(body_) : Json(body_);
    if (!json_too_.empty()) j["json"] = Json::parse(json_too_);
  } else if (state_ == State::kCancelled) {
    j["error"] = "cancelled (DELETE /api/jobs/" + id + ")";
  } else if (state_ == State::kFailed) {
    j["status"] = status_;
    const Json e = Json::parse(body_, nullptr, false);
    j["error"] = e.is_object() && e.contains("error") ? e["error"] : Json(body_);
  }
  return j;
}

std::shared_ptr<Job> JobTable::create(const std::string& command, const std::string& format) {
  std::lock_guard lock(mu_);
  if (jobs_.size() >= capacity_) {
    auto done = std::find_if(jobs_.begin(), jobs_.end(), [](const auto& j) { return j->finished(); });
    if (done == jobs_.end()) return nullptr;
    jobs_.erase(done);
  }
  auto job = std::make_shared<Job>();
  job->id = std::to_string(next_++);
  job->command = command;
  job->format = format;
  jobs_.push_back(job);
  return job;
}

std::shared_ptr<Job> JobTable::find(const std::string& id) const {
  std::lock_guard lock(mu_);
  for (const auto& j : jobs_) {
    if (j->id == id) return j;
  }
  return nullptr;
}

}  // namespace llmecon::server
