"""Python client of the collision.v1 gRPC service.

    import collision_client as cc

    with cc.Client("127.0.0.1:50051") as client:
        reply = client.intersect(cc.intersect_request(
            [(cc.circle(25, 25, 5), cc.rect_from_corner_size(10, 20, 10, 10))],
            relation=True))
        reply.results[0].hit, reply.results[0].relation

- Shapes in every convention of the seeds (shapes.py), per-pair requests
  (intersect_request, closest_point_request), columnar requests from lists
  or numpy arrays and their decoded bitsets (columns.py).
- Client: channel, deadlines, retries, TLS, token, health (client.py).
- QuerySession: one request per game tick over QueryStream (session.py).
- Scenes that survive their streams: Client.open_scene gives a blocking
  SceneSession, AsyncClient.open_scene an AsyncSceneSession whose send()
  returns a Future of the answer (scene.py); AsyncClient is the asyncio
  client (aio.py).
- CallError / InvalidRequest with the server's field violations, and
  field_violations() for a raw grpc.RpcError (errors.py).

The generated messages are `collision.v1.collision_pb2` (also `pb` here)
and `collision.v1.scene_pb2`, with their gRPC stubs beside them.
"""

from collision.v1 import collision_pb2 as pb

from .aio import AsyncClient
from .client import Client, RetryPolicy, service_config
from .column_batch import (ClosestPointColumnsBatch, IntersectAnswer,
                           IntersectColumnsBatch)
from .columns import (boxes,
                      boxes_from_center_half_extents, circles,
                      closest_point_columns_request, closest_point_group,
                      hits, inside, intersect_columns_request,
                      intersect_group, points, points3, rects,
                      rects_from_center_half_extents, rects_from_corner_size,
                      relations, rotated_rects, rotated_rects_about_center,
                      spheres, unpack_bits)
from .errors import (BAD_REQUEST_TYPE_URL, CallError, FieldViolation,
                     InvalidRequest, error_from_rpc, error_from_stream,
                     field_violations, omitted_violations, status_details)
from .scene import AsyncSceneSession, SceneSession
from .session import QuerySession, StreamReply
from .shapes import (EXCLUSIVE, INCLUSIVE, box_from_center_half_extents,
                     box_from_min_max, boundary_rule, capsule3, circle,
                     closest_point_request, degrees_to_radians,
                     intersect_request, oriented_box,
                     oriented_box_axis_angle, point, point3,
                     rect_from_center_half_extents, rect_from_corner_size,
                     rect_from_min_max,
                     rotated_rect_about_center, rotated_rect_from_pivot,
                     rotated_rect_from_pivot_cos_sin, sphere)

__version__ = "0.1.0"

__all__ = [
    "AsyncClient", "AsyncSceneSession", "BAD_REQUEST_TYPE_URL", "CallError",
    "Client", "ClosestPointColumnsBatch", "EXCLUSIVE", "FieldViolation",
    "INCLUSIVE", "IntersectAnswer", "IntersectColumnsBatch",
    "InvalidRequest", "QuerySession", "RetryPolicy", "SceneSession",
    "StreamReply", "boundary_rule", "box_from_center_half_extents",
    "box_from_min_max", "boxes", "boxes_from_center_half_extents",
    "capsule3", "circle",
    "circles", "closest_point_columns_request", "closest_point_group",
    "closest_point_request", "degrees_to_radians", "error_from_rpc",
    "error_from_stream",
    "field_violations", "hits", "inside", "intersect_columns_request",
    "intersect_group", "intersect_request", "omitted_violations",
    "oriented_box", "oriented_box_axis_angle", "pb",
    "point", "point3", "points", "points3", "rect_from_center_half_extents",
    "rect_from_corner_size", "rect_from_min_max", "rects",
    "rects_from_center_half_extents", "rects_from_corner_size", "relations",
    "rotated_rect_about_center", "rotated_rect_from_pivot",
    "rotated_rect_from_pivot_cos_sin", "rotated_rects",
    "rotated_rects_about_center", "service_config", "sphere", "spheres",
    "status_details", "unpack_bits",
]
