"""Shapes in every parametrisation the seeds use, and per-pair requests.

The wire carries one canonical form per shape (proto/collision/v1/
collision.proto); these builders compute it in float32, exactly as the C++
client's builders and the seeds' own formulas do (x + w, c - h, ...), so
every client sends the same bits for the same call.

Conventions (docs/semantics.md):

- Lengths in any unit, the same for a whole request. Frame: plain
  Cartesian; a rectangle is its min and max corners, so "min" is the
  top-left corner on a y-down screen and the bottom-left in a y-up frame.
- Angles in radians, counter-clockwise in a y-up frame (clockwise on a
  y-down screen). `degrees_to_radians` converts; 90 degrees gives
  float32(pi/2), which the service treats as an exact quarter turn.
- Shapes are closed sets; whether touching is a hit is the request's
  boundary rule: INCLUSIVE (touching counts, seed 001, the default here) or
  EXCLUSIVE (only overlap, seed 000).
"""

from __future__ import annotations

import math
from typing import Iterable, Tuple, Union

from collision.v1 import collision_pb2 as pb

from ._util import f32

INCLUSIVE = pb.BOUNDARY_RULE_INCLUSIVE
"""Touching (distance exactly 0) is a hit: `d2 <= r*r` (seed 001)."""
EXCLUSIVE = pb.BOUNDARY_RULE_EXCLUSIVE
"""Only overlap is a hit: `d2 < r*r` (seed 000)."""

Boundary = Union[int, str]
"""INCLUSIVE, EXCLUSIVE, or their names "inclusive" / "exclusive"."""
PairLike = Union[pb.ShapePair, Tuple[pb.Shape, pb.Shape]]
QueryLike = Union[pb.ClosestPointQuery, Tuple[pb.Shape, pb.Shape]]


def boundary_rule(boundary: Boundary) -> int:
    """The BoundaryRule value of INCLUSIVE/EXCLUSIVE or their names.

    Raises ValueError for anything else, instead of sending a value the
    server rejects as "boundary is required".
    """
    if isinstance(boundary, str):
        name = boundary.strip().upper()
        for full in (name, "BOUNDARY_RULE_" + name):
            if full in ("BOUNDARY_RULE_INCLUSIVE", "BOUNDARY_RULE_EXCLUSIVE"):
                return pb.BoundaryRule.Value(full)
    elif boundary in (INCLUSIVE, EXCLUSIVE) and not isinstance(boundary,
                                                               bool):
        return int(boundary)
    raise ValueError("boundary must be INCLUSIVE or EXCLUSIVE (or "
                     "'inclusive' / 'exclusive'), got %r" % (boundary,))


def degrees_to_radians(degrees: float) -> float:
    """Degrees to radians, rounded to float32 as the C++ client does."""
    return f32(f32(degrees) * (math.pi / 180.0))


def _vec2(x: float, y: float) -> pb.Vec2:
    return pb.Vec2(x=f32(x), y=f32(y))


def _vec3(x: float, y: float, z: float) -> pb.Vec3:
    return pb.Vec3(x=f32(x), y=f32(y), z=f32(z))


def point(x: float, y: float) -> pb.Shape:
    return pb.Shape(point=_vec2(x, y))


def circle(center_x: float, center_y: float, radius: float) -> pb.Shape:
    """A disc: every point within `radius` (>= 0; 0 is a point) of the
    centre."""
    return pb.Shape(circle=pb.Circle(center=_vec2(center_x, center_y),
                                     radius=f32(radius)))


def rect_from_min_max(min_x: float, min_y: float, max_x: float,
                      max_y: float) -> pb.Shape:
    """Axis-aligned rectangle [min_x, max_x] x [min_y, max_y]."""
    return pb.Shape(rect=pb.Rect(min=_vec2(min_x, min_y),
                                 max=_vec2(max_x, max_y)))


def rect_from_corner_size(x: float, y: float, width: float,
                          height: float) -> pb.Shape:
    """Corner + size (seeds 000, 001): (x, y) is the top-left corner on a
    y-down screen, the bottom-left in a y-up frame; max = (x + w, y + h)."""
    x, y = f32(x), f32(y)
    return rect_from_min_max(x, y, f32(x + f32(width)), f32(y + f32(height)))


