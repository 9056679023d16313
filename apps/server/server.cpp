// `llmecon serve` on GNU libmicrohttpd: a small pool of threads, each running its own epoll loop
// over many connections, so 200 concurrent clients do not need 200 threads (and keep-alive
// clients cannot starve the pool). Requests are answered on the pool thread that read them.
#include "server.hpp"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>

#include <cstdio>
#include <cstring>
#include <list>
#include <memory>
#include <mutex>
#include <string_view>
#include <unordered_map>

#include "llmecon/embedded.hpp"

namespace llmecon::server {

std::pair<int, std::string> handle_api(const Engine& engine, const std::string& command, const std::string& body) {
  Json args = Json::object();
  if (!body.empty()) {
    try {
      args = Json::parse(body);
    } catch (const Json::parse_error& e) {
      const Error err{"request", "", "malformed JSON at byte " + std::to_string(e.byte), "send one JSON object of arguments"};
      return {400, Json{{"error", err.message()}}.dump()};
    }
  }
  if (!args.is_object()) {
    return {400, Json{{"error", Error{"request", "", "expected a JSON object of arguments", ""}.message()}}.dump()};
  }
  auto r = engine.run(command, args);
  if (!r) {
    const int status = r.error().what.rfind("unknown command", 0) == 0 ? 404 : 400;
    return {status, Json{{"error", r.error().message()}}.dump()};
  }
  return {200, r->dump()};
}

namespace {

Json query_args(const std::vector<std::pair<std::string, std::string>>& params) {
  Json args = Json::object();
  for (const auto& [k, v] : params) {
    char* end = nullptr;
    const double d = std::strtod(v.c_str(), &end);
    if (!v.empty() && end != nullptr && *end == '\0') {
      args[k] = d == static_cast<double>(static_cast<long long>(d)) ? Json(static_cast<long long>(d)) : Json(d);
    } else if (v == "true" || v == "false") {
      args[k] = v == "true";
    } else {
      args[k] = v;
    }
  }
  return args;
}

// Answers are pure functions of the arguments and the catalogs, which never change while serving,
// so repeated questions (a slider moved back, a model picked again) are answered from memory. An
// LRU bounded in bytes; commands that read files or measure the machine are never cached.
class ResponseCache {
 public:
  explicit ResponseCache(std::size_t max_bytes) : max_bytes_(max_bytes) {}

