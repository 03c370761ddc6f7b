#!/usr/bin/python3
"""The installed collision_client package against a live collision_server.

Test classes (CTest runs each as its own test, naming the class):

- ClientAgainstLiveServer: the four RPCs through the builders, the seed 004
  sign and exact quarter turns, a capsule3 against a turned oriented box,
  columns and their hit bits against the per-pair answers, the per-tick
  session (ticks, pipelining, a rejected message raising while the stream
  goes on), health. (Deadlines are tested in test_unit.py against a
  listener that never answers.)
- InvalidRequestDetails: the structured error details of issue 16 (a
  google.rpc.BadRequest in `grpc-status-details-bin`, StreamError.
  bad_request), a non-unit quaternion refused by its field path, capped
  with "and N more" without overflowing the trailer.
- AsyncClientAgainstLiveServer: the asyncio client's four calls and
  health wait, and its errors.
- TokenAgainstLiveServer: token= on a server started with --token_file,
  on calls, sessions and scene sessions (blocking and asyncio).
- TlsAgainstLiveServer: root_certificates= (a file or PEM bytes) and
  server_name= on a server with a self-signed certificate.
- SessionReopensAgedStreams: a session outlives streams the server ends
  for their age (--max_connection_age=1s), unseen by the caller.
- ExamplesAgainstLiveServer: example.py and example_scene.py run, as the
  wheel installed them (python3 -m collision_client.examples.NAME).

  build/ci/clients/python/venv/bin/python clients/python/test_live.py \\
      --server build/ci/server/collision_server [ClassName ...]
"""

import argparse
import asyncio
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

import collision_client as cc
import grpc
from collision.v1 import collision_pb2 as pb
from collision.v1 import scene_pb2

from live_server import LiveServer

try:
    import numpy as np
except ImportError:
    np = None

ARGS = None  # parsed command line, set in main()
HERE = os.path.dirname(os.path.abspath(__file__))
INVALID = grpc.StatusCode.INVALID_ARGUMENT


def bad_radius_pairs(n):
    return cc.intersect_request([(cc.circle(i, 0, -1), cc.point(0, 0))
                                 for i in range(n)])


class ServerTestCase(unittest.TestCase):
    """One server (started with `FLAGS`) and one client per class."""
    FLAGS = ()
    CLIENT_OPTIONS = {}

    @classmethod
    def setUpClass(cls):
        cls.server = LiveServer(ARGS.server, cls.FLAGS, cls.CLIENT_OPTIONS)
        cls.client = cc.Client(cls.server.address, **cls.CLIENT_OPTIONS)

    @classmethod
    def tearDownClass(cls):
        cls.server.stop_after(cls.client)


