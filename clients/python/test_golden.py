#!/usr/bin/python3
"""Replays testdata/golden/golden.json against a real collision_server,
through the installed collision_client package.

Starts the server on 127.0.0.1 port 0, waits on the standard health service
and sends every golden request with collision_client.Client, comparing the
answers as the golden README says: hit, relation, inside and error codes
exactly, floats within the file's tolerance, error messages containing the
case's field path. The valid cases are sent a second time in columnar form
(IntersectColumnsBatch, ClosestPointColumnsBatch), whose unpacked answers
must be the same.

Run with the python of a venv the wheel is installed in (CTest's fixture
python.WheelInstallsIntoCleanVenv makes build/<preset>/clients/python/venv):

  build/ci/clients/python/venv/bin/python clients/python/test_golden.py \
      --server build/ci/server/collision_server
"""

import argparse
import json
import math
import os
import sys
import unittest

import collision_client
from collision.v1 import collision_pb2 as pb
from google.protobuf import json_format
from google.protobuf.descriptor import FieldDescriptor as F

from live_server import LiveServer

ARGS = None  # parsed command line, set in main()


def parse_args(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(here))
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--server", required=True, help="collision_server binary")
    p.add_argument("--golden", default=os.path.join(
        root, "testdata", "golden", "golden.json"))
    return p.parse_known_args(argv)


def compare(want, got, tol, path="response"):
    """Returns a list of differences between two messages of one type."""
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
                out.append("%s: want %d items, got %d" %
                           (where, len(w), len(g)))
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


def columns_batch(case):
    """The case's request as a columns batch, or None when a pair or query
    has no columnar form (e.g. rect vs rotated rect)."""
    if case["rpc"] == "Intersect":
        request = json_format.ParseDict(case["request"], pb.IntersectRequest())
        batch = collision_client.IntersectColumnsBatch(
            boundary=request.boundary, relation=request.include_relation,
            separation=request.include_separation)
        items = [(p.a, p.b) for p in request.pairs]
    else:
        request = json_format.ParseDict(case["request"],
                                        pb.ClosestPointRequest())
        batch = collision_client.ClosestPointColumnsBatch(
            boundary=request.boundary)
        items = [(q.query, q.target) for q in request.queries]
    try:
        for a, b in items:
            batch.add(a, b)
    except ValueError:
        return None
    return batch


class GoldenVectors(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        with open(ARGS.golden) as f:
            cls.golden = json.load(f)
        cmp = cls.golden["comparison"]
        cls.tol = {"abs": cmp["float_absolute"], "rel": cmp["float_relative"]}
        cls.server = LiveServer(ARGS.server)
        cls.client = collision_client.Client(cls.server.address, deadline=10)

    @classmethod
    def tearDownClass(cls):
        cls.server.stop_after(cls.client)

    def test_file_has_cases(self):
        self.assertGreaterEqual(len(self.golden["cases"]), 60)

    def test_every_golden_case(self):
        rpcs = {
            "Intersect": (self.client.intersect, pb.IntersectRequest,
                          pb.IntersectResponse),
            "ClosestPoint": (self.client.closest_point,
                             pb.ClosestPointRequest, pb.ClosestPointResponse),
        }
        for case in self.golden["cases"]:
            with self.subTest(case=case["name"]):
                call, request_type, response_type = rpcs[case["rpc"]]
                request = json_format.ParseDict(case["request"],
                                                request_type())
                if "error" in case:
                    with self.assertRaises(collision_client.CallError) as e:
                        call(request)
                    self.assertEqual(e.exception.code().name,
                                     case["error"]["code"])
                    self.assertIn(case["error"]["message_contains"],
                                  e.exception.details())
                    continue
                got = call(request)
                want = json_format.ParseDict(case["response"],
                                             response_type())
                self.assertEqual(compare(want, got, self.tol), [])

    def test_valid_cases_answer_alike_in_columns(self):
        sent = 0
        for case in self.golden["cases"]:
            if "error" in case:
                continue
            batch = columns_batch(case)
            if batch is None:
                continue
            with self.subTest(case=case["name"]):
                sent += 1
                if case["rpc"] == "Intersect":
                    answers = batch.unpack(
                        self.client.intersect_columns(batch))
                    got = pb.IntersectResponse(results=[
                        pb.IntersectResult(hit=a.hit, relation=a.relation,
                                           separation=a.separation)
                        for a in answers])
                    want = pb.IntersectResponse()
                else:
                    got = pb.ClosestPointResponse(results=batch.unpack(
                        self.client.closest_point_columns(batch)))
                    want = pb.ClosestPointResponse()
                json_format.ParseDict(case["response"], want)
                self.assertEqual(compare(want, got, self.tol), [])
        self.assertGreaterEqual(sent, 40)


def main():
    global ARGS
    ARGS, rest = parse_args(sys.argv[1:])
    unittest.main(argv=[sys.argv[0]] + rest)


if __name__ == "__main__":
    main()
