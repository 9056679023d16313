// The HTTP shell: a JSON API mirroring the CLI's --json, and the web page, over one Engine.
#pragma once

#include <string>
#include <vector>

#include "io/facade.hpp"

namespace llmecon::server {

struct Options {
  std::string host = "127.0.0.1";  ///< loopback by default
  int port = 8080;
  int threads = 8;                      ///< bounded pool; each thread serves many connections
  std::size_t max_body = 1 << 20;       ///< request body limit (bytes)
  int timeout_s = 10;                   ///< an idle connection is closed after this many seconds
  int max_connections = 1024;           ///< connections beyond this are refused
  std::size_t cache_bytes = 64u << 20;  ///< answers kept for repeated questions (0: off)
  bool allow_files = false;             ///< let requests read files and measure the machine
  int max_per_ip = 256;                 ///< connections one address may hold at once
  std::size_t max_queue = 64;           ///< long requests waiting for the compute pool; past it, 503
  int deadline_ms = 60000;              ///< a long request still running this long after it was queued: 503
  int receive_deadline_s = 10;          ///< a request (headers and body) not in whole by then is cut off
  /// Off loopback, the DNS names besides IP literals a request's Host may give (DNS rebinding).
  std::vector<std::string> allowed_hosts;
};

/// Serves until the process is stopped. Returns non-zero when the socket cannot be bound.
int serve(const Engine& engine, const Options& o);

}  // namespace llmecon::server