class ClientAgainstLiveServer(ServerTestCase):

    def test_health(self):
        self.client.wait_until_serving(timeout=5)
        self.assertTrue(self.client.is_serving())
        self.assertTrue(
            self.client.is_serving("collision.v1.CollisionService"))

    def test_touching_counts_by_default(self):
        # Seed 001: circle (25, 25) r 5 against rect (10, 20) + (10, 10).
        r = self.client.intersect(cc.intersect_request(
            [(cc.circle(25, 25, 5), cc.rect_from_corner_size(10, 20, 10, 10))],
            relation=True, separation=True)).results[0]
        self.assertEqual((r.hit, r.relation, r.separation),
                         (True, pb.RELATION_TOUCHING, 0))
        r = self.client.intersect(cc.intersect_request(
            [(cc.circle(25, 25, 5), cc.rect_from_corner_size(10, 20, 10, 10))],
            boundary=cc.EXCLUSIVE)).results[0]
        self.assertFalse(r.hit)

    def test_seed_004_angle_is_the_opposite_sign(self):
        # Seed 004 unrotates a point p by R(theta) about the centre c. The
        # point c + R(-theta) (1.9, 0) is inside its 4 x 2 rectangle (it
        # unrotates to c + (1.9, 0)); with the angle taken the other way it
        # would unrotate to c + R(-2 theta) (1.9, 0) = c + (0.95, -1.65),
        # outside (|y| > 1).
        theta = math.radians(30)
        cx, cy = 12, 21  # top-left (10, 20), 4 x 2
        px = cx + math.cos(-theta) * 1.9
        py = cy + math.sin(-theta) * 1.9
        seed = cc.rotated_rect_about_center(10, 20, 4, 2, -theta)
        wrong = cc.rotated_rect_about_center(10, 20, 4, 2, theta)
        results = self.client.intersect(cc.intersect_request(
            [(cc.point(px, py), seed), (cc.point(px, py), wrong)])).results
        self.assertEqual([r.hit for r in results], [True, False])

    def test_quarter_turns_in_degrees_are_exact(self):
        # 4 x 2 at (0, 0) turned 90 degrees about (2, 1): x 1..3, y -1..3.
        turned = cc.rotated_rect_about_center(0, 0, 4, 2,
                                              cc.degrees_to_radians(90))
        results = self.client.intersect(cc.intersect_request(
            [(cc.point(1, 3), turned), (cc.point(3.0001, 0), turned)],
            relation=True)).results
        self.assertEqual([(r.hit, r.relation) for r in results],
                         [(True, pb.RELATION_TOUCHING),
                          (False, pb.RELATION_DISJOINT)])

    def test_capsule3_against_oriented_box(self):
        # A 4 x 1 x 1 box at the origin turned a quarter about z spans
        # x -0.5..0.5, y -2..2. A vertical capsule at (0, 1.5) hits it only
        # if it is turned (unturned, y ends at 0.5); one at (1.5, 0) misses
        # it only if it is turned (unturned, x ends at 2), by 1 - 0.25.
        turned = cc.oriented_box_axis_angle(0, 0, 0, 2, 0.5, 0.5, 0, 0, 1,
                                            math.pi / 2)
        results = self.client.intersect(cc.intersect_request(
            [(cc.capsule3(0, 1.5, -3, 0, 1.5, 3, 0.1), turned),
             (cc.capsule3(1.5, 0, -3, 1.5, 0, 3, 0.25), turned)],
            relation=True, separation=True)).results
        self.assertEqual([(r.hit, r.relation) for r in results],
                         [(True, pb.RELATION_OVERLAPPING),
                          (False, pb.RELATION_DISJOINT)])
        self.assertAlmostEqual(results[1].separation, 0.75, delta=1e-5)

    def test_closest_point(self):
        c = self.client.closest_point(cc.closest_point_request(
            [(cc.point(13, 14), cc.rect_from_corner_size(0, 0, 10, 10))]
        )).results[0]
        self.assertEqual((c.closest_point.x, c.closest_point.y,
                          c.signed_distance, c.inside), (10, 10, 5, False))

    def test_columns_answer_as_the_pairs_do(self):
        rng = random.Random(17)
        n = 300
        x = [rng.uniform(-10, 10) for _ in range(n)]
        y = [rng.uniform(-10, 10) for _ in range(n)]
        r = [rng.uniform(0, 3) for _ in range(n)]
        w = [rng.uniform(0, 6) for _ in range(n)]
        h = [rng.uniform(0, 6) for _ in range(n)]
        angle = [rng.uniform(-4, 4) for _ in range(n)]
        pairs = [(cc.circle(x[i], y[i], r[i]),
                  cc.rect_from_corner_size(y[i] / 2, x[i] / 3, w[i], h[i]))
                 for i in range(n)]
        pairs += [(cc.circle(x[i], y[i], r[i]),
                   cc.rotated_rect_about_center(0, 0, w[i], h[i], angle[i]))
                  for i in range(n)]
        want = [res.hit for res in self.client.intersect(
            cc.intersect_request(pairs)).results]
        balls = cc.circles(x, y, r)
        request = cc.intersect_columns_request([
            (balls, cc.rects_from_corner_size([v / 2 for v in y],
                                              [v / 3 for v in x], w, h)),
            (cc.rotated_rects_about_center(0, 0, w, h, angle), balls),
        ])
        response = self.client.intersect_columns(request)
        self.assertEqual(cc.hits(response, as_numpy=False), want)
        self.assertTrue(0 < sum(want) < 2 * n)  # both outcomes occur
        if np is not None:
            request = cc.intersect_columns_request([
                (cc.circles(np.array(x), np.array(y), np.array(r)),
                 cc.rects_from_corner_size(np.array(y) / 2, np.array(x) / 3,
                                           np.array(w), np.array(h)))])
            got = cc.hits(self.client.intersect_columns(request))
            self.assertEqual(got.tolist(), want[:n])

    def test_closest_point_columns_inside_bits(self):
        response = self.client.closest_point_columns(
            cc.closest_point_columns_request([
                (cc.points([5, 13, 10], [5, 14, 0]),
                 cc.rects_from_corner_size([0] * 3, 0, 10, 10))]))
        self.assertEqual(cc.inside(response, as_numpy=False),
                         [True, False, True])  # (10, 0) is on the boundary
        self.assertEqual(list(response.groups[0].signed_distance),
                         [-5, 5, 0])

    def test_session_ticks_and_pipelining(self):
        with self.client.open_session() as session:
            for tick in range(1, 4):
                answer = session.call(cc.intersect_request(
                    [(cc.circle(tick, 0, 1),
                      cc.rect_from_corner_size(3, -1, 2, 2))]))
                self.assertEqual(answer.results[0].hit, tick >= 2)
            sequences = [session.send(cc.closest_point_request(
                [(cc.point(i, 0), cc.point(0, 0))])) for i in range(5)]
            self.assertEqual(sequences, [4, 5, 6, 7, 8])
            self.assertEqual(session.outstanding, 5)
            for i, sequence in enumerate(sequences):
                reply = session.receive()
                self.assertEqual(reply.sequence, sequence)
                self.assertEqual(reply.answer.results[0].signed_distance, i)
            batch = cc.IntersectColumnsBatch()
            batch.add(cc.point(0, 0), cc.circle(1, 0, 1))
            answer = session.call(batch, sequence=1000)
            self.assertEqual(batch.unpack(answer)[0].hit, True)
            self.assertEqual(session.reopens, 0)

    def test_session_raises_a_rejected_message_and_goes_on(self):
        with self.client.open_session() as session:
            with self.assertRaises(cc.InvalidRequest) as e:
                session.call(bad_radius_pairs(1), sequence=41)
            self.assertEqual(e.exception.sequence, 41)
            self.assertEqual(e.exception.code(), INVALID)
            self.assertIn("pairs[0].a.circle.radius", e.exception.details())
            answer = session.call(cc.intersect_request(
                [(cc.point(0, 0), cc.point(0, 0))]))
            self.assertTrue(answer.results[0].hit)
            with self.assertRaises(RuntimeError):
                session.receive()  # nothing outstanding

    def test_call_error_keeps_grpc_code_and_message(self):
        with self.assertRaises(cc.InvalidRequest) as e:
            self.client.intersect(bad_radius_pairs(1))
        self.assertIsInstance(e.exception, grpc.RpcError)
        self.assertEqual(e.exception.code(), INVALID)
        self.assertIn("pairs[0].a.circle.radius must be >= 0",
                      e.exception.details())
        self.assertIsNone(e.exception.sequence)