def rect_from_center_half_extents(center_x: float, center_y: float,
                                  half_width: float,
                                  half_height: float) -> pb.Shape:
    """Centre + half-extents (seed 002): min = c - h, max = c + h."""
    cx, cy = f32(center_x), f32(center_y)
    hw, hh = f32(half_width), f32(half_height)
    return rect_from_min_max(f32(cx - hw), f32(cy - hh), f32(cx + hw),
                             f32(cy + hh))


def _rotated_base(width: float, height: float, pivot_x: float,
                  pivot_y: float, position_x: float,
                  position_y: float) -> pb.RotatedRect:
    return pb.RotatedRect(size=_vec2(width, height),
                          pivot=_vec2(pivot_x, pivot_y),
                          position=_vec2(position_x, position_y))


def rotated_rect_from_pivot(width: float, height: float, pivot_x: float,
                            pivot_y: float, position_x: float,
                            position_y: float,
                            angle_radians: float) -> pb.Shape:
    """Seed 003: a width x height rectangle whose rotation centre is `pivot`
    (an offset from its min corner), placed at `position` and turned by
    `angle_radians` (counter-clockwise in a y-up frame) about it:
    world = position + R * (local - pivot)."""
    r = _rotated_base(width, height, pivot_x, pivot_y, position_x,
                      position_y)
    r.angle = f32(angle_radians)
    return pb.Shape(rotated_rect=r)


def rotated_rect_from_pivot_cos_sin(width: float, height: float,
                                    pivot_x: float, pivot_y: float,
                                    position_x: float, position_y: float,
                                    cos: float, sin: float) -> pb.Shape:
    """Seed 003 with an exact rotation (cos, sin), e.g. (0, 1) for a quarter
    turn; cos^2 + sin^2 must be within 1e-5 of 1."""
    r = _rotated_base(width, height, pivot_x, pivot_y, position_x,
                      position_y)
    r.rotation.cos = f32(cos)
    r.rotation.sin = f32(sin)
    return pb.Shape(rotated_rect=r)


def rotated_rect_about_center(x: float, y: float, width: float,
                              height: float,
                              angle_radians: float) -> pb.Shape:
    """A rectangle given by its unrotated corner + size, turned by
    `angle_radians` about its centre (pivot = size / 2, position = centre).

    Seed 004 writes its angle with the opposite sign: pass -theta for seed
    004's theta.
    """
    half_w, half_h = f32(f32(width) * 0.5), f32(f32(height) * 0.5)
    return rotated_rect_from_pivot(width, height, half_w, half_h,
                                   f32(f32(x) + half_w), f32(f32(y) + half_h),
                                   angle_radians)


def point3(x: float, y: float, z: float) -> pb.Shape:
    return pb.Shape(point3=_vec3(x, y, z))


def sphere(center_x: float, center_y: float, center_z: float,
           radius: float) -> pb.Shape:
    return pb.Shape(sphere=pb.Sphere(center=_vec3(center_x, center_y,
                                                  center_z),
                                     radius=f32(radius)))


def box_from_min_max(min_x: float, min_y: float, min_z: float, max_x: float,
                     max_y: float, max_z: float) -> pb.Shape:
    """Axis-aligned box [min, max] on every axis."""
    return pb.Shape(box=pb.Box(min=_vec3(min_x, min_y, min_z),
                               max=_vec3(max_x, max_y, max_z)))


def box_from_center_half_extents(center_x: float, center_y: float,
                                 center_z: float, half_x: float,
                                 half_y: float, half_z: float) -> pb.Shape:
    """Centre + half-extents (seed 002): min = c - h, max = c + h."""
    cx, cy, cz = f32(center_x), f32(center_y), f32(center_z)
    hx, hy, hz = f32(half_x), f32(half_y), f32(half_z)
    return box_from_min_max(f32(cx - hx), f32(cy - hy), f32(cz - hz),
                            f32(cx + hx), f32(cy + hy), f32(cz + hz))


