"""Columnar requests filled pair by pair, from shapes of any supported kinds.

IntersectColumnsBatch and ClosestPointColumnsBatch sort each added pair into
the column group of its kinds and put the answers back in the order added,
so a caller with mixed shapes gets the columnar fast path without building
columns by hand (columns.py builds whole columns).
"""

from __future__ import annotations

from typing import Any, Dict, List, NamedTuple, Optional, Tuple

from collision.v1 import collision_pb2 as pb

from .columns import unpack_bits
from .shapes import INCLUSIVE, Boundary, boundary_rule

class IntersectAnswer(NamedTuple):
    hit: bool
    relation: int = pb.RELATION_UNSPECIFIED  # when requested
    separation: float = 0.0  # when requested


def _ball2(s: pb.Shape) -> Optional[Tuple[float, float, float]]:
    if s.HasField("point"):
        return s.point.x, s.point.y, 0.0
    if s.HasField("circle"):
        return s.circle.center.x, s.circle.center.y, s.circle.radius
    return None


def _ball3(s: pb.Shape) -> Optional[Tuple[float, float, float, float]]:
    if s.HasField("point3"):
        return s.point3.x, s.point3.y, s.point3.z, 0.0
    if s.HasField("sphere"):
        c = s.sphere.center
        return c.x, c.y, c.z, s.sphere.radius
    return None


def _push(columns: Any, **values: float) -> None:
    for name, value in values.items():
        getattr(columns, name).append(value)


def _push_ball2(c: pb.BallColumns2, ball: Tuple[float, float, float]) -> None:
    _push(c, x=ball[0], y=ball[1], radius=ball[2])


def _push_ball3(c: pb.BallColumns3,
                ball: Tuple[float, float, float, float]) -> None:
    _push(c, x=ball[0], y=ball[1], z=ball[2], radius=ball[3])


def _push_rect(c: pb.RectColumns, r: pb.Rect) -> None:
    _push(c, min_x=r.min.x, min_y=r.min.y, max_x=r.max.x, max_y=r.max.y)


def _push_box(c: pb.BoxColumns, b: pb.Box) -> None:
    _push(c, min_x=b.min.x, min_y=b.min.y, min_z=b.min.z, max_x=b.max.x,
          max_y=b.max.y, max_z=b.max.z)


def _push_rotated(c: pb.RotatedRectColumns, r: pb.RotatedRect) -> None:
    _push(c, size_x=r.size.x, size_y=r.size.y, pivot_x=r.pivot.x,
          pivot_y=r.pivot.y, position_x=r.position.x,
          position_y=r.position.y)
    if r.HasField("rotation"):
        _push(c, cos=r.rotation.cos, sin=r.rotation.sin)
    else:
        _push(c, angle=r.angle)


def _shape_kind(s: pb.Shape) -> str:
    """The kind with its article: "a rect", "an oriented_box"."""
    kind = s.WhichOneof("kind") or "shape with no kind"
    return ("an " if kind[0] in "aeiou" else "a ") + kind


class _Grouper:
    """Files items into one group per kind, remembering where each went."""

    def __init__(self, groups: Any) -> None:
        self._groups = groups  # the request's repeated group field
        self._group_of_kind: Dict[str, int] = {}
        self._sizes: List[int] = []
        self.where: List[Tuple[int, int]] = []  # item i -> (group, index)

    def group(self, kind: str) -> Any:
        g = self._group_of_kind.get(kind)
        if g is None:
            g = self._group_of_kind[kind] = len(self._groups)
            self._groups.add()
            self._sizes.append(0)
        return self._groups[g]

    def note(self, kind: str) -> None:
        g = self._group_of_kind[kind]
        self.where.append((g, self._sizes[g]))
        self._sizes[g] += 1

    def check(self, response_groups: Any, what: str) -> None:
        if len(response_groups) != len(self._sizes):
            raise ValueError("the response has %d groups, the request %d" %
                             (len(response_groups), len(self._sizes)))
        for g, (r, n) in enumerate(zip(response_groups, self._sizes)):
            if r.count != n:
                raise ValueError("response groups[%d] holds %d %s, the "
                                 "request %d" % (g, r.count, what, n))


