// `llmecon serve` on GNU libmicrohttpd: a small pool of threads, each running its own epoll loop
// over many connections, so 200 concurrent clients do not need 200 threads (and keep-alive
// clients cannot starve the pool). Quick requests are answered on the thread that read them; long
// ones (plan, sweep, lecture, ...) run in a compute pool while their connection is suspended.
#include "server.hpp"

#include "jobs.hpp"
#include "pool.hpp"
#include "request.hpp"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <filesystem>
#include <functional>
#include <list>
#include <mutex>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "args/args.hpp"
#include "units/embedded.hpp"
#include "units/json_text.hpp"

namespace llmecon::server {
namespace {

int g_stop_pipe[2] = {-1, -1};

extern "C" void on_stop_signal(int) {
  const char byte = 1;
  const ssize_t n = write(g_stop_pipe[1], &byte, 1);  // async-signal-safe
  (void)n;
}

// Slow clients. MHD's connection timeout is an idle timeout: a client that trickles one byte of
// its headers every few seconds would hold its connection forever. So each connection has a
// receive deadline: from when it opens (or from its last answer, when kept alive) to when its whole
// request (headers and body) has arrived. Past it, its socket is shut down; MHD sees the end of
// the stream and closes the connection as it would any other. While a request is being computed
// or answered, no deadline runs.
class ReceiveDeadlines {
 public:
  explicit ReceiveDeadlines(std::chrono::milliseconds limit) : limit_(limit) {}

  void opened(MHD_Connection* conn) {
    const MHD_ConnectionInfo* info = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
    if (info == nullptr) return;
    std::lock_guard lock(mu_);
    watched_[conn] = Watch{info->connect_fd, Clock::now(), true};
  }
  void closed(MHD_Connection* conn) {
    std::lock_guard lock(mu_);
    watched_.erase(conn);
  }
  /// The whole request has arrived: no deadline until it has been answered.
  void received(MHD_Connection* conn) {
    std::lock_guard lock(mu_);
    if (auto it = watched_.find(conn); it != watched_.end()) it->second.receiving = false;
  }
  /// Answered; a kept-alive connection has the full limit again for its next request.
  void answered(MHD_Connection* conn) {
    std::lock_guard lock(mu_);
    if (auto it = watched_.find(conn); it != watched_.end()) it->second = Watch{it->second.fd, Clock::now(), true};
  }
  /// Shuts down every connection past its deadline; the number cut off. The socket stays open
  /// (MHD closes it, after telling closed(), which needs this lock), so the descriptor is never
  /// one that has been reused.
  int cut_off_late() {
    const auto now = Clock::now();
    int cut = 0;
    std::lock_guard lock(mu_);
    for (auto& [conn, w] : watched_) {
      if (w.receiving && now - w.since > limit_) {
        shutdown(w.fd, SHUT_RDWR);
        w.receiving = false;
        ++cut;
      }
    }
    return cut;
  }

