"""The per-tick stream: one QueryStream, one request per tick.

    with client.open_session() as session:
        answer = session.call(intersect_request(pairs))     # one tick
        # or pipelined: send now, receive later (replies come in order)
        seq = session.send(request)
        reply = session.receive()        # StreamReply(sequence, answer)

A request the server rejects raises InvalidRequest (a CallError) from
receive()/call() with its `sequence`; the stream stays open. A stream the
server ends for its age or a drain, or a lost connection (UNAVAILABLE,
ABORTED, CANCELLED) is reopened, on whichever server the channel picks,
and the requests not yet answered are resent in order: the caller sees
every reply, in order, and no error. The session keeps each request until
its reply is received (the price of the resend). A stream that cannot be
reopened raises CallError with sequence None, and so does every later call.

Threading: send() may run on one thread while receive() runs on another;
do not call either from two threads at once. With many requests sent and
none received the server eventually stops reading (flow control): receive
on another thread when pipelining deeply.
"""

from __future__ import annotations

import collections
import queue
import threading
import time
from typing import (Any, Callable, Deque, Dict, Iterator, NamedTuple,
                    Optional, Union)

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
        # Guards _pending, _outbox, _call, _closed: send() and receive()'s
        # reopening may run on different threads.
        self._lock = threading.Lock()
        self._pending: Deque[pb.QueryStreamRequest] = collections.deque()
        self._next_sequence = 1
        self._closed = False
        self._failed: Optional[CallError] = None
        self._reopens = 0
        self._open()

    def _open(self) -> None:
        """A new stream carrying the unanswered requests; holds _lock (or is
        the constructor)."""
        outbox: "queue.SimpleQueue[Any]" = queue.SimpleQueue()
        for request in self._pending:
            outbox.put(request)
        self._outbox = outbox
        self._call = self._open_call(_requests(outbox))

    @property
    def outstanding(self) -> int:
        """Requests sent and not yet received."""
        return len(self._pending)

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
        with self._lock:
            if self._failed is not None:
                raise self._failed
            if self._closed:
                raise RuntimeError("the session is closed")
            self._pending.append(message)
            self._outbox.put(message)
            self._next_sequence = message.sequence + 1
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

    def receive(self) -> StreamReply:
        """Blocks for the reply to the oldest request not yet answered.

        Raises InvalidRequest/CallError (with .sequence) when the server
        rejected that request; CallError with sequence None when the stream
        failed for good; RuntimeError when nothing is outstanding.
        """
        if self._failed is not None:
            raise self._failed
        if not self._pending:
            raise RuntimeError("nothing to receive: send() a request first")
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
                return self._reply(response)
            if retry and self._reopen and attempt < self._max_reopens and (
                    not self._closed):
                if attempt:
                    time.sleep(min(self._max_backoff,
                                   self._first_backoff * 2**(attempt - 1)))
                attempt += 1
                with self._lock:
                    self._outbox.put(None)  # frees the old request thread
                    self._open()
                    self._reopens += 1
                continue
            self._failed = error
            raise error

    def _reply(self, response: pb.QueryStreamResponse) -> StreamReply:
        with self._lock:
            expected = self._pending.popleft().sequence
        if response.sequence != expected:
            self._failed = CallError(
                grpc.StatusCode.INTERNAL, "the server answered sequence %d "
                "when %d was next" % (response.sequence, expected))
            self._call.cancel()
            raise self._failed
        if response.HasField("error"):
            raise error_from_stream(response.error, response.sequence)
        field = response.WhichOneof("answer")
        if field is None:
            raise CallError(grpc.StatusCode.INTERNAL,
                            "sequence %d: a response with neither an answer "
                            "nor an error" % response.sequence,
                            sequence=response.sequence)
        return StreamReply(response.sequence, getattr(response, field))

    def call(self, request: StreamRequest, *,
             sequence: Optional[int] = None) -> Answer:
        """send() then receive(): the answer to this request (the response
        message of its kind). Raises RuntimeError when earlier replies have
        not been received."""
        if self._pending:
            raise RuntimeError("call() with %d replies not received: "
                               "receive() them first" % len(self._pending))
        self.send(request, sequence=sequence)
        return self.receive().answer

    def close(self) -> None:
        """Half-closes the stream and waits for the server to end it,
        dropping replies not received. Idempotent."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._outbox.put(None)
        try:
            for _ in self._call:
                pass
        except grpc.RpcError:
            pass

    def cancel(self) -> None:
        """Ends the stream now, without waiting for replies."""
        with self._lock:
            self._closed = True
            self._outbox.put(None)
        self._call.cancel()

    def __enter__(self) -> "QuerySession":
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        if exc_type is None:
            self.close()
        else:
            self.cancel()
