"""Scene sessions: a scene on the service that survives its stream.

A scene lives on one SceneService.Session stream (docs/scenes.md). A scene
session keeps the world the server acknowledged, and when the stream breaks
(UNAVAILABLE, ABORTED or CANCELLED, or the stream ending without an answer:
a drain, the server's maximum stream age, a replica killed) it opens a new
stream, on whichever replica the channel picks, and sends the config, a
snapshot of that world at the oldest tick of the history window, the
acknowledged updates of the window (so rewound queries, SceneQuery.at, get
the answers they would have got), then the messages that had no answer, in
order. The game sees neither an error nor an answer computed against a
partial world. This is the C++ client's SceneSession (scene_session.h),
with the same options and errors.

    # asyncio: the game loop hands a tick over and collects it later
    async with cc.AsyncClient("127.0.0.1:50051") as client:
        scene = await client.open_scene(config)
        pending = scene.send(tick_request)     # an asyncio.Future, at once
        ...                                    # the tick's own work
        answer = await pending                 # SceneResponse
        await scene.close()

    # blocking, one message at a time (as the C++ SceneSession)
    with cc.Client("127.0.0.1:50051") as client:
        with client.open_scene(config) as scene:
            answer = scene.send(tick_request)

Errors (each a CallError, InvalidRequest for INVALID_ARGUMENT, with
code() a grpc.StatusCode and the field violations the server listed):

- the server's verdict on a message (its response's `error`: a bad field,
  INVALID_ARGUMENT; a limit, RESOURCE_EXHAUSTED): that message changed
  nothing, `sequence` is the session's number of it, and the scene goes on;
- the stream ended by the server or the channel with any other status while
  the message was the oldest unanswered one (a message over the server's
  --max_receive_message_bytes, RESOURCE_EXHAUSTED; the client's
  stream_deadline, DEADLINE_EXCEEDED; a token refused, ...): that message
  fails with it, and the session reopens the scene on its own for the
  messages after it (the server's scene is gone, the session's world is
  not); a stream that ended while no message was on it fails none: the
  next message goes on a new stream;
- DEADLINE_EXCEEDED when a message is unanswered message_timeout seconds
  (10 s; None: only the stream's deadline) after it was sent on a stream
  (a stalled server): that message fails, the stream is dropped, and the
  messages after it go on a new one;
- when the scene cannot be restored on a new stream for a reason retrying
  will not change (the replay refused, or not answered in time), the
  oldest unanswered message fails with that status (sequence None: the
  refused message was the session's, not the caller's);
- UNAVAILABLE "the scene could not be reopened after N attempts" when
  more than max_reopens streams in a row broke or could not be reopened
  (UNAVAILABLE, RESOURCE_EXHAUSTED, ABORTED, CANCELLED) without an answer
  coming back (backoff between them from first_backoff doubling to
  max_backoff): every unanswered message fails with it, and the next send
  tries again;
- FAILED_PRECONDITION for a send after close() or cancel(); CANCELLED for
  the messages unanswered at cancel().

Sequence numbers and the config of a sent request are the session's (a
request's own are ignored). A request is serialized when it is handed over,
so the caller may reuse or change it afterwards.

Memory, the price of failover: a compact copy of every entity at the oldest
tick of the history window (a tuple of its numbers) plus the serialized
updates of the window (config.history_ticks - 1 at most; by default one
second of ticks), plus the messages not yet answered. The snapshot is one
message: a world bigger than the server's --max_receive_message_bytes
cannot be restored.
"""

from __future__ import annotations

import asyncio
import collections
import queue
import threading
import time
from typing import (Any, Callable, Deque, Dict, Iterator, List, Optional,
                    Tuple)

import grpc
from grpc import aio as grpc_aio
from collision.v1 import scene_pb2

from ._health import _varint
from .errors import CallError, error_from_rpc, error_from_stream

SESSION_METHOD = "/collision.v1.SceneService/Session"
# Statuses that mean the stream failed, not the message: the server draining
# or ageing it out, a connection lost or refused, a replica gone.
_BROKEN = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.ABORTED,
           grpc.StatusCode.CANCELLED)
# A stream that could not be (re)opened with one of these is tried again
# (RESOURCE_EXHAUSTED: a replica full of scenes; another may have room);
# any other status is the message's (or, opening, the config's).
_RETRYABLE = _BROKEN + (grpc.StatusCode.RESOURCE_EXHAUSTED,)


