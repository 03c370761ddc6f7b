"""A collision_server for the Python tests, on 127.0.0.1 port 0.

The server writes its bound port to --port_file (renamed into place once it
is bound); readiness is the standard health service reporting SERVING,
waited on through the installed collision_client package. Stopped with
SIGTERM (--drain_grace=0s, so it stops at once).
"""

import os
import signal
import subprocess
import tempfile
import time

import collision_client


class LiveServer:
    """collision_server on 127.0.0.1:0; `address` is "127.0.0.1:<port>"."""

    def __init__(self, binary, flags=(), client_options=None,
                 start_timeout_s=20):
        """`client_options`: collision_client.Client options of the health
        wait (TLS options for a server started with --tls_cert)."""
        self._dir = tempfile.TemporaryDirectory(prefix="collision-pytest-")
        port_file = os.path.join(self._dir.name, "port")
        self.log = open(os.path.join(self._dir.name, "server.log"), "w+")
        self.proc = subprocess.Popen(
            [binary, "--address=127.0.0.1:0", "--port_file=" + port_file,
             "--drain_grace=0s"] + list(flags),
            stdout=self.log, stderr=subprocess.STDOUT)
        try:
            self.address = "127.0.0.1:" + self._read_port(port_file,
                                                          start_timeout_s)
            with collision_client.Client(self.address,
                                         **(client_options or {})) as client:
                client.wait_until_serving(timeout=start_timeout_s)
        except Exception:
            self.stop()
            raise

    def _read_port(self, port_file, timeout_s):
        # The bound port is only known once the file appears: poll for it
        # (short steps, bounded), failing fast if the server exits.
        deadline = time.monotonic() + timeout_s
        while not os.path.exists(port_file):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("server did not start:\n" +
                                   self.log_text())
            time.sleep(0.02)
        with open(port_file) as f:
            return f.read().strip()

    def log_text(self):
        self.log.flush()
        self.log.seek(0)
        return self.log.read()

    def stop(self):
        """SIGTERM, then the exit code (killed after 20 s)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if not self.log.closed:
            self.log.close()
        self._dir.cleanup()
        return self.proc.returncode

    def stop_after(self, client):
        """Closes `client`, stops the server, and fails unless it exited 0
        (a test's tearDownClass)."""
        client.close()
        rc = self.stop()
        if rc != 0:
            raise AssertionError("collision_server exited with %s" % rc)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()
