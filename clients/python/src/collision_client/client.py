"""Client: one channel to a collision.v1 server, reused for every call.

    from collision_client import Client, circle, rect_from_corner_size, \\
        intersect_request

    with Client("127.0.0.1:50051") as client:
        client.wait_until_serving(timeout=10)
        reply = client.intersect(intersect_request(
            [(circle(25, 25, 5), rect_from_corner_size(10, 20, 10, 10))]))
        reply.results[0].hit

Every call has a deadline (`deadline`, default 5 s; `timeout=` per call).
Failed calls raise CallError, or InvalidRequest for INVALID_ARGUMENT with
the fields at fault (see errors.py); both are grpc.RpcError subclasses.
UNAVAILABLE (how the server sheds load, with a pushback trailer gRPC
honours) is retried by gRPC itself from the channel's service config,
within a retry budget (retryThrottling) so a struggling server is not
hammered.
"""

from __future__ import annotations

import dataclasses
import json
import os
import time
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple, Union

import grpc
from collision.v1 import collision_pb2 as pb
from collision.v1 import collision_pb2_grpc, scene_pb2

from . import _health
from .column_batch import ClosestPointColumnsBatch, IntersectColumnsBatch
from .errors import error_from_rpc
from .scene import SESSION_METHOD, SceneSession
from .session import QuerySession

PemSource = Union[bytes, str, "os.PathLike[str]", None]
"""PEM data as bytes, or the path of a PEM file (str or PathLike)."""
MetadataValue = Union[str, bytes]


@dataclasses.dataclass(frozen=True)
class RetryPolicy:
    """Retries of calls that fail with UNAVAILABLE, done by gRPC (see the
    gRPC retry design, A6). Times in seconds."""
    max_attempts: int = 4  # 2..5 (gRPC caps at 5); the first call counts
    initial_backoff: float = 0.02
    max_backoff: float = 1.0
    backoff_multiplier: float = 2.0
    # Retry budget: retries stop while tokens <= max_tokens / 2; each
    # failure costs 1 token and each success gives back token_ratio.
    max_tokens: int = 100
    token_ratio: float = 0.1

    def __post_init__(self) -> None:
        if not (2 <= self.max_attempts <= 5 and
                0 < self.initial_backoff <= self.max_backoff and
                self.backoff_multiplier > 0 and self.max_tokens > 0 and
                self.token_ratio > 0):
            raise ValueError(
                "retry: need 2 <= max_attempts <= 5, 0 < initial_backoff <= "
                "max_backoff, backoff_multiplier > 0, max_tokens > 0 and "
                "token_ratio > 0")


def service_config(retries: Optional[RetryPolicy],
                   load_balancing: Optional[str] = None,
                   health_check_service: Optional[str] = None) -> str:
    """The channel's service config JSON (as the C++ client builds it)."""
    config: Dict[str, Any] = {}
    if load_balancing:
        config["loadBalancingConfig"] = [{load_balancing: {}}]
    if retries is not None:
        config["methodConfig"] = [{
            "name": [{"service": "collision.v1.CollisionService"}],
            "retryPolicy": {
                "maxAttempts": retries.max_attempts,
                "initialBackoff": "%.6fs" % retries.initial_backoff,
                "maxBackoff": "%.6fs" % retries.max_backoff,
                "backoffMultiplier": retries.backoff_multiplier,
                "retryableStatusCodes": ["UNAVAILABLE"],
            },
        }]
        config["retryThrottling"] = {"maxTokens": retries.max_tokens,
                                     "tokenRatio": round(retries.token_ratio,
                                                         3)}
    if health_check_service:
        config["healthCheckConfig"] = {"serviceName": health_check_service}
    return json.dumps(config, separators=(",", ":"))


def _check_metadata(key: str, value: MetadataValue) -> None:
    allowed = set("abcdefghijklmnopqrstuvwxyz0123456789-_.")
    if (not key or not set(key) <= allowed or key.startswith("grpc-") or
            key == "authorization"):
        raise ValueError(
            "metadata key %r must be lowercase letters, digits, '-', '_' or "
            "'.', not grpc-* nor authorization (use token=)" % key)
    if key.endswith("-bin"):
        if not isinstance(value, bytes):
            raise ValueError("metadata value of %r (a -bin key) must be "
                             "bytes" % key)
    elif not isinstance(value, str) or any(
            not 0x20 <= ord(c) <= 0x7E for c in value):
        raise ValueError("metadata value of %r must be printable ASCII "
                         "text" % key)


def _read_pem(source: PemSource, what: str) -> Optional[bytes]:
    if source is None or isinstance(source, bytes):
        return source
    try:
        with open(source, "rb") as f:
            data = f.read()
    except OSError as e:
        raise ValueError("%s: cannot read %r: %s" %
                         (what, os.fspath(source), e.strerror)) from None
    if not data:
        raise ValueError("%s: %r is empty" % (what, os.fspath(source)))
    return data


