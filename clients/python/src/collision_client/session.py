"""The per-tick stream: one QueryStream, one request per tick.

    with client.open_session() as session:
        answer = session.call(intersect_request(pairs))     # one tick
        # or pipelined: send now, receive later (replies come in order)
        seq = session.send(request)
        reply = session.receive()        # StreamReply(sequence, answer)

A game loop that must not block polls instead: try_receive() returns the
next reply if it is already here and None if not; receive(timeout=s) waits
at most s seconds for it. "Not yet" loses nothing: the reply stays first in
line for the next poll.

    session.send(request, sequence=tick)
    while session.outstanding:          # each frame: take what is here
        reply = session.try_receive()   # or receive(timeout=0.002)
        if reply is None:
            break                       # not yet: poll again next frame
        apply(reply.sequence, reply.answer)

Replies are read on a thread of the session's own (a daemon named
collision-session-reader, started by the first send()) into a queue that
every receive, blocking or not, reads; it holds the replies read and not
yet received.

A request the server rejects raises InvalidRequest (a CallError) from
receive()/try_receive()/call() with its `sequence`; the stream stays open.
A stream the server ends for its age or a drain, or a lost connection
(UNAVAILABLE, ABORTED, CANCELLED) is reopened, on whichever server the
channel picks, and the requests not yet answered are resent in order: the
caller sees every reply, in order, and no error. The reopening happens on
the reader thread, so a poll never waits for it. The session keeps each
request until its reply is read (the price of the resend). A stream that
cannot be reopened raises CallError with sequence None, and so does every
later call.

Threading: send() may run on one thread while receive() runs on another;
do not call either from two threads at once. close() waits for the server
to end the stream (bounded by the client's stream_deadline, if any);
cancel() does not wait. Close or cancel every session: its reader thread
holds it until then.
"""

from __future__ import annotations

import collections
import queue
import threading
from typing import (Any, Callable, Deque, Dict, Iterator, NamedTuple,
                    Optional, Union, overload)

import grpc
from collision.v1 import collision_pb2 as pb

from .errors import CallError, error_from_rpc, error_from_stream

_FIELD_OF_REQUEST = {
    pb.IntersectRequest: "intersect",
    pb.ClosestPointRequest: "closest_point",
    pb.IntersectColumnsRequest: "intersect_columns",
    pb.ClosestPointColumnsRequest: "closest_point_columns",
}
_REOPEN_CODES = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.ABORTED,
                 grpc.StatusCode.CANCELLED)

Answer = Union[pb.IntersectResponse, pb.ClosestPointResponse,
               pb.IntersectColumnsResponse, pb.ClosestPointColumnsResponse]
StreamRequest = Union[pb.IntersectRequest, pb.ClosestPointRequest,
                      pb.IntersectColumnsRequest,
                      pb.ClosestPointColumnsRequest, pb.QueryStreamRequest]


class StreamReply(NamedTuple):
    sequence: int
    answer: Answer  # the response message of the request's kind


def _requests(outbox: "queue.SimpleQueue[Any]"
              ) -> Iterator[pb.QueryStreamRequest]:
    while True:
        item = outbox.get()
        if item is None:  # half-close
            return
        yield item


def _reply_of(response: pb.QueryStreamResponse
              ) -> Union[StreamReply, CallError]:
    """The reply of a response, or the error of the request it rejects."""
    if response.HasField("error"):
        return error_from_stream(response.error, response.sequence)
    field = response.WhichOneof("answer")
    if field is None:
        return CallError(grpc.StatusCode.INTERNAL,
                         "sequence %d: a response with neither an answer "
                         "nor an error" % response.sequence,
                         sequence=response.sequence)
    return StreamReply(response.sequence, getattr(response, field))


