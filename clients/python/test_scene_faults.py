#!/usr/bin/python3
"""Scene sessions against a scripted server: every status, at every point.

tests/util/scripted_scene_server (--scripted_server) is a SceneService that
answers like a scene server (sequence, tick, entity count of the world it
received on that stream) except where its fault plan says: end the stream
with a status before answering message N or after answering it, stall,
answer late, answer out of step, or exit (a replica killed). One server per
case, on 127.0.0.1 port 0, waited for on its port file. Each case asserts
the outcome docs/python.md promises, the C++ SceneSession's
(tests/client/scene_session_faults_test.cc):

- a stream ended with UNAVAILABLE, ABORTED or CANCELLED (or OK: ended
  without an answer) is transparent: the message is answered on a new
  stream, against the whole world (config, snapshot, window and the
  message replayed: the entity count says so);
- any other status fails the message in hand with that status (a
  CallError, InvalidRequest for INVALID_ARGUMENT, sequence None) and the
  next message reopens the scene from what the server acknowledged;
- while the scene is being restored (the opening, the snapshot, a window
  update), those four and RESOURCE_EXHAUSTED are retried, the others
  returned for the oldest message;
- a stall (or an answer later than message_timeout) fails the message
  with DEADLINE_EXCEEDED at message_timeout, and the next is answered; an
  answer within it is just late;
- an answer out of step is INTERNAL, and the session recovers;
- a server gone for good gives UNAVAILABLE in bounded time, never a hang.

Test classes (CTest runs each as its own test): BlockingSessionFaults
(SceneSession, one message at a time) and AsyncSessionFaults
(AsyncSceneSession, also with several messages in flight).

  build/ci/clients/python/venv/bin/python \\
      clients/python/test_scene_faults.py \\
      --scripted_server build/ci/tests/util/scripted_scene_server [Class ...]
"""

import argparse
import asyncio
import contextlib
import faulthandler
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import unittest

import collision_client as cc
import grpc
from collision.v1 import scene_pb2 as s

ARGS = None  # parsed command line, set in main()
TEST_LIMIT_S = 90  # what one test method (a whole row of the matrix) may take
C = grpc.StatusCode
# Every status a stream can end with: the 16 errors, and OK (a stream that
# ends cleanly without the answer).
STATUSES = list(C)
ERRORS = [c for c in STATUSES if c != C.OK]  # a StreamError's codes
TRANSPARENT = {C.OK, C.UNAVAILABLE, C.ABORTED, C.CANCELLED}
RETRIED_WHILE_RESTORING = TRANSPARENT | {C.RESOURCE_EXHAUSTED}
SESSION = dict(max_reopens=3, first_backoff=0.001, max_backoff=0.005)
MESSAGE_TIMEOUT = 5.0  # the cases that expect no timeout (a loaded machine)
SHORT_TIMEOUT = 0.4    # the stalls
SLACK = 3.0            # what an outcome may take past its own deadline
IDLE = 0.3             # for a status the server has sent to arrive


def tick_request(t):
    """Tick t: entity t arrives, entity t - 3 leaves."""
    update = s.SceneUpdate(tick=t, upserts=[
        s.SceneEntity(id=t, shape=cc.circle(0, 0, 1))])
    if t > 3:
        update.removals.append(t - 3)
    return s.SceneRequest(update=update)


def entities_after(t):
    return min(t, 3)


def config(history):
    return s.SceneConfig(dimension=s.DIMENSION_2D, history_ticks=history)


