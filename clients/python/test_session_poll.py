#!/usr/bin/python3
"""A QuerySession polled from a game loop: try_receive(), receive(timeout).

Test classes (CTest runs each as its own test, naming the class):

- PollingWhileRepliesAreHeld: an in-process CollisionService whose
  QueryStream reads one request at a time and answers it (or ends the
  stream) only when the test says so, so a reply does not exist before
  then and "not yet" is deterministic: polls say None and lose nothing,
  replies come in order, a stream ended while polled is reopened and its
  requests resent, a stream that fails for good fails every later call,
  and close()/cancel() return and stop the reader thread. Also a listener
  that never speaks HTTP/2.
- PollingALiveServer: polls, timed and blocking receives mixed on one
  session of a real collision_server, a rejected request raised from the
  poll with its sequence.
- PollingAcrossAgedStreams: a polled session outlives streams the server
  ends for their age (--max_connection_age=1s) and loses no reply.

  build/ci/clients/python/venv/bin/python \\
      clients/python/test_session_poll.py \\
      --server build/ci/server/collision_server [ClassName ...]
"""

import argparse
import queue
import socket
import sys
import threading
import time
import unittest
from concurrent import futures

import collision_client as cc
import grpc
from collision.v1 import collision_pb2 as pb
from collision.v1 import collision_pb2_grpc as pb_grpc

from live_server import LiveServer

ARGS = None  # parsed command line, set in main()
READER = "collision-session-reader"  # the name of a session's reader thread
HIT = cc.intersect_request([(cc.circle(0, 0, 1), cc.point(1, 0))])
BAD = cc.intersect_request([(cc.circle(0, 0, -1), cc.point(0, 0))])


def poll(session, within_s=20):
    """What a game loop does, frame after frame: try_receive() and short
    receive(timeout) waits in turn until a reply comes (at most `within_s`
    seconds). Errors raise as they come."""
    end = time.monotonic() + within_s
    polls = 0
    while True:
        reply = (session.try_receive() if polls % 2 else
                 session.receive(timeout=0.01))
        if reply is not None:
            return reply
        polls += 1
        if time.monotonic() > end:
            raise AssertionError("no reply within %s s" % within_s)


def readers():
    return [t for t in threading.enumerate() if t.name == READER]


def returns_within(test, fn, seconds=20):
    """Runs fn on a thread of its own and fails `test` if it has not
    returned within `seconds` (generous: it should return at once)."""
    raised = []

    def run():
        try:
            fn()
        except BaseException as e:  # re-raised on the test's thread
            raised.append(e)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    test.assertFalse(thread.is_alive(),
                     "%s did not return within %s s" % (fn, seconds))
    if raised:
        raise raised[0]


class HeldReplies(pb_grpc.CollisionServiceServicer):
    """An in-process QueryStream that reads one request at a time and does
    nothing with it until the test calls answer() (reply with a hit) or
    end_stream(code) (end the stream with that status)."""

    def __init__(self):
        self._arrivals = queue.Queue()  # sequences, as requests are read
        self._verdicts = queue.Queue()  # answer, a StatusCode, None = stop
        self._server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
        pb_grpc.add_CollisionServiceServicer_to_server(self, self._server)
        port = self._server.add_insecure_port("127.0.0.1:0")
        self.address = "127.0.0.1:%d" % port
        self._server.start()

    def QueryStream(self, requests, context):
        for request in requests:
            self._arrivals.put(request.sequence)
            verdict = self._verdicts.get()
            if verdict is None:
                return
            if isinstance(verdict, grpc.StatusCode):
                context.abort(verdict, "ended by the test")
            yield pb.QueryStreamResponse(
                sequence=request.sequence, intersect=pb.IntersectResponse(
                    results=[pb.IntersectResult(hit=True)]))

    def next_arrival(self):
        """The sequence of the next request read (waits at most 20 s)."""
        return self._arrivals.get(timeout=20)

    def answer(self, replies=1):
        for _ in range(replies):
            self._verdicts.put("answer")

    def end_stream(self, code):
        self._verdicts.put(code)

    def stop(self):
        for _ in range(8):  # frees every handler waiting for a verdict
            self._verdicts.put(None)
        self._server.stop(None).wait()