class InvalidRequestDetails(ServerTestCase):
    """Needs a server that sends BadRequest details (issue 16)."""

    def test_negative_radius_names_the_field(self):
        with self.assertRaises(cc.InvalidRequest) as e:
            self.client.intersect(bad_radius_pairs(1))
        err = e.exception
        self.assertEqual(err.code(), INVALID)
        fields = [v.field for v in err.field_violations]
        self.assertIn("pairs[0].a.circle.radius", fields)
        self.assertTrue(all(v.description for v in err.field_violations))
        self.assertEqual(err.omitted_violations, 0)

    def test_raw_grpc_errors_decode_the_same(self):
        try:
            self.client.stub.Intersect(bad_radius_pairs(1),
                                       **self.client.call_options())
        except grpc.RpcError as e:
            violations = cc.field_violations(e)
            status = cc.status_details(e)
        else:
            self.fail("a negative radius was accepted")
        self.assertIn("pairs[0].a.circle.radius",
                      [field for field, _ in violations])
        self.assertEqual(status.code, INVALID.value[0])
        self.assertIn(cc.BAD_REQUEST_TYPE_URL,
                      [d.type_url for d in status.details])

    def test_many_violations_are_capped_with_and_n_more(self):
        total = 150
        with self.assertRaises(cc.CallError) as e:
            self.client.intersect(bad_radius_pairs(total))
        err = e.exception
        # Not RESOURCE_EXHAUSTED/INTERNAL from an oversized trailer.
        self.assertEqual(err.code(), INVALID, err.details())
        violations = err.field_violations
        self.assertGreater(len(violations), 1)
        last = violations[-1]
        self.assertEqual(last.field, "")
        self.assertRegex(last.description, r"^and \d+ more invalid fields$")
        listed = violations[:-1]
        self.assertEqual([v.field for v in listed],
                         ["pairs[%d].a.circle.radius" % i
                          for i in range(len(listed))])
        self.assertEqual(len(listed) + err.omitted_violations, total)

    def test_non_unit_quaternion_is_refused_not_normalised(self):
        # w^2 + x^2 + y^2 + z^2 = 1.01: outside the 1e-5 tolerance.
        request = cc.intersect_request(
            [(cc.capsule3(0, 0, 0, 1, 0, 0, 1),
              cc.oriented_box(0, 0, 0, 1, 1, 1, 1, 0.1, 0, 0))])
        with self.assertRaises(cc.InvalidRequest) as e:
            self.client.intersect(request)
        err = e.exception
        self.assertEqual(err.code(), INVALID)
        self.assertIn("pairs[0].b.oriented_box.rotation", err.details())
        self.assertEqual([v.field for v in err.field_violations],
                         ["pairs[0].b.oriented_box.rotation"])

    def test_columns_violations_name_column_and_index(self):
        request = cc.intersect_columns_request([
            (cc.circles([0, 0], [0, 0], [1, -1]),
             cc.rects([0, 0], [0, 0], [1, 1], [1, 1]))])
        with self.assertRaises(cc.InvalidRequest) as e:
            self.client.intersect_columns(request)
        self.assertIn("groups[0].circle_rect.a.radius[1]",
                      [v.field for v in e.exception.field_violations])

    def test_stream_errors_carry_the_violations(self):
        with self.client.open_session() as session:
            with self.assertRaises(cc.InvalidRequest) as e:
                session.call(bad_radius_pairs(1), sequence=9)
            self.assertEqual(e.exception.sequence, 9)
            self.assertIn("pairs[0].a.circle.radius",
                          [v.field for v in e.exception.field_violations])
            self.assertTrue(session.call(cc.intersect_request(
                [(cc.point(0, 0), cc.point(0, 0))])).results[0].hit)