  static bool cacheable(const std::string& command, const Json& args) {
    if (command == "measure" || command == "validate" || command == "calibrate") return false;
    for (const auto& [k, v] : args.items()) {
      if (!v.is_string()) continue;
      const std::string& s = v.get_ref<const std::string&>();
      auto ends = [&s](std::string_view e) { return s.size() >= e.size() && s.compare(s.size() - e.size(), e.size(), e) == 0; };
      if (s.find('/') != std::string::npos || ends(".json") || ends(".toml") || ends(".csv")) return false;  // a file
    }
    return true;
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

struct Context {
  const Engine* engine;
  const Options* options;
  ResponseCache* cache;
};

// Per request: the body read so far.
struct Request {
  std::string body;
  bool too_large = false;
};

MHD_Result reply(MHD_Connection* conn, unsigned status, std::string_view body, const char* type, bool copy = true) {
  MHD_Response* res = MHD_create_response_from_buffer(body.size(), const_cast<char*>(body.data()),
                                                      copy ? MHD_RESPMEM_MUST_COPY : MHD_RESPMEM_PERSISTENT);
  if (res == nullptr) return MHD_NO;
  MHD_add_response_header(res, MHD_HTTP_HEADER_CONTENT_TYPE, type);
  MHD_add_response_header(res, "X-Content-Type-Options", "nosniff");
  const MHD_Result ok = MHD_queue_response(conn, status, res);
  MHD_destroy_response(res);
  return ok;
}

MHD_Result error_reply(MHD_Connection* conn, unsigned status, const Error& e) {
  const std::string body = Json{{"error", e.message()}}.dump();
  return reply(conn, status, body, "application/json");
}

MHD_Result collect_param(void* cls, MHD_ValueKind, const char* key, const char* value) {
  static_cast<std::vector<std::pair<std::string, std::string>>*>(cls)->emplace_back(key, value ? value : "");
  return MHD_YES;
}

const char* content_type(std::string_view path) {
  auto ends = [&](std::string_view s) { return path.size() >= s.size() && path.substr(path.size() - s.size()) == s; };
  if (ends(".js")) return "text/javascript; charset=utf-8";
  if (ends(".css")) return "text/css; charset=utf-8";
  if (ends(".html")) return "text/html; charset=utf-8";
  return "application/octet-stream";
}

MHD_Result on_request(void* cls, MHD_Connection* conn, const char* url, const char* method, const char*,
                      const char* upload_data, size_t* upload_size, void** req_cls) {
  const auto* ctx = static_cast<const Context*>(cls);
  const bool post = std::strcmp(method, MHD_HTTP_METHOD_POST) == 0;
  const bool get = std::strcmp(method, MHD_HTTP_METHOD_GET) == 0 || std::strcmp(method, MHD_HTTP_METHOD_HEAD) == 0;
  if (*req_cls == nullptr) {  // headers only: set up the body buffer
    *req_cls = new Request;
    return MHD_YES;
  }
  auto* req = static_cast<Request*>(*req_cls);
  if (*upload_size != 0) {  // a chunk of the body
    if (req->body.size() + *upload_size > ctx->options->max_body) {
      req->too_large = true;
    } else {
      req->body.append(upload_data, *upload_size);
    }
    *upload_size = 0;
    return MHD_YES;
  }
  if (!post && !get) {
    return error_reply(conn, MHD_HTTP_METHOD_NOT_ALLOWED, Error{"request", "", "method not allowed", "use GET or POST"});
  }
  if (req->too_large) {
    return error_reply(conn, MHD_HTTP_CONTENT_TOO_LARGE,
                       Error{"request", "", "the body exceeds " + std::to_string(ctx->options->max_body) + " bytes",
                             "send the arguments as one small JSON object"});
  }
  const std::string_view path(url);
  constexpr std::string_view kApi = "/api/";
  if (path.substr(0, kApi.size()) == kApi) {
    const std::string command(path.substr(kApi.size()));
    std::string body = std::move(req->body);
    if (!post && body.empty()) {
      // GET /api/roofline?model=...&batch=64: numbers as numbers, the rest as strings.
      std::vector<std::pair<std::string, std::string>> params;
      MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, &collect_param, &params);
      if (!params.empty()) body = query_args(params).dump();
    }
    std::string key;
    if (ctx->cache != nullptr) {
      // Canonical key: the command and the arguments as parsed (whitespace does not matter).
      Json args = Json::object();
      try {
        if (!body.empty()) args = Json::parse(body);
      } catch (const Json::parse_error&) {
        args = nullptr;  // handle_api reports it
      }
      if (args.is_object() && ResponseCache::cacheable(command, args)) {
        key = command + '\n' + args.dump();
        std::string hit;
        if (ctx->cache->get(key, hit)) return reply(conn, MHD_HTTP_OK, hit, "application/json");
      }
    }
    auto [status, json] = handle_api(*ctx->engine, command, body);
    if (status == 200 && !key.empty()) ctx->cache->put(key, json);
    return reply(conn, static_cast<unsigned>(status), json, "application/json");
  }
  // The page and its assets come from the binary, never the file system: no path traversal.
  std::string_view asset = path.substr(path.empty() ? 0 : 1);
  if (asset.empty()) asset = "index.html";
  for (const auto& f : embedded_web()) {
    if (f.path == asset) return reply(conn, MHD_HTTP_OK, f.content, content_type(asset), false);
  }
  return reply(conn, MHD_HTTP_NOT_FOUND, "not found", "text/plain");
}

void on_completed(void*, MHD_Connection*, void** req_cls, MHD_RequestTerminationCode) {
  delete static_cast<Request*>(*req_cls);
  *req_cls = nullptr;
}

}  // namespace

int serve(const Engine& engine, const Options& o) {
  sockaddr_storage addr{};
  unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL;
  if (auto* v4 = reinterpret_cast<sockaddr_in*>(&addr); inet_pton(AF_INET, o.host.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(static_cast<uint16_t>(o.port));
  } else if (auto* v6 = reinterpret_cast<sockaddr_in6*>(&addr); inet_pton(AF_INET6, o.host.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(static_cast<uint16_t>(o.port));
    flags |= MHD_USE_IPv6;
  } else {
    std::fprintf(stderr, "llmecon: error: --host: '%s' is not an IP address (hint: 127.0.0.1, ::1 or 0.0.0.0)\n", o.host.c_str());
    return 2;
  }
  // The pool threads inherit this mask; the main thread waits for the stop signal below.
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);

  ResponseCache cache(o.cache_bytes);
  Context ctx{&engine, &o, o.cache_bytes > 0 ? &cache : nullptr};
  MHD_Daemon* d = MHD_start_daemon(
      flags, static_cast<uint16_t>(o.port), nullptr, nullptr, &on_request, &ctx,
      MHD_OPTION_SOCK_ADDR, reinterpret_cast<sockaddr*>(&addr),
      MHD_OPTION_THREAD_POOL_SIZE, static_cast<unsigned>(o.threads),
      MHD_OPTION_CONNECTION_TIMEOUT, static_cast<unsigned>(o.timeout_s),
      MHD_OPTION_CONNECTION_LIMIT, static_cast<unsigned>(o.max_connections),
      MHD_OPTION_LISTEN_BACKLOG_SIZE, 1024U,
      MHD_OPTION_NOTIFY_COMPLETED, &on_completed, nullptr,
      MHD_OPTION_END);
  if (d == nullptr) {
    pthread_sigmask(SIG_UNBLOCK, &stop, nullptr);
    std::fprintf(stderr, "llmecon: error: --port: cannot listen on %s:%d (hint: is the port in use?)\n", o.host.c_str(), o.port);
    return 2;
  }
  std::fprintf(stderr, "llmecon: serving on http://%s:%d (%d threads)\n", o.host.c_str(), o.port, o.threads);
  int sig = 0;
  sigwait(&stop, &sig);
  MHD_stop_daemon(d);
  pthread_sigmask(SIG_UNBLOCK, &stop, nullptr);
  return 0;
}

}  // namespace llmecon::server