def check_reopen_options(max_reopens: int, first_backoff: float,
                         max_backoff: float,
                         message_timeout: Optional[float] = None) -> None:
    if (max_reopens < 0 or not 0 <= first_backoff <= max_backoff or
            message_timeout is not None and not message_timeout > 0):
        raise ValueError("need max_reopens >= 0, 0 <= first_backoff <= "
                         "max_backoff and message_timeout > 0 (or None)")


def _timed_out(timeout: float) -> CallError:
    return CallError(grpc.StatusCode.DEADLINE_EXCEEDED,
                     "no answer within the session's message_timeout (%g s);"
                     " the scene is reopened for the messages after it" %
                     timeout)


def _backoff(failures: int, first: float, most: float) -> float:
    """The wait before reopening after `failures` streams in a row broke:
    none after the first (a stream ageing out is routine), then first,
    doubling, up to most."""
    if failures < 2:
        return 0.0
    return min(most, first * 2.0**(failures - 2))


def _with_sequence(sequence: int, body: bytes) -> bytes:
    """A serialized SceneRequest: `sequence` (field 1) then `body`, a
    SceneRequest serialized without one (protobuf reads fields in any
    order)."""
    return b"\x08" + _varint(sequence) + body


def _frame(field: int, data: bytes) -> bytes:
    return _varint(field << 3 | 2) + _varint(len(data)) + data


def encode_request(request: scene_pb2.SceneRequest
                   ) -> Tuple[bytes, Optional[Tuple[int, bytes]]]:
    """The body to send (the request without sequence and config) and, if
    it has an update, (tick, the update serialized) to keep once
    acknowledged."""
    if not isinstance(request, scene_pb2.SceneRequest):
        raise TypeError("a scene session sends SceneRequest messages, got %s"
                        % type(request).__name__)
    if request.sequence or request.HasField("config"):
        copy = scene_pb2.SceneRequest()
        copy.CopyFrom(request)
        copy.sequence = 0
        copy.ClearField("config")
        request = copy
    kept = None
    if request.HasField("update"):
        kept = (request.update.tick, request.update.SerializeToString())
    return request.SerializeToString(), kept


# An entity as the world keeps it: its shape's kind, its numbers in field
# order, its category (None: unset, which means 1).
_Kept = Tuple[str, Tuple[float, ...], Optional[int]]


def _keep_shape(s: Any) -> Tuple[str, Tuple[float, ...]]:
    kind = s.WhichOneof("kind")
    if kind == "point":
        return kind, (s.point.x, s.point.y)
    if kind == "circle":
        c = s.circle
        return kind, (c.center.x, c.center.y, c.radius)
    if kind == "rect":
        r = s.rect
        return kind, (r.min.x, r.min.y, r.max.x, r.max.y)
    if kind == "rotated_rect":
        r = s.rotated_rect
        frame = (r.size.x, r.size.y, r.pivot.x, r.pivot.y, r.position.x,
                 r.position.y)
        if r.WhichOneof("orientation") == "angle":
            return "rotated_rect_angle", frame + (r.angle,)
        return "rotated_rect_cos_sin", frame + (r.rotation.cos,
                                                r.rotation.sin)
    if kind == "point3":
        return kind, (s.point3.x, s.point3.y, s.point3.z)
    if kind == "sphere":
        c = s.sphere
        return kind, (c.center.x, c.center.y, c.center.z, c.radius)
    if kind == "box":
        b = s.box
        return kind, (b.min.x, b.min.y, b.min.z, b.max.x, b.max.y, b.max.z)
    if kind == "capsule3":
        c = s.capsule3
        return kind, (c.a.x, c.a.y, c.a.z, c.b.x, c.b.y, c.b.z, c.radius)
    if kind == "oriented_box":
        o = s.oriented_box
        return kind, (o.center.x, o.center.y, o.center.z, o.half_extents.x,
                      o.half_extents.y, o.half_extents.z, o.rotation.w,
                      o.rotation.x, o.rotation.y, o.rotation.z)
    return "none", ()  # the server accepts no such entity


