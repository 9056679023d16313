// The server's shared resources: the answer cache and the compute pool that runs long requests
// and jobs off the event loops (server.cpp).
#pragma once

#include <malloc.h>
#include <microhttpd.h>

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <list>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "args/args.hpp"
#include "units/json_text.hpp"

namespace llmecon::server {

// Answers are pure functions of the arguments and the catalogs, which never change while serving,
// so repeated questions (a slider moved back, a model picked again) are answered from memory. An
// LRU bounded in bytes.
class ResponseCache {
 public:
  explicit ResponseCache(std::size_t max_bytes) : max_bytes_(max_bytes) {}

  /// The command and the arguments sorted by name, printed compactly: the same question spelled
  /// with other whitespace or key order finds the same answer.
  static std::string key(const std::string& command, const Json& args) {
    std::vector<std::pair<std::string_view, const Json*>> items;
    for (const auto& [k, v] : args.items()) items.emplace_back(k, &v);
    std::sort(items.begin(), items.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::string out = command;
    for (const auto& [k, v] : items) {
      out += '\n';
      out += k;
      out += '=';
      out += json_text(*v);
    }
    return out;
  }

  bool get(const std::string& key, std::string& out) {
    std::lock_guard lock(mu_);
    auto it = index_.find(key);
    if (it == index_.end()) return false;
    order_.splice(order_.begin(), order_, it->second);
    out = it->second->second;
    return true;
  }

  void put(const std::string& key, const std::string& value) {
    const std::size_t size = key.size() + value.size();
    if (size > max_bytes_ / 8) return;  // one answer never takes the cache
    // Copy in and free evicted entries outside the lock; only list splices happen under it.
    std::list<Entry> node;
    node.emplace_back(key, value);
    std::list<Entry> evicted;
    {
      std::lock_guard lock(mu_);
      auto [it, fresh] = index_.try_emplace(node.front().first);
      if (!fresh) return;
      order_.splice(order_.begin(), node);
      it->second = order_.begin();
      bytes_ += size;
      while (bytes_ > max_bytes_ && order_.size() > 1) {
        const Entry& last = order_.back();
        bytes_ -= last.first.size() + last.second.size();
        index_.erase(last.first);
        evicted.splice(evicted.end(), order_, std::prev(order_.end()));
      }
    }
  }

 private:
  using Entry = std::pair<std::string, std::string>;
  std::size_t max_bytes_;
  std::size_t bytes_ = 0;
  std::mutex mu_;
  std::list<Entry> order_;
  std::unordered_map<std::string, std::list<Entry>::iterator> index_;
};

// Long computations (a plan, a sweep, the lecture) run here, off the event loops, so one of them
// does not hold up the other connections of the pool thread that read it.
class ComputePool {
 public:
  ComputePool(int threads, std::size_t max_queue) : max_queue_(max_queue) {
    for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { run(); });
  }
  ~ComputePool() { stop(); }
  ComputePool(const ComputePool&) = delete;
  ComputePool& operator=(const ComputePool&) = delete;

  /// Suspends the connection and queues the job (which must resume it); kStopping once stopping
  /// and kFull past the queue's bound, with the connection untouched. The check and the suspension happen under one
  /// lock, so no connection is suspended after stop() has begun.
  enum class Submit { kQueued, kStopping, kFull };
  Submit submit_suspended(MHD_Connection* conn, std::function<void()> job) { return enqueue(conn, std::move(job)); }
  /// Queues a job that answers no connection (an API job, jobs.hpp), under the same bound.
  Submit submit(std::function<void()> job) { return enqueue(nullptr, std::move(job)); }

  /// Refuses new jobs, finishes (and so resumes) every queued one, and joins the threads.
  void stop() {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& t : threads_) {
      if (t.joinable()) t.join();
    }
  }

 private:
  Submit enqueue(MHD_Connection* conn, std::function<void()> job) {
    {
      std::lock_guard lock(mu_);
      if (stop_) return Submit::kStopping;
      // A bounded queue: every idle thread takes one job, and at most max_queue wait beyond them;
      // past that the server says "busy" instead of holding memory and sockets.
      if (jobs_.size() >= max_queue_ + (threads_.size() - running_)) return Submit::kFull;
      if (conn != nullptr) MHD_suspend_connection(conn);
      jobs_.push_back(std::move(job));
    }
    cv_.notify_one();
    return Submit::kQueued;
  }

  void run() {
    for (;;) {
      std::function<void()> job;
      {
        std::unique_lock lock(mu_);
        cv_.wait(lock, [this] { return stop_ || !jobs_.empty(); });
        if (jobs_.empty()) return;
        job = std::move(jobs_.front());
        jobs_.pop_front();
        ++running_;
      }
      job();
      bool idle = false;
      {
        std::lock_guard lock(mu_);
        idle = --running_ == 0 && jobs_.empty();
      }
      // The last long job done: give the memory its answers used back to the system (glibc keeps
      // freed arena memory otherwise, so a burst of simulations would hold its peak for good).
      if (idle) malloc_trim(0);
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  std::size_t max_queue_;
  std::size_t running_ = 0;  // jobs being computed now
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace llmecon::server
