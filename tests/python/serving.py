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
def serving(*flags):
    """Yields the port of a server started with `flags`, once it says it is serving."""
    port = free_port()
    proc = subprocess.Popen([BIN, "serve", "--port", str(port), *flags], stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stderr.readline()
        assert f"serving on http://127.0.0.1:{port}" in line, line
        yield port
    finally:
        proc.terminate()
        proc.wait(timeout=10)