class PollingWhileRepliesAreHeld(unittest.TestCase):

    def setUp(self):
        self.server = HeldReplies()
        # The session's reopening is under test, not gRPC's retries.
        self.client = cc.Client(self.server.address, retries=0)

    def tearDown(self):
        self.client.close()
        self.server.stop()

    def test_polls_say_not_yet_until_the_reply_exists(self):
        with self.client.open_session() as session:
            with self.assertRaises(RuntimeError):
                session.try_receive()  # nothing outstanding
            self.assertEqual([session.send(HIT) for _ in range(3)],
                             [1, 2, 3])
            for sequence in (1, 2, 3):
                self.assertEqual(self.server.next_arrival(), sequence)
                # Read by the server, not answered: however often asked,
                # not yet, and nothing lost.
                for _ in range(3):
                    self.assertIsNone(session.try_receive())
                    self.assertIsNone(session.receive(timeout=0.02))
                self.assertEqual(session.outstanding, 4 - sequence)
                self.server.answer()
                reply = poll(session)
                self.assertEqual(reply.sequence, sequence)
                self.assertTrue(reply.answer.results[0].hit)
            self.assertEqual(session.outstanding, 0)
            with self.assertRaises(RuntimeError):
                session.receive(timeout=0.02)

    def test_a_timed_or_blocking_receive_takes_the_reply_when_it_comes(self):
        with self.client.open_session() as session:
            session.send(HIT)
            session.send(HIT)
            self.assertEqual(self.server.next_arrival(), 1)
            # The replies come a moment after the wait begins (when they
            # do not, the test passes all the same; it then checks less).
            threading.Timer(0.2, self.server.answer, args=(2,)).start()
            reply = session.receive(timeout=20)
            self.assertIsNotNone(reply)
            self.assertEqual(reply.sequence, 1)
            self.assertEqual(session.receive().sequence, 2)

    def test_a_stream_ended_while_polled_is_reopened_unseen(self):
        with self.client.open_session() as session:
            for _ in range(3):
                session.send(HIT)
            self.assertEqual(self.server.next_arrival(), 1)
            self.server.answer()
            self.assertEqual(poll(session).sequence, 1)
            self.assertEqual(self.server.next_arrival(), 2)
            self.server.end_stream(grpc.StatusCode.UNAVAILABLE)
            # On a new stream, 2 and 3 are resent, in order.
            self.assertEqual(self.server.next_arrival(), 2)
            self.assertIsNone(session.try_receive())
            self.server.answer()
            self.assertEqual(poll(session).sequence, 2)
            self.assertEqual(self.server.next_arrival(), 3)
            self.server.answer()
            self.assertEqual(poll(session).sequence, 3)
            self.assertEqual(session.reopens, 1)

    def test_a_stream_that_fails_for_good_fails_every_later_call(self):
        with self.client.open_session(max_reopens=1) as session:
            session.send(HIT)
            self.assertEqual(self.server.next_arrival(), 1)
            self.server.end_stream(grpc.StatusCode.UNAVAILABLE)
            self.assertEqual(self.server.next_arrival(), 1)  # reopened
            self.server.end_stream(grpc.StatusCode.UNAVAILABLE)  # too many
            with self.assertRaises(cc.CallError) as e:
                poll(session)
            self.assertEqual(e.exception.code(), grpc.StatusCode.UNAVAILABLE)
            self.assertIsNone(e.exception.sequence)
            self.assertEqual(session.reopens, 1)
            for later in (session.try_receive, session.receive,
                          lambda: session.send(HIT)):
                with self.assertRaises(cc.CallError) as again:
                    later()
                self.assertEqual(again.exception.code(),
                                 grpc.StatusCode.UNAVAILABLE)
                self.assertIsNone(again.exception.sequence)

    def test_cancel_with_the_reader_waiting_returns(self):
        with self.client.open_session() as session:
            session.send(HIT)
            self.assertEqual(self.server.next_arrival(), 1)
            self.assertIsNone(session.try_receive())
            returns_within(self, session.cancel)
            self.assertEqual(readers(), [])
            with self.assertRaises(cc.CallError) as e:
                session.try_receive()
            self.assertEqual(e.exception.code(), grpc.StatusCode.CANCELLED)

    def test_close_with_the_reader_running_returns(self):
        session = self.client.open_session()
        for _ in range(3):
            session.send(HIT)
        self.assertEqual(self.server.next_arrival(), 1)
        self.assertIsNone(session.try_receive())
        self.server.answer(3)  # close() waits for the stream's end
        returns_within(self, session.close)
        self.assertEqual(readers(), [])
        self.assertEqual(session.outstanding, 0)  # dropped
        with self.assertRaisesRegex(RuntimeError, "closed"):
            session.try_receive()
        with self.assertRaisesRegex(RuntimeError, "closed"):
            session.send(HIT)

    def test_a_silent_server_gives_not_yet_and_cancel_returns(self):
        # A listening socket nobody accepts from: TCP connects, no HTTP/2.
        with socket.socket() as listener:
            listener.bind(("127.0.0.1", 0))
            listener.listen(1)
            target = "127.0.0.1:%d" % listener.getsockname()[1]
            with cc.Client(target, retries=0) as client:
                session = client.open_session()
                session.send(HIT)
                for _ in range(3):
                    self.assertIsNone(session.receive(timeout=0.02))
                self.assertIsNone(session.try_receive())
                self.assertEqual(session.outstanding, 1)
                returns_within(self, session.cancel)
                self.assertEqual(readers(), [])