# Per kind: the column message of EntityColumns and its columns, in the
# order the kept numbers have.
_COLUMNS: Dict[str, Tuple[str, Tuple[str, ...]]] = {
    "point": ("circles", ("x", "y")),
    "circle": ("circles", ("x", "y", "radius")),
    "rect": ("rects", ("min_x", "min_y", "max_x", "max_y")),
    "rotated_rect_angle": ("rotated_rects", (
        "size_x", "size_y", "pivot_x", "pivot_y", "position_x",
        "position_y", "angle")),
    "rotated_rect_cos_sin": ("rotated_rects", (
        "size_x", "size_y", "pivot_x", "pivot_y", "position_x",
        "position_y", "cos", "sin")),
    "point3": ("spheres", ("x", "y", "z")),
    "sphere": ("spheres", ("x", "y", "z", "radius")),
    "box": ("boxes", ("min_x", "min_y", "min_z", "max_x", "max_y",
                      "max_z")),
    "capsule3": ("capsules", ("a_x", "a_y", "a_z", "b_x", "b_y", "b_z",
                              "radius")),
    "oriented_box": ("oriented_boxes", (
        "center_x", "center_y", "center_z", "half_x", "half_y", "half_z",
        "rotation_w", "rotation_x", "rotation_y", "rotation_z")),
}


def _kind_of_columns(g: Any) -> Tuple[str, Any]:
    which = g.WhichOneof("shapes")
    if which is None:
        return "none", None
    cols = getattr(g, which)
    if which == "circles":
        return ("circle" if len(cols.radius) else "point"), cols
    if which == "spheres":
        return ("sphere" if len(cols.radius) else "point3"), cols
    if which == "rotated_rects":
        return ("rotated_rect_angle" if len(cols.angle) else
                "rotated_rect_cos_sin"), cols
    by_message = {message: kind for kind, (message, _) in _COLUMNS.items()}
    kind = by_message.get(which)
    if kind is None:
        return "none", None  # a column kind this package does not know
    return kind, cols


class SceneWorld:
    """What a scene session keeps: the acknowledged world at base_tick (the
    history window's oldest tick, or before it) and the acknowledged updates
    after it, oldest first. Shared by both sessions; not thread-safe."""

    def __init__(self, config: scene_pb2.SceneConfig) -> None:
        self.config = scene_pb2.SceneConfig()
        self.config.CopyFrom(config)
        # The server's default: one second at the tick rate (scene.proto).
        rate = config.tick_rate or 64
        self.history_ticks = max(1, config.history_ticks or rate)
        self.entities: Dict[int, _Kept] = {}
        self.base_tick: Optional[int] = None
        self.recent: Deque[Tuple[int, bytes]] = collections.deque()
        self.tick: Optional[int] = None

    def acknowledge(self, kept: Optional[Tuple[int, bytes]]) -> None:
        """The server answered a message carrying this update (or none)."""
        if kept is not None:
            self.tick = kept[0]
            self.recent.append(kept)

    def fold(self) -> None:
        """Applies the updates that left the history window to the world.
        The server keeps ticks [latest - (H - 1), latest]; an update at or
        before the oldest of them only matters as part of the world then."""
        if self.tick is None:
            return
        h = self.history_ticks - 1
        oldest = self.tick - h if self.tick >= h else 0
        while self.recent and self.recent[0][0] <= oldest:
            tick, data = self.recent.popleft()
            self._apply(scene_pb2.SceneUpdate.FromString(data))
            self.base_tick = tick

    def _apply(self, u: Any) -> None:
        world = self.entities
        if u.snapshot:
            world.clear()
        for entity_id in u.removals:
            world.pop(entity_id, None)
        for e in u.upserts:
            kind, values = _keep_shape(e.shape)
            world[e.id] = (kind, values,
                           e.category if e.HasField("category") else None)
        for g in u.upsert_columns:
            kind, cols = _kind_of_columns(g)
            if cols is None:
                continue
            rows = zip(*(getattr(cols, name)
                         for name in _COLUMNS[kind][1]))
            if len(g.categories):
                world.update(zip(g.ids, ((kind, v, c) for v, c in
                                         zip(rows, g.categories))))
            else:
                world.update(zip(g.ids, ((kind, v, None) for v in rows)))

    def snapshot(self) -> scene_pb2.SceneUpdate:
        """The world at base_tick as one snapshot update, in columns."""
        update = scene_pb2.SceneUpdate(tick=self.base_tick, snapshot=True)
        groups: Dict[str, List[Tuple[int, Tuple[float, ...],
                                     Optional[int]]]] = {}
        for entity_id, (kind, values, category) in self.entities.items():
            groups.setdefault(kind, []).append((entity_id, values, category))
        for kind, items in groups.items():
            if kind not in _COLUMNS:
                continue
            message, names = _COLUMNS[kind]
            g = update.upsert_columns.add()
            ids, rows, categories = zip(*items)
            g.ids.extend(ids)
            if any(c is not None for c in categories):
                g.categories.extend(1 if c is None else c
                                    for c in categories)
            cols = getattr(g, message)
            cols.SetInParent()  # a group of points has no radius column
            for name, column in zip(names, zip(*rows)):
                getattr(cols, name).extend(column)
        return update

    def replay(self) -> List[bytes]:
        """What a new stream must carry before the unanswered messages (each
        a body without its sequence): the config with a snapshot of the
        world at base_tick, then the window's updates."""
        opening = scene_pb2.SceneRequest(config=self.config)
        if self.base_tick is not None:
            opening.update.CopyFrom(self.snapshot())
        return [opening.SerializeToString()] + [
            _frame(3, data) for _, data in self.recent]


