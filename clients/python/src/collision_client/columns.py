"""The columnar (struct-of-arrays) requests and their bitset answers.

IntersectColumns and ClosestPointColumns take every shape field as a packed
float32 column and answer with packed columns and bitsets: the fast path for
many pairs. Two ways to fill them:

- Whole columns, from lists or numpy arrays (any numpy array in a call
  makes that call compute with float32 arrays; lists are computed value by
  value in float32, with the same results)::

      req = intersect_columns_request([
          (circles(x, y, radius=0.5), rects_from_corner_size(rx, ry, w, h)),
      ])
      hit = hits(client.intersect_columns(req))   # pair i -> hit[i]

- Pair by pair, from shapes of any supported kinds, with the answers put
  back in the order added: IntersectColumnsBatch, ClosestPointColumnsBatch
  (column_batch.py).

Decoded bitsets are numpy bool arrays when numpy is importable and lists of
bools otherwise; `as_numpy=` pins either.
"""

from __future__ import annotations

import numbers
from typing import (TYPE_CHECKING, Any, Dict, Iterable, List, Optional,
                    Sequence, Tuple, Union)

from collision.v1 import collision_pb2 as pb

from ._util import f32, is_ndarray, numpy_or_none, use_numpy
from .shapes import INCLUSIVE, Boundary, boundary_rule

if TYPE_CHECKING:
    import numpy

    FloatColumn = Union[Sequence[float], numpy.ndarray, float]
    BoolColumn = Union[List[bool], numpy.ndarray]
    IntColumn = Union[List[int], numpy.ndarray]

ColumnMessage = Union[pb.BallColumns2, pb.BallColumns3, pb.RectColumns,
                      pb.RotatedRectColumns, pb.BoxColumns]

# ---- Input columns ---------------------------------------------------------


class _Columns:
    """One builder call's inputs as float32 columns of one length n.

    Each column is a float32 numpy array when any input is a numpy array,
    otherwise a list of float32-rounded Python floats. A number stands for
    a column of n copies of it.
    """

    def __init__(self, **given: Any) -> None:
        self.np = numpy_or_none() if any(
            is_ndarray(v) for v in given.values()) else None
        lengths: Dict[str, int] = {}
        columns: Dict[str, Any] = {}
        for name, value in given.items():
            if value is None or isinstance(value, numbers.Real):
                continue
            if self.np is not None:
                column = self.np.asarray(value, dtype=self.np.float32)
                if column.ndim != 1:
                    raise ValueError("%s must be one-dimensional, got shape %s"
                                     % (name, column.shape))
            else:
                column = [f32(v) for v in value]
            columns[name] = column
            lengths[name] = len(column)
        if len(set(lengths.values())) > 1:
            raise ValueError("columns differ in length: " + ", ".join(
                "%s has %d" % item for item in lengths.items()))
        self.n = next(iter(lengths.values()), 1)
        for name, value in given.items():
            if isinstance(value, numbers.Real):
                columns[name] = self._repeat(f32(value))
        self._columns = columns

    def _repeat(self, value: float) -> Any:
        if self.np is not None:
            return self.np.full(self.n, value, dtype=self.np.float32)
        return [value] * self.n

    def __getitem__(self, name: str) -> Any:
        return self._columns[name]

    def has(self, name: str) -> bool:
        return name in self._columns

    def add(self, a: Any, b: Any) -> Any:
        if self.np is not None:
            return a + b  # float32 + float32 is float32, rounded once
        return [f32(p + q) for p, q in zip(a, b)]

    def sub(self, a: Any, b: Any) -> Any:
        if self.np is not None:
            return a - b
        return [f32(p - q) for p, q in zip(a, b)]

    def half(self, a: Any) -> Any:
        if self.np is not None:
            return a * self.np.float32(0.5)
        return [f32(p * 0.5) for p in a]


def _fill(field: Any, column: Any) -> None:
    field.extend(column.tolist() if hasattr(column, "tolist") else column)


# ---- Column builders -------------------------------------------------------


def circles(x: FloatColumn, y: FloatColumn,
            radius: Optional[FloatColumn] = None) -> pb.BallColumns2:
    """Circles (centre x, y and radius), or points when radius is None."""
    c = _Columns(x=x, y=y, radius=radius)
    out = pb.BallColumns2()
    _fill(out.x, c["x"])
    _fill(out.y, c["y"])
    if c.has("radius"):
        _fill(out.radius, c["radius"])
    return out


def points(x: FloatColumn, y: FloatColumn) -> pb.BallColumns2:
    """2D points: circles of radius 0 (an empty radius column)."""
    return circles(x, y)