class ServerTestCase(unittest.TestCase):
    """One collision_server (started with `FLAGS`) and client per class."""
    FLAGS = ()

    @classmethod
    def setUpClass(cls):
        cls.server = LiveServer(ARGS.server, cls.FLAGS)
        cls.client = cc.Client(cls.server.address)

    @classmethod
    def tearDownClass(cls):
        cls.server.stop_after(cls.client)


class PollingALiveServer(ServerTestCase):

    def test_polls_and_receives_mix_in_order_and_raise_rejections(self):
        with self.client.open_session() as session:
            for tick in (1, 2, 3):
                session.send(BAD if tick == 2 else HIT, sequence=tick)
            first = poll(session)
            self.assertEqual(first.sequence, 1)
            self.assertTrue(first.answer.results[0].hit)
            with self.assertRaises(cc.InvalidRequest) as e:
                poll(session)
            self.assertEqual(e.exception.sequence, 2)
            self.assertIn("pairs[0].a.circle.radius",
                          [v.field for v in e.exception.field_violations])
            self.assertEqual(session.receive().sequence, 3)  # the same queue
            with self.assertRaises(RuntimeError):
                session.try_receive()  # nothing outstanding
            self.assertTrue(session.call(HIT).results[0].hit)
            # Outstanding at close: read by the reader, then dropped.
            session.send(HIT)
            session.send(HIT)
        self.assertEqual(readers(), [])


class PollingAcrossAgedStreams(ServerTestCase):
    # Streams end (UNAVAILABLE, between two messages) after 0.9 s.
    FLAGS = ("--max_connection_age=1s", "--max_connection_age_grace=1s")

    def test_a_polled_session_loses_no_reply(self):
        end = time.monotonic() + 3
        received = 0

        def take(reply):
            nonlocal received
            received += 1
            self.assertEqual(reply.sequence, received)
            self.assertTrue(reply.answer.results[0].hit)

        with self.client.open_session() as session:
            while time.monotonic() < end or session.reopens == 0:
                self.assertLess(time.monotonic(), end + 10)
                # Three in flight, so some are unanswered when a stream
                # ends; then one frame: wait at most 5 ms, take what is in.
                while session.outstanding < 3:
                    sent = session.send(HIT)
                reply = session.receive(timeout=0.005)
                while reply is not None:
                    take(reply)
                    reply = (session.try_receive() if session.outstanding
                             else None)
            while session.outstanding:
                reply = session.receive(timeout=20)
                self.assertIsNotNone(reply)
                take(reply)
            self.assertGreaterEqual(session.reopens, 1)
        self.assertEqual(received, sent)
        self.assertGreater(received, 50)


def main():
    global ARGS
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--server", required=True, help="collision_server binary")
    ARGS, rest = p.parse_known_args(sys.argv[1:])
    unittest.main(argv=[sys.argv[0]] + rest)


if __name__ == "__main__":
    main()