def _unreachable(attempts: int, last: Optional[CallError]) -> CallError:
    return CallError(grpc.StatusCode.UNAVAILABLE,
                     "the scene could not be reopened after %d attempts; "
                     "last error: %s" % (attempts, last))


def _ended_without_answer() -> CallError:
    return CallError(grpc.StatusCode.UNAVAILABLE,
                     "the scene stream ended without an answer")


def _unusable(error: Exception) -> CallError:
    return CallError(grpc.StatusCode.CANCELLED,
                     "the scene stream could not be used (is the client "
                     "closed?): %s" % error)


def _protocol_error(got: int, expected: int) -> CallError:
    return CallError(grpc.StatusCode.INTERNAL,
                     "the server answered message %d when %d was next" %
                     (got, expected))


class _Broken(Exception):
    """A stream that broke (or could not be reopened), and why."""

    def __init__(self, error: CallError) -> None:
        super().__init__(str(error))
        self.error = error


def _requests(outbox: "queue.SimpleQueue[Optional[bytes]]"
              ) -> Iterator[bytes]:
    while True:
        item = outbox.get()
        if item is None:  # half-close
            return
        yield item


class _Watchdog:
    """Cancels a blocking read that outlives its deadline (the C++
    session's alarm): one thread per session, started on first use."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._armed: Optional[Tuple[float, Any]] = None  # (deadline, call)
        self._fired = False
        self._stopped = False
        self._thread: Optional[threading.Thread] = None

    def arm(self, call: Any, timeout: float) -> None:
        with self._changed:
            self._armed = (time.monotonic() + timeout, call)
            self._fired = False
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, daemon=True,
                    name="collision-scene-watchdog")
                self._thread.start()
            self._changed.notify()

    def disarm(self) -> bool:
        """Whether the read was cancelled for its deadline."""
        with self._changed:
            self._armed = None
            return self._fired

    def stop(self) -> None:
        with self._changed:
            self._stopped = True
            self._changed.notify()
        if self._thread is not None:
            self._thread.join()

    def _run(self) -> None:
        with self._changed:
            while not self._stopped:
                if self._armed is None:
                    self._changed.wait()
                    continue
                deadline, call = self._armed
                remaining = deadline - time.monotonic()
                if remaining > 0:
                    self._changed.wait(remaining)
                    continue
                self._armed = None
                self._fired = True
                call.cancel()


class SceneSession:
    """A scene, one message at a time: send() blocks for its answer (the C++
    SceneSession). Open it with Client.open_scene(config). Not thread-safe:
    one thread per session."""

    def __init__(self, open_call: Callable[[Iterator[bytes]], Any],
                 config: scene_pb2.SceneConfig, *, max_reopens: int = 8,
                 first_backoff: float = 0.02, max_backoff: float = 1.0,
                 message_timeout: Optional[float] = 10.0) -> None:
        check_reopen_options(max_reopens, first_backoff, max_backoff,
                             message_timeout)
        self._open_call = open_call
        self._world = SceneWorld(config)
        self._max_reopens = max_reopens
        self._first_backoff = first_backoff
        self._max_backoff = max_backoff
        self._message_timeout = message_timeout
        self._watchdog = _Watchdog()
        self._call: Any = None
        self._outbox: "queue.SimpleQueue[Optional[bytes]]" = (
            queue.SimpleQueue())
        self._sequence = 0
        self._entities = 0
        self._reopens = 0
        self._closed = False
        try:
            self._open()
        except BaseException:
            self.cancel()
            raise

    # ---- What the session holds ----------------------------------------------

    @property
    def reopens(self) -> int:
        """Streams reopened so far."""
        return self._reopens

    @property
    def entities(self) -> int:
        """Entities in the scene, as the server last acknowledged."""
        return self._entities

    @property
    def tick(self) -> Optional[int]:
        """The tick of the last acknowledged update (None before one)."""
        return self._world.tick

    @property
    def kept_updates(self) -> int:
        """Updates kept for the history window (resent after a reopen)."""
        return len(self._world.recent)

    # ---- Sending ---------------------------------------------------------------

    def _open(self) -> None:
        """The first stream, tried again while retryable (the service
        unavailable, or full); any other refusal of the config raises."""
        failures = 0
        while True:
            try:
                self._reopen()
                return
            except _Broken as e:
                failures += 1
                if (e.error.code() not in _RETRYABLE or
                        failures > self._max_reopens):
                    raise e.error from None
            time.sleep(_backoff(failures + 1, self._first_backoff,
                                self._max_backoff))

    def _write(self, body: bytes) -> int:
        self._sequence += 1
        self._outbox.put(_with_sequence(self._sequence, body))
        return self._sequence

    def _read(self, sequence: int) -> scene_pb2.SceneResponse:
        """The answer to `sequence`; _Broken (the stream dropped) when the
        stream ended without it, or it took longer than message_timeout (an
        answer that came as the timeout fired stands; the stream goes)."""
        if self._message_timeout is not None:
            self._watchdog.arm(self._call, self._message_timeout)
        try:
            response = next(self._call)
        except StopIteration:
            self._watchdog.disarm()
            self._drop_stream()
            raise _Broken(_ended_without_answer()) from None
        except grpc.RpcError as e:
            timed_out = self._watchdog.disarm()
            self._drop_stream()
            raise _Broken(_timed_out(self._message_timeout) if timed_out
                          else error_from_rpc(e)) from None
        if self._watchdog.disarm():
            self._drop_stream()
        if response.sequence != sequence:
            self._drop_stream()
            raise _Broken(_protocol_error(response.sequence, sequence))
        return response

    def _drop_stream(self) -> None:
        if self._call is not None:
            self._outbox.put(None)  # frees gRPC's request thread
            self._call.cancel()
            self._call = None

    def _reopen(self) -> None:
        """A new stream carrying the config and the acknowledged world; on
        failure, _Broken and no stream."""
        self._drop_stream()
        self._world.fold()
        self._outbox = queue.SimpleQueue()
        try:
            self._call = self._open_call(_requests(self._outbox))
        except Exception as e:  # gRPC's own: the channel is closed
            raise _Broken(_unusable(e)) from None
        sequences = [self._write(body) for body in self._world.replay()]
        for sequence in sequences:
            response = self._read(sequence)
            if response.HasField("error"):
                # A verdict on the session's own message (config, snapshot,
                # window): no message of the caller's, so no sequence.
                self._drop_stream()
                raise _Broken(error_from_stream(response.error))

    def send(self, request: scene_pb2.SceneRequest
             ) -> scene_pb2.SceneResponse:
        """Sends one tick's message and returns its answer; raises CallError
        (see the module doc). A broken stream is reopened transparently."""
        if self._closed:
            raise CallError(grpc.StatusCode.FAILED_PRECONDITION,
                            "the scene session is closed")
        body, kept = encode_request(request)
        self._world.fold()  # the previous answer's update, off its path
        last: Optional[CallError] = None
        failures = 0
        while failures <= self._max_reopens:
            if self._call is None:
                time.sleep(_backoff(failures, self._first_backoff,
                                    self._max_backoff))
                try:
                    self._reopen()
                except _Broken as e:
                    if e.error.code() not in _RETRYABLE:
                        raise e.error from None  # this message's
                    last = e.error
                    failures += 1
                    continue
                self._reopens += 1
            elif self._call.done():
                # The stream ended while idle (its status came after the
                # last answer): this message was never on it, so the
                # status is no verdict on it; it goes on a new stream (the
                # stream in hand is never one this send opened: no loop).
                last = (_ended_without_answer()
                        if self._call.code() == grpc.StatusCode.OK
                        else error_from_rpc(self._call))
                self._drop_stream()
                continue
            sequence = self._write(body)
            try:
                response = self._read(sequence)
            except _Broken as e:
                if e.error.code() not in _BROKEN:
                    raise e.error from None  # this message's; reopen next
                last = e.error
                failures += 1
                continue
            if response.HasField("error"):
                raise error_from_stream(response.error, sequence)
            self._world.acknowledge(kept)
            self._entities = response.entities
            return response
        raise _unreachable(self._max_reopens, last)

    def close(self) -> None:
        """Half-closes the stream and waits for the server to end it.
        Idempotent."""
        if self._closed:
            return
        self._closed = True
        if self._call is not None:
            self._outbox.put(None)
            if self._message_timeout is not None:  # a stalled server
                self._watchdog.arm(self._call, self._message_timeout)
            try:
                for _ in self._call:
                    pass
            except grpc.RpcError:
                pass
            self._call = None
        self._watchdog.stop()

    def cancel(self) -> None:
        """Ends the stream now."""
        self._closed = True
        self._drop_stream()
        self._watchdog.stop()

    def __enter__(self) -> "SceneSession":
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        if exc_type is None:
            self.close()
        else:
            self.cancel()


class _Message:
    """A message handed over and not yet answered."""
    __slots__ = ("body", "kept", "future", "sequence", "sent_at")

    def __init__(self, body: bytes, kept: Optional[Tuple[int, bytes]],
                 future: "asyncio.Future[scene_pb2.SceneResponse]") -> None:
        self.body = body
        self.kept = kept
        self.future = future
        self.sequence = 0   # on the current stream, once written
        self.sent_at = 0.0  # the loop's time it was written at


class AsyncSceneSession:
    """A scene for an asyncio game loop: send() hands a tick's message over
    and returns at once a Future of its answer; any number of messages may
    be in flight, answered in order. Open it with
    `await AsyncClient.open_scene(config)`; use it from its event loop
    only."""

    def __init__(self, open_call: Callable[[], Any],
                 config: scene_pb2.SceneConfig, *, max_reopens: int = 8,
                 first_backoff: float = 0.02, max_backoff: float = 1.0,
                 message_timeout: Optional[float] = 10.0) -> None:
        check_reopen_options(max_reopens, first_backoff, max_backoff,
                             message_timeout)
        self._open_call = open_call
        self._world = SceneWorld(config)
        self._max_reopens = max_reopens
        self._first_backoff = first_backoff
        self._max_backoff = max_backoff
        self._message_timeout = message_timeout
        self._loop = asyncio.get_running_loop()
        # Handed over, not yet answered, oldest first; the first `_written`
        # of them are on the current stream.
        self._pending: Deque[_Message] = collections.deque()
        self._written = 0
        self._work = asyncio.Event()   # a message handed over, or closing
        self._wrote = asyncio.Event()  # a message written
        self._replay_started = 0.0
        self._sequence = 0
        self._entities = 0
        self._reopens = 0
        self._progress = False
        self._closing = False
        self._call: Any = None
        self._opened: "asyncio.Future[None]" = self._loop.create_future()
        self._pump = self._loop.create_task(self._run())

    async def _wait_opened(self) -> None:
        """Raises the first stream's failure (the session is then over)."""
        try:
            await asyncio.shield(self._opened)
        except BaseException:
            self.cancel()
            raise

    # ---- What the session holds ----------------------------------------------

    @property
    def reopens(self) -> int:
        """Streams reopened so far."""
        return self._reopens

    @property
    def entities(self) -> int:
        """Entities in the scene, as the server last acknowledged."""
        return self._entities

    @property
    def tick(self) -> Optional[int]:
        """The tick of the last acknowledged update (None before one)."""
        return self._world.tick

    @property
    def kept_updates(self) -> int:
        """Updates kept for the history window (resent after a reopen)."""
        return len(self._world.recent)

    @property
    def in_flight(self) -> int:
        """Messages handed over and not yet answered."""
        return len(self._pending)

    # ---- Sending ---------------------------------------------------------------

    def send(self, request: scene_pb2.SceneRequest
             ) -> "asyncio.Future[scene_pb2.SceneResponse]":
        """Hands one tick's message over; returns at once a Future of its
        SceneResponse, or of its CallError (see the module doc). Raises
        TypeError (only) for something that is not a SceneRequest."""
        future: "asyncio.Future[scene_pb2.SceneResponse]" = (
            self._loop.create_future())
        body, kept = encode_request(request)
        if self._closing or self._pump.done():
            future.set_exception(CallError(
                grpc.StatusCode.FAILED_PRECONDITION,
                "the scene session is closed"))
            return future
        self._pending.append(_Message(body, kept, future))
        self._work.set()
        return future

    async def close(self) -> None:
        """Waits for the answers of the messages in flight, then half-closes
        the stream and waits for the server to end it. Idempotent; never
        raises (the messages' own errors are in their futures)."""
        if not self._closing:
            self._closing = True
            self._work.set()
        try:
            await asyncio.shield(self._pump)
        except (asyncio.CancelledError, Exception):
            pass

    def cancel(self) -> None:
        """Ends the stream now; the messages in flight fail with CANCELLED."""
        self._closing = True
        cancelled = CallError(grpc.StatusCode.CANCELLED,
                              "the scene session was cancelled")
        self._fail_all(cancelled)
        self._settle_open(cancelled)
        if self._call is not None:
            self._call.cancel()
        self._pump.cancel()

    async def __aenter__(self) -> "AsyncSceneSession":
        return self

    async def __aexit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        if exc_type is None:
            await self.close()
        else:
            self.cancel()

    # ---- The pump: one task owns the streams -----------------------------------

    def _fail_all(self, error: CallError) -> None:
        while self._pending:
            message = self._pending.popleft()
            if not message.future.done():
                message.future.set_exception(error)
        self._written = 0

    def _fail_head(self, error: CallError) -> None:
        message = self._pending.popleft()
        self._written = max(0, self._written - 1)
        self._progress = True
        if not message.future.done():
            message.future.set_exception(error)

    def _settle_open(self, error: Optional[BaseException]) -> None:
        if self._opened.done():
            return
        if error is None:
            self._opened.set_result(None)
        else:
            self._opened.set_exception(error)
            self._opened.exception()  # retrieved: open_scene may be gone

    async def _run(self) -> None:
        failures = 0  # streams in a row that ended with no message answered
        last: Optional[CallError] = None
        try:
            while True:
                opening = not self._opened.done()
                if not opening:
                    while not self._pending and not self._closing:
                        self._work.clear()
                        await self._work.wait()
                    if not self._pending:
                        return  # closed, nothing in flight
                if failures > self._max_reopens:
                    error = _unreachable(self._max_reopens, last)
                    if opening:
                        self._settle_open(last or error)
                        return
                    self._fail_all(error)
                    failures = 0
                    continue
                await asyncio.sleep(_backoff(failures, self._first_backoff,
                                             self._max_backoff))
                self._progress = False
                error = await self._stream()
                if error is None:
                    return  # closed, and the stream ended cleanly
                if (not self._opened.done() and
                        error.code() not in _RETRYABLE):
                    self._settle_open(error)  # the config was refused
                    return
                failures = 0 if self._progress else failures + 1
                last = error
        finally:
            cancelled = CallError(grpc.StatusCode.CANCELLED,
                                  "the scene session was cancelled")
            self._settle_open(cancelled)
            self._fail_all(cancelled)

    def _acknowledge(self, message: _Message,
                     response: scene_pb2.SceneResponse) -> None:
        self._pending.popleft()
        self._written -= 1
        self._progress = True
        self._world.acknowledge(message.kept)
        self._entities = response.entities
        if not message.future.done():
            message.future.set_result(response)
        # Folding the update that left the window waits until the game has
        # had its answer.
        self._loop.call_soon(self._world.fold)

    async def _stream(self) -> Optional[CallError]:
        """One stream: the replay, then the messages, until it ends. Returns
        why it ended (None: the session closed and it ended cleanly)."""
        self._world.fold()
        try:
            call = self._open_call()
        except Exception as e:  # gRPC's own: the channel is closed
            return _unusable(e)
        self._call = call
        # Every replay message numbered before the first answer can come,
        # so that the scene is whole only once the last one is answered.
        bodies = self._world.replay()
        replay: Deque[int] = collections.deque(
            range(self._sequence + 1, self._sequence + 1 + len(bodies)))
        self._sequence += len(bodies)
        self._replay_started = self._loop.time()
        writer = self._loop.create_task(
            self._write_all(call, list(zip(replay, bodies))))
        read: Optional["asyncio.Task[Any]"] = None
        try:
            while True:
                if read is None:
                    read = self._loop.create_task(call.read())
                if not await self._answer_in_time(read, replay):
                    error = _timed_out(self._message_timeout or 0)
                elif read.cancelled():  # the call was, under us
                    read = None
                    error = _unusable(RuntimeError("the call was cancelled"))
                else:
                    done, read = read, None
                    try:
                        response = done.result()
                    except grpc.RpcError as e:
                        error = error_from_rpc(e)
                    except Exception as e:  # gRPC's own
                        error = _unusable(e)
                    else:
                        if response is not grpc_aio.EOF:
                            error = self._take(response, replay)
                            if error is None:
                                continue
                        elif self._closing and not self._pending:
                            return None
                        else:
                            error = _ended_without_answer()
                self._ended(error, bool(replay))
                return error
        finally:
            if read is not None:
                read.cancel()
            writer.cancel()
            call.cancel()
            self._call = None
            self._written = 0

    def _ended(self, error: CallError, in_replay: bool) -> None:
        """The stream ended with `error`. The message in hand fails with it
        when the server ended the stream over it (a status that is not a
        transport break: a limit, a deadline, message_timeout), or when
        the scene could not be restored for a reason retrying will not
        change; the others go again on a new stream."""
        if not self._opened.done() or not self._pending:
            return
        if (error.code() not in _RETRYABLE if in_replay else
                self._written and error.code() not in _BROKEN):
            self._fail_head(error)

    async def _answer_in_time(self, read: "asyncio.Task[Any]",
                              replay: Deque[int]) -> bool:
        """Waits for `read`, or until the oldest unanswered message on the
        stream (or the replay) is past message_timeout: False then."""
        if self._message_timeout is None:
            await asyncio.wait({read})
            return True
        while True:
            if replay:
                since = self._replay_started
            elif self._written:
                since = self._pending[0].sent_at
            else:  # nothing awaited: wait for the read or a write
                self._wrote.clear()
                wrote = self._loop.create_task(self._wrote.wait())
                try:
                    done, _ = await asyncio.wait(
                        {read, wrote}, return_when=asyncio.FIRST_COMPLETED)
                finally:
                    wrote.cancel()
                if read in done:
                    return True
                continue
            remaining = since + self._message_timeout - self._loop.time()
            if remaining <= 0:
                return False
            done, _ = await asyncio.wait({read}, timeout=remaining)
            if done:
                return True

    def _take(self, response: scene_pb2.SceneResponse,
              replay: Deque[int]) -> Optional[CallError]:
        """An answer: to the replay, or to the oldest message in flight.
        None, or the error that ends the stream."""
        if replay:
            # Left in `replay` when it ends the stream: the scene was not
            # restored, whichever replay message it was (the last one
            # included), which _ended judges by what retrying may mend.
            expected = replay[0]
            if response.sequence != expected:
                return _protocol_error(response.sequence, expected)
            if response.HasField("error"):
                # A verdict on the session's own message (config, snapshot,
                # window): no message of the caller's, so no sequence.
                return error_from_stream(response.error)
            replay.popleft()
            if not replay:  # the scene is whole again
                if self._opened.done():
                    self._reopens += 1
                else:
                    self._settle_open(None)
            return None
        if not self._written:
            return CallError(grpc.StatusCode.INTERNAL,
                             "the server answered message %d, which was "
                             "not sent" % response.sequence)
        message = self._pending[0]
        if response.sequence != message.sequence:
            return _protocol_error(response.sequence, message.sequence)
        if response.HasField("error"):  # the server's verdict
            self._fail_head(error_from_stream(response.error,
                                              message.sequence))
        else:
            self._acknowledge(message, response)
        return None

    async def _write_all(self, call: Any,
                         replay: List[Tuple[int, bytes]]) -> None:
        """The writer of one stream: the replay (sequence, body), then every
        message handed over, as they come; half-closes once closing with
        none left."""
        try:
            for sequence, body in replay:
                await call.write(_with_sequence(sequence, body))
                self._wrote.set()
            while True:
                while self._written < len(self._pending):
                    if call.done():
                        # Ended (the reader has its status or soon will):
                        # a message written now was never on the stream,
                        # and would be blamed for its status.
                        return
                    message = self._pending[self._written]
                    self._written += 1
                    self._sequence += 1
                    message.sequence = self._sequence
                    message.sent_at = self._loop.time()
                    await call.write(_with_sequence(self._sequence,
                                                    message.body))
                    self._wrote.set()
                if self._closing:
                    await call.done_writing()
                    return
                self._work.clear()
                await self._work.wait()
        except Exception:  # the stream is over: the reader sees why
            return