class AsyncClientAgainstLiveServer(ServerTestCase):
    """AsyncClient's calls, awaited, answer as Client's do."""

    def test_the_four_calls_and_health(self):
        pairs = [(cc.circle(25, 25, 5), cc.rect_from_corner_size(10, 20, 10,
                                                                 10)),
                 (cc.point(0, 0), cc.circle(3, 0, 1))]

        async def run():
            async with cc.AsyncClient(self.server.address,
                                      deadline=5) as client:
                await client.wait_until_serving(timeout=10)
                return await asyncio.gather(
                    client.intersect(cc.intersect_request(pairs,
                                                          relation=True)),
                    client.closest_point(cc.closest_point_request(
                        [(cc.point(13, 14),
                          cc.rect_from_corner_size(0, 0, 10, 10))])),
                    client.intersect_columns(cc.intersect_columns_request(
                        [(cc.circles([0, 5], [0, 0], radius=1),
                          cc.circles([1, 0], [0, 0], radius=1))])),
                    client.closest_point_columns(
                        cc.ClosestPointColumnsBatch().add(
                            cc.point(13, 14),
                            cc.rect_from_corner_size(0, 0, 10, 10))))

        got = asyncio.run(run())
        self.assertEqual(got[0], self.client.intersect(
            cc.intersect_request(pairs, relation=True)))
        self.assertEqual((got[1].results[0].closest_point.x,
                          got[1].results[0].closest_point.y), (10, 10))
        self.assertEqual(list(cc.hits(got[2], as_numpy=False)),
                         [True, False])
        self.assertEqual((got[3].groups[0].closest_x[0],
                          got[3].groups[0].closest_y[0]), (10, 10))

    def test_errors_are_call_errors_with_their_fields(self):
        async def run():
            async with cc.AsyncClient(self.server.address) as client:
                with self.assertRaises(TypeError):
                    await client.intersect(cc.closest_point_request([]))
                with self.assertRaises(cc.InvalidRequest) as e:
                    await client.intersect(bad_radius_pairs(1))
                return e.exception

        e = asyncio.run(run())
        self.assertEqual(e.code(), INVALID)
        self.assertEqual(e.field_violations, [cc.FieldViolation(
            "pairs[0].a.circle.radius", "must be >= 0, got -1")])