def capsule3(a_x: float, a_y: float, a_z: float, b_x: float, b_y: float,
             b_z: float, radius: float) -> pb.Shape:
    """Every point within `radius` (>= 0) of the segment from a to b (a
    hitbox limb). a == b is a sphere; radius 0 the bare segment."""
    return pb.Shape(capsule3=pb.Capsule3(a=_vec3(a_x, a_y, a_z),
                                         b=_vec3(b_x, b_y, b_z),
                                         radius=f32(radius)))


def oriented_box(center_x: float, center_y: float, center_z: float,
                 half_x: float, half_y: float, half_z: float, qw: float,
                 qx: float, qy: float, qz: float) -> pb.Shape:
    """A box of half-extents (half_x, half_y, half_z) (>= 0) turned by the
    unit quaternion (qw, qx, qy, qz) about its centre: center + R * local
    for local in [-half, half] (Hamilton convention: the turn by angle t
    about the unit axis u is w = cos(t/2), (x, y, z) = sin(t/2) u).

    The quaternion is sent as given, never normalised: the server refuses
    one whose squared length is not within 1e-5 of 1 (INVALID_ARGUMENT
    naming `...oriented_box.rotation`). `oriented_box_axis_angle` builds a
    unit one.
    """
    return pb.Shape(oriented_box=pb.OrientedBox(
        center=_vec3(center_x, center_y, center_z),
        half_extents=_vec3(half_x, half_y, half_z),
        rotation=pb.Quaternion(w=f32(qw), x=f32(qx), y=f32(qy), z=f32(qz))))


def oriented_box_axis_angle(center_x: float, center_y: float,
                            center_z: float, half_x: float, half_y: float,
                            half_z: float, axis_x: float, axis_y: float,
                            axis_z: float,
                            angle_radians: float) -> pb.Shape:
    """`oriented_box` turned by `angle_radians` about the axis (axis_x,
    axis_y, axis_z), counter-clockwise looking down the axis
    (right-handed): a quarter turn about z is w = cos(pi/4), z = sin(pi/4).

    The axis need not be unit length (it is normalised here); a zero axis,
    or one whose length is not finite, gives the unturned box (the identity
    quaternion). Computed in double from the float32 inputs and rounded to
    float32 once, as the C++ client's OrientedBoxAxisAngle does.
    """
    ax, ay, az = f32(axis_x), f32(axis_y), f32(axis_z)
    length = math.sqrt(ax * ax + ay * ay + az * az)
    w, x, y, z = 1.0, 0.0, 0.0, 0.0
    if length > 0 and math.isfinite(length):
        half = f32(angle_radians) / 2
        if math.isfinite(half):
            k = math.sin(half) / length
            w, x, y, z = math.cos(half), ax * k, ay * k, az * k
        else:  # C's sin and cos of +-inf or NaN; Python's raise instead
            w = x = y = z = math.nan
    return oriented_box(center_x, center_y, center_z, half_x, half_y, half_z,
                        w, x, y, z)


def intersect_request(pairs: Iterable[PairLike], *,
                      boundary: Boundary = INCLUSIVE,
                      relation: bool = False,
                      separation: bool = False) -> pb.IntersectRequest:
    """An IntersectRequest of (a, b) shape pairs (or ShapePair messages).

    relation / separation ask for IntersectResult.relation and .separation.
    """
    request = pb.IntersectRequest(boundary=boundary_rule(boundary),
                                  include_relation=relation,
                                  include_separation=separation)
    for pair in pairs:
        if isinstance(pair, pb.ShapePair):
            request.pairs.append(pair)
        else:
            a, b = pair
            request.pairs.add(a=a, b=b)
    return request


def closest_point_request(
        queries: Iterable[QueryLike], *,
        boundary: Boundary = INCLUSIVE) -> pb.ClosestPointRequest:
    """A ClosestPointRequest of (query, target) pairs (or ClosestPointQuery
    messages). Queries are points or circles (2D targets), point3s or spheres
    (3D targets); the boundary rule decides `inside` on the boundary."""
    request = pb.ClosestPointRequest(boundary=boundary_rule(boundary))
    for item in queries:
        if isinstance(item, pb.ClosestPointQuery):
            request.queries.append(item)
        else:
            query, target = item
            request.queries.add(query=query, target=target)
    return request