class ScriptedServer:
    """scripted_scene_server on 127.0.0.1:0 with `plan` (entries
    MESSAGE:KIND[:ARG]); `address` once its port file exists."""

    def __init__(self, plan):
        self.plan = ",".join(plan)
        self._dir = tempfile.TemporaryDirectory(prefix="collision-faults-")
        port_file = os.path.join(self._dir.name, "port")
        self._log = open(os.path.join(self._dir.name, "log"), "w+")
        self.proc = subprocess.Popen(
            [ARGS.scripted_server, "--port_file=" + port_file,
             "--plan=" + self.plan],
            stdout=self._log, stderr=subprocess.STDOUT)
        # The port file is renamed into place once the server listens:
        # polled in short steps, bounded, failing fast if the server exits.
        deadline = time.monotonic() + 20
        while not os.path.exists(port_file):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                log = self.log_text()
                self.stop()
                raise RuntimeError("scripted_scene_server did not start:\n" +
                                   log)
            time.sleep(0.005)
        with open(port_file) as f:
            self.address = "127.0.0.1:" + f.read().strip()

    def log_text(self):
        self._log.flush()
        self._log.seek(0)
        return self._log.read()

    def streams(self):
        """Streams the server saw opened."""
        return sum(re.fullmatch(r"stream \d+", line) is not None
                   for line in self.log_text().splitlines())

    def wait_for_log(self, line):
        """Until the server logged `line` (bounded): "stream 1 ended: ..."
        is logged just before that status is sent."""
        deadline = time.monotonic() + 5
        while not any(logged.startswith(line)
                      for logged in self.log_text().splitlines()):
            if time.monotonic() > deadline:
                raise AssertionError("the server never logged %r" % line)
            time.sleep(0.005)

    def kill(self):
        self.proc.kill()
        self.proc.wait()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._log.close()
        self._dir.cleanup()


class BlockingDriver:
    """SceneSession (Client.open_scene): send() blocks for its answer."""
    pipelined = False

    def __init__(self, address):
        self.client = cc.Client(address)
        self.session = None

    def open(self, history, message_timeout):
        self.session = self.client.open_scene(
            config(history), message_timeout=message_timeout, **SESSION)

    def send(self, tick):
        """The answer, or the CallError it raised (anything else raises)."""
        try:
            return self.session.send(tick_request(tick))
        except cc.CallError as e:
            return e

    def send_all(self, ticks):
        return [self.send(t) for t in ticks]

    def idle(self, seconds):
        time.sleep(seconds)

    @property
    def reopens(self):
        return self.session.reopens

    def close(self):
        self.session.close()

    def shutdown(self):
        if self.session is not None:
            self.session.cancel()
        self.client.close()


class AsyncDriver:
    """AsyncSceneSession (AsyncClient.open_scene) on a loop of its own,
    run for each step: send_all() hands every tick over before awaiting
    any answer."""
    pipelined = True

    # One loop for every case: grpc.aio's poller outlives a channel, and
    # would post to a closed loop.
    loop = None

    def __init__(self, address):
        if AsyncDriver.loop is None:
            AsyncDriver.loop = asyncio.new_event_loop()
        self.loop = AsyncDriver.loop
        self.session = None

        async def make():
            return cc.AsyncClient(address)
        self.client = self._run(make())

    def _run(self, coroutine):
        # A step that outlives every deadline it has is a hang.
        return self.loop.run_until_complete(
            asyncio.wait_for(coroutine, MESSAGE_TIMEOUT * 4 + SLACK * 2))

    def open(self, history, message_timeout):
        self.session = self._run(self.client.open_scene(
            config(history), message_timeout=message_timeout, **SESSION))

    def send(self, tick):
        return self.send_all([tick])[0]

    def idle(self, seconds):
        self._run(asyncio.sleep(seconds))

    def send_all(self, ticks):
        async def go():
            futures = [self.session.send(tick_request(t)) for t in ticks]
            return await asyncio.gather(*futures, return_exceptions=True)
        outcomes = self._run(go())
        for outcome in outcomes:
            if (isinstance(outcome, BaseException) and
                    not isinstance(outcome, cc.CallError)):
                raise outcome
        return outcomes

    @property
    def reopens(self):
        return self.session.reopens

    def close(self):
        self._run(self.session.close())

    def shutdown(self):
        if self.session is not None:
            self.session.cancel()
        self._run(self.client.close())


