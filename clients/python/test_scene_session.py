#!/usr/bin/python3
"""Scene sessions (AsyncSceneSession, SceneSession) against real servers.

A game ticks a scene with several messages in flight while the stream under
it breaks; every answer must equal the answer an unbroken stream gives the
same messages (a raw Session stream on a server of its own, with no session
code in between), rewound and clamped queries included, and no message may
be lost. Test classes (CTest runs each as its own test, naming the class):

- FailoverThroughAgeing: two replicas behind one round_robin channel whose
  streams end at ~0.9 s of age (--max_connection_age=1s): a 2D and a 3D
  scene of every entity kind, per-entity and column upserts, removals,
  kind changes, skipped ticks and a snapshot, reopened at least twice.
- FailoverThroughDrain: the replica hosting the scene is sent SIGTERM
  (health NOT_SERVING, then its streams cut at --shutdown_deadline).
- FailoverThroughKill: the replica hosting the scene is SIGKILLed; then
  the other one too, and the messages in flight fail with UNAVAILABLE
  after the bounded attempts, nothing else.
- LimitsRefuseOneMessage: a server with small limits. Verdicts (a bad
  radius: INVALID_ARGUMENT with its field violation; too many queries:
  RESOURCE_EXHAUSTED) and a message over --max_receive_message_bytes (the
  server ends the stream: RESOURCE_EXHAUSTED) fail that message alone and
  the scene goes on, the messages in flight behind it answered.
- StreamDeadlineFailsOneMessage: a client stream_deadline ends streams
  with DEADLINE_EXCEEDED under a full pipeline: the oldest message in
  flight fails with it, the others are answered from a reopened scene.
- SendDoesNotWaitForTheServer: while the server answers nothing
  (SIGSTOP), send() hands ticks over and the loop goes on; the answers
  come, in order, once it answers again.
- StalledServerTimesOneMessageOut: a server stopped for a second
  (SIGSTOP): the messages unanswered past message_timeout fail with
  DEADLINE_EXCEEDED, oldest first, the rest are answered.
- BlockingSessionSurvivesAgeingAndLimits: the blocking SceneSession
  through ageing streams, a stalled server and the same refusals.

  build/ci/clients/python/venv/bin/python \\
      clients/python/test_scene_session.py \\
      --server build/ci/server/collision_server [ClassName ...]
"""

import argparse
import asyncio
import collections
import math
import os
import queue
import random
import re
import signal
import sys
import threading
import time
import unittest
import urllib.request

import collision_client as cc
import grpc
from collision.v1 import collision_pb2 as pb
from collision.v1 import scene_pb2 as s
from collision.v1 import scene_pb2_grpc

from live_server import LiveServer

ARGS = None  # parsed command line, set in main()
SERVICE = "collision.v1.CollisionService"
AGEING = ("--max_connection_age=1s", "--max_connection_age_grace=1s")
HISTORY = 16  # ticks of history of the test scenes
TEST_LIMIT_S = 60  # what any one scenario may take, failing past it


def config(dimension=s.DIMENSION_2D):
    return s.SceneConfig(dimension=dimension,
                         boundary=pb.BOUNDARY_RULE_INCLUSIVE,
                         history_ticks=HISTORY)