class QuerySession:
    """One QueryStream session; open it with Client.open_session()."""

    def __init__(self, open_call: Callable[[Iterator[pb.QueryStreamRequest]],
                                           Any], *,
                 reopen: bool = True, max_reopens: int = 8,
                 first_backoff: float = 0.02,
                 max_backoff: float = 1.0) -> None:
        if max_reopens < 0 or not 0 <= first_backoff <= max_backoff:
            raise ValueError("need max_reopens >= 0 and 0 <= first_backoff "
                             "<= max_backoff")
        self._open_call = open_call
        self._reopen = reopen
        self._max_reopens = max_reopens
        self._first_backoff = first_backoff
        self._max_backoff = max_backoff
        # Guards the members below and is notified on every change of them:
        # the caller's threads (send, receive, close) and the reader thread
        # share them. _call and _outbox change only under it, on the reader
        # thread (reopening), which alone reads the stream.
        self._changed = threading.Condition()
        # Requests sent whose replies are not read yet, oldest first (what
        # a reopening resends); then the replies read and not yet received,
        # in order (a rejected request's CallError in its reply's place).
        self._pending: Deque[pb.QueryStreamRequest] = collections.deque()
        self._ready: Deque[Union[StreamReply, CallError]] = (
            collections.deque())
        self._next_sequence = 1
        self._closed = False
        self._failed: Optional[CallError] = None
        self._reopens = 0
        self._reader: Optional[threading.Thread] = None
        self._reader_done = False
        self._open()

    def _open(self) -> None:
        """A new stream carrying the unanswered requests; holds _changed (or
        is the constructor)."""
        outbox: "queue.SimpleQueue[Any]" = queue.SimpleQueue()
        for request in self._pending:
            outbox.put(request)
        self._outbox = outbox
        self._call = self._open_call(_requests(outbox))

    @property
    def outstanding(self) -> int:
        """Requests sent and not yet received."""
        with self._changed:
            return len(self._pending) + len(self._ready)

    @property
    def reopens(self) -> int:
        """Streams reopened so far."""
        return self._reopens

    def send(self, request: StreamRequest, *,
             sequence: Optional[int] = None) -> int:
        """Sends one request (any of the four request kinds, a batch with a
        `.request`, or a whole QueryStreamRequest) tagged with `sequence`
        (default: the previous one + 1, from 1; a QueryStreamRequest keeps
        its own). Returns the sequence number."""
        message = self._wrap(getattr(request, "request", request), sequence)
        with self._changed:
            if self._failed is not None:
                raise self._failed
            if self._closed:
                raise RuntimeError("the session is closed")
            self._pending.append(message)
            self._outbox.put(message)
            self._next_sequence = message.sequence + 1
            if self._reader is None:
                self._reader = threading.Thread(
                    target=self._read_ahead, daemon=True,
                    name="collision-session-reader")
                self._reader.start()
            self._changed.notify_all()
        return message.sequence

    def _wrap(self, request: Any,
              sequence: Optional[int]) -> pb.QueryStreamRequest:
        if isinstance(request, pb.QueryStreamRequest):
            if sequence is None:
                return request
            message = pb.QueryStreamRequest()
            message.CopyFrom(request)
            message.sequence = sequence
            return message
        field = _FIELD_OF_REQUEST.get(type(request))
        if field is None:
            raise TypeError("a QueryStream carries Intersect, ClosestPoint, "
                            "IntersectColumns or ClosestPointColumns "
                            "requests, got %s" % type(request).__name__)
        seq = self._next_sequence if sequence is None else sequence
        fields: Dict[str, Any] = {"sequence": seq, field: request}
        return pb.QueryStreamRequest(**fields)

    @overload
    def receive(self, timeout: None = None) -> StreamReply:
        ...

    @overload
    def receive(self, timeout: float) -> Optional[StreamReply]:
        ...

    def receive(self, timeout: Optional[float] = None
                ) -> Optional[StreamReply]:
        """The reply to the oldest request not yet received, waiting at most
        `timeout` seconds for it (None: as long as it takes). Returns None
        when it has not arrived by then (it stays first in line); never
        without a timeout.

        Raises InvalidRequest/CallError (with .sequence) when the server
        rejected that request; CallError with sequence None when the stream
        failed for good; RuntimeError when nothing is outstanding.
        """
        with self._changed:
            if not self._changed.wait_for(self._receivable, timeout):
                return None
            if self._ready:
                reply = self._ready.popleft()
            elif self._failed is not None:
                raise self._failed
            elif self._closed:
                raise RuntimeError("the session is closed")
            else:
                raise RuntimeError("nothing to receive: send() a request "
                                   "first")
        if isinstance(reply, CallError):
            raise reply
        return reply

    def try_receive(self) -> Optional[StreamReply]:
        """receive(timeout=0): the next reply if it is already here, else
        None. Never waits."""
        return self.receive(timeout=0)

    def _receivable(self) -> bool:
        return bool(self._ready or self._failed is not None or
                    not self._pending or self._reader_done)

    def _read_ahead(self) -> None:
        """The reader thread: reads each reply as soon as one is awaited,
        until the stream fails for good or the session is closed with none
        awaited."""
        try:
            while True:
                with self._changed:
                    self._changed.wait_for(
                        lambda: self._pending or self._closed)
                    if not self._pending:
                        return
                if not self._read_reply():
                    return
        finally:
            with self._changed:
                self._reader_done = True
                if self._failed is None and not self._closed:  # a bug
                    self._failed = CallError(grpc.StatusCode.INTERNAL,
                                             "the session's reader stopped")
                self._changed.notify_all()

    def _read_reply(self) -> bool:
        """Reads the reply to the oldest request awaited into _ready,
        reopening a broken stream; False when the stream failed for good."""
        attempt = 0
        while True:
            try:
                response = next(self._call)
            except StopIteration:
                error = CallError(grpc.StatusCode.INTERNAL,
                                  "the stream ended with %d requests "
                                  "unanswered" % len(self._pending))
                retry = False
            except grpc.RpcError as e:
                error = error_from_rpc(e)
                retry = error.code() in _REOPEN_CODES
            else:
                return self._take(response)
            if not (retry and self._reopen and attempt < self._max_reopens
                    and self._reopen_stream(attempt)):
                with self._changed:
                    self._failed = error
                    self._changed.notify_all()
                return False
            attempt += 1

    def _reopen_stream(self, attempt: int) -> bool:
        """A new stream resending the requests awaited: at once the first
        time for a reply (a stream ageing out is routine), after a backoff
        later (a replica may be gone). False when the session was closed
        meanwhile."""
        with self._changed:
            if attempt:
                self._changed.wait_for(
                    lambda: self._closed,
                    min(self._max_backoff,
                        self._first_backoff * 2**(attempt - 1)))
            if self._closed:
                return False
            self._outbox.put(None)  # frees the old request thread
            self._open()
            self._reopens += 1
            return True

    def _take(self, response: pb.QueryStreamResponse) -> bool:
        """Queues the reply to the oldest request awaited (popping it in the
        same step, so it is never uncounted); False when out of order."""
        with self._changed:
            expected = self._pending.popleft().sequence
            if response.sequence == expected:
                self._ready.append(_reply_of(response))
            else:
                self._failed = CallError(
                    grpc.StatusCode.INTERNAL, "the server answered sequence "
                    "%d when %d was next" % (response.sequence, expected))
            self._changed.notify_all()
            if self._failed is None:
                return True
        self._call.cancel()
        return False

    def call(self, request: StreamRequest, *,
             sequence: Optional[int] = None) -> Answer:
        """send() then receive(): the answer to this request (the response
        message of its kind). Raises RuntimeError when earlier replies have
        not been received."""
        outstanding = self.outstanding
        if outstanding:
            raise RuntimeError("call() with %d replies not received: "
                               "receive() them first" % outstanding)
        self.send(request, sequence=sequence)
        return self.receive().answer

    def close(self) -> None:
        """Half-closes the stream and waits for the server to end it,
        dropping replies not received. Idempotent."""
        with self._changed:
            if self._closed:
                return
            self._closed = True
            self._outbox.put(None)
            self._changed.notify_all()
        self._join_reader()  # once it has read the replies awaited
        try:
            for _ in self._call:
                pass
        except grpc.RpcError:
            pass
        with self._changed:
            self._pending.clear()
            self._ready.clear()

    def cancel(self) -> None:
        """Ends the stream now, without waiting for replies."""
        with self._changed:
            self._closed = True
            self._outbox.put(None)
            self._changed.notify_all()
            call = self._call  # not one a reopening is replacing
        call.cancel()
        self._join_reader()  # its read fails at once now

    def _join_reader(self) -> None:
        if self._reader is not None:
            self._reader.join()

    def __enter__(self) -> "QuerySession":
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        if exc_type is None:
            self.close()
        else:
            self.cancel()
