"""`llmecon serve`: loopback by default, bounded body and idle time, a bounded pool, no path
traversal, and bad input answered with HTTP 400 and the CLI's own message."""
import http.client
import json
import os
import signal
import socket
import subprocess
import time

import pytest

from serving import free_port, serving

BIN = os.environ["LLMECON_BIN"]


@pytest.fixture(scope="module")
def server():
    port = free_port()
    proc = subprocess.Popen([BIN, "serve", "--port", str(port), "--threads", "2", "--timeout", "1",
                             "--max-body", "65536"], stderr=subprocess.PIPE, text=True)
    line = proc.stderr.readline()
    assert "serving on http://127.0.0.1:%d" % port in line
    yield proc, port
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=10) == 0  # a clean stop on SIGTERM


def request(port, method, path, body=None, headers=None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request(method, path, body=body, headers=headers or {})
    res = conn.getresponse()
    data = res.read()
    conn.close()
    return res.status, res.getheader("Content-Type"), data


def cli_error(*argv):
    r = subprocess.run([BIN, *argv], capture_output=True, text=True)
    assert r.returncode == 2
    prefix = "llmecon: error: "
    assert r.stderr.startswith(prefix)
    return r.stderr[len(prefix):].strip()


def test_binds_loopback_only(server):
    proc, port = server
    with open("/proc/net/tcp") as f:
        rows = [l.split() for l in f.readlines()[1:]]
    listening = [r[1] for r in rows if r[3] == "0A" and int(r[1].split(":")[1], 16) == port]
    assert listening == ["0100007F:%04X" % port]


def test_bad_input_is_400_with_the_cli_message(server):
    _, port = server
    status, ctype, body = request(port, "POST", "/api/roofline", json.dumps({"model": "gpt-5", "hw": "h100-sxm"}))
    assert status == 400 and ctype == "application/json"
    assert json.loads(body)["error"] == cli_error("roofline", "--model", "gpt-5", "--hw", "h100-sxm")
    status, _, body = request(port, "POST", "/api/batch", json.dumps({"chips": 0}))
    assert status == 400
    assert json.loads(body)["error"] == cli_error("batch", "--chips", "0")
    # An unknown field names itself, as the facade does for every shell.
    status, _, body = request(port, "POST", "/api/roofline", json.dumps({"model": "llama-3.1-8b", "hw": "h100-sxm", "bacth": 4}))
    assert status == 400 and json.loads(body)["error"].startswith("--bacth: unknown argument")
    status, _, body = request(port, "POST", "/api/roofline", b'{"model": ')
    assert status == 400 and "malformed JSON at byte" in json.loads(body)["error"]
    status, _, body = request(port, "POST", "/api/roofline", b"[1, 2]")
    assert status == 400 and "expected a JSON object" in json.loads(body)["error"]


def test_get_with_query_equals_post(server):
    _, port = server
    s1, _, get = request(port, "GET", "/api/roofline?model=llama-3.1-8b&hw=h100-sxm&batch=32&context=2048")
    s2, _, post = request(port, "POST", "/api/roofline",
                          json.dumps({"model": "llama-3.1-8b", "hw": "h100-sxm", "batch": 32, "context": 2048}))
    assert s1 == s2 == 200
    assert json.loads(get) == json.loads(post)


def test_unknown_command_and_method(server):
    _, port = server
    status, _, body = request(port, "GET", "/api/")
    names = [c["name"] for c in json.loads(body)["commands"]]
    assert status == 200 and "roofline" in names
    for command in names:
        assert command in json.loads(request(port, "GET", "/api/teleport")[2])["error"]
    status, _, body = request(port, "GET", "/api/teleport")
    assert status == 404 and "unknown command 'teleport'" in json.loads(body)["error"]
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("DELETE", "/api/models")
    res = conn.getresponse()
    assert res.status == 405 and res.getheader("Allow") == "GET, HEAD, POST"
    conn.close()


def test_assets_come_from_the_binary_only(server):
    _, port = server
    status, ctype, body = request(port, "GET", "/")
    assert status == 200 and ctype.startswith("text/html") and b"<canvas" in body
    status, ctype, _ = request(port, "GET", "/node_modules/chart.js/dist/chart.umd.min.js")
    assert status == 200 and ctype.startswith("text/javascript")
    for path in ["/../../../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/..%2f..%2fetc%2fpasswd",
                 "//etc/passwd", "/app.js/../../CMakeLists.txt", "/package.json"]:
        status, _, body = request(port, "GET", path)
        assert status == 404, path
        assert b"root:" not in body


def test_body_limit(server):
    _, port = server
    status, _, body = request(port, "POST", "/api/roofline", b"{" + b" " * 70000 + b"}")
    assert status == 413
    assert "exceeds 65536 bytes" in json.loads(body)["error"]


def test_idle_connections_time_out(server):
    _, port = server
    s = socket.create_connection(("127.0.0.1", port))
    s.settimeout(10)
    start = time.monotonic()
    assert s.recv(1) == b""  # the server closed the silent connection
    assert time.monotonic() - start < 8
    s.close()


def test_many_connections_share_a_bounded_pool(server):
    proc, port = server
    socks = [socket.create_connection(("127.0.0.1", port)) for _ in range(100)]
    try:
        for s in socks[::10]:
            s.sendall(b"GET /api/hardware HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        for s in socks[::10]:
            s.settimeout(10)
            head = b""
            while len(head) < 12:
                chunk = s.recv(12 - len(head))
                assert chunk, "connection closed"
                head += chunk
            assert head == b"HTTP/1.1 200"
        with open("/proc/%d/status" % proc.pid) as f:
            threads = int(next(l for l in f if l.startswith("Threads:")).split()[1])
        assert threads <= 2 + 2 + 2  # 2 event loops, 2 compute threads, the daemon's parent and main
    finally:
        for s in socks:
            s.close()


def test_port_in_use_is_an_error(server):
    _, port = server
    r = subprocess.run([BIN, "serve", "--port", str(port)], capture_output=True, text=True, timeout=10)
    assert r.returncode == 2
    assert "--port: cannot listen on 127.0.0.1:%d" % port in r.stderr


CONFIG = os.path.join(os.path.dirname(__file__), "..", "..", "data", "models", "qwen3-8b.json")


def test_repeated_answers_are_identical(server):
    _, port = server
    args = json.dumps({"model": "qwen3-8b", "hw": "b200", "batch": 16})
    first = request(port, "POST", "/api/roofline", args)
    again = request(port, "POST", "/api/roofline", " " + args + "\n")  # same question, other spelling
    assert first[0] == again[0] == 200 and first[2] == again[2]
    reordered = request(port, "POST", "/api/roofline", json.dumps({"batch": 16, "hw": "b200", "model": "qwen3-8b"}))
    assert reordered[2] == first[2]


def test_no_files_or_measuring_by_default(server):
    _, port = server
    for command, args in [("roofline", {"model": CONFIG, "hw": "b200"}), ("roofline", {"model": "/dev/zero", "hw": "b200"}),
                          ("validate", {"file": "/etc/passwd"}), ("measure", {"quick": True})]:
        status, _, body = request(port, "POST", "/api/" + command, json.dumps(args))
        assert status == 403, command
        assert "start the server with --allow-files" in json.loads(body)["error"]
    # The same config pasted as an object is fine.
    status, _, _ = request(port, "POST", "/api/roofline", json.dumps({"model": json.load(open(CONFIG)), "hw": "b200"}))
    assert status == 200


def test_hostile_input_gets_400_and_the_server_lives(server):
    proc, port = server
    deep = '{"batch": ' + "[" * 20000 + "]" * 20000 + "}"
    cases = [("POST", "/api/roofline", deep), ("POST", "/api/roofline", '{"batch": 1e400}'),
             ("GET", "/api/roofline?model=llama-3.1-8b&hw=h100-sxm&batch=nan", None),
             ("GET", "/api/roofline?model=%FF%FE&hw=h100-sxm", None),
             ("GET", "/api/roofline?model=llama-3.1-8b&hw=h100-sxm&batch=1e30", None),
             ("POST", "/api/sweep", json.dumps({"model": "llama-3.1-8b", "hw": "h100-sxm", "batch": list(range(1, 1001)),
                                                "context": list(range(1, 1001))}))]
    for method, path, body in cases:
        status, _, reply = request(port, method, path, body)
        assert status == 400, (path, (body or "")[:40], reply[:200])
        assert json.loads(reply)["error"]
    assert proc.poll() is None


def test_other_sites_are_refused(server):
    _, port = server
    path = "/api/roofline?model=llama-3.1-8b&hw=h100-sxm"
    # DNS rebinding: a page on evil.example resolved to 127.0.0.1 sends its own Host.
    status, _, body = request(port, "GET", path, headers={"Host": "evil.example:%d" % port})
    assert status == 403 and "is not this server" in json.loads(body)["error"]
    status, _, _ = request(port, "POST", "/api/roofline", "{}", headers={"Origin": "http://evil.example"})
    assert status == 403
    status, _, _ = request(port, "GET", path, headers={"Origin": "http://127.0.0.1:%d" % port})
    assert status == 200
    status, _, _ = request(port, "GET", path, headers={"Host": "localhost:%d" % port})
    assert status == 200


def test_off_loopback_the_host_must_be_an_address_or_an_allowed_name():
    path = "/api/roofline?model=llama-3.1-8b&hw=h100-sxm"
    with serving("--host", "0.0.0.0", "--allow-host", "llmecon.lan") as port:
        def status(host, origin=None):
            headers = {"Host": host}
            if origin:
                headers["Origin"] = origin
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            conn.request("GET", path, headers=headers)
            res = conn.getresponse()
            res.read()
            # No CORS: no other site's page may read an answer.
            assert res.getheader("Access-Control-Allow-Origin") is None
            conn.close()
            return res.status

        assert status("127.0.0.1:%d" % port) == 200
        assert status("10.1.2.3:%d" % port) == 200  # the server's LAN address, typed into a browser
        assert status("[fd00::1]:%d" % port) == 200
        assert status("llmecon.lan:%d" % port) == 200  # named with --allow-host
        assert status("llmecon.lan") == 200
        assert status("evil.example:%d" % port) == 403  # DNS rebinding
        assert status("10.1.2.3.evil.example") == 403
        assert status("10.1.2.3:1") == 403  # another port
        assert status("10.1.2.3:%d" % port, origin="http://evil.example") == 403
    # --allow-files reads this machine's files for whoever asks: never off loopback.
    assert "--allow-files" in cli_error("serve", "--host", "0.0.0.0", "--allow-files", "--port", "1")


def test_allow_files_reads_them_fresh_each_time(tmp_path):
    with serving("--allow-files") as port:
        cfg = json.load(open(CONFIG))
        path = tmp_path / "m.json"
        path.write_text(json.dumps(cfg))
        body = json.dumps({"model": str(path), "hw": "b200", "batch": 16})
        a = json.loads(request(port, "POST", "/api/roofline", body)[2])
        # A config file may change between requests: its answers are never served from memory.
        cfg["num_hidden_layers"] //= 2
        path.write_text(json.dumps(cfg))
        b = json.loads(request(port, "POST", "/api/roofline", body)[2])
        assert b["bytes_weights"] < a["bytes_weights"]
        status, _, reply = request(port, "POST", "/api/measure", json.dumps({"quick": "x"}))
        assert status == 400 and "--quick: expected true or false" in json.loads(reply)["error"]


def test_a_long_plan_does_not_hold_up_other_requests():
    # One event-loop thread: without the compute pool, the plan would block every other request.
    import threading
    with serving("--threads", "1") as port:
        done = {}

        def long_plan():
            start = time.monotonic()
            # About 0.5 s in an optimised build, a few seconds in debug and sanitizer builds.
            done["status"] = request(port, "POST", "/api/plan", json.dumps({"model": "deepseek-v3", "hw": "gb200", "racks": 4, "formats": "search"}))[0]
            done["end"] = time.monotonic()
            done["seconds"] = done["end"] - start

        t = threading.Thread(target=long_plan)
        t.start()
        time.sleep(0.1)
        start = time.monotonic()
        quick = [request(port, "GET", "/api/roofline?model=llama-3.1-8b&hw=h100-sxm&batch=%d" % b)[0] for b in (1, 2, 4)]
        quick_end = time.monotonic()
        t.join(timeout=120)
        assert done["status"] == 200 and quick == [200, 200, 200]
        # Answered while the plan still ran (relative to it, not to a clock), in a fraction of its time.
        assert quick_end < done["end"], (quick_end - start, done["seconds"])
        assert quick_end - start < done["seconds"] / 2, (quick_end - start, done["seconds"])


# The commands the issue names, each asked the same question through the CLI and the server.
SAME_QUESTION = [
    ("models", [], {}),
    ("hardware", [], {}),
    ("roofline", ["--model", "qwen3-8b", "--hw", "h100-sxm", "--batch", "32"], {"model": "qwen3-8b", "hw": "h100-sxm", "batch": 32}),
    ("sweep", ["--model", "qwen3-8b", "--hw", "h100-sxm", "--batch", "1,8,64", "--context", "1024,8192"],
     {"model": "qwen3-8b", "hw": "h100-sxm", "batch": [1, 8, 64], "context": [1024, 8192]}),
    ("batch", ["--model", "llama-3.1-70b", "--hw", "h100-sxm", "--context", "4096"], {"model": "llama-3.1-70b", "hw": "h100-sxm", "context": 4096}),
    ("context", [], {}),
    ("price", ["--sheet", "claude-opus-4.6"], {"sheet": "claude-opus-4.6"}),
    ("cache", [], {}),
    ("plan", ["--model", "llama-3.1-8b", "--hw", "h100-sxm", "--tpot-ms", "30"], {"model": "llama-3.1-8b", "hw": "h100-sxm", "tpot_ms": 30}),
    ("lecture", [], {}),
]


@pytest.mark.parametrize("command,argv,args", SAME_QUESTION, ids=[c for c, _, _ in SAME_QUESTION])
def test_server_json_equals_cli_json(server, command, argv, args):
    _, port = server
    cli = subprocess.run([BIN, command, *argv, "--json"], check=True, capture_output=True, text=True).stdout
    status, _, body = request(port, "POST", "/api/" + command, json.dumps(args))
    assert status == 200
    assert json.loads(body) == json.loads(cli)


def test_long_requests_past_the_queue_get_503_with_retry_after():
    # One compute lane of two threads and a queue of one: of six long plans sent at once, the
    # first two run, one waits, and the rest are told to come back.
    import threading
    with serving("--threads", "1", "--max-queue", "1", "--cache-bytes", "0") as port:
        results = []

        def plan(i):
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
            conn.request("POST", "/api/plan", json.dumps({"model": "deepseek-v3", "hw": "gb200", "racks": 4, "formats": "search", "isl": 2048 + i}))
            res = conn.getresponse()
            results.append((res.status, res.getheader("Retry-After"), res.read()))
            conn.close()

        threads = [threading.Thread(target=plan, args=(i,)) for i in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=300)
        statuses = sorted(s for s, _, _ in results)
        assert statuses.count(200) >= 3 and statuses.count(503) >= 1, statuses
        for status, retry, body in results:
            if status == 503:
                assert retry == "1"
                assert "busy: 1 long requests are waiting" in json.loads(body)["error"]
        # Quick requests never queue behind them.
        assert request(port, "GET", "/api/roofline?model=llama-3.1-8b&hw=h100-sxm")[0] == 200


def test_one_address_cannot_take_every_connection():
    with serving("--threads", "1", "--max-per-ip", "4") as port:
        socks = [socket.create_connection(("127.0.0.1", port)) for _ in range(4)]
        extra = socket.create_connection(("127.0.0.1", port))
        extra.settimeout(5)
        extra.sendall(b"GET /api/models HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        try:  # the fifth connection from this address is closed unanswered
            answer = extra.recv(100)
        except ConnectionResetError:
            answer = b""
        assert answer == b"", answer
        for s in socks:
            s.close()
        extra.close()
        time.sleep(0.2)
        assert request(port, "GET", "/api/models")[0] == 200  # and once they close, it is served again


def test_cross_site_gets_do_not_start_long_commands(server):
    _, port = server
    headers = {"Sec-Fetch-Site": "cross-site"}
    status, _, body = request(port, "GET", "/api/plan?model=llama-3.1-8b&hw=h100-sxm", headers=headers)
    assert status == 403 and "long commands are not started from cross-site pages" in json.loads(body)["error"]
    assert request(port, "GET", "/api/plan?model=llama-3.1-8b&hw=h100-sxm",
                   headers={"Sec-Fetch-Site": "same-origin"})[0] == 200
    assert request(port, "GET", "/api/roofline?model=llama-3.1-8b&hw=h100-sxm", headers=headers)[0] == 200


def test_the_servers_directory_is_not_revealed(tmp_path):
    # With files off, a bare name that happens to exist beside the server gets the same answer as
    # one that does not, and nothing is read.
    (tmp_path / "etc").mkdir()
    (tmp_path / "qwen").write_text(open(CONFIG).read())
    with serving(cwd=tmp_path) as port:
        answers = {}
        for name in ("etc", "qwen", "nonexistent"):
            status, _, body = request(port, "GET", f"/api/roofline?model={name}&hw=h100-sxm")
            # The hint suggests names near the one asked; the answer itself must not differ.
            answers[name] = (status, json.loads(body)["error"].split(" (hint")[0].replace(name, "NAME"))
        assert answers["etc"] == answers["qwen"] == answers["nonexistent"], answers
        assert answers["etc"][0] == 400 and "--model: unknown model 'NAME'" in answers["etc"][1]


def test_each_request_caps_its_work(server):
    _, port = server
    for args, cap in [({"model": "llama-3.1-8b", "hw": "h100-sxm", "scaleup": list(range(1, 18))}, "--scaleup: 17 values; at most 16"),
                      ({"model": "llama-3.1-8b", "hw": "h100-sxm", "batches": "1:100000:+1"}, "--batches: 100000 values; at most 256"),
                      ({"batch": "1:200000:+1"}, "--batch: the range has more than 100000 values")]:
        command = "sweep" if "batch" in args else "plan"
        status, _, body = request(port, "POST", "/api/" + command, json.dumps(args))
        assert status == 400, (args, body)
        assert cap in json.loads(body)["error"], body


def test_a_long_request_past_its_deadline_gets_503_and_frees_its_worker():
    # The deadline is set from this build on this machine: a fifth of the time the long plan takes
    # with no deadline, which must be over twenty times the small sweep's (it is hundreds of times
    # in every build). No clock figure is assumed; the 503 itself shows the plan was cut off.
    long_plan = json.dumps({"model": "deepseek-v3", "hw": "gb200", "racks": 32, "formats": "search"})
    small = json.dumps({"model": "llama-3.1-8b", "hw": "h100-sxm", "batch": "1,2"})

    def timed(port, body, path="/api/plan"):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
        start = time.monotonic()
        conn.request("POST", path, body)
        res = conn.getresponse()
        data = json.loads(res.read())
        conn.close()
        return res.status, res, data, time.monotonic() - start

    with serving("--threads", "1", "--cache-bytes", "0") as port:
        status, _, _, t_long = timed(port, long_plan)
        assert status == 200
        status, _, _, t_small = timed(port, small, "/api/sweep")
        assert status == 200
    assert t_small * 20 < t_long, (t_small, t_long)
    deadline_ms = max(1, int(t_long * 1000 / 5))
    with serving("--threads", "1", "--deadline-ms", str(deadline_ms), "--cache-bytes", "0") as port:
        status, res, body, _ = timed(port, long_plan)
        assert status == 503, body
        assert res.getheader("Retry-After") == "1"
        assert body["error"].startswith("request: cancelled: past its deadline")
        # Two compute threads: tie both up past the deadline, then a small long request still gets
        # through.
        statuses = [timed(port, long_plan)[0] for _ in range(2)]
        assert statuses == [503, 503]
        assert timed(port, small, "/api/sweep")[0] == 200


def test_a_slow_sender_is_cut_off_at_the_receive_deadline_while_others_are_served():
    # An idle timeout alone never closes a client that trickles a byte of its headers at a time;
    # the receive deadline does, and everyone else is answered throughout.
    import threading
    with serving("--threads", "2", "--timeout", "60", "--receive-deadline", "2") as port:
        cut = {}

        def trickle(name, first, more):
            s = socket.create_connection(("127.0.0.1", port))
            s.settimeout(30)
            start = time.monotonic()
            s.sendall(first)
            try:
                for _ in range(60):  # 30 s of one line every half second, unless cut off
                    time.sleep(0.5)
                    s.sendall(more)
                cut[name] = None
            except (BrokenPipeError, ConnectionResetError):
                cut[name] = time.monotonic() - start
            finally:
                s.close()

        slow = [threading.Thread(target=trickle, args=("headers%d" % i, b"GET /api/hardware HTTP/1.1\r\nHost: 127.0.0.1\r\n",
                                                       b"X-Slow: 1\r\n")) for i in range(8)]
        slow.append(threading.Thread(target=trickle, args=(
            "body", b"POST /api/roofline HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 60000\r\n\r\n{", b" ")))
        for t in slow:
            t.start()
        # A kept-alive client that asks often is never cut off: each answer gives it the full limit again.
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        statuses = []
        start = time.monotonic()
        while time.monotonic() - start < 4:
            conn.request("GET", "/api/roofline?model=llama-3.1-8b&hw=h100-sxm&batch=%d" % (len(statuses) + 1))
            res = conn.getresponse()
            res.read()
            statuses.append(res.status)
            statuses.append(request(port, "GET", "/api/hardware")[0])  # and fresh connections too
            time.sleep(0.2)
        conn.close()
        for t in slow:
            t.join(timeout=40)
        assert statuses and set(statuses) == {200}, statuses
        assert len(cut) == 9
        for name, seconds in cut.items():
            assert seconds is not None, name + " was never cut off"
            assert 1.5 < seconds < 6, (name, seconds)


def poll_job(port, job, until, timeout=60):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        status, _, body = request(port, "GET", "/api/jobs/" + job)
        assert status == 200
        snap = json.loads(body)
        if until(snap):
            return snap
        time.sleep(0.05)
    raise AssertionError("job %s never reached its state: %s" % (job, snap))


def test_a_job_reports_its_progress_and_its_answer(server):
    # "job": true answers 202 at once; the job's answer is the plain request's, in its format.
    _, port = server
    args = {"model": "llama-3.1-8b", "hw": "h100-sxm", "rate": 5, "requests": 3000}
    status, ctype, body = request(port, "POST", "/api/simulate", json.dumps(dict(args, job=True)))
    assert status == 202 and ctype == "application/json"
    started = json.loads(body)
    assert started["command"] == "simulate" and started["state"] in ("queued", "running", "done")
    done = poll_job(port, started["job"], lambda s: s["state"] == "done")
    assert done["progress"] == 1.0 and done["elapsed_s"] > 0
    plain = json.loads(request(port, "POST", "/api/simulate", json.dumps(args))[2])
    assert done["answer"] == plain
    status, _, body = request(port, "POST", "/api/roofline", json.dumps({"model": "llama-3.1-8b", "hw": "h100-sxm",
                                                                          "job": True, "format": "text"}))
    done = poll_job(port, json.loads(body)["job"], lambda s: s["state"] == "done")
    assert done["answer"] == request(port, "POST", "/api/roofline", json.dumps({"model": "llama-3.1-8b",
                                                                                 "hw": "h100-sxm", "format": "text"}))[2].decode()
    # A text answer carries its JSON too (the page draws its charts from it).
    assert done["json"] == json.loads(request(port, "POST", "/api/roofline",
                                              json.dumps({"model": "llama-3.1-8b", "hw": "h100-sxm"}))[2])


def test_a_job_is_cancelled_by_delete_and_refused_input_fails_it(server):
    _, port = server
    big = {"model": "llama-3.1-70b", "hw": "h100-sxm", "rate": 50, "requests": 1000000, "job": True}
    status, _, body = request(port, "POST", "/api/simulate", json.dumps(big))
    assert status == 202
    job = json.loads(body)["job"]
    running = poll_job(port, job, lambda s: s["state"] == "running" and s["progress"] > 0)
    assert 0 < running["progress"] < 1
    status, _, body = request(port, "DELETE", "/api/jobs/" + job)
    assert status == 200
    gone = poll_job(port, job, lambda s: s["state"] not in ("queued", "running"), timeout=20)
    assert gone["state"] == "cancelled" and "cancelled" in gone["error"] and "answer" not in gone
    # An input the command refuses fails its job with the CLI's message; an unknown command has none.
    status, _, body = request(port, "POST", "/api/roofline", json.dumps({"batch": 0, "job": True}))
    assert status == 202
    failed = poll_job(port, json.loads(body)["job"], lambda s: s["state"] not in ("queued", "running"))
    assert failed["state"] == "failed" and failed["status"] == 400
    assert failed["error"] == cli_error("roofline", "--batch", "0")
    assert request(port, "POST", "/api/nope", json.dumps({"job": True}))[0] == 404
    assert request(port, "GET", "/api/jobs/nope")[0] == 404
    assert request(port, "DELETE", "/api/roofline")[0] == 405
    assert request(port, "POST", "/api/roofline", json.dumps({"job": "yes"}))[0] == 400