class FaultMatrix:
    """The matrix, for the session self.Driver drives."""
    Driver = None

    def setUp(self):
        # A hang anywhere: every thread's stack, and the test fails.
        faulthandler.dump_traceback_later(TEST_LIMIT_S, exit=True)

    def tearDown(self):
        faulthandler.cancel_dump_traceback_later()

    @contextlib.contextmanager
    def scripted(self, *plan, history=4, message_timeout=MESSAGE_TIMEOUT,
                 open_session=True):
        """A server with `plan` and a driver of it (its session opened)."""
        server = ScriptedServer(plan)
        driver = None
        try:
            driver = self.Driver(server.address)
            if open_session:
                driver.open(history, message_timeout)
            yield server, driver
        except AssertionError as e:
            raise AssertionError("%s\nscripted server, plan %r:\n%s" % (
                e, server.plan, server.log_text())) from None
        finally:
            if driver is not None:
                driver.shutdown()
            server.stop()

    # ---- What an outcome must be -------------------------------------------

    def assert_answer(self, outcome, tick, entities, what):
        self.assertIsInstance(outcome, s.SceneResponse,
                              "%s: want an answer, got %r" % (what, outcome))
        self.assertEqual((outcome.tick, outcome.entities), (tick, entities),
                         "%s: (tick, entities)" % what)

    def assert_error(self, outcome, code, what, scripted=True,
                     details="scripted end", sequence=None):
        """A CallError with `code` (InvalidRequest exactly for
        INVALID_ARGUMENT); `scripted`: the server's own, as it sent it
        (`details`), with `sequence` (None: the stream's, not a verdict on
        a message the caller sent)."""
        self.assertIsInstance(outcome, cc.CallError,
                              "%s: want %s, got %r" % (what, code.name,
                                                       outcome))
        self.assertEqual(outcome.code(), code, "%s: %s" % (what, outcome))
        self.assertEqual(isinstance(outcome, cc.InvalidRequest),
                         code == C.INVALID_ARGUMENT, what)
        if scripted:
            self.assertIn(details, outcome.details(), what)
            self.assertEqual(outcome.sequence, sequence, what)

    def timed(self, step):
        start = time.monotonic()
        outcome = step()
        return outcome, time.monotonic() - start

    # ---- The matrix ---------------------------------------------------------

    def test_stream_ended_between_answers(self):
        """Message 1 opens the scene, 2..4 are ticks 1..3; the stream ends
        with the status instead of answering tick 3."""
        for code in STATUSES:
            with self.subTest(status=code.name), self.scripted(
                    "4:end_before:" + code.name) as (_, d):
                self.assert_answer(d.send(1), 1, 1, "tick 1")
                self.assert_answer(d.send(2), 2, 2, "tick 2")
                third, took = self.timed(lambda: d.send(3))
                self.assertLess(took, MESSAGE_TIMEOUT + SLACK)
                if code in TRANSPARENT:
                    self.assert_answer(third, 3, 3, "tick 3, replayed")
                    self.assertEqual(d.reopens, 1)
                else:
                    self.assert_error(third, code, "tick 3")
                # Reopened from what the server acknowledged: without tick
                # 3, entity 3 never came and 1, 2 leave at ticks 4, 5.
                want = 3 if code in TRANSPARENT else 2
                for t in (4, 5):
                    self.assert_answer(d.send(t), t, want, "tick %d" % t)
                d.close()

    def test_stream_ended_with_messages_in_flight(self):
        """Ticks 1..5 handed over at once; the stream ends with the status
        instead of answering tick 3 (message 4): only tick 3 may fail, the
        others are answered in order against the whole world."""
        if not self.Driver.pipelined:
            self.skipTest("one message at a time")
        for code in STATUSES:
            with self.subTest(status=code.name), self.scripted(
                    "4:end_before:" + code.name) as (_, d):
                outcomes = d.send_all(range(1, 6))
                self.assert_answer(outcomes[0], 1, 1, "tick 1")
                self.assert_answer(outcomes[1], 2, 2, "tick 2")
                if code in TRANSPARENT:
                    for t in (3, 4, 5):
                        self.assert_answer(outcomes[t - 1], t,
                                           entities_after(t), "tick %d" % t)
                    self.assertEqual(d.reopens, 1)
                else:
                    self.assert_error(outcomes[2], code, "tick 3")
                    for t in (4, 5):
                        self.assert_answer(outcomes[t - 1], t, 2,
                                           "tick %d" % t)
                # Entity 3 leaves at tick 6 when it came: 4, 5, 6 either way.
                self.assert_answer(d.send(6), 6, 3, "tick 6")
                d.close()

    def test_stream_ended_after_its_answer(self):
        """Tick 2 (message 3) is answered, then the stream ends with the
        status: the next message must not be lost to the stream that is
        gone (it may carry the status only when it was written before the
        status arrived), and the one after it is answered."""
        for code in STATUSES:
            with self.subTest(status=code.name), self.scripted(
                    "3:end_after:" + code.name) as (_, d):
                self.assert_answer(d.send(1), 1, 1, "tick 1")
                self.assert_answer(d.send(2), 2, 2, "tick 2")
                third = d.send(3)
                if code in TRANSPARENT or isinstance(third, s.SceneResponse):
                    self.assert_answer(third, 3, 3, "tick 3")
                else:
                    self.assert_error(third, code, "tick 3")
                want = 3 if isinstance(third, s.SceneResponse) else 2
                self.assert_answer(d.send(4), 4, want, "tick 4")
                d.close()

    def test_stream_ended_while_idle_costs_no_message(self):
        """As above, but the session is idle long enough for the status to
        arrive before tick 3 is sent: no message was on the stream, so
        none fails; tick 3 goes on a reopened scene (docs/python.md: a
        status fails the message that was the oldest unanswered one)."""
        for code in STATUSES:
            with self.subTest(status=code.name), self.scripted(
                    "3:end_after:" + code.name) as (server, d):
                self.assert_answer(d.send(1), 1, 1, "tick 1")
                self.assert_answer(d.send(2), 2, 2, "tick 2")
                server.wait_for_log("stream 1 ended")
                d.idle(IDLE)
                self.assert_answer(d.send(3), 3, 3, "tick 3")
                self.assertEqual(d.reopens, 1)
                d.close()

    def test_stream_ended_at_the_opening(self):
        """The opening (message 1, the config) gets the status: retried
        while retrying may mend it, else open_scene raises it."""
        for code in STATUSES:
            with self.subTest(status=code.name), self.scripted(
                    "1:end_before:" + code.name,
                    open_session=False) as (server, d):
                if code in RETRIED_WHILE_RESTORING:
                    d.open(4, MESSAGE_TIMEOUT)
                    self.assertEqual(server.streams(), 2)
                    self.assert_answer(d.send(1), 1, 1, "tick 1")
                    d.close()
                else:
                    with self.assertRaises(cc.CallError) as raised:
                        d.open(4, MESSAGE_TIMEOUT)
                    self.assert_error(raised.exception, code, "the opening")
                    self.assertEqual(server.streams(), 1)

    def test_stream_ended_while_the_scene_is_restored(self):
        """History 2: tick 3 (message 4) breaks the stream (UNAVAILABLE);
        the new stream carries the config with a snapshot of tick 1
        (message 5), the window's tick 2 (message 6), then tick 3. The
        status ends the stream at the snapshot or the window update."""
        for at, what in ((5, "snapshot"), (6, "window update")):
            for code in STATUSES:
                with self.subTest(status=code.name, at=what), self.scripted(
                        "4:end_before:UNAVAILABLE",
                        "%d:end_before:%s" % (at, code.name),
                        history=2) as (_, d):
                    self.assert_answer(d.send(1), 1, 1, "tick 1")
                    self.assert_answer(d.send(2), 2, 2, "tick 2")
                    third = d.send(3)
                    if code in RETRIED_WHILE_RESTORING:
                        self.assert_answer(third, 3, 3, "tick 3")
                    else:
                        self.assert_error(third, code, "tick 3")
                        # Tick 3 was never answered: sent again, on a
                        # scene restored whole.
                        self.assert_answer(d.send(3), 3, 3, "tick 3 again")
                    self.assert_answer(d.send(4), 4, 3, "tick 4")
                    d.close()

    def test_stream_ended_while_restoring_with_messages_in_flight(self):
        """As above, with ticks 3 and 4 handed over at once, the snapshot
        or the window update ended with a status or answered with a
        StreamError: the restored stream carries both ticks behind the
        replay; when the restoring fails for good, tick 3 (the oldest)
        fails and tick 4 is answered from a scene restored again."""
        if not self.Driver.pipelined:
            self.skipTest("one message at a time")
        for fault, codes, details in (("end_before", STATUSES, "scripted end"),
                                      ("reject", ERRORS, "scripted verdict")):
            for at, what in ((5, "snapshot"), (6, "window update")):
                for code in codes:
                    self._restore_with_messages_in_flight(
                        "%d:%s:%s" % (at, fault, code.name), code, details,
                        "%s at the %s" % (fault, what))

    def _restore_with_messages_in_flight(self, fault, code, details, what):
        with self.subTest(status=code.name, fault=what), self.scripted(
                "4:end_before:UNAVAILABLE", fault, history=2) as (_, d):
            self.assert_answer(d.send(1), 1, 1, "tick 1")
            self.assert_answer(d.send(2), 2, 2, "tick 2")
            third, fourth = d.send_all([3, 4])
            if code in RETRIED_WHILE_RESTORING:
                self.assert_answer(third, 3, 3, "tick 3")
                self.assert_answer(fourth, 4, 3, "tick 4")
            else:
                self.assert_error(third, code, "tick 3",
                                  details=details)
                # Entity 1 leaves, 4 comes, 3 never did.
                self.assert_answer(fourth, 4, 2, "tick 4")
            d.close()

    def test_a_verdict_fails_its_message_alone(self):
        """The server answers tick 2 (message 3) with a StreamError: that
        message changed nothing, the stream and the scene go on."""
        for code in ERRORS:
            with self.subTest(status=code.name), self.scripted(
                    "3:reject:" + code.name) as (_, d):
                self.assert_answer(d.send(1), 1, 1, "tick 1")
                self.assert_error(d.send(2), code, "tick 2",
                                  details="scripted verdict", sequence=3)
                # The world without tick 2: entities 1 and 3.
                self.assert_answer(d.send(3), 3, 2, "tick 3")
                self.assertEqual(d.reopens, 0)
                d.close()

    def test_a_verdict_on_the_opening_is_retried_or_raised(self):
        for code in ERRORS:
            with self.subTest(status=code.name), self.scripted(
                    "1:reject:" + code.name,
                    open_session=False) as (server, d):
                if code in RETRIED_WHILE_RESTORING:
                    d.open(4, MESSAGE_TIMEOUT)
                    self.assertEqual(server.streams(), 2)
                    self.assert_answer(d.send(1), 1, 1, "tick 1")
                    d.close()
                else:
                    with self.assertRaises(cc.CallError) as raised:
                        d.open(4, MESSAGE_TIMEOUT)
                    self.assert_error(raised.exception, code, "the opening",
                                      details="scripted verdict")
                    self.assertEqual(server.streams(), 1)

    def test_a_verdict_while_the_scene_is_restored(self):
        """As test_stream_ended_while_the_scene_is_restored, the snapshot
        or the window update answered with a StreamError: a verdict on a
        message the caller never sent, so the oldest message fails with
        its status as a stream's (sequence None)."""
        for at, what in ((5, "snapshot"), (6, "window update")):
            for code in ERRORS:
                with self.subTest(status=code.name, at=what), self.scripted(
                        "4:end_before:UNAVAILABLE",
                        "%d:reject:%s" % (at, code.name),
                        history=2) as (_, d):
                    self.assert_answer(d.send(1), 1, 1, "tick 1")
                    self.assert_answer(d.send(2), 2, 2, "tick 2")
                    third = d.send(3)
                    if code in RETRIED_WHILE_RESTORING:
                        self.assert_answer(third, 3, 3, "tick 3")
                    else:
                        self.assert_error(third, code, "tick 3",
                                          details="scripted verdict")
                        self.assert_answer(d.send(3), 3, 3, "tick 3 again")
                    self.assert_answer(d.send(4), 4, 3, "tick 4")
                    d.close()

    def test_a_stall_or_a_garbled_answer_while_restoring(self):
        """The snapshot (message 5) stalls past message_timeout, or is
        answered out of step: not retried (DEADLINE_EXCEEDED, INTERNAL for
        the oldest message); the next send restores the scene whole."""
        for fault, code in (("stall", C.DEADLINE_EXCEEDED),
                            ("out_of_step", C.INTERNAL)):
            with self.subTest(fault=fault), self.scripted(
                    "4:end_before:UNAVAILABLE", "5:" + fault, history=2,
                    message_timeout=SHORT_TIMEOUT) as (_, d):
                self.assert_answer(d.send(1), 1, 1, "tick 1")
                self.assert_answer(d.send(2), 2, 2, "tick 2")
                third, took = self.timed(lambda: d.send(3))
                self.assert_error(third, code, "tick 3", scripted=False)
                self.assertLess(took, SHORT_TIMEOUT + SLACK)
                self.assert_answer(d.send(3), 3, 3, "tick 3 again")
                d.close()

    def test_a_stalled_answer_fails_at_the_message_timeout(self):
        with self.scripted("3:stall",
                           message_timeout=SHORT_TIMEOUT) as (_, d):
            self.assert_answer(d.send(1), 1, 1, "tick 1")
            second, took = self.timed(lambda: d.send(2))
            self.assert_error(second, C.DEADLINE_EXCEEDED, "tick 2",
                              scripted=False)
            self.assertGreaterEqual(took, SHORT_TIMEOUT * 0.9)
            self.assertLess(took, SHORT_TIMEOUT + SLACK)
            self.assert_answer(d.send(2), 2, 2, "tick 2 again")
            d.close()

    def test_a_stall_with_messages_in_flight_fails_only_its_message(self):
        if not self.Driver.pipelined:
            self.skipTest("one message at a time")
        with self.scripted("3:stall",
                           message_timeout=SHORT_TIMEOUT) as (_, d):
            self.assert_answer(d.send(1), 1, 1, "tick 1")
            second, third = d.send_all([2, 3])
            self.assert_error(second, C.DEADLINE_EXCEEDED, "tick 2",
                              scripted=False)
            # The world without tick 2: entities 1 and 3.
            self.assert_answer(third, 3, 2, "tick 3")
            d.close()

    def test_a_late_answer_within_the_timeout_is_an_answer(self):
        with self.scripted("3:delay:300") as (_, d):
            self.assert_answer(d.send(1), 1, 1, "tick 1")
            second, took = self.timed(lambda: d.send(2))
            self.assert_answer(second, 2, 2, "tick 2")
            self.assertGreaterEqual(took, 0.25)
            self.assertEqual(d.reopens, 0)
            d.close()

    def test_an_answer_later_than_the_timeout_fails_its_message(self):
        with self.scripted("3:delay:2000",
                           message_timeout=SHORT_TIMEOUT) as (_, d):
            self.assert_answer(d.send(1), 1, 1, "tick 1")
            second, took = self.timed(lambda: d.send(2))
            self.assert_error(second, C.DEADLINE_EXCEEDED, "tick 2",
                              scripted=False)
            self.assertLess(took, SHORT_TIMEOUT + SLACK)
            self.assert_answer(d.send(2), 2, 2, "tick 2 again")
            d.close()

    def test_an_answer_out_of_step_is_internal_and_the_session_recovers(self):
        with self.scripted("3:out_of_step") as (_, d):
            self.assert_answer(d.send(1), 1, 1, "tick 1")
            self.assert_error(d.send(2), C.INTERNAL, "tick 2", scripted=False)
            self.assert_answer(d.send(2), 2, 2, "tick 2 again")
            self.assert_answer(d.send(3), 3, 3, "tick 3")
            d.close()

    def test_a_server_that_exits_mid_message_is_unavailable_not_a_hang(self):
        """The server exits on reading tick 2 (message 3): connections drop
        with no status, and every reopening is refused."""
        with self.scripted("3:exit") as (_, d):
            self.assert_answer(d.send(1), 1, 1, "tick 1")
            outcomes, took = self.timed(lambda: d.send_all([2, 3]))
            for t, outcome in zip((2, 3), outcomes):
                self.assert_error(outcome, C.UNAVAILABLE, "tick %d" % t,
                                  scripted=False)
            self.assertLess(took, SLACK)
            self.assert_error(d.send(4), C.UNAVAILABLE, "tick 4",
                              scripted=False)
            _, took = self.timed(d.close)
            self.assertLess(took, SLACK)
            self.assert_error(d.send(5), C.FAILED_PRECONDITION,
                              "after close", scripted=False)

    def test_a_server_killed_while_idle_is_unavailable_not_a_hang(self):
        with self.scripted() as (server, d):
            self.assert_answer(d.send(1), 1, 1, "tick 1")
            server.kill()
            second, took = self.timed(lambda: d.send(2))
            self.assert_error(second, C.UNAVAILABLE, "tick 2", scripted=False)
            self.assertIn("could not be reopened after 3 attempts",
                          second.details())
            self.assertLess(took, SLACK)
            _, took = self.timed(d.close)
            self.assertLess(took, SLACK)


class BlockingSessionFaults(FaultMatrix, unittest.TestCase):
    Driver = BlockingDriver


class AsyncSessionFaults(FaultMatrix, unittest.TestCase):
    Driver = AsyncDriver

    @classmethod
    def tearDownClass(cls):
        if AsyncDriver.loop is not None:
            AsyncDriver.loop.close()
            AsyncDriver.loop = None


def main():
    global ARGS
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--scripted_server", required=True,
                   help="the scripted_scene_server binary")
    ARGS, rest = p.parse_known_args(sys.argv[1:])
    unittest.main(argv=[sys.argv[0]] + rest)


if __name__ == "__main__":
    main()