class TokenAgainstLiveServer(ServerTestCase):
    TOKEN = "py-client-test-token"

    @classmethod
    def setUpClass(cls):
        cls._tokens = tempfile.NamedTemporaryFile("w", suffix=".tokens")
        cls._tokens.write(cls.TOKEN + "\n")
        cls._tokens.flush()
        cls.FLAGS = ("--token_file=" + cls._tokens.name,)
        cls.CLIENT_OPTIONS = {"token": cls.TOKEN,
                              "metadata": [("tenant", "tests")]}
        super().setUpClass()

    @classmethod
    def tearDownClass(cls):
        super().tearDownClass()
        cls._tokens.close()

    def test_calls_and_sessions_carry_the_token(self):
        request = cc.intersect_request([(cc.point(0, 0), cc.point(0, 0))])
        self.assertTrue(self.client.intersect(request).results[0].hit)
        with self.client.open_session() as session:
            self.assertTrue(session.call(request).results[0].hit)

    def test_scene_sessions_carry_the_token(self):
        config = scene_pb2.SceneConfig(dimension=scene_pb2.DIMENSION_2D,
                                       boundary=pb.BOUNDARY_RULE_INCLUSIVE)
        tick = scene_pb2.SceneRequest(update=scene_pb2.SceneUpdate(tick=1))
        with self.client.open_scene(config) as scene:
            self.assertEqual(scene.send(tick).tick, 1)

        async def run():
            async with cc.AsyncClient(self.server.address,
                                      **self.CLIENT_OPTIONS) as client:
                scene = await client.open_scene(config)
                self.assertEqual((await scene.send(tick)).tick, 1)
                await scene.close()
            # Without it the opening is refused, at once (not retried).
            async with cc.AsyncClient(self.server.address) as anonymous:
                with self.assertRaises(cc.CallError) as e:
                    await anonymous.open_scene(config)
                self.assertEqual(e.exception.code(),
                                 grpc.StatusCode.UNAUTHENTICATED)

        asyncio.run(run())
        with cc.Client(self.server.address) as anonymous:
            with self.assertRaises(cc.CallError) as e:
                anonymous.open_scene(config)
            self.assertEqual(e.exception.code(),
                             grpc.StatusCode.UNAUTHENTICATED)

    def test_without_the_token_calls_are_refused(self):
        request = cc.intersect_request([(cc.point(0, 0), cc.point(0, 0))])
        with cc.Client(self.server.address) as anonymous:
            anonymous.wait_until_serving(timeout=5)  # health stays open
            with self.assertRaises(cc.CallError) as e:
                anonymous.intersect(request)
            self.assertEqual(e.exception.code(),
                             grpc.StatusCode.UNAUTHENTICATED)


class TlsAgainstLiveServer(ServerTestCase):
    """A server with a self-signed certificate for collision.test."""

    @classmethod
    def setUpClass(cls):
        if shutil.which("openssl") is None:
            raise unittest.SkipTest("openssl is not installed")
        cls._dir = tempfile.TemporaryDirectory(prefix="collision-tls-")
        cls.cert = os.path.join(cls._dir.name, "cert.pem")
        key = os.path.join(cls._dir.name, "key.pem")
        subprocess.run(
            ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes",
             "-days", "1", "-subj", "/CN=collision.test", "-addext",
             "subjectAltName=DNS:collision.test", "-keyout", key, "-out",
             cls.cert], check=True, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, timeout=60)
        cls.FLAGS = ("--tls_cert=" + cls.cert, "--tls_key=" + key)
        cls.CLIENT_OPTIONS = {"root_certificates": cls.cert,
                              "server_name": "collision.test"}
        super().setUpClass()

    @classmethod
    def tearDownClass(cls):
        super().tearDownClass()
        cls._dir.cleanup()

    def test_calls_over_tls_with_a_ca_file_or_pem_bytes(self):
        request = cc.intersect_request([(cc.point(0, 0), cc.point(0, 0))])
        self.assertTrue(self.client.intersect(request).results[0].hit)
        with open(self.cert, "rb") as f:
            pem = f.read()
        with cc.Client(self.server.address, root_certificates=pem,
                       server_name="collision.test") as client:
            self.assertTrue(client.intersect(request).results[0].hit)
            with client.open_session() as session:
                self.assertTrue(session.call(request).results[0].hit)

    def test_plaintext_and_wrong_names_are_refused(self):
        request = cc.intersect_request([(cc.point(0, 0), cc.point(0, 0))])
        for options in ({}, {"root_certificates": self.cert,
                             "server_name": "other.test"}):
            with self.subTest(options=options), cc.Client(
                    self.server.address, deadline=5, retries=0,
                    **options) as client:
                with self.assertRaises(cc.CallError) as e:
                    client.intersect(request)
                self.assertEqual(e.exception.code(),
                                 grpc.StatusCode.UNAVAILABLE)


