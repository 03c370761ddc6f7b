#!/usr/bin/python3
"""Replays testdata/golden/golden.json against a real collision_server.

Starts the server binary on 127.0.0.1 port 0 (it writes the bound port to a
file), waits on the standard gRPC health service, sends every golden request
and compares the answers as the golden README says: hit, relation, inside and
error codes exactly, floats within the file's tolerance, error messages
containing the case's field path. Stops the server with SIGTERM.

Run with Debian's interpreter (python3-grpcio, python3-protobuf):

  /usr/bin/python3 clients/python/test_golden.py --server build/server/collision_server \
      --stubs build/clients/python/stubs --golden testdata/golden/golden.json
"""

import argparse
import json
import math
import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest

ARGS = None  # parsed command line, set in main()


def parse_args(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(here))
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--server", required=True, help="collision_server binary")
    p.add_argument("--stubs", required=True, help="dir of the generated stubs")
    p.add_argument("--golden", default=os.path.join(
        root, "testdata", "golden", "golden.json"))
    return p.parse_known_args(argv)


class LiveServer:
    """collision_server on 127.0.0.1:0, stopped with SIGTERM."""

    def __init__(self, binary):
        self._dir = tempfile.TemporaryDirectory()
        port_file = os.path.join(self._dir.name, "port")
        self.log = open(os.path.join(self._dir.name, "server.log"), "w+")
        self.proc = subprocess.Popen(
            [binary, "--address=127.0.0.1:0", "--port_file=" + port_file,
             "--drain_grace=0s"],
            stdout=self.log, stderr=subprocess.STDOUT)
        # The port file appears (atomically renamed) once the server is bound.
        deadline = time.monotonic() + 20
        while not os.path.exists(port_file):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("server did not start:\n" + self.log_text())
            time.sleep(0.05)
        with open(port_file) as f:
            self.address = "127.0.0.1:" + f.read().strip()

    def log_text(self):
        self.log.seek(0)
        return self.log.read()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()
        self._dir.cleanup()
        return self.proc.returncode


def wait_until_serving(channel, health_pb2, health_pb2_grpc, timeout_s=20):
    """Blocks on the health service (wait_for_ready) until SERVING."""
    stub = health_pb2_grpc.HealthStub(channel)
    request = health_pb2.HealthCheckRequest(
        service="collision.v1.CollisionService")
    deadline = time.monotonic() + timeout_s
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("health service never reported SERVING")
        reply = stub.Check(request, timeout=remaining, wait_for_ready=True)
        if reply.status == health_pb2.HealthCheckResponse.SERVING:
            return


def compare(want, got, tol, path="response"):
    """Returns a list of differences between two messages of one type."""
    from google.protobuf.descriptor import FieldDescriptor as F
    out = []

    def scalar(fd, w, g, where):
        if fd.type in (F.TYPE_FLOAT, F.TYPE_DOUBLE):
            if math.isnan(w) and math.isnan(g):
                return
            d = abs(g - w)
            if not (d <= tol["abs"] or d <= tol["rel"] * max(abs(g), abs(w))):
                out.append("%s: want %r, got %r" % (where, w, g))
        elif w != g:
            out.append("%s: want %r, got %r" % (where, w, g))

    for fd in want.DESCRIPTOR.fields:
        w = getattr(want, fd.name)
        g = getattr(got, fd.name)
        where = "%s.%s" % (path, fd.name)
        if fd.label == F.LABEL_REPEATED:
            if len(w) != len(g):
                out.append("%s: want %d items, got %d" % (where, len(w), len(g)))
                continue
            for i, (wi, gi) in enumerate(zip(w, g)):
                if fd.type == F.TYPE_MESSAGE:
                    out += compare(wi, gi, tol, "%s[%d]" % (where, i))
                else:
                    scalar(fd, wi, gi, "%s[%d]" % (where, i))
        elif fd.type == F.TYPE_MESSAGE:
            out += compare(w, g, tol, where)
        else:
            scalar(fd, w, g, where)
    return out


class GoldenVectors(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        sys.path.insert(0, ARGS.stubs)
        import grpc
        from google.protobuf import json_format
        from collision.v1 import collision_pb2, collision_pb2_grpc
        import health_pb2
        import health_pb2_grpc
        cls.grpc = grpc
        cls.json_format = json_format
        cls.pb = collision_pb2
        with open(ARGS.golden) as f:
            cls.golden = json.load(f)
        cmp = cls.golden["comparison"]
        cls.tol = {"abs": cmp["float_absolute"], "rel": cmp["float_relative"]}
        cls.server = LiveServer(ARGS.server)
        try:
            cls.channel = grpc.insecure_channel(cls.server.address)
            wait_until_serving(cls.channel, health_pb2, health_pb2_grpc)
        except Exception:
            cls.server.stop()
            raise
        cls.stub = collision_pb2_grpc.CollisionServiceStub(cls.channel)

    @classmethod
    def tearDownClass(cls):
        cls.channel.close()
        rc = cls.server.stop()
        if rc != 0:
            raise AssertionError("collision_server exited with %s" % rc)

    def test_file_has_cases(self):
        self.assertGreaterEqual(len(self.golden["cases"]), 60)

    def test_every_golden_case(self):
        rpcs = {
            "Intersect": (self.stub.Intersect, self.pb.IntersectRequest,
                          self.pb.IntersectResponse),
            "ClosestPoint": (self.stub.ClosestPoint,
                             self.pb.ClosestPointRequest,
                             self.pb.ClosestPointResponse),
        }
        for case in self.golden["cases"]:
            with self.subTest(case=case["name"]):
                call, request_type, response_type = rpcs[case["rpc"]]
                request = self.json_format.ParseDict(case["request"],
                                                     request_type())
                if "error" in case:
                    with self.assertRaises(self.grpc.RpcError) as raised:
                        call(request, timeout=10)
                    err = raised.exception
                    self.assertEqual(err.code().name, case["error"]["code"])
                    self.assertIn(case["error"]["message_contains"],
                                  err.details())
                    continue
                got = call(request, timeout=10)
                want = self.json_format.ParseDict(case["response"],
                                                  response_type())
                self.assertEqual(compare(want, got, self.tol), [])


def main():
    global ARGS
    ARGS, rest = parse_args(sys.argv[1:])
    unittest.main(argv=[sys.argv[0]] + rest)


if __name__ == "__main__":
    main()