def spheres(x: FloatColumn, y: FloatColumn, z: FloatColumn,
            radius: Optional[FloatColumn] = None) -> pb.BallColumns3:
    """Spheres, or 3D points when radius is None."""
    c = _Columns(x=x, y=y, z=z, radius=radius)
    out = pb.BallColumns3()
    for name in ("x", "y", "z"):
        _fill(getattr(out, name), c[name])
    if c.has("radius"):
        _fill(out.radius, c["radius"])
    return out


def points3(x: FloatColumn, y: FloatColumn, z: FloatColumn) -> pb.BallColumns3:
    return spheres(x, y, z)


def rects(min_x: FloatColumn, min_y: FloatColumn, max_x: FloatColumn,
          max_y: FloatColumn) -> pb.RectColumns:
    """Axis-aligned rectangles by min and max corners."""
    c = _Columns(min_x=min_x, min_y=min_y, max_x=max_x, max_y=max_y)
    out = pb.RectColumns()
    for name in ("min_x", "min_y", "max_x", "max_y"):
        _fill(getattr(out, name), c[name])
    return out


def rects_from_corner_size(x: FloatColumn, y: FloatColumn,
                           width: FloatColumn,
                           height: FloatColumn) -> pb.RectColumns:
    """Corner + size (seeds 000, 001): max = (x + width, y + height)."""
    c = _Columns(x=x, y=y, width=width, height=height)
    return rects(c["x"], c["y"], c.add(c["x"], c["width"]),
                 c.add(c["y"], c["height"]))


def rects_from_center_half_extents(center_x: FloatColumn,
                                   center_y: FloatColumn,
                                   half_width: FloatColumn,
                                   half_height: FloatColumn) -> pb.RectColumns:
    """Centre + half-extents (seed 002): min = c - h, max = c + h."""
    c = _Columns(cx=center_x, cy=center_y, hw=half_width, hh=half_height)
    return rects(c.sub(c["cx"], c["hw"]), c.sub(c["cy"], c["hh"]),
                 c.add(c["cx"], c["hw"]), c.add(c["cy"], c["hh"]))


def boxes(min_x: FloatColumn, min_y: FloatColumn, min_z: FloatColumn,
          max_x: FloatColumn, max_y: FloatColumn,
          max_z: FloatColumn) -> pb.BoxColumns:
    """Axis-aligned boxes by min and max corners."""
    names = ("min_x", "min_y", "min_z", "max_x", "max_y", "max_z")
    c = _Columns(**dict(zip(names, (min_x, min_y, min_z, max_x, max_y,
                                    max_z))))
    out = pb.BoxColumns()
    for name in names:
        _fill(getattr(out, name), c[name])
    return out


def boxes_from_center_half_extents(center_x: FloatColumn,
                                   center_y: FloatColumn,
                                   center_z: FloatColumn, half_x: FloatColumn,
                                   half_y: FloatColumn,
                                   half_z: FloatColumn) -> pb.BoxColumns:
    """Centre + half-extents (seed 002): min = c - h, max = c + h."""
    c = _Columns(cx=center_x, cy=center_y, cz=center_z, hx=half_x,
                 hy=half_y, hz=half_z)
    lo = [c.sub(c["c" + a], c["h" + a]) for a in "xyz"]
    hi = [c.add(c["c" + a], c["h" + a]) for a in "xyz"]
    return boxes(*lo, *hi)


def rotated_rects(width: FloatColumn, height: FloatColumn,
                  pivot_x: FloatColumn, pivot_y: FloatColumn,
                  position_x: FloatColumn, position_y: FloatColumn,
                  angle: Optional[FloatColumn] = None, *,
                  cos: Optional[FloatColumn] = None,
                  sin: Optional[FloatColumn] = None) -> pb.RotatedRectColumns:
    """Rotated rectangles as in seed 003 (see shapes.rotated_rect_from_pivot):
    the orientation is either `angle` (radians, counter-clockwise in a y-up
    frame) or both `cos` and `sin`, never both forms."""
    if (angle is None) == (cos is None and sin is None) or (
            (cos is None) != (sin is None)):
        raise ValueError("give either angle or both cos and sin")
    c = _Columns(size_x=width, size_y=height, pivot_x=pivot_x,
                 pivot_y=pivot_y, position_x=position_x,
                 position_y=position_y, angle=angle, cos=cos, sin=sin)
    out = pb.RotatedRectColumns()
    for name in ("size_x", "size_y", "pivot_x", "pivot_y", "position_x",
                 "position_y", "angle", "cos", "sin"):
        if c.has(name):
            _fill(getattr(out, name), c[name])
    return out


