#include "server.hpp"

#include <httplib.h>

#include <cstdio>

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

int serve(const Engine& engine, const Options& o) {
  httplib::Server svr;
  const int threads = o.threads;
  svr.new_task_queue = [threads] { return new httplib::ThreadPool(static_cast<std::size_t>(threads)); };
  svr.set_payload_max_length(o.max_body);
  svr.set_read_timeout(o.timeout_s, 0);
  // Keep-alive connections hold a worker while open; idle ones are dropped after one second so a
  // bounded pool keeps serving.
  svr.set_keep_alive_max_count(1000);
  svr.set_keep_alive_timeout(1);
  svr.set_tcp_nodelay(true);  // small JSON replies must not wait for delayed ACKs
  svr.set_write_timeout(o.timeout_s, 0);
  auto api = [&engine](const httplib::Request& req, httplib::Response& res) {
    const std::string command = req.matches[1];
    std::string body = req.body;
    if (req.method == "GET" && body.empty() && !req.params.empty()) {
      // GET /api/roofline?model=...&batch=64: numbers as numbers, the rest as strings.
      Json args = Json::object();
      for (const auto& [k, v] : req.params) {
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
      body = args.dump();
    }
    auto [status, json] = handle_api(engine, command, body);
    res.status = status;
    res.set_content(json, "application/json");
  };
  svr.Get(R"(/api/([a-z_]+))", api);
  svr.Post(R"(/api/([a-z_]+))", api);
  // The page and its assets come from the binary, never the file system: no path traversal.
  svr.Get(R"(/(.*))", [](const httplib::Request& req, httplib::Response& res) {
    std::string path = req.matches[1];
    if (path.empty()) path = "index.html";
    for (const auto& f : embedded_web()) {
      if (f.path == path) {
        const bool js = path.size() > 3 && path.substr(path.size() - 3) == ".js";
        const bool css = path.size() > 4 && path.substr(path.size() - 4) == ".css";
        res.set_content(std::string(f.content), js ? "text/javascript" : css ? "text/css" : "text/html; charset=utf-8");
        return;
      }
    }
    res.status = 404;
    res.set_content("not found", "text/plain");
  });
  std::fprintf(stderr, "llmecon: serving on http://%s:%d (%d threads)\n", o.host.c_str(), o.port, o.threads);
  if (!svr.listen(o.host, o.port)) {
    std::fprintf(stderr, "llmecon: error: --port: cannot listen on %s:%d (hint: is the port in use?)\n", o.host.c_str(), o.port);
    return 2;
  }
  return 0;
}

}  // namespace llmecon::server
