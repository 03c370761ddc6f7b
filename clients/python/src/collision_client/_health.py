"""grpc.health.v1.Health/Check without generated code.

Generated health stubs, under whatever module path, register the
grpc.health.v1 messages in protobuf's process-wide descriptor pool, and a
second registration from another file name (grpcio-health-checking's
grpc_health/v1/health.proto, a program's own stubs) then fails at import
with "duplicate symbol". A client library must not break its host program
that way, so this module encodes the two one-field messages by hand:

  HealthCheckRequest  { string service = 1; }
  HealthCheckResponse { ServingStatus status = 1; }  // SERVING = 1
"""

from __future__ import annotations

from typing import Tuple

CHECK_METHOD = "/grpc.health.v1.Health/Check"
UNKNOWN, SERVING, NOT_SERVING, SERVICE_UNKNOWN = 0, 1, 2, 3
STATUS_NAMES = {UNKNOWN: "UNKNOWN", SERVING: "SERVING",
                NOT_SERVING: "NOT_SERVING", SERVICE_UNKNOWN: "SERVICE_UNKNOWN"}


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        if not value:
            out.append(byte)
            return bytes(out)
        out.append(byte | 0x80)


def _read_varint(data: bytes, i: int) -> Tuple[int, int]:
    value, shift = 0, 0
    while True:
        if i >= len(data) or shift > 63:
            raise ValueError("truncated varint")
        byte = data[i]
        i += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, i


def encode_request(service: str) -> bytes:
    """A serialized HealthCheckRequest (proto3: an empty string is absent)."""
    name = service.encode("utf-8")
    return b"\x0a" + _varint(len(name)) + name if name else b""


def decode_response(data: bytes) -> int:
    """The status of a serialized HealthCheckResponse (unknown fields are
    skipped, as protobuf does)."""
    status, i = UNKNOWN, 0
    while i < len(data):
        key, i = _read_varint(data, i)
        field, wire_type = key >> 3, key & 7
        if wire_type == 0:
            value, i = _read_varint(data, i)
            if field == 1:
                status = value
        elif wire_type == 2:
            length, i = _read_varint(data, i)
            i += length
        elif wire_type in (1, 5):
            i += 8 if wire_type == 1 else 4
        else:
            raise ValueError("unsupported wire type %d" % wire_type)
        if i > len(data):
            raise ValueError("truncated field %d" % field)
    return status