def rotated_rects_about_center(x: FloatColumn, y: FloatColumn,
                               width: FloatColumn, height: FloatColumn,
                               angle: FloatColumn) -> pb.RotatedRectColumns:
    """Unrotated corner + size turned by `angle` (radians) about the centre.
    Seed 004 writes its angle with the opposite sign: pass -theta."""
    c = _Columns(x=x, y=y, w=width, h=height, angle=angle)
    half_w, half_h = c.half(c["w"]), c.half(c["h"])
    return rotated_rects(c["w"], c["h"], half_w, half_h,
                         c.add(c["x"], half_w), c.add(c["y"], half_h),
                         c["angle"])


# ---- Groups and requests ---------------------------------------------------

_INTERSECT_KINDS = {
    (pb.BallColumns2, pb.BallColumns2): "circle_circle",
    (pb.BallColumns2, pb.RectColumns): "circle_rect",
    (pb.BallColumns2, pb.RotatedRectColumns): "circle_rotated_rect",
    (pb.RectColumns, pb.RectColumns): "rect_rect",
    (pb.BallColumns3, pb.BallColumns3): "sphere_sphere",
    (pb.BallColumns3, pb.BoxColumns): "sphere_box",
    (pb.BoxColumns, pb.BoxColumns): "box_box",
}
_TARGETS = {
    pb.BallColumns2: "circles",
    pb.RectColumns: "rects",
    pb.RotatedRectColumns: "rotated_rects",
    pb.BallColumns3: "spheres",
    pb.BoxColumns: "boxes",
}
_KIND_NAMES = {
    pb.BallColumns2: "circles/points",
    pb.RectColumns: "rects",
    pb.RotatedRectColumns: "rotated rects",
    pb.BallColumns3: "spheres/point3s",
    pb.BoxColumns: "boxes",
}


def _count(columns: ColumnMessage) -> int:
    """The number of shapes of a column message (its first column)."""
    return len(getattr(columns, columns.DESCRIPTOR.fields[0].name))


def _kind_name(value: object) -> str:
    return _KIND_NAMES.get(type(value), type(value).__name__)  # type: ignore


def intersect_group(a: ColumnMessage,
                    b: ColumnMessage) -> pb.IntersectColumnGroup:
    """n pairs of one kind: a[i] against b[i], in either order (circles vs
    circles, rects or rotated rects; rects vs rects; spheres vs spheres or
    boxes; boxes vs boxes)."""
    kind = _INTERSECT_KINDS.get((type(a), type(b)))  # type: ignore
    if kind is None:
        kind = _INTERSECT_KINDS.get((type(b), type(a)))  # type: ignore
        a, b = b, a
    if kind is None:
        raise TypeError("no columnar intersect of %s with %s" %
                        (_kind_name(b), _kind_name(a)))
    if _count(a) != _count(b):
        raise ValueError("%s: a has %d shapes, b has %d" %
                         (kind, _count(a), _count(b)))
    group = pb.IntersectColumnGroup()
    pair = getattr(group, kind)
    pair.a.CopyFrom(a)
    pair.b.CopyFrom(b)
    return group


def closest_point_group(
        queries: Union[pb.BallColumns2, pb.BallColumns3],
        targets: ColumnMessage) -> pb.ClosestPointColumnGroup:
    """n closest-point queries: the centre of queries[i] against
    targets[i]. Queries are circles/points (2D targets) or spheres/point3s
    (3D targets)."""
    target_field = _TARGETS.get(type(targets))  # type: ignore
    if target_field is None:
        raise TypeError("targets must be column messages, got %s" %
                        _kind_name(targets))
    three_d = target_field in ("spheres", "boxes")
    want = pb.BallColumns3 if three_d else pb.BallColumns2
    if not isinstance(queries, want):
        raise TypeError("%s targets take %s queries, got %s" %
                        (_kind_name(targets), _kind_name(want()),
                         _kind_name(queries)))
    if _count(queries) != _count(targets):
        raise ValueError("%d queries, %d targets" %
                         (_count(queries), _count(targets)))
    group = pb.ClosestPointColumnGroup()
    (group.queries3 if three_d else group.queries2).CopyFrom(queries)
    getattr(group, target_field).CopyFrom(targets)
    return group


GroupLike = Union[pb.IntersectColumnGroup, Tuple[ColumnMessage, ColumnMessage]]
ClosestGroupLike = Union[pb.ClosestPointColumnGroup,
                         Tuple[Union[pb.BallColumns2, pb.BallColumns3],
                               ColumnMessage]]