class SessionReopensAgedStreams(ServerTestCase):
    # Streams end (UNAVAILABLE, between two messages) after 0.9 s.
    FLAGS = ("--max_connection_age=1s", "--max_connection_age_grace=1s")

    def test_a_session_outlives_its_streams(self):
        request = cc.intersect_request([(cc.circle(0, 0, 1), cc.point(1, 0))])
        end = time.monotonic() + 3
        ticks = 0
        with self.client.open_session() as session:
            while time.monotonic() < end or session.reopens == 0:
                self.assertLess(time.monotonic(), end + 10)
                sequence = session.send(request)
                reply = session.receive()
                self.assertEqual(reply.sequence, sequence)
                self.assertTrue(reply.answer.results[0].hit)
                ticks += 1
                time.sleep(0.01)  # one game tick of pacing
            self.assertGreaterEqual(session.reopens, 1)
        self.assertGreater(ticks, 50)


class ExamplesAgainstLiveServer(ServerTestCase):

    def run_example(self, name):
        # As a user runs them: the copies the wheel installed, from
        # anywhere (here, the venv's folder).
        done = subprocess.run(
            [sys.executable, "-m", "collision_client.examples." + name,
             self.server.address],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            timeout=60, cwd=os.path.dirname(os.path.dirname(sys.executable)))
        self.assertEqual(done.returncode, 0, done.stdout)
        return done.stdout

    def test_examples_are_in_the_wheel(self):
        import collision_client.examples.example_scene as installed
        self.assertNotEqual(os.path.dirname(installed.__file__), HERE)
        for name in ("example.py", "example_scene.py"):
            with open(os.path.join(HERE, name)) as source, \
                    open(os.path.join(os.path.dirname(installed.__file__),
                                      name)) as shipped:
                self.assertEqual(source.read(), shipped.read(), name)

    def test_example(self):
        out = self.run_example("example")
        for line in ("hit=True relation=RELATION_TOUCHING separation=0",
                     "turned: hit=True relation=RELATION_TOUCHING",
                     "closest=(10, 10) distance=5 inside=False",
                     "columns hits: [False, False, True, False]",
                     "tick 1: hit=False", "tick 2: hit=True",
                     "tick 3: hit=True",
                     "rejected: INVALID_ARGUMENT: pairs[0].a.circle.radius"):
            self.assertIn(line, out)

    def test_example_scene(self):
        out = self.run_example("example_scene")
        for line in ("tick 1: 4 entities", "tick 2: 4 entities",
                     "shot hits 3 at distance 6, point (6, 0), normal (-1, 0)",
                     "blast reaches 2: RELATION_OVERLAPPING, separation -1.5",
                     "tick 3 rejected: INVALID_ARGUMENT: "
                     "update.upserts[0].shape.circle.radius must be >= 0",
                     "  field update.upserts[0].shape.circle.radius: must be "
                     ">= 0, got -1",
                     "shot rewound to tick 2 + 0.60: hits 2",
                     "the same shot at tick 9: miss"):
            self.assertIn(line, out)


def main():
    global ARGS
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--server", required=True, help="collision_server binary")
    ARGS, rest = p.parse_known_args(sys.argv[1:])
    unittest.main(argv=[sys.argv[0]] + rest)


if __name__ == "__main__":
    main()