class Game:
    """A deterministic game: tick after tick, its scene messages.

    "full": entities of every kind of the dimension are born, move, change
    kind and die; column groups move every tick; ticks are sometimes
    skipped; every 37th tick is a snapshot. "upserts": only upserts of a
    fixed set of ids, so that any message may be refused without making a
    later one invalid. Queries: overlaps (with relation and separation),
    first-hit and all-hits raycasts, nearest, sweeps, masks, exclusions,
    and rewound ones: 5 ticks back (interpolated) and past the history
    window (clamped).
    """

    def __init__(self, dimension=s.DIMENSION_2D, mode="full", seed=7):
        self.three = dimension == s.DIMENSION_3D
        self.mode = mode
        self.rng = random.Random(seed)
        self.tick = 0
        self.first_tick = None
        self.next_id = 1
        self.alive = {}  # id -> SceneEntity (per-entity upserts)
        self.columns = [100001 + i for i in range(12)]
        self.column_points = [200001 + i for i in range(4)]

    def coord(self):
        return float(self.rng.randint(-30, 30))

    def shape(self):
        r = self.rng
        x, y, z = self.coord(), self.coord(), self.coord()
        size = float(r.randint(0, 4))
        if self.three:
            kind = r.choice(("point3", "sphere", "box", "capsule3",
                             "oriented_box"))
            if kind == "point3":
                return cc.point3(x, y, z)
            if kind == "sphere":
                return cc.sphere(x, y, z, size)
            if kind == "capsule3":
                return cc.capsule3(x, y, z, x + size, y + 1, z, 0.5)
            if kind == "oriented_box":
                return cc.oriented_box_axis_angle(x, y, z, 1, size / 2, 0.5,
                                                  0, 0, 1, 0.4)
            return cc.box_from_min_max(x, y, z, x + size, y + 1, z + 2)
        kind = r.choice(("point", "circle", "rect", "rotated_angle",
                         "rotated_cos_sin"))
        if kind == "point":
            return cc.point(x, y)
        if kind == "circle":
            return cc.circle(x, y, size)
        if kind == "rect":
            return cc.rect_from_min_max(x, y, x + size, y + 2)
        if kind == "rotated_angle":
            return cc.rotated_rect_from_pivot(size, 2, 1, 1, x, y,
                                              r.choice((0.3, -1.1, 2.0)))
        return cc.rotated_rect_from_pivot_cos_sin(size, 2, 0, 0, x, y, 0, 1)

    def entity(self, entity_id):
        e = s.SceneEntity(id=entity_id, shape=self.shape())
        if self.rng.random() < 0.3:
            e.category = self.rng.choice((0, 2, 3))
        return e

    def moved(self, e):
        out = s.SceneEntity()
        out.CopyFrom(e)
        dx, dy = self.rng.choice((-1.0, 0.0, 1.0)), self.rng.choice((-1, 1))
        shape = out.shape
        kind = shape.WhichOneof("kind")
        if kind == "point":
            shape.point.x += dx
        elif kind == "circle":
            shape.circle.center.x += dx
            shape.circle.center.y += dy
        elif kind == "rect":
            shape.rect.min.y += dy
            shape.rect.max.y += dy
        elif kind == "rotated_rect":
            shape.rotated_rect.position.x += dx
            if shape.rotated_rect.WhichOneof("orientation") == "angle":
                shape.rotated_rect.angle += 0.25
        elif kind == "point3":
            shape.point3.z += dy
        elif kind == "sphere":
            shape.sphere.center.x += dx
        elif kind == "box":
            shape.box.min.x += dx
            shape.box.max.x += dx
        elif kind == "capsule3":
            shape.capsule3.a.x += dx
            shape.capsule3.b.y += dy
        elif kind == "oriented_box":
            shape.oriented_box.center.x += dx
        return out

    def column_groups(self, update):
        t = float(self.tick % 20)
        n = len(self.columns)
        xs = [float(i) - 6 + t * 0.5 for i in range(n)]
        ys = [float(i % 3) * 4 - 4 for i in range(n)]
        g = update.upsert_columns.add(ids=self.columns)
        if self.three:
            g.spheres.CopyFrom(pb.BallColumns3(x=xs, y=ys, z=[1.0] * n,
                                               radius=[0.5] * n))
        else:
            g.circles.CopyFrom(pb.BallColumns2(x=xs, y=ys, radius=[0.5] * n))
            g.categories.extend([1, 2] * (n // 2))
        if self.three:
            # Hitboxes as columns: capsule limbs and turning boxes.
            h = update.upsert_columns.add(ids=[300001, 300002])
            h.capsules.CopyFrom(pb.Capsule3Columns(
                a_x=[t, -t], a_y=[0.0, 2.0], a_z=[0.0, 0.0], b_x=[t + 2, -t],
                b_y=[0.0, 4.0], b_z=[1.0, 0.0], radius=[0.5, 0.25]))
            turn = 0.1 * t
            o = update.upsert_columns.add(ids=[300003])
            o.oriented_boxes.CopyFrom(pb.OrientedBoxColumns(
                center_x=[t - 5], center_y=[3.0], center_z=[1.0],
                half_x=[1.0], half_y=[2.0], half_z=[0.5],
                rotation_w=[math.cos(turn / 2)], rotation_x=[0.0],
                rotation_y=[0.0], rotation_z=[math.sin(turn / 2)]))
        if self.tick % 5 == 1 or update.snapshot:
            m = len(self.column_points)
            p = update.upsert_columns.add(ids=self.column_points)
            if self.three:
                p.spheres.CopyFrom(pb.BallColumns3(
                    x=[t] * m, y=[float(i) for i in range(m)], z=[0.0] * m))
            else:
                p.circles.CopyFrom(pb.BallColumns2(
                    x=[t] * m, y=[float(i) for i in range(m)]))

    def update(self):
        r = self.rng
        u = s.SceneUpdate(tick=self.tick)
        if self.mode == "upserts":
            for entity_id in r.sample(range(1, 41), 8):
                u.upserts.append(self.entity(entity_id))
            self.column_groups(u)
            return u
        if self.tick % 37 == 0:
            u.snapshot = True
            for entity_id in sorted(self.alive):
                u.upserts.append(self.moved(self.alive[entity_id]))
                self.alive[entity_id] = u.upserts[-1]
        else:
            ids = sorted(self.alive)
            r.shuffle(ids)
            for entity_id in ids[:2] if len(ids) > 30 else ():
                u.removals.append(entity_id)
                del self.alive[entity_id]
            for entity_id in ids[2:8]:
                e = (self.entity(entity_id) if r.random() < 0.2 else
                     self.moved(self.alive[entity_id]))
                u.upserts.append(e)
                self.alive[entity_id] = e
            for _ in range(r.randint(1, 3)):
                e = self.entity(self.next_id)
                self.next_id += 1
                u.upserts.append(e)
                self.alive[e.id] = e
        self.column_groups(u)
        return u

    def ball(self, radius):
        if self.three:
            return cc.sphere(self.coord(), self.coord(), self.coord(), radius)
        return cc.circle(self.coord(), self.coord(), radius)

    def queries(self):
        r = self.rng
        origin = pb.Vec3(x=self.coord(), y=self.coord(),
                         z=self.coord() if self.three else 0)
        direction = pb.Vec3(x=r.choice((1.0, 0.6, -1.0)),
                            y=r.choice((0.0, 0.8)),
                            z=r.choice((0.0, 1.0)) if self.three else 0)
        qs = [
            s.SceneQuery(overlap=s.OverlapQuery(
                shape=self.ball(8), include_relation=True,
                include_separation=True)),
            s.SceneQuery(raycast=s.RaycastQuery(
                origin=origin, direction=direction, max_distance=80)),
            s.SceneQuery(raycast=s.RaycastQuery(
                origin=origin, direction=direction, max_distance=80,
                all_hits=True), mask=2, exclude_id=3),
            s.SceneQuery(nearest=s.NearestQuery(
                shape=self.ball(0 if r.random() < 0.5 else 1), k=3)),
            s.SceneQuery(sweep=s.SweepQuery(
                origin=origin, direction=direction, max_distance=60,
                radius=0.5, all_hits=True)),
        ]
        if self.first_tick is not None and self.tick > self.first_tick + 6:
            at = s.SceneMoment(tick=self.tick - 5, fraction=0.25)
            qs.append(s.SceneQuery(overlap=s.OverlapQuery(
                shape=self.ball(10)), at=at))
            qs.append(s.SceneQuery(raycast=s.RaycastQuery(
                origin=origin, direction=direction, max_distance=80,
                all_hits=True), at=at))
        if (self.first_tick is not None and
                self.tick > self.first_tick + 3 * HISTORY):
            qs.append(s.SceneQuery(overlap=s.OverlapQuery(
                shape=self.ball(10)), at=s.SceneMoment(
                    tick=self.tick - 2 * HISTORY)))
        return qs

    def next(self):
        """The next tick's message."""
        self.tick += 2 if self.rng.random() < 0.1 else 1
        if self.first_tick is None:
            self.first_tick = self.tick
        request = s.SceneRequest(update=self.update())
        request.queries.extend(self.queries())
        return request


def unbroken_answers(binary, flags, scene_config, requests):
    """The answers of one raw Session stream, on a server of its own, to
    `requests` sent one at a time: each a SceneResponse, or the StreamError
    of a rejected message."""
    with LiveServer(binary, flags) as server, \
            cc.Client(server.address) as client:
        outbox = queue.SimpleQueue()
        call = scene_pb2_grpc.SceneServiceStub(client.channel).Session(
            iter(outbox.get, None), timeout=120)
        try:
            outbox.put(s.SceneRequest(sequence=1, config=scene_config))
            opened = next(call)
            assert not opened.HasField("error"), opened
            out = []
            for i, request in enumerate(requests):
                message = s.SceneRequest()
                message.CopyFrom(request)
                message.sequence = i + 2
                outbox.put(message)
                response = next(call)
                assert response.sequence == i + 2, response
                out.append(response.error if response.HasField("error")
                           else response)
            return out
        finally:
            outbox.put(None)
            call.cancel()


class Record:
    """Every message a test sent, with what the session answered."""

    def __init__(self):
        self.sent = []      # SceneRequest, in order
        self.outcomes = []  # SceneResponse or CallError, in the same order

    def check_against_unbroken(self, test, binary, flags, scene_config):
        """Every answer equals the unbroken stream's, every verdict has its
        code; messages failed by their stream's end are left out of it."""
        kept = [(request, outcome)
                for request, outcome in zip(self.sent, self.outcomes)
                if not (isinstance(outcome, cc.CallError) and
                        outcome.sequence is None)]
        want = unbroken_answers(binary, flags, scene_config,
                                [request for request, _ in kept])
        rewound = clamped = 0
        for i, ((request, got), expected) in enumerate(zip(kept, want)):
            where = "message %d (tick %d)" % (i, request.update.tick)
            if isinstance(expected, pb.StreamError):
                test.assertIsInstance(got, cc.CallError, where)
                test.assertEqual(got.code().value[0], expected.code, where)
                test.assertEqual(got.details(), expected.message, where)
                continue
            test.assertIsInstance(got, s.SceneResponse, "%s: %s" %
                                  (where, got))
            test.assertEqual((got.tick, got.entities),
                             (expected.tick, expected.entities), where)
            for q, (a, b) in enumerate(zip(got.results, expected.results)):
                test.assertEqual(a, b, "%s, query %d" % (where, q))
                if request.queries[q].HasField("at"):
                    rewound += 1
                    clamped += b.clamped
            test.assertEqual(len(got.results), len(expected.results), where)
        return rewound, clamped


async def drive(scene, game, record, until, window=4, pace=0.004,
                on_tick=None):
    """Ticks `game` into `scene` with up to `window` messages in flight
    (each tick's answer collected `window` ticks later) until `until()`,
    then collects the rest. `on_tick(n)` runs after each send. Fails past
    TEST_LIMIT_S."""
    end = time.monotonic() + TEST_LIMIT_S
    in_flight = collections.deque()

    async def collect():
        index, future = in_flight.popleft()
        try:
            record.outcomes[index] = await future
        except cc.CallError as e:
            record.outcomes[index] = e

    n = 0
    while not until():
        if time.monotonic() > end:
            raise AssertionError("still ticking after %d s (%d ticks, %d "
                                 "reopens)" % (TEST_LIMIT_S, n, scene.reopens))
        request = game.next()
        record.sent.append(request)
        record.outcomes.append(None)
        in_flight.append((len(record.sent) - 1, scene.send(request)))
        n += 1
        if on_tick is not None:
            on_tick(n)
        while len(in_flight) >= window:
            await collect()
        if pace:
            await asyncio.sleep(pace)
    while in_flight:
        await collect()


class Replica(LiveServer):
    """A server that tells how many scenes it hosts (its /metrics)."""

    def __init__(self, flags=()):
        super().__init__(ARGS.server, ("--metrics_address=127.0.0.1:0",) +
                         tuple(flags))
        found = re.search(r"metrics=127\.0\.0\.1:(\d+)", self.log_text())
        assert found, self.log_text()
        self.metrics = "http://127.0.0.1:%s/metrics" % found.group(1)

    def scenes_open(self):
        if self.proc.poll() is not None:
            return 0
        with urllib.request.urlopen(self.metrics, timeout=5) as r:
            text = r.read().decode()
        found = re.search(r"^collision_scenes_open (\S+)$", text, re.M)
        return int(float(found.group(1))) if found else 0


def client_of(replicas, **options):
    target = "ipv4:" + ",".join(r.address for r in replicas)
    return cc.AsyncClient(target, load_balancing="round_robin",
                          health_check_service=SERVICE, **options)


class ReplicaTestCase(unittest.TestCase):
    """Two replicas, started with FLAGS, stopped after each test."""
    FLAGS = ()

    def setUp(self):
        self.replicas = [Replica(self.FLAGS)]
        self.addCleanup(self.replicas[0].stop)
        self.replicas.append(Replica(self.FLAGS))
        self.addCleanup(self.replicas[1].stop)

    def host(self):
        """The replica hosting the one scene of the test, or None."""
        hosts = [r for r in self.replicas if r.scenes_open() > 0]
        return hosts[0] if len(hosts) == 1 else None


class FailoverThroughAgeing(ReplicaTestCase):
    FLAGS = AGEING

    def run_scene(self, dimension):
        record = Record()
        game = Game(dimension)

        async def run():
            async with client_of(self.replicas) as client:
                await client.wait_until_serving(timeout=20)
                scene = await client.open_scene(config(dimension))
                await drive(scene, game, record,
                            until=lambda: scene.reopens >= 2)
                await scene.close()
                return scene.reopens

        reopens = asyncio.run(run())
        self.assertGreaterEqual(reopens, 2)
        self.assertTrue(all(isinstance(o, s.SceneResponse)
                            for o in record.outcomes))
        rewound, clamped = record.check_against_unbroken(
            self, ARGS.server, (), config(dimension))
        self.assertGreater(rewound, 100)
        self.assertGreater(clamped, 10)

    def test_a_2d_scene_of_every_kind(self):
        self.run_scene(s.DIMENSION_2D)

    def test_a_3d_scene_of_every_kind(self):
        self.run_scene(s.DIMENSION_3D)


class FailoverThroughDrain(ReplicaTestCase):
    # SIGTERM: NOT_SERVING for 200 ms, then the streams get 1 s to end.
    FLAGS = ("--drain_grace=200ms", "--shutdown_deadline=1s")

    def test_the_hosting_replica_drains(self):
        record = Record()
        drained = []

        async def run():
            async with client_of(self.replicas) as client:
                await client.wait_until_serving(timeout=20)
                scene = await client.open_scene(config())

                def on_tick(n):
                    if n >= 60 and not drained:
                        host = self.host()
                        if host is not None:
                            host.proc.send_signal(signal.SIGTERM)
                            drained.append(host)

                await drive(scene, Game(), record, on_tick=on_tick,
                            until=lambda: scene.reopens >= 1 and
                            drained[0].proc.poll() is not None and
                            len(record.sent) > 200)
                await scene.close()
                return scene.reopens

        self.assertEqual(asyncio.run(run()), 1)
        self.assertEqual(drained[0].proc.returncode, 0)
        self.assertTrue(all(isinstance(o, s.SceneResponse)
                            for o in record.outcomes))
        rewound, _ = record.check_against_unbroken(self, ARGS.server, (),
                                                   config())
        self.assertGreater(rewound, 100)


class FailoverThroughKill(ReplicaTestCase):

    def test_the_hosting_replica_is_killed_then_the_other(self):
        record = Record()
        killed = []

        async def run():
            async with client_of(self.replicas) as client:
                await client.wait_until_serving(timeout=20)
                scene = await client.open_scene(
                    config(), max_reopens=5, first_backoff=0.02,
                    max_backoff=0.2)

                def on_tick(n):
                    if n >= 60 and not killed:
                        host = self.host()
                        if host is not None:
                            host.proc.send_signal(signal.SIGKILL)
                            killed.append(host)

                await drive(scene, Game(), record, on_tick=on_tick,
                            until=lambda: scene.reopens >= 1 and
                            len(record.sent) > 200)
                reopens = scene.reopens
                # The other replica goes too: the messages in flight fail
                # with UNAVAILABLE after the bounded attempts.
                for r in self.replicas:
                    if r.proc.poll() is None:
                        r.proc.send_signal(signal.SIGKILL)
                        r.proc.wait()
                game = Game(seed=8)
                started = time.monotonic()
                lost = [scene.send(game.next()) for _ in range(3)]
                errors = await asyncio.gather(*lost, return_exceptions=True)
                waited = time.monotonic() - started
                await scene.close()
                return reopens, errors, waited

        reopens, errors, waited = asyncio.run(run())
        self.assertEqual(reopens, 1)
        self.assertTrue(all(isinstance(o, s.SceneResponse)
                            for o in record.outcomes))
        record.check_against_unbroken(self, ARGS.server, (), config())
        for e in errors:
            self.assertIsInstance(e, cc.CallError)
            self.assertEqual(e.code(), grpc.StatusCode.UNAVAILABLE)
            self.assertIn("could not be reopened after 5 attempts",
                          e.details())
        self.assertLess(waited, 10)


# Limits small enough to refuse on purpose: 8 queries per message, and
# messages up to 4 KiB (a tick of the game is well under it).
LIMITS = ("--scene_max_queries=8", "--max_receive_message_bytes=4096")


class RefusingGame(Game):
    """The "upserts" game, with refused messages at known ticks: a bad
    radius (tick % 50 == 10), too many queries (% 50 == 20), a message over
    the receive limit (% 50 == 30)."""

    def __init__(self):
        super().__init__(mode="upserts")

    def queries(self):
        return super().queries()[:3]

    def next(self):
        request = super().next()
        what = self.tick % 50
        if what == 10:
            request.update.upserts.add(id=77, shape=cc.circle(0, 0, -1))
        elif what == 20:
            request.queries.extend(super().queries())
        elif what == 30:
            for i in range(300):
                request.update.upserts.add(id=1000 + i,
                                           shape=cc.circle(i, 0, 1))
        return request


def check_refusals(test, record):
    """The refused messages failed with the documented errors, alone;
    returns how many of each kind were sent."""
    seen = collections.Counter()
    for request, outcome in zip(record.sent, record.outcomes):
        what = request.update.tick % 50
        if what not in (10, 20, 30):
            test.assertIsInstance(outcome, s.SceneResponse,
                                  "tick %d: %s" % (request.update.tick,
                                                   outcome))
            continue
        test.assertIsInstance(outcome, cc.CallError)
        seen[what] += 1
        if what == 10:
            test.assertIsInstance(outcome, cc.InvalidRequest)
            test.assertEqual(outcome.sequence is None, False)
            test.assertEqual(outcome.field_violations, [cc.FieldViolation(
                "update.upserts[8].shape.circle.radius",
                "must be >= 0, got -1")])
        elif what == 20:
            test.assertEqual(outcome.code(),
                             grpc.StatusCode.RESOURCE_EXHAUSTED)
            test.assertIsNotNone(outcome.sequence)
            test.assertIn("queries", outcome.details())
        else:  # the server ended the stream over it
            test.assertEqual(outcome.code(),
                             grpc.StatusCode.RESOURCE_EXHAUSTED)
            test.assertIsNone(outcome.sequence)
            test.assertIn("larger than max", outcome.details())
    return seen


class LimitsRefuseOneMessage(unittest.TestCase):

    def test_refused_messages_fail_alone_and_the_scene_goes_on(self):
        record = Record()
        with LiveServer(ARGS.server, LIMITS) as server:

            async def run():
                async with cc.AsyncClient(server.address) as client:
                    scene = await client.open_scene(config())
                    await drive(scene, RefusingGame(), record, pace=0,
                                until=lambda: len(record.sent) >= 160)
                    await scene.close()
                    return scene.reopens

            reopens = asyncio.run(run())
        seen = check_refusals(self, record)
        self.assertEqual(sorted(seen), [10, 20, 30])
        self.assertEqual(reopens, seen[30])  # one per message over the limit
        record.check_against_unbroken(self, ARGS.server, LIMITS, config())


class StreamDeadlineFailsOneMessage(unittest.TestCase):

    def test_the_oldest_message_in_flight_fails_and_the_rest_go_on(self):
        record = Record()
        with LiveServer(ARGS.server) as server:

            async def run():
                async with cc.AsyncClient(server.address,
                                          stream_deadline=0.5) as client:
                    scene = await client.open_scene(config())
                    await drive(scene, Game(mode="upserts"), record,
                                pace=0, window=6,
                                until=lambda: scene.reopens >= 3)
                    await scene.close()
                    return scene.reopens

            reopens = asyncio.run(run())
        failed = [o for o in record.outcomes
                  if not isinstance(o, s.SceneResponse)]
        for e in failed:
            self.assertIsInstance(e, cc.CallError)
            self.assertEqual(e.code(), grpc.StatusCode.DEADLINE_EXCEEDED)
            self.assertIsNone(e.sequence)
        # One message per stream at most, the one the deadline caught (a
        # stream whose deadline comes during its replay is no reopen).
        self.assertGreaterEqual(len(failed), 1)
        self.assertLessEqual(len(failed), 2 * (reopens + 1))
        record.check_against_unbroken(self, ARGS.server, (), config())


def wait_stopped(pid, timeout_s=10.0):
    """Waits (bounded) until every thread of `pid` is stopped: a SIGSTOP
    takes effect as each thread next runs, which on a busy machine can
    come after the next messages were answered."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            states = []
            for tid in os.listdir("/proc/%d/task" % pid):
                with open("/proc/%d/task/%s/stat" % (pid, tid)) as f:
                    stat = f.read()
                states.append(stat[stat.rindex(")") + 2])
            if states and all(st == "T" for st in states):
                return
        except OSError:
            pass
        time.sleep(0.005)


def stall(server, after_s):
    """Stops `server` (SIGSTOP: it holds its connections and answers
    nothing) and lets it go on (SIGCONT) `after_s` later; returns a
    function that lets it go on at once."""
    server.proc.send_signal(signal.SIGSTOP)
    wait_stopped(server.proc.pid)
    timer = threading.Timer(after_s, server.proc.send_signal,
                            (signal.SIGCONT,))
    timer.start()

    def resume():
        timer.cancel()
        server.proc.send_signal(signal.SIGCONT)
    return resume


class SendDoesNotWaitForTheServer(unittest.TestCase):
    """send() hands the message over and returns, even while the server
    answers nothing (SIGSTOP); the answers come, in order, once it does."""

    def test_ticks_are_handed_over_while_the_server_is_stopped(self):
        with LiveServer(ARGS.server) as server:

            async def run():
                async with cc.AsyncClient(server.address) as client:
                    scene = await client.open_scene(config(),
                                                    message_timeout=None)
                    game = Game(mode="upserts")
                    server.proc.send_signal(signal.SIGSTOP)
                    wait_stopped(server.proc.pid)
                    try:
                        started = time.monotonic()
                        futures = [scene.send(game.next())
                                   for _ in range(5)]
                        handed_over = time.monotonic() - started
                        await asyncio.sleep(0.2)  # the loop goes on
                        waiting = [f.done() for f in futures]
                    finally:
                        server.proc.send_signal(signal.SIGCONT)
                    answers = await asyncio.gather(*futures)
                    await scene.close()
                    return handed_over, waiting, answers

            handed_over, waiting, answers = asyncio.run(run())
        self.assertLess(handed_over, 5)  # not the server's time: none
        self.assertEqual(waiting, [False] * 5)
        self.assertEqual([a.tick for a in answers],
                         sorted(a.tick for a in answers))


class StalledServerTimesOneMessageOut(unittest.TestCase):
    """A server that stops answering for a second (SIGSTOP): each message
    unanswered past message_timeout (0.3 s) fails with DEADLINE_EXCEEDED,
    oldest first, while the session reopens the scene; once the server
    answers again every message is answered as an unbroken stream would."""

    def test_the_oldest_messages_time_out_and_the_rest_go_on(self):
        record = Record()
        with LiveServer(ARGS.server) as server:
            resume = []

            def on_tick(n):
                if n == 100:
                    resume.append(stall(server, 1.0))

            async def run():
                async with cc.AsyncClient(server.address) as client:
                    scene = await client.open_scene(config(),
                                                    message_timeout=0.3)
                    await drive(scene, Game(mode="upserts"), record,
                                on_tick=on_tick,
                                until=lambda: len(record.sent) >= 400)
                    await scene.close()

            try:
                asyncio.run(run())
            finally:
                for r in resume:
                    r()
        failed = [o for o in record.outcomes
                  if not isinstance(o, s.SceneResponse)]
        self.assertGreaterEqual(len(failed), 1)
        for e in failed:
            self.assertIsInstance(e, cc.CallError)
            self.assertEqual(e.code(), grpc.StatusCode.DEADLINE_EXCEEDED)
            self.assertIn("message_timeout", e.details())
        record.check_against_unbroken(self, ARGS.server, (), config())


class BlockingSessionSurvivesAgeingAndLimits(unittest.TestCase):

    def test_ageing_streams(self):
        record = Record()
        game = Game()
        with LiveServer(ARGS.server, AGEING) as server, \
                cc.Client(server.address) as client:
            end = time.monotonic() + TEST_LIMIT_S
            with client.open_scene(config()) as scene:
                while scene.reopens < 2:
                    self.assertLess(time.monotonic(), end)
                    request = game.next()
                    record.sent.append(request)
                    record.outcomes.append(scene.send(request))
                    time.sleep(0.004)
        rewound, _ = record.check_against_unbroken(self, ARGS.server, (),
                                                   config())
        self.assertGreater(rewound, 100)

    def test_a_stalled_server(self):
        record = Record()
        game = Game(mode="upserts")
        with LiveServer(ARGS.server) as server, \
                cc.Client(server.address) as client:
            resume = None
            try:
                with client.open_scene(config(),
                                       message_timeout=0.3) as scene:
                    for n in range(150):
                        if n == 50:
                            resume = stall(server, 1.0)
                        request = game.next()
                        record.sent.append(request)
                        try:
                            record.outcomes.append(scene.send(request))
                        except cc.CallError as e:
                            record.outcomes.append(e)
            finally:
                if resume is not None:
                    resume()
        failed = [o for o in record.outcomes
                  if not isinstance(o, s.SceneResponse)]
        self.assertGreaterEqual(len(failed), 1)
        for e in failed:
            self.assertEqual(e.code(), grpc.StatusCode.DEADLINE_EXCEEDED)
        record.check_against_unbroken(self, ARGS.server, (), config())

    def test_refusals(self):
        record = Record()
        game = RefusingGame()
        with LiveServer(ARGS.server, LIMITS) as server, \
                cc.Client(server.address) as client:
            with client.open_scene(config()) as scene:
                for _ in range(110):
                    request = game.next()
                    record.sent.append(request)
                    try:
                        record.outcomes.append(scene.send(request))
                    except cc.CallError as e:
                        record.outcomes.append(e)
                reopens = scene.reopens
        seen = check_refusals(self, record)
        self.assertEqual(sorted(seen), [10, 20, 30])
        self.assertEqual(reopens, seen[30])
        record.check_against_unbroken(self, ARGS.server, LIMITS, config())


def main():
    global ARGS
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--server", required=True, help="collision_server binary")
    ARGS, rest = p.parse_known_args(sys.argv[1:])
    unittest.main(argv=[sys.argv[0]] + rest)


if __name__ == "__main__":
    main()
