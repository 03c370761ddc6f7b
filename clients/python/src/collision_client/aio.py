"""AsyncClient: the client for asyncio programs (grpc.aio), scenes first.

    import asyncio
    import collision_client as cc

    async def main():
        async with cc.AsyncClient("127.0.0.1:50051") as client:
            await client.wait_until_serving(timeout=10)
            reply = await client.intersect(cc.intersect_request(pairs))
            scene = await client.open_scene(config)   # AsyncSceneSession
            answer = await scene.send(tick_request)
            await scene.close()

    asyncio.run(main())

It takes the options of Client (client.py) and gives the same errors
(CallError, InvalidRequest). Create it inside the event loop that uses it:
a grpc.aio channel belongs to one loop.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any, Dict, Iterable, Optional, Sequence, Tuple, Union

import grpc
from grpc import aio as grpc_aio
from collision.v1 import collision_pb2 as pb
from collision.v1 import collision_pb2_grpc, scene_pb2

from . import _health
from .client import (ChannelSettings, MetadataValue, PemSource, RetryPolicy,
                     _as_request, _check_metadata)
from .column_batch import ClosestPointColumnsBatch, IntersectColumnsBatch
from .errors import error_from_rpc
from .scene import SESSION_METHOD, AsyncSceneSession


class AsyncClient:
    """A client of one collision.v1 target for asyncio programs; the options
    are Client's. Use it as `async with`, or await close()."""

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
            self.channel = grpc_aio.secure_channel(
                target, settings.credentials, settings.options)
        else:
            self.channel = grpc_aio.insecure_channel(target, settings.options)
        self.stub = collision_pb2_grpc.CollisionServiceStub(self.channel)
        self._session_call = self.channel.stream_stream(
            SESSION_METHOD,
            response_deserializer=scene_pb2.SceneResponse.FromString)
        self._health_check = self.channel.unary_unary(
            _health.CHECK_METHOD,
            request_serializer=_health.encode_request,
            response_deserializer=_health.decode_response)

    def call_options(self, timeout: Optional[float] = None,
                     metadata: Iterable[Tuple[str, MetadataValue]] = ()
                     ) -> Dict[str, Any]:
        """The deadline (or `timeout`) and metadata this client gives its
        calls, for calls of your own on `client.stub`."""
        extra = list(metadata)
        for key, value in extra:
            _check_metadata(key, value)
        return {"timeout": self.deadline if timeout is None else timeout,
                "metadata": tuple(self._metadata + extra)}

    # ---- Scenes ---------------------------------------------------------------

    async def open_scene(self, config: scene_pb2.SceneConfig, *,
                         max_reopens: int = 8, first_backoff: float = 0.02,
                         max_backoff: float = 1.0,
                         message_timeout: Optional[float] = 10.0,
                         metadata: Iterable[Tuple[str, MetadataValue]] = ()
                         ) -> AsyncSceneSession:
        """Opens a scene with `config`: an AsyncSceneSession once the server
        has accepted the config (see scene.py). Raises CallError when the
        config is refused, or when the service stays unavailable (or full)
        for `max_reopens` attempts. Each stream has the client's
        stream_deadline."""
        options = self.call_options(metadata=metadata)
        options["timeout"] = self.stream_deadline

        def open_call() -> Any:
            return self._session_call(**options)

        session = AsyncSceneSession(open_call, config,
                                    max_reopens=max_reopens,
                                    first_backoff=first_backoff,
                                    max_backoff=max_backoff,
                                    message_timeout=message_timeout)
        await session._wait_opened()
        return session

    # ---- Calls ----------------------------------------------------------------

    async def _unary(self, rpc: Any, request: Any, request_type: Any,
                     method: str, timeout: Optional[float],
                     metadata: Iterable[Tuple[str, MetadataValue]]) -> Any:
        request = _as_request(request, request_type, method)
        try:
            return await rpc(request, **self.call_options(timeout, metadata))
        except grpc.RpcError as e:
            raise error_from_rpc(e) from None

    async def intersect(self, request: pb.IntersectRequest, *,
                        timeout: Optional[float] = None,
                        metadata: Iterable[Tuple[str, MetadataValue]] = ()
                        ) -> pb.IntersectResponse:
        """Client.intersect, awaited."""
        return await self._unary(self.stub.Intersect, request,
                                 pb.IntersectRequest, "intersect", timeout,
                                 metadata)

    async def closest_point(self, request: pb.ClosestPointRequest, *,
                            timeout: Optional[float] = None,
                            metadata: Iterable[Tuple[str,
                                                     MetadataValue]] = ()
                            ) -> pb.ClosestPointResponse:
        """Client.closest_point, awaited."""
        return await self._unary(self.stub.ClosestPoint, request,
                                 pb.ClosestPointRequest, "closest_point",
                                 timeout, metadata)

    async def intersect_columns(
            self, request: Union[pb.IntersectColumnsRequest,
                                 IntersectColumnsBatch], *,
            timeout: Optional[float] = None,
            metadata: Iterable[Tuple[str, MetadataValue]] = ()
    ) -> pb.IntersectColumnsResponse:
        """Client.intersect_columns, awaited."""
        return await self._unary(self.stub.IntersectColumns, request,
                                 pb.IntersectColumnsRequest,
                                 "intersect_columns", timeout, metadata)

    async def closest_point_columns(
            self, request: Union[pb.ClosestPointColumnsRequest,
                                 ClosestPointColumnsBatch], *,
            timeout: Optional[float] = None,
            metadata: Iterable[Tuple[str, MetadataValue]] = ()
    ) -> pb.ClosestPointColumnsResponse:
        """Client.closest_point_columns, awaited."""
        return await self._unary(self.stub.ClosestPointColumns, request,
                                 pb.ClosestPointColumnsRequest,
                                 "closest_point_columns", timeout, metadata)

    # ---- Health ---------------------------------------------------------------

    async def wait_until_serving(self, timeout: float = 20.0,
                                 service: str = "") -> None:
        """Client.wait_until_serving, awaited: up to `timeout` seconds for
        the connection and for `service` ("" = the whole server) to be
        SERVING. Raises TimeoutError with the last answer seen."""
        end = time.monotonic() + timeout
        last = "no answer yet"
        while True:
            remaining = end - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("%s is not serving after %g s: %s" %
                                   (self.target, timeout, last))
            try:
                status = await self._health_check(
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
            await asyncio.sleep(min(0.02, max(0.0, end - time.monotonic())))

    # ---- Lifetime -------------------------------------------------------------

    async def close(self) -> None:
        """Closes the channel; calls in flight are cancelled."""
        await self.channel.close()

    async def __aenter__(self) -> "AsyncClient":
        return self

    async def __aexit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        await self.close()