def _as_request(request: Any, request_type: Any, method: str) -> Any:
    if isinstance(request, request_type):
        return request
    inner = getattr(request, "request", None)  # a batch builder
    if isinstance(inner, request_type):
        return inner
    raise TypeError("%s takes a %s (or a batch of one), got %s" %
                    (method, request_type.DESCRIPTOR.name,
                     type(inner if inner is not None else request).__name__))


class ChannelSettings:
    """A channel's target, credentials (None: plaintext), gRPC options and
    per-call metadata, from the Client options (see Client), checked.
    Client and AsyncClient build their channels from it."""

    def __init__(self, target: str, *, deadline: Optional[float],
                 stream_deadline: Optional[float],
                 metadata: Iterable[Tuple[str, MetadataValue]],
                 token: Optional[str], tls: Optional[bool],
                 root_certificates: PemSource,
                 certificate_chain: PemSource,
                 private_key: PemSource,
                 server_name: Optional[str],
                 retries: Union[RetryPolicy, int, None],
                 load_balancing: Optional[str],
                 health_check_service: Optional[str],
                 connect_timeout: float,
                 max_receive_message_bytes: int,
                 channel_options: Sequence[Tuple[str, Any]]) -> None:
        if not target:
            raise ValueError("target is empty")
        for name, value in (("deadline", deadline),
                            ("stream_deadline", stream_deadline)):
            if value is not None and not value > 0:
                raise ValueError("%s must be > 0 seconds or None" % name)
        if not 0.001 <= connect_timeout <= 86400:
            raise ValueError("connect_timeout must be between 0.001 and "
                             "86400 seconds")
        if isinstance(retries, int) and not isinstance(retries, bool):
            retries = (RetryPolicy(max_attempts=retries + 1)
                       if retries else None)
        self.metadata: List[Tuple[str, MetadataValue]] = []
        for key, value in metadata:
            _check_metadata(key, value)
            self.metadata.append((key, value))
        if token is not None:
            if not token or "\r" in token or "\n" in token:
                raise ValueError("token is empty or has a line break")
            self.metadata.append(("authorization", "Bearer " + token))
        if health_check_service and any(c in health_check_service
                                         for c in "\"\\"):
            raise ValueError("health_check_service has a quote or backslash")
        self.target = target
        self.deadline = deadline
        self.stream_deadline = stream_deadline
        self.service_config = service_config(
            retries if isinstance(retries, RetryPolicy) else None,
            load_balancing, health_check_service)
        options: List[Tuple[str, Any]] = [
            ("grpc.max_receive_message_length", max_receive_message_bytes),
            ("grpc.service_config", self.service_config),
            ("grpc.enable_retries", 1 if retries else 0),
            # gRPC takes a connection attempt's deadline from this argument
            # (its "minimum connect timeout"); the backoff has its own.
            ("grpc.min_reconnect_backoff_ms",
             max(1, round(connect_timeout * 1000))),
        ]
        tls_files = (root_certificates, certificate_chain, private_key)
        if tls is None:
            tls = any(f is not None for f in tls_files) or bool(server_name)
        if tls:
            if (certificate_chain is None) != (private_key is None):
                raise ValueError("certificate_chain and private_key go "
                                 "together")
            credentials = grpc.ssl_channel_credentials(
                root_certificates=_read_pem(root_certificates,
                                            "root_certificates"),
                private_key=_read_pem(private_key, "private_key"),
                certificate_chain=_read_pem(certificate_chain,
                                            "certificate_chain"))
            if server_name:
                options.append(("grpc.ssl_target_name_override", server_name))
            self.credentials: Optional[grpc.ChannelCredentials] = credentials
        elif any(f is not None for f in tls_files):
            raise ValueError("TLS options given with tls=False")
        else:
            self.credentials = None
        self.options = options + list(channel_options)