class IntersectColumnsBatch:
    """An IntersectColumnsRequest built pair by pair from shapes.

    Each pair goes into the group of its kind (points as zero-radius
    circles; either order); unpack() returns the answers in the order the
    pairs were added. Defaults: inclusive boundary, no relation, no
    separation.

        batch = IntersectColumnsBatch(relation=True)
        batch.add(circle(5, 5, 2), rect_from_corner_size(7, 0, 4, 10))
        batch.add(point(0, 0), circle(1, 0, 1))
        answers = batch.unpack(client.intersect_columns(batch))
    """

    def __init__(self, *, boundary: Boundary = INCLUSIVE,
                 relation: bool = False, separation: bool = False) -> None:
        self.request = pb.IntersectColumnsRequest(
            boundary=boundary_rule(boundary), include_relation=relation,
            include_separation=separation)
        self._grouper = _Grouper(self.request.groups)

    def __len__(self) -> int:
        return len(self._grouper.where)

    def add(self, a: pb.Shape, b: pb.Shape) -> "IntersectColumnsBatch":
        """Adds one pair; raises ValueError (the batch unchanged) for a pair
        with no columnar form."""
        kind, fill = self._plan(a, b)
        group = getattr(self._grouper.group(kind), kind.split(":")[0])
        fill(group)
        self._grouper.note(kind)
        return self

    def _plan(self, a: pb.Shape, b: pb.Shape) -> Tuple[str, Any]:
        for p, q in ((a, b), (b, a)):  # symmetric: the ball goes first
            ball = _ball2(p)
            if ball is not None:
                other = _ball2(q)
                if other is not None:
                    return "circle_circle", lambda g: (_push_ball2(
                        g.a, ball), _push_ball2(g.b, other))
                if q.HasField("rect"):
                    return "circle_rect", lambda g: (_push_ball2(
                        g.a, ball), _push_rect(g.b, q.rect))
                if q.HasField("rotated_rect"):
                    form = ("cos_sin" if q.rotated_rect.HasField("rotation")
                            else "angle")
                    return "circle_rotated_rect:" + form, lambda g: (
                        _push_ball2(g.a, ball),
                        _push_rotated(g.b, q.rotated_rect))
            ball3 = _ball3(p)
            if ball3 is not None:
                other3 = _ball3(q)
                if other3 is not None:
                    return "sphere_sphere", lambda g: (_push_ball3(
                        g.a, ball3), _push_ball3(g.b, other3))
                if q.HasField("box"):
                    return "sphere_box", lambda g: (_push_ball3(
                        g.a, ball3), _push_box(g.b, q.box))
        if a.HasField("rect") and b.HasField("rect"):
            return "rect_rect", lambda g: (_push_rect(g.a, a.rect),
                                           _push_rect(g.b, b.rect))
        if a.HasField("box") and b.HasField("box"):
            return "box_box", lambda g: (_push_box(g.a, a.box),
                                         _push_box(g.b, b.box))
        raise ValueError(
            "pair %d: no columnar form for %s and %s (columns take a "
            "circle or point with a circle, point, rect or rotated_rect; "
            "rect with rect; sphere or point3 with sphere, point3 or box; "
            "box with box; capsule3 and oriented_box pairs: per-pair "
            "intersect)" % (len(self), _shape_kind(a), _shape_kind(b)))

    def unpack(self,
               response: pb.IntersectColumnsResponse) -> List[IntersectAnswer]:
        """The answers in the order the pairs were added. Raises ValueError
        when the response does not have the request's shape."""
        self._grouper.check(response.groups, "pairs")
        with_relation = self.request.include_relation
        with_separation = self.request.include_separation
        decoded = []
        for r in response.groups:
            if with_relation and len(r.relations) < r.count or (
                    with_separation and len(r.separations) < r.count):
                raise ValueError("a response group lacks relations or "
                                 "separations")
            decoded.append((unpack_bits(r.hit_bits, r.count, as_numpy=False),
                            r.relations, r.separations))
        out = []
        for g, j in self._grouper.where:
            hit, rel, sep = decoded[g]
            out.append(IntersectAnswer(
                hit[j], rel[j] if with_relation else pb.RELATION_UNSPECIFIED,
                sep[j] if with_separation else 0.0))
        return out


