"""Starting `llmecon serve` on a free loopback port for the Python tests."""
import contextlib
import os
import socket
import subprocess

BIN = os.environ["LLMECON_BIN"]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def serving(*flags, cwd=None):
    """Yields the port of a server started with `flags` (in `cwd`), once it says it is serving;
    then stops it with SIGTERM, which must end it cleanly."""
    port = free_port()
    proc = subprocess.Popen([os.path.abspath(BIN), "serve", "--port", str(port), *flags], cwd=cwd,
                            stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stderr.readline()
        assert "serving on http://" in line and f":{port}" in line, line
        yield port
    finally:
        proc.terminate()
        assert proc.wait(timeout=120) == 0