class Client:
    """A client of one collision.v1 target ("host:port", "dns:///name:port",
    "ipv4:127.0.0.1:1,127.0.0.1:2", ...). The channel connects lazily, on
    the first call.

    Options (all keyword-only):

    - deadline: seconds every unary call may take (default 5); None for
      none. stream_deadline: of each stream of a QuerySession or a scene
      session (default None: a session lives as long as the game does).
    - metadata: (key, value) pairs sent on every call (tracing ids, tenant):
      lowercase keys, not grpc-* nor authorization; printable ASCII values,
      bytes for "-bin" keys. token: sent as `authorization: Bearer <token>`
      on every call (also on plaintext channels: keep those on trusted
      networks).
    - tls: use TLS (default: when any of the TLS options is given); with no
      root_certificates, the system roots. root_certificates,
      certificate_chain, private_key (mutual TLS: both of the last two):
      PEM bytes or file paths. server_name: check the server's certificate
      against this name instead of the target's host (tests, IP targets).
    - retries: a RetryPolicy (the default one: 4 attempts on UNAVAILABLE,
      20 ms to 1 s backoff), an int number of retries (0 = none), or None.
    - load_balancing: "round_robin" spreads calls over every address of the
      target (default: gRPC's pick_first). health_check_service: with
      round_robin, stop sending to servers whose grpc.health.v1 status for
      this service is NOT_SERVING (e.g. draining).
    - connect_timeout: seconds one connection attempt (TCP, TLS, the
      server's first HTTP/2 SETTINGS) may take before it fails and the
      channel backs off (default 5; gRPC's own is 20): an address that
      accepts TCP and never answers fails calls UNAVAILABLE "connection
      attempt timed out" instead of letting each run to its deadline.
    - max_receive_message_bytes: largest response accepted (64 MiB).
    - channel_options: more gRPC channel arguments, passed as they are.
    """

    def __init__(self, target: str, *, deadline: Optional[float] = 5.0,
                 stream_deadline: Optional[float] = None,
                 metadata: Iterable[Tuple[str, MetadataValue]] = (),
                 token: Optional[str] = None, tls: Optional[bool] = None,
                 root_certificates: PemSource = None,
                 certificate_chain: PemSource = None,
                 private_key: PemSource = None,
                 server_name: Optional[str] = None,
                 retries: Union[RetryPolicy, int, None] = RetryPolicy(),
                 load_balancing: Optional[str] = None,
                 health_check_service: Optional[str] = None,
                 connect_timeout: float = 5.0,
                 max_receive_message_bytes: int = 64 * 1024 * 1024,
                 channel_options: Sequence[Tuple[str, Any]] = ()) -> None:
        settings = ChannelSettings(
            target, deadline=deadline, stream_deadline=stream_deadline,
            metadata=metadata, token=token, tls=tls,
            root_certificates=root_certificates,
            certificate_chain=certificate_chain, private_key=private_key,
            server_name=server_name, retries=retries,
            load_balancing=load_balancing,
            health_check_service=health_check_service,
            connect_timeout=connect_timeout,
            max_receive_message_bytes=max_receive_message_bytes,
            channel_options=channel_options)
        self._metadata = settings.metadata
        self.target = target
        self.deadline = deadline
        self.stream_deadline = stream_deadline
        self.service_config = settings.service_config
        if settings.credentials is not None:
            self.channel = grpc.secure_channel(target, settings.credentials,
                                               settings.options)
        else:
            self.channel = grpc.insecure_channel(target, settings.options)
        self.stub = collision_pb2_grpc.CollisionServiceStub(self.channel)
        self._health_check = self.channel.unary_unary(
            _health.CHECK_METHOD,
            request_serializer=_health.encode_request,
            response_deserializer=_health.decode_response)

    # ---- Calls --------------------------------------------------------------

    def call_options(self, timeout: Optional[float] = None,
                     metadata: Iterable[Tuple[str, MetadataValue]] = ()
                     ) -> Dict[str, Any]:
        """The keyword arguments this client gives a stub call (its deadline
        or `timeout`, its metadata and token plus `metadata`), for calls
        made on `client.stub` or on a stub of your own over
        `client.channel`:

            future = client.stub.Intersect.future(request,
                                                  **client.call_options())
        """
        extra = list(metadata)
        for key, value in extra:
            _check_metadata(key, value)
        return {"timeout": self.deadline if timeout is None else timeout,
                "metadata": tuple(self._metadata + extra)}

    def _unary(self, rpc: Any, request: Any, request_type: Any, method: str,
               timeout: Optional[float],
               metadata: Iterable[Tuple[str, MetadataValue]]) -> Any:
        request = _as_request(request, request_type, method)
        try:
            return rpc(request, **self.call_options(timeout, metadata))
        except grpc.RpcError as e:
            raise error_from_rpc(e) from None

    def intersect(self, request: pb.IntersectRequest, *,
                  timeout: Optional[float] = None,
                  metadata: Iterable[Tuple[str, MetadataValue]] = ()
                  ) -> pb.IntersectResponse:
        """Intersect: do the shapes of each pair touch? `request`: an
        IntersectRequest (see intersect_request)."""
        return self._unary(self.stub.Intersect, request, pb.IntersectRequest,
                           "intersect", timeout, metadata)

    def closest_point(self, request: pb.ClosestPointRequest, *,
                      timeout: Optional[float] = None,
                      metadata: Iterable[Tuple[str, MetadataValue]] = ()
                      ) -> pb.ClosestPointResponse:
        """ClosestPoint: nearest point of each target to its query centre."""
        return self._unary(self.stub.ClosestPoint, request,
                           pb.ClosestPointRequest, "closest_point", timeout,
                           metadata)

    def intersect_columns(self, request: Union[pb.IntersectColumnsRequest,
                                               IntersectColumnsBatch], *,
                          timeout: Optional[float] = None,
                          metadata: Iterable[Tuple[str, MetadataValue]] = ()
                          ) -> pb.IntersectColumnsResponse:
        """IntersectColumns: an IntersectColumnsRequest or an
        IntersectColumnsBatch; decode with hits() or batch.unpack()."""
        return self._unary(self.stub.IntersectColumns, request,
                           pb.IntersectColumnsRequest, "intersect_columns",
                           timeout, metadata)

    def closest_point_columns(
            self, request: Union[pb.ClosestPointColumnsRequest,
                                 ClosestPointColumnsBatch], *,
            timeout: Optional[float] = None,
            metadata: Iterable[Tuple[str, MetadataValue]] = ()
    ) -> pb.ClosestPointColumnsResponse:
        """ClosestPointColumns: a ClosestPointColumnsRequest or a
        ClosestPointColumnsBatch."""
        return self._unary(self.stub.ClosestPointColumns, request,
                           pb.ClosestPointColumnsRequest,
                           "closest_point_columns", timeout, metadata)

    def open_session(self, *, reopen: bool = True, max_reopens: int = 8,
                     metadata: Iterable[Tuple[str, MetadataValue]] = ()
                     ) -> QuerySession:
        """A QuerySession over QueryStream (see session.py). `reopen`: reopen
        a stream the server ages out or drains (or a lost connection) and
        resend the unanswered requests, up to `max_reopens` times per
        reply."""
        options = self.call_options(metadata=metadata)
        options["timeout"] = self.stream_deadline

        def open_call(requests: Any) -> Any:
            return self.stub.QueryStream(requests, **options)

        return QuerySession(open_call, reopen=reopen, max_reopens=max_reopens)

    def open_scene(self, config: scene_pb2.SceneConfig, *,
                   max_reopens: int = 8, first_backoff: float = 0.02,
                   max_backoff: float = 1.0,
                   message_timeout: Optional[float] = 10.0,
                   metadata: Iterable[Tuple[str, MetadataValue]] = ()
                   ) -> SceneSession:
        """Opens a scene (SceneService.Session) with `config` and returns
        its SceneSession: send() blocks for each message's answer, and a
        broken stream is reopened with the acknowledged world (see
        scene.py, which has the options). Raises CallError when the config
        is refused, or when the service stays unavailable (or full) for
        `max_reopens` attempts. Each stream has the client's
        stream_deadline."""
        options = self.call_options(metadata=metadata)
        options["timeout"] = self.stream_deadline
        session_call = self.channel.stream_stream(
            SESSION_METHOD,
            response_deserializer=scene_pb2.SceneResponse.FromString)

        def open_call(requests: Any) -> Any:
            return session_call(requests, **options)

        return SceneSession(open_call, config, max_reopens=max_reopens,
                            first_backoff=first_backoff,
                            max_backoff=max_backoff,
                            message_timeout=message_timeout)

    # ---- Health -------------------------------------------------------------

    def is_serving(self, service: str = "", *,
                   timeout: Optional[float] = None) -> bool:
        """One standard health check of `service` ("" = the whole server):
        True when SERVING. Raises CallError when the check fails."""
        try:
            status = self._health_check(service,
                                        **self.call_options(timeout))
        except grpc.RpcError as e:
            raise error_from_rpc(e) from None
        return status == _health.SERVING

    def wait_until_serving(self, timeout: float = 20.0,
                           service: str = "") -> None:
        """Waits, up to `timeout` seconds, for the connection and for the
        health service to report `service` ("" = the whole server) SERVING.
        Raises TimeoutError with the last answer seen."""
        end = time.monotonic() + timeout
        last = "no answer yet"
        while True:
            remaining = end - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("%s is not serving after %g s: %s" %
                                   (self.target, timeout, last))
            try:
                status = self._health_check(
                    service, wait_for_ready=True,
                    **self.call_options(timeout=remaining))
                if status == _health.SERVING:
                    return
                last = "health: " + _health.STATUS_NAMES.get(status,
                                                             str(status))
            except grpc.RpcError as e:
                error = error_from_rpc(e)
                if error.code() not in (grpc.StatusCode.UNAVAILABLE,
                                        grpc.StatusCode.DEADLINE_EXCEEDED):
                    raise error from None
                last = str(error)
            # NOT_SERVING (starting, or draining): ask again shortly.
            time.sleep(min(0.02, max(0.0, end - time.monotonic())))

    # ---- Lifetime -----------------------------------------------------------

    def close(self) -> None:
        """Closes the channel; calls in flight are cancelled."""
        self.channel.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        self.close()
