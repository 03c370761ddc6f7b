"""Errors of calls and stream messages, with the server's field violations.

A request that fails validation is answered with INVALID_ARGUMENT, a message
for people ("pairs[3].a.circle.radius must be >= 0, got -1; ...") and, for
programs, a google.rpc.BadRequest listing each field at fault: in the
standard `grpc-status-details-bin` trailer of a unary call (a serialized
google.rpc.Status whose details hold the BadRequest), and in
StreamError.bad_request on QueryStream. collision.v1 defines wire-identical
copies of those messages (RpcStatus, StatusDetail, BadRequest), so no
googleapis package is needed.

The list is capped; when it is, its last entry has an empty field and the
description "and N more invalid fields" (FieldViolations.omitted gives N).
"""

from __future__ import annotations

import re
from typing import Any, List, NamedTuple, Optional, Sequence, Tuple

import grpc
from collision.v1 import collision_pb2 as pb
from google.protobuf.message import DecodeError

STATUS_DETAILS_KEY = "grpc-status-details-bin"
BAD_REQUEST_TYPE_URL = "type.googleapis.com/google.rpc.BadRequest"
PUSHBACK_KEY = "grpc-retry-pushback-ms"
_MORE = re.compile(r"^and (\d+) more\b")
_CODES = {code.value[0]: code for code in grpc.StatusCode}


class FieldViolation(NamedTuple):
    """One field at fault: a path into the request ("pairs[3].a.circle.
    radius", "groups[0].circle_rect.b.max_x[17]"; empty for the request as
    a whole) and why ("must be >= 0, got -1")."""
    field: str
    description: str


def omitted_violations(violations: Sequence[Tuple[str, str]]) -> int:
    """N of a capped list's last "and N more invalid fields" entry, else 0."""
    if violations and not violations[-1][0]:
        m = _MORE.match(violations[-1][1])
        if m:
            return int(m.group(1))
    return 0


def _from_bad_request(bad: pb.BadRequest) -> List[FieldViolation]:
    return [FieldViolation(v.field, v.description)
            for v in bad.field_violations]


def _trailing_metadata(error: Any) -> Sequence[Tuple[str, Any]]:
    try:
        return error.trailing_metadata() or ()
    except Exception:  # not a grpc.Call, or a call without trailers
        return ()


def status_details(error: Any) -> Optional[pb.RpcStatus]:
    """The google.rpc.Status (as collision.v1.RpcStatus) of a failed call's
    `grpc-status-details-bin` trailer; None when it has none or it does not
    decode. `error` is a grpc.RpcError raised by a unary call (it is also a
    grpc.Call) or anything with trailing_metadata()."""
    for key, value in _trailing_metadata(error):
        if key == STATUS_DETAILS_KEY and isinstance(value, bytes):
            try:
                return pb.RpcStatus.FromString(value)
            except DecodeError:
                return None
    return None


def _violations_of_status(status: Optional[pb.RpcStatus]
                          ) -> List[FieldViolation]:
    out: List[FieldViolation] = []
    if status is None:
        return out
    for detail in status.details:
        if detail.type_url == BAD_REQUEST_TYPE_URL:
            try:
                out += _from_bad_request(pb.BadRequest.FromString(
                    detail.value))
            except DecodeError:
                pass
    return out


def field_violations(error: Any) -> List[FieldViolation]:
    """The fields at fault of a rejected request, as (field, description)
    pairs; empty when the server sent none.

    `error` may be a grpc.RpcError from a raw stub call, a CallError from
    this package, a StreamError or a BadRequest message.
    """
    if isinstance(error, CallError):
        return list(error.field_violations)
    if isinstance(error, pb.StreamError):
        return _from_bad_request(error.bad_request)
    if isinstance(error, pb.BadRequest):
        return _from_bad_request(error)
    return _violations_of_status(status_details(error))


class CallError(grpc.RpcError):
    """A failed call, or a rejected message of a stream.

    Like the grpc.RpcError it replaces (and is a subclass of): code() is
    the grpc.StatusCode, details() the server's message. Also:

    - message: the same text as details();
    - field_violations: [(field, description)] of a rejected request (see
      the module doc), omitted_violations: how many the capped list left
      out;
    - sequence: the stream message's sequence number for a rejected stream
      message, None for unary calls and for a stream that itself failed;
    - retry_pushback: the seconds the server asked to wait before retrying
      (grpc-retry-pushback-ms), if it did.
    """

    def __init__(self, code: grpc.StatusCode, message: str, *,
                 violations: Sequence[FieldViolation] = (),
                 sequence: Optional[int] = None,
                 trailing_metadata: Sequence[Tuple[str, Any]] = (),
                 retry_pushback: Optional[float] = None) -> None:
        super().__init__("%s: %s" % (code.name, message))
        self._code = code
        self.message = message
        self.field_violations = list(violations)
        self.sequence = sequence
        self.retry_pushback = retry_pushback
        self._trailing_metadata = tuple(trailing_metadata)

    @property
    def omitted_violations(self) -> int:
        return omitted_violations(self.field_violations)

    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str:
        return self.message

    def trailing_metadata(self) -> Tuple[Tuple[str, Any], ...]:
        return self._trailing_metadata


class InvalidRequest(CallError):
    """INVALID_ARGUMENT: the request (or stream message) was rejected whole
    and nothing was computed; field_violations says where and why."""


def _make(code: grpc.StatusCode, message: str, **kwargs: Any) -> CallError:
    cls = InvalidRequest if code == grpc.StatusCode.INVALID_ARGUMENT \
        else CallError
    return cls(code, message, **kwargs)


def error_from_rpc(error: grpc.RpcError) -> CallError:
    """The CallError (InvalidRequest for INVALID_ARGUMENT) of a grpc.RpcError
    raised by a stub call. A CallError is returned as it is."""
    if isinstance(error, CallError):
        return error
    try:
        code = error.code()  # type: ignore[attr-defined]
        message = error.details() or ""  # type: ignore[attr-defined]
    except Exception:
        code, message = grpc.StatusCode.UNKNOWN, str(error)
    trailers = _trailing_metadata(error)
    pushback = None
    for key, value in trailers:
        if key == PUSHBACK_KEY:
            try:
                pushback = int(value) / 1000.0
            except (TypeError, ValueError):
                pass
    return _make(code, message,
                 violations=_violations_of_status(status_details(error)),
                 trailing_metadata=trailers, retry_pushback=pushback)


def error_from_stream(error: pb.StreamError,
                      sequence: Optional[int] = None) -> CallError:
    """The CallError (InvalidRequest for INVALID_ARGUMENT) of a StreamError:
    a stream message the server rejected (its `sequence`), or a scene
    query's SceneQueryResult.error. Its code() is the grpc.StatusCode, not
    the number on the wire."""
    code = _CODES.get(error.code, grpc.StatusCode.UNKNOWN)
    return _make(code, error.message,
                 violations=_from_bad_request(error.bad_request),
                 sequence=sequence)