def intersect_columns_request(
        groups: Iterable[GroupLike], *, boundary: Boundary = INCLUSIVE,
        relation: bool = False,
        separation: bool = False) -> pb.IntersectColumnsRequest:
    """An IntersectColumnsRequest of groups: IntersectColumnGroup messages or
    (a, b) column pairs (see intersect_group). The answer's groups[g]
    answers groups[g]."""
    request = pb.IntersectColumnsRequest(boundary=boundary_rule(boundary),
                                         include_relation=relation,
                                         include_separation=separation)
    for group in groups:
        if not isinstance(group, pb.IntersectColumnGroup):
            group = intersect_group(*group)
        request.groups.append(group)
    return request


def closest_point_columns_request(
        groups: Iterable[ClosestGroupLike], *,
        boundary: Boundary = INCLUSIVE) -> pb.ClosestPointColumnsRequest:
    """A ClosestPointColumnsRequest of ClosestPointColumnGroup messages or
    (queries, targets) column pairs (see closest_point_group)."""
    request = pb.ClosestPointColumnsRequest(boundary=boundary_rule(boundary))
    for group in groups:
        if not isinstance(group, pb.ClosestPointColumnGroup):
            group = closest_point_group(*group)
        request.groups.append(group)
    return request


# ---- Decoding answers ------------------------------------------------------


def unpack_bits(bits: bytes, n: int, *,
                as_numpy: Optional[bool] = None) -> BoolColumn:
    """The first n bits of a packed bitset, least significant bit first
    within each byte (IntersectColumnsResult.hit_bits, .inside_bits).

    Raises ValueError when `bits` holds fewer than n bits.
    """
    if n < 0 or len(bits) * 8 < n:
        raise ValueError("a bitset of %d bytes does not hold %d bits" %
                         (len(bits), n))
    np = use_numpy(as_numpy)
    if np is not None:
        return np.unpackbits(np.frombuffer(bits, dtype=np.uint8), count=n,
                             bitorder="little").astype(bool)
    return [(bits[i >> 3] >> (i & 7)) & 1 == 1 for i in range(n)]


def _concat(parts: List[Any], as_numpy: Optional[bool]) -> Any:
    np = use_numpy(as_numpy)
    if np is not None:
        return np.concatenate(parts) if parts else np.zeros(0, dtype=bool)
    return [v for part in parts for v in part]


def _groups(answer: Any, result_type: Any, response_type: Any) -> List[Any]:
    if isinstance(answer, result_type):
        return [answer]
    if isinstance(answer, response_type):
        return list(answer.groups)
    raise TypeError("expected a %s or %s, got %s" %
                    (result_type.DESCRIPTOR.name,
                     response_type.DESCRIPTOR.name, type(answer).__name__))


def hits(answer: Union[pb.IntersectColumnsResult,
                       pb.IntersectColumnsResponse], *,
         as_numpy: Optional[bool] = None) -> BoolColumn:
    """Hit of every pair: of one group (an IntersectColumnsResult), or of
    every group of a response one after the other (groups[0]'s pairs
    first). A numpy bool array when numpy is importable, else a list."""
    groups = _groups(answer, pb.IntersectColumnsResult,
                     pb.IntersectColumnsResponse)
    return _concat([
        unpack_bits(g.hit_bits, g.count, as_numpy=as_numpy) for g in groups
    ], as_numpy)


def inside(answer: Union[pb.ClosestPointColumnsResult,
                         pb.ClosestPointColumnsResponse], *,
           as_numpy: Optional[bool] = None) -> BoolColumn:
    """`inside` of every query, decoded from inside_bits as hits() does."""
    groups = _groups(answer, pb.ClosestPointColumnsResult,
                     pb.ClosestPointColumnsResponse)
    return _concat([
        unpack_bits(g.inside_bits, g.count, as_numpy=as_numpy) for g in groups
    ], as_numpy)


def relations(answer: Union[pb.IntersectColumnsResult,
                            pb.IntersectColumnsResponse], *,
              as_numpy: Optional[bool] = None) -> IntColumn:
    """Relation of every pair (Relation values, e.g. RELATION_TOUCHING),
    when the request asked for them; a numpy uint8 array or a list."""
    groups = _groups(answer, pb.IntersectColumnsResult,
                     pb.IntersectColumnsResponse)
    np = use_numpy(as_numpy)
    parts = []
    for g in groups:
        if len(g.relations) < g.count:
            raise ValueError("%d relations for %d pairs (was "
                             "include_relation set?)" %
                             (len(g.relations), g.count))
        data = g.relations[:g.count]
        parts.append(np.frombuffer(data, dtype=np.uint8)
                     if np is not None else list(data))
    if np is not None:
        return np.concatenate(parts) if parts else np.zeros(0, np.uint8)
    return [v for part in parts for v in part]