 private:
  using Clock = std::chrono::steady_clock;
  struct Watch {
    int fd;
    Clock::time_point since;
    bool receiving;
  };
  std::chrono::milliseconds limit_;
  std::mutex mu_;
  std::unordered_map<MHD_Connection*, Watch> watched_;
};

bool is_long(const std::string& command) {
  const CommandSpec* spec = find_command(command);
  return spec != nullptr && spec->long_running;
}

struct Context {
  const Engine* engine;
  const Options* options;
  ResponseCache* cache;
  ComputePool* pool;
  ReceiveDeadlines* deadlines;
  JobTable* jobs;
};

// Per request: the body read so far, and the answer once computed (in the pool or inline).
struct Request {
  std::string body;
  bool too_large = false;
  bool queued = false;  // suspended while the pool computes
  int status = 0;
  std::string json;
  std::string cache_key;        // empty: not cached
  std::string format = "json";  // or "csv" (the command's table) or "text" (the CLI's text)
  std::string json_too;         // the JSON as well, for a job that answers text (jobs.hpp)
};

const char* format_type(const std::string& format) {
  if (format == "csv") return "text/csv";
  if (format == "text") return "text/plain; charset=utf-8";
  return "application/json";
}

// The answer to one API call, into req: status and JSON, the CLI's message on bad input.
void compute(const Engine& engine, const std::string& command, const Json& args, Request& req,
             const Cancel& cancel = {}, const Progress& progress = {}) {
  try {
    auto r = engine.answer(command, args, progress, cancel);
    if (r) {
      req.status = MHD_HTTP_OK;
      req.json = req.format == "csv" ? csv_of(command, r->json) : req.format == "text" ? r->text() : json_text(r->json);
      if (req.format != "json") req.json_too = json_text(r->json);
    } else {
      req.status = r.error().what.rfind("unknown command", 0) == 0 ? MHD_HTTP_NOT_FOUND
                   : r.error().what.rfind("cancelled", 0) == 0     ? MHD_HTTP_SERVICE_UNAVAILABLE
                                                                   : MHD_HTTP_BAD_REQUEST;
      req.json = error_json(r.error());
    }
  } catch (const std::exception& e) {
    req.status = MHD_HTTP_INTERNAL_SERVER_ERROR;
    req.json = error_json(internal_error(e));
  }
}

MHD_Result reply(MHD_Connection* conn, unsigned status, std::string_view body, const char* type, bool copy = true,
                 const char* allow = nullptr, const char* retry_after = nullptr) {
  MHD_Response* res = MHD_create_response_from_buffer(body.size(), const_cast<char*>(body.data()),
                                                      copy ? MHD_RESPMEM_MUST_COPY : MHD_RESPMEM_PERSISTENT);
  if (res == nullptr) return MHD_NO;
  MHD_add_response_header(res, MHD_HTTP_HEADER_CONTENT_TYPE, type);
  MHD_add_response_header(res, "X-Content-Type-Options", "nosniff");
  if (allow != nullptr) MHD_add_response_header(res, MHD_HTTP_HEADER_ALLOW, allow);
  if (retry_after != nullptr) MHD_add_response_header(res, MHD_HTTP_HEADER_RETRY_AFTER, retry_after);
  const MHD_Result ok = MHD_queue_response(conn, status, res);
  MHD_destroy_response(res);
  return ok;
}

MHD_Result error_reply(MHD_Connection* conn, unsigned status, const Error& e, const char* allow = nullptr,
                       const char* retry_after = nullptr) {
  return reply(conn, status, error_json(e), "application/json", true, allow, retry_after);
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

// Replies with a computed answer, keeping it for the next asker when it may be cached.
MHD_Result answer(const Context& ctx, MHD_Connection* conn, const Request& req) {
  if (req.status == MHD_HTTP_OK && !req.cache_key.empty()) ctx.cache->put(req.cache_key, req.json);
  const bool busy = req.status == MHD_HTTP_SERVICE_UNAVAILABLE;
  return reply(conn, static_cast<unsigned>(req.status), req.json,
               format_type(req.status == MHD_HTTP_OK ? req.format : "json"), true, nullptr, busy ? "1" : nullptr);
}

// An IP address as a Host gives it (dotted IPv4, or IPv6 in brackets), without its port.
bool ip_literal(std::string_view name) {
  if (name.size() > 2 && name.front() == '[' && name.back() == ']') {
    return name.find_first_not_of("0123456789abcdefABCDEF:.", 1) == name.size() - 1;
  }
  int dots = 0;
  for (const char ch : name) {
    if (ch == '.') ++dots;
    if (ch != '.' && (ch < '0' || ch > '9')) return false;
  }
  return dots == 3;
}

// DNS rebinding: a page on another site whose name it points at this server sends its own name as
// Host, and is refused. On loopback, only loopback names are this server; off loopback, any IP
// address (a browser sends one only when it was told one) and the names given with --allow-host.
// A Host's port, when given, must be this server's.
bool host_allowed(const Options& o, const char* host) {
  if (host == nullptr) return false;
  std::string_view h(host), name = h;
  const auto close = h.rfind(']');
  const auto colon = h.rfind(':');
  if (colon != std::string_view::npos && (close == std::string_view::npos || colon > close)) {
    if (h.substr(colon + 1) != std::to_string(o.port)) return false;
    name = h.substr(0, colon);
  }
  const bool loopback_name = name == "127.0.0.1" || name == "localhost" || name == "[::1]";
  if (o.host == "127.0.0.1" || o.host == "::1") return loopback_name;
  if (loopback_name || ip_literal(name)) return true;
  return std::any_of(o.allowed_hosts.begin(), o.allowed_hosts.end(), [&](const std::string& a) { return a == name; });
}

// A request run as a job (jobs.hpp): queued in the compute pool under the same bound and deadline as
// a long request, its progress and cancel flag seen by the command; 202 with its snapshot.
MHD_Result start_job(const Context& ctx, MHD_Connection* conn, const std::string& command, const Json& args,
                     const std::string& format) {
  if (find_command(command) == nullptr) {
    return error_reply(conn, MHD_HTTP_NOT_FOUND,
                       request_error("unknown command '" + command + "'", "GET /api/ lists them"));
  }
  const std::shared_ptr<Job> job = ctx.jobs->create(command, format);
  if (!job) {
    return error_reply(conn, MHD_HTTP_SERVICE_UNAVAILABLE,
                       request_error("busy: 64 jobs are unfinished", "wait for one, or cancel one"), nullptr, "5");
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(ctx.options->deadline_ms);
  const auto submitted = ctx.pool->submit([engine = ctx.engine, command, args, job, deadline] {
    job->start();
    Request r;
    r.format = job->format;
    compute(
        *engine, command, args, r,
        [job, deadline] { return job->cancel.load() || std::chrono::steady_clock::now() > deadline; },
        [job](double f) { job->progress = f; });
    job->finish(r.status, r.json, r.json_too);
  });
  if (submitted != ComputePool::Submit::kQueued) {
    const Error busy = request_error("busy: the compute pool is full or stopping", "retry in a second");
    job->finish(MHD_HTTP_SERVICE_UNAVAILABLE, error_json(busy), "");
    return error_reply(conn, MHD_HTTP_SERVICE_UNAVAILABLE, busy, nullptr, "1");
  }
  return reply(conn, MHD_HTTP_ACCEPTED, json_text(job->snapshot()), "application/json");
}

// The API's index: what it offers.
MHD_Result api_index(const Options& o, MHD_Connection* conn) {
  const Json index{{"commands", schema_json()},
                   {"usage", "GET /api/<command>?flag=value or POST a JSON object; keys are the CLI's flags"},
                   {"reference", "docs/cli.md"},
                   {"max_body_bytes", o.max_body}};
  return reply(conn, MHD_HTTP_OK, json_text(index), "application/json");
}

// GET /api/jobs/<id> reports a job, DELETE cancels it (jobs.hpp).
MHD_Result job_request(const Context& ctx, MHD_Connection* conn, const std::string& id, bool post, bool del) {
  const std::shared_ptr<Job> job = ctx.jobs->find(id);
  if (!job) {
    return error_reply(conn, MHD_HTTP_NOT_FOUND,
                       request_error("no job '" + id + "'", "a job is kept until 64 newer ones have finished"));
  }
  if (post) {
    return error_reply(conn, MHD_HTTP_METHOD_NOT_ALLOWED,
                       request_error("method not allowed", "GET reports a job, DELETE cancels it"),
                       "GET, HEAD, DELETE");
  }
  if (del) job->cancel = true;
  return reply(conn, MHD_HTTP_OK, json_text(job->snapshot()), "application/json");
}

// The answer's format and whether it runs as a job, taken out of the arguments; an error names
// the key.
std::optional<Error> take_options(MHD_Connection* conn, Json& args, Request& req, bool& as_job) {
  // ?format=csv (or "format": "csv", or Accept: text/csv) answers with the command's table as CSV,
  // the same text as the CLI's --csv; ?format=text (or Accept: text/plain) with the CLI's text.
  const char* accept = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Accept");
  if (accept != nullptr && std::string_view(accept) == "text/csv") req.format = "csv";
  if (accept != nullptr && std::string_view(accept) == "text/plain") req.format = "text";
  if (args.contains("format")) {
    if (args["format"] != "csv" && args["format"] != "json" && args["format"] != "text") {
      return Error{"--format", "", "unknown format " + llmecon::json_text(args["format"]), "use json, csv or text"};
    }
    req.format = args["format"].get<std::string>();
    args.erase("format");
  }
  // "job": true runs it as a job: 202 with its id now, progress and the answer at /api/jobs/<id>.
  as_job = false;
  if (args.contains("job")) {
    if (!args["job"].is_boolean()) return Error{"job", "", "job must be true or false", "\"job\": true"};
    as_job = args["job"].get<bool>();
    args.erase("job");
  }
  return std::nullopt;
}

// Why the API refuses to run `command` with `args` here (its origin, its size, the files it
// reads), as the reply; nothing when it may run.
std::optional<MHD_Result> refuse(const Context& ctx, MHD_Connection* conn, const std::string& command, const Json& args,
                                 bool files) {
  const Options& o = *ctx.options;
  // A page on another site can make a browser send simple GETs here (an <img>, a link); long
  // commands answer only to this server's own page.
  const char* fetch_site = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Sec-Fetch-Site");
  if (is_long(command) && fetch_site != nullptr && std::string_view(fetch_site) != "same-origin" &&
      std::string_view(fetch_site) != "none") {
    return error_reply(conn, MHD_HTTP_FORBIDDEN,
                       request_error(std::string("long commands are not started from ") + fetch_site + " pages",
                                     "use the page this server serves, or a client that is not a browser"));
  }
  // Work per call over HTTP: the command table's caps (simulate: at most 10^6 requests).
  if (const CommandSpec* spec = find_command(command)) {
    for (const auto& [key, most] : spec->api_caps) {
      // Past the table's own bound the table's message answers, as from every shell.
      const ArgSpec* arg = spec->arg(key);
      const double v = args.contains(key) && args[key].is_number() ? args[key].get<double>() : 0;
      if (v > most && (arg == nullptr || !arg->max || v <= *arg->max)) {
        return error_reply(conn, MHD_HTTP_BAD_REQUEST,
                           Error{flag_of(key), "", "the API takes at most " + format_number(most) + " per call",
                                 "ask for less, or use the CLI or the Python module"});
      }
    }
  }
  if (!o.allow_files) {
    if (auto e = unknown_bare_model(*ctx.engine, command, args); e && !files) {
      return error_reply(conn, MHD_HTTP_BAD_REQUEST, *e);
    }
  }
  if (files && !o.allow_files) {
    return error_reply(
        conn, MHD_HTTP_FORBIDDEN,
        Error{find_command(command)->reads_files ? "--file"
              : find_command(command)->measures  ? "measure"
                                                 : "--model",
              "", "the server does not read files or measure its machine",
              "paste the config.json as a JSON object, use the CLI, or start the server with --allow-files"});
  }
  return std::nullopt;
}

// Runs an API command: at once, on the compute pool (long commands, resumed when done), or as a job.
MHD_Result run_command(const Context& ctx, MHD_Connection* conn, Request* req, const std::string& command,
                       const Json& args, bool as_job, bool files) {
  const Options& o = *ctx.options;
  if (as_job) return start_job(ctx, conn, command, args, req->format);
  // Files and the machine can change between requests; everything else is a pure answer.
  if (ctx.cache != nullptr && !files) {
    req->cache_key = ResponseCache::key(req->format == "json" ? command : command + "?" + req->format, args);
    std::string hit;
    if (ctx.cache->get(req->cache_key, hit)) return reply(conn, MHD_HTTP_OK, hit, format_type(req->format));
  }
  if (is_long(command)) {
    // Each long request has a deadline from when it is queued; past it the search stops, the
    // answer is 503 and the compute thread is free again.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(o.deadline_ms);
    const auto submitted = ctx.pool->submit_suspended(conn, [engine = ctx.engine, command, args, req, conn, deadline] {
      compute(*engine, command, args, *req, [deadline] { return std::chrono::steady_clock::now() > deadline; });
      MHD_resume_connection(conn);
    });
    if (submitted == ComputePool::Submit::kFull) {
      return error_reply(
          conn, MHD_HTTP_SERVICE_UNAVAILABLE,
          request_error("busy: " + std::to_string(o.max_queue) + " long requests are waiting", "retry in a second"),
          nullptr, "1");
    }
    req->queued = submitted == ComputePool::Submit::kQueued;
  }
  if (req->queued) return MHD_YES;
  compute(*ctx.engine, command, args, *req);  // quick, or the pool is stopping
  return answer(ctx, conn, *req);
}

// /api/<command>: the arguments from the query or the body, then the command.
MHD_Result api_request(const Context& ctx, MHD_Connection* conn, Request* req, const std::string& command, bool post) {
  Result<Json> parsed = Json::object();
  if (!post && req->body.empty()) {
    std::vector<std::pair<std::string, std::string>> params;
    MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, &collect_param, &params);
    parsed = query_args(command, params);
  } else {
    parsed = parse_args(req->body);
  }
  if (!parsed) return error_reply(conn, MHD_HTTP_BAD_REQUEST, parsed.error());
  Json& args = *parsed;
  bool as_job = false;
  if (auto e = take_options(conn, args, *req, as_job)) return error_reply(conn, MHD_HTTP_BAD_REQUEST, *e);
  const bool files = reads_files(*ctx.engine, command, args);
  if (auto refused = refuse(ctx, conn, command, args, files)) return *refused;
  return run_command(ctx, conn, req, command, args, as_job, files);
}

MHD_Result handle(const Context& ctx, MHD_Connection* conn, const char* url, const char* method,
                  const char* upload_data, size_t* upload_size, void** req_cls) {
  const Options& o = *ctx.options;
  const bool post = std::strcmp(method, MHD_HTTP_METHOD_POST) == 0;
  const bool get = std::strcmp(method, MHD_HTTP_METHOD_GET) == 0 || std::strcmp(method, MHD_HTTP_METHOD_HEAD) == 0;
  const bool del = std::strcmp(method, MHD_HTTP_METHOD_DELETE) == 0;  // cancels a job
  if (*req_cls == nullptr) {                                          // headers only
    *req_cls = new Request;
    // A declared body over the limit is refused before it is sent.
    const char* length = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
    if (length != nullptr && std::strtoull(length, nullptr, 10) > o.max_body) {
      static_cast<Request*>(*req_cls)->too_large = true;
      return error_reply(conn, MHD_HTTP_CONTENT_TOO_LARGE,
                         request_error("the body exceeds " + std::to_string(o.max_body) + " bytes",
                                       "send the arguments as one small JSON object"));
    }
    return MHD_YES;
  }
  auto* req = static_cast<Request*>(*req_cls);
  if (*upload_size != 0) {                                            // a chunk of the body
    if (req->body.size() + *upload_size > o.max_body) return MHD_NO;  // a chunked body past the limit: close
    req->body.append(upload_data, *upload_size);
    *upload_size = 0;
    return MHD_YES;
  }
  ctx.deadlines->received(conn);
  if (req->too_large) return MHD_YES;               // answered on the first call
  if (req->queued) return answer(ctx, conn, *req);  // resumed: the pool has computed it
  if (!post && !get && !del) {
    return error_reply(conn, MHD_HTTP_METHOD_NOT_ALLOWED, request_error("method not allowed", "use GET or POST"),
                       "GET, HEAD, POST");
  }
  const char* host = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST);
  if (!host_allowed(o, host)) {
    return error_reply(conn, MHD_HTTP_FORBIDDEN,
                       request_error(std::string("Host '") + (host ? host : "") + "' is not this server",
                                     o.host == "127.0.0.1" || o.host == "::1"
                                         ? "open http://127.0.0.1:" + std::to_string(o.port) + "/"
                                         : "use the server's address, or start it with --allow-host NAME"));
  }
  // Browsers name the page that sent a request; only this server's own page may call the API.
  const char* origin = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Origin");
  if (origin != nullptr && host != nullptr && std::string(origin) != std::string("http://") + host) {
    return error_reply(
        conn, MHD_HTTP_FORBIDDEN,
        request_error(std::string("requests from ") + origin + " are not served", "use the page this server serves"));
  }
  const std::string_view path(url);
  constexpr std::string_view kApi = "/api/";
  if (path == "/api" || path == kApi) return api_index(o, conn);
  constexpr std::string_view kJobs = "/api/jobs/";
  if (path.substr(0, kJobs.size()) == kJobs)
    return job_request(ctx, conn, std::string(path.substr(kJobs.size())), post, del);
  if (del) {
    return error_reply(conn, MHD_HTTP_METHOD_NOT_ALLOWED,
                       request_error("method not allowed", "use GET or POST; DELETE cancels a job"), "GET, HEAD, POST");
  }
  if (path.substr(0, kApi.size()) == kApi)
    return api_request(ctx, conn, req, std::string(path.substr(kApi.size())), post);
  // The page and its assets come from the binary, never the file system: no path traversal.
  std::string_view asset = path.substr(path.empty() ? 0 : 1);
  if (asset.empty()) asset = "index.html";
  if (auto content = find_embedded(embedded_web(), asset))
    return reply(conn, MHD_HTTP_OK, *content, content_type(asset), false);
  return reply(conn, MHD_HTTP_NOT_FOUND, "not found", "text/plain");
}

MHD_Result on_request(void* cls, MHD_Connection* conn, const char* url, const char* method, const char*,
                      const char* upload_data, size_t* upload_size, void** req_cls) {
  // Nothing a request does may take the server down: an unexpected exception is a 500.
  try {
    return handle(*static_cast<const Context*>(cls), conn, url, method, upload_data, upload_size, req_cls);
  } catch (const std::exception& e) {
    return error_reply(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, internal_error(e));
  }
}

void on_completed(void* cls, MHD_Connection* conn, void** req_cls, MHD_RequestTerminationCode) {
  delete static_cast<Request*>(*req_cls);
  *req_cls = nullptr;
  static_cast<ReceiveDeadlines*>(cls)->answered(conn);
}

void on_connection(void* cls, MHD_Connection* conn, void**, MHD_ConnectionNotificationCode code) {
  auto* deadlines = static_cast<ReceiveDeadlines*>(cls);
  if (code == MHD_CONNECTION_NOTIFY_STARTED) {
    deadlines->opened(conn);
  } else {
    deadlines->closed(conn);
  }
}

}  // namespace

int serve(const Engine& engine, const Options& o) {
  sockaddr_storage addr{};
  unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ERROR_LOG | MHD_ALLOW_SUSPEND_RESUME;
  if (auto* v4 = reinterpret_cast<sockaddr_in*>(&addr); inet_pton(AF_INET, o.host.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(static_cast<uint16_t>(o.port));
  } else if (auto* v6 = reinterpret_cast<sockaddr_in6*>(&addr);
             inet_pton(AF_INET6, o.host.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(static_cast<uint16_t>(o.port));
    flags |= static_cast<unsigned>(o.host == "::" ? MHD_USE_DUAL_STACK : MHD_USE_IPv6);
  } else {
    std::fprintf(stderr, "llmecon: error: --host: '%s' is not an IP address (hint: 127.0.0.1, ::1 or 0.0.0.0)\n",
                 o.host.c_str());
    return 2;
  }
  // SIGINT or SIGTERM may reach any thread (libraries start their own before main), so the
  // handler only writes to a pipe that the main thread waits on.
  if (pipe(g_stop_pipe) != 0) {
    std::fprintf(stderr, "llmecon: error: serve: cannot create a pipe\n");
    return 2;
  }
  struct sigaction sa {};
  sa.sa_handler = &on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);

  ResponseCache cache(o.cache_bytes);
  ComputePool pool(std::max(2, o.threads), o.max_queue);
  ReceiveDeadlines deadlines(std::chrono::seconds(o.receive_deadline_s));
  JobTable jobs(64);
  Context ctx{&engine, &o, o.cache_bytes > 0 ? &cache : nullptr, &pool, &deadlines, &jobs};
  // One thread is one event loop without a pool; the library warns if told a pool size of 1.
  MHD_OptionItem pool_size[] = {{o.threads > 1 ? MHD_OPTION_THREAD_POOL_SIZE : MHD_OPTION_END, o.threads, nullptr},
                                {MHD_OPTION_END, 0, nullptr}};
  MHD_Daemon* d = MHD_start_daemon(
      flags, static_cast<uint16_t>(o.port), nullptr, nullptr, &on_request, &ctx, MHD_OPTION_SOCK_ADDR,
      reinterpret_cast<sockaddr*>(&addr), MHD_OPTION_ARRAY, pool_size, MHD_OPTION_CONNECTION_TIMEOUT,
      static_cast<unsigned>(o.timeout_s), MHD_OPTION_CONNECTION_LIMIT, static_cast<unsigned>(o.max_connections),
      MHD_OPTION_LISTEN_BACKLOG_SIZE, 1024U, MHD_OPTION_PER_IP_CONNECTION_LIMIT, static_cast<unsigned>(o.max_per_ip),
      MHD_OPTION_NOTIFY_COMPLETED, &on_completed, &deadlines, MHD_OPTION_NOTIFY_CONNECTION, &on_connection, &deadlines,
      MHD_OPTION_END);
  if (d == nullptr) {
    std::fprintf(stderr, "llmecon: error: --port: cannot listen on %s:%d (hint: is the port in use?)\n", o.host.c_str(),
                 o.port);
    return 2;
  }
  std::fprintf(stderr, "llmecon: serving on http://%s:%d (%d threads)\n", o.host.c_str(), o.port, o.threads);
  // The main thread waits for the stop signal and, ten times a second, cuts off slow senders.
  pollfd stop{g_stop_pipe[0], POLLIN, 0};
  for (;;) {
    const int ready = poll(&stop, 1, 100);
    if (ready > 0) break;
    if (ready < 0 && errno != EINTR) break;
    deadlines.cut_off_late();
  }
  // No connection may stay suspended when the daemon stops: the pool refuses new jobs (they are
  // answered inline) and finishes, resuming, the ones it holds.
  pool.stop();
  MHD_stop_daemon(d);
  return 0;
}

}  // namespace llmecon::server