class ClosestPointColumnsBatch:
    """A ClosestPointColumnsRequest built query by query from shapes; unpack()
    gives ClosestPointResult messages in the order added (2D: z = 0).
    Default: inclusive boundary."""

    def __init__(self, *, boundary: Boundary = INCLUSIVE) -> None:
        self.request = pb.ClosestPointColumnsRequest(
            boundary=boundary_rule(boundary))
        self._grouper = _Grouper(self.request.groups)

    def __len__(self) -> int:
        return len(self._grouper.where)

    def add(self, query: pb.Shape,
            target: pb.Shape) -> "ClosestPointColumnsBatch":
        """Adds one query: a point or circle with a 2D target, a point3 or
        sphere with a 3D one. Raises ValueError (the batch unchanged)
        otherwise."""
        i = len(self)
        ball = _ball2(query)
        ball3 = _ball3(query)
        if ball is not None:
            target_ball = _ball2(target)
            if target_ball is not None:
                kind = "circles"
            elif target.HasField("rect"):
                kind = "rects"
            elif target.HasField("rotated_rect"):
                kind = "rotated_rects:" + (
                    "cos_sin" if target.rotated_rect.HasField("rotation")
                    else "angle")
            else:
                raise ValueError(
                    "query %d: a 2D query and %s target; 2D targets are "
                    "circles, points, rects and rotated rects" %
                    (i, _shape_kind(target)))
            group = self._grouper.group(kind)
            if target_ball is not None:
                _push_ball2(group.circles, target_ball)
            elif kind == "rects":
                _push_rect(group.rects, target.rect)
            else:
                _push_rotated(group.rotated_rects, target.rotated_rect)
            _push_ball2(group.queries2, ball)
        elif ball3 is not None:
            target_ball3 = _ball3(target)
            if target_ball3 is not None:
                kind = "spheres"
            elif target.HasField("box"):
                kind = "boxes"
            else:
                raise ValueError(
                    "query %d: a 3D query and %s target; the columns' 3D "
                    "targets are spheres, point3s and boxes (capsule3 and "
                    "oriented_box targets: per-pair closest_point)" %
                    (i, _shape_kind(target)))
            group = self._grouper.group(kind)
            if target_ball3 is not None:
                _push_ball3(group.spheres, target_ball3)
            else:
                _push_box(group.boxes, target.box)
            _push_ball3(group.queries3, ball3)
        else:
            raise ValueError("query %d: must be a point, circle, point3 or "
                             "sphere, got %s" % (i, _shape_kind(query)))
        self._grouper.note(kind)
        return self

    def unpack(self, response: pb.ClosestPointColumnsResponse
               ) -> List[pb.ClosestPointResult]:
        """The answers in the order the queries were added. Raises
        ValueError when the response does not have the request's shape."""
        self._grouper.check(response.groups, "queries")
        columns = []
        for r in response.groups:
            n = r.count
            needed = ("closest_x", "closest_y", "surface_x", "surface_y",
                      "normal_x", "normal_y", "signed_distance", "gap")
            if any(len(getattr(r, name)) < n for name in needed):
                raise ValueError("a response group has short columns")
            columns.append((r, unpack_bits(r.inside_bits, n,
                                           as_numpy=False)))
        out = []
        for g, j in self._grouper.where:
            r, inside_bits = columns[g]

            def vec(prefix: str) -> pb.Vec3:
                z = getattr(r, prefix + "_z")
                return pb.Vec3(x=getattr(r, prefix + "_x")[j],
                               y=getattr(r, prefix + "_y")[j],
                               z=z[j] if len(z) > j else 0.0)

            out.append(pb.ClosestPointResult(
                closest_point=vec("closest"), surface_point=vec("surface"),
                normal=vec("normal"), signed_distance=r.signed_distance[j],
                gap=r.gap[j], inside=inside_bits[j]))
        return out
