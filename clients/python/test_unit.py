#!/usr/bin/python3
"""Unit tests of the installed collision_client package (no server).

Builders against hand-computed values (float32 rounding included), bitset
decoding, the pair-by-pair column batches and their unpacking, the decoding
of error details, the hand-encoded health messages and the client's
options. numpy paths run when numpy is importable and are skipped
otherwise; the list paths always run (as_numpy=False).

  build/ci/clients/python/venv/bin/python clients/python/test_unit.py
"""

import importlib.metadata
import math
import os
import socket
import struct
import time
import unittest

import collision_client as cc
import grpc
from collision.v1 import collision_pb2 as pb
from collision_client import _health

try:
    import numpy as np
except ImportError:
    np = None

HERE = os.path.dirname(os.path.abspath(__file__))
F32_HALF_PI = 1.5707963705062866  # float32(pi / 2), computed by hand
F32_TENTH = 0.10000000149011612  # float32(0.1)
# float32(cos(pi/4)) = float32(sin(pi/4)), and that of the half angle of
# float32(pi/2): a quarter turn's quaternion.
F32_SQRT_HALF = 0.7071067690849304


def bits(*values):
    return bytes(values)


class InstalledPackage(unittest.TestCase):

    def test_is_imported_from_the_install_not_the_source_tree(self):
        src = os.path.join(HERE, "src")
        for module in (cc, pb):
            path = os.path.abspath(module.__file__)
            self.assertFalse(path.startswith(src + os.sep), path)
            self.assertIn("site-packages", path)

    def test_version_matches_the_distribution(self):
        self.assertEqual(cc.__version__,
                         importlib.metadata.version("collision-client"))

    def test_ships_type_information(self):
        for module in (cc, pb):
            folder = os.path.dirname(module.__file__)
            self.assertTrue(os.path.exists(os.path.join(folder, "py.typed")))
        self.assertTrue(os.path.exists(pb.__file__[:-3] + ".pyi"))

    def test_requires_debian_compatible_grpcio_and_protobuf(self):
        requires = importlib.metadata.requires("collision-client")
        self.assertIn("grpcio>=1.51", [r.replace(" ", "").replace("(", "")
                                       .replace(")", "") for r in requires])
        self.assertTrue(any(r.startswith("protobuf") for r in requires))
        self.assertTrue(any("extra ==" in r and r.startswith("numpy")
                            for r in requires))


class Shapes(unittest.TestCase):

    def test_degrees_to_radians_rounds_to_float32(self):
        self.assertEqual(cc.degrees_to_radians(90), F32_HALF_PI)
        self.assertEqual(cc.degrees_to_radians(180), 3.1415927410125732)
        self.assertEqual(cc.degrees_to_radians(0), 0.0)
        self.assertEqual(cc.degrees_to_radians(-90), -F32_HALF_PI)

    def test_point_and_circle(self):
        self.assertEqual(cc.point(1, 2), pb.Shape(point=pb.Vec2(x=1, y=2)))
        self.assertEqual(cc.circle(25, 25, 5), pb.Shape(circle=pb.Circle(
            center=pb.Vec2(x=25, y=25), radius=5)))

    def test_corner_size_rect_is_min_corner_plus_size(self):
        # Seed 001's rect {x=10, y=20, w=10, h=10}.
        s = cc.rect_from_corner_size(10, 20, 10, 10)
        self.assertEqual((s.rect.min.x, s.rect.min.y, s.rect.max.x,
                          s.rect.max.y), (10, 20, 20, 30))

    def test_corner_size_adds_in_float32(self):
        # 2^24 + 1 is not a float32: x becomes 2^24, and 2^24 + 1 rounds
        # (ties to even) back to 2^24. A double sum would give 2^24 + 2.
        s = cc.rect_from_corner_size(16777217, 0, 1, 0)
        self.assertEqual(s.rect.min.x, 16777216.0)
        self.assertEqual(s.rect.max.x, 16777216.0)

    def test_center_half_extents_rect(self):
        s = cc.rect_from_center_half_extents(5, 5, 2, 3)
        self.assertEqual((s.rect.min.x, s.rect.min.y, s.rect.max.x,
                          s.rect.max.y), (3, 2, 7, 8))

    def test_rect_from_min_max(self):
        s = cc.rect_from_min_max(-1, -2, 3, 4)
        self.assertEqual((s.rect.min.x, s.rect.min.y, s.rect.max.x,
                          s.rect.max.y), (-1, -2, 3, 4))

    def test_rotated_rect_from_pivot_is_seed_003(self):
        s = cc.rotated_rect_from_pivot(4, 2, 0, 1, 10, 20, 0.5)
        r = s.rotated_rect
        self.assertEqual((r.size.x, r.size.y, r.pivot.x, r.pivot.y,
                          r.position.x, r.position.y), (4, 2, 0, 1, 10, 20))
        self.assertEqual(r.WhichOneof("orientation"), "angle")
        self.assertEqual(r.angle, 0.5)

    def test_rotated_rect_cos_sin_is_an_exact_rotation(self):
        r = cc.rotated_rect_from_pivot_cos_sin(4, 2, 2, 1, 0, 0, 0, 1)
        self.assertEqual(r.rotated_rect.WhichOneof("orientation"), "rotation")
        self.assertEqual((r.rotated_rect.rotation.cos,
                          r.rotated_rect.rotation.sin), (0, 1))

    def test_rotation_about_center_pivots_on_the_centre(self):
        # Seed 004's rect: top-left (10, 20), 4 x 2, turned about (12, 21).
        r = cc.rotated_rect_about_center(10, 20, 4, 2,
                                         -cc.degrees_to_radians(30))
        rr = r.rotated_rect
        self.assertEqual((rr.size.x, rr.size.y), (4, 2))
        self.assertEqual((rr.pivot.x, rr.pivot.y), (2, 1))
        self.assertEqual((rr.position.x, rr.position.y), (12, 21))
        self.assertEqual(rr.angle, -cc.degrees_to_radians(30))

    def test_3d_shapes(self):
        self.assertEqual(cc.point3(1, 2, 3).point3, pb.Vec3(x=1, y=2, z=3))
        s = cc.sphere(1, 2, 3, 4).sphere
        self.assertEqual((s.center.z, s.radius), (3, 4))
        b = cc.box_from_min_max(0, 1, 2, 3, 4, 5).box
        self.assertEqual((b.min.z, b.max.x), (2, 3))
        b = cc.box_from_center_half_extents(10, 20, 30, 1, 2, 3).box
        self.assertEqual((b.min.x, b.min.y, b.min.z, b.max.x, b.max.y,
                          b.max.z), (9, 18, 27, 11, 22, 33))

    def test_values_are_sent_as_float32(self):
        self.assertEqual(cc.point(0.1, 0).point.x, F32_TENTH)

    def quaternion(self, shape):
        q = shape.oriented_box.rotation
        return (q.w, q.x, q.y, q.z)

    def test_capsule3_is_a_segment_and_a_radius(self):
        s = cc.capsule3(1, 2, 3, 4, 5, 6, 0.1)
        self.assertEqual(s.WhichOneof("kind"), "capsule3")
        self.assertEqual(s.capsule3, pb.Capsule3(
            a=pb.Vec3(x=1, y=2, z=3), b=pb.Vec3(x=4, y=5, z=6),
            radius=F32_TENTH))

    def test_oriented_box_sends_its_quaternion_as_given(self):
        s = cc.oriented_box(1, 2, 3, 4, 5, 6, 0.5, 0.5, 0.5, 0.5)
        self.assertEqual(s.WhichOneof("kind"), "oriented_box")
        b = s.oriented_box
        self.assertEqual((b.center.x, b.center.y, b.center.z), (1, 2, 3))
        self.assertEqual((b.half_extents.x, b.half_extents.y,
                          b.half_extents.z), (4, 5, 6))
        self.assertEqual(self.quaternion(s), (0.5, 0.5, 0.5, 0.5))
        # Never normalised here: the server refuses it, naming the field.
        self.assertEqual(self.quaternion(cc.oriented_box(
            0, 0, 0, 1, 1, 1, 2, 0, 0, 0)), (2, 0, 0, 0))
        self.assertEqual(self.quaternion(cc.oriented_box(
            0, 0, 0, 1, 1, 1, 0.1, 0, 0, 0))[0], F32_TENTH)

    def test_axis_angle_quarter_turn_about_z(self):
        s = cc.oriented_box_axis_angle(1, 2, 3, 4, 5, 6, 0, 0, 1,
                                       math.pi / 2)
        self.assertEqual(self.quaternion(s),
                         (F32_SQRT_HALF, 0, 0, F32_SQRT_HALF))
        b = s.oriented_box
        self.assertEqual((b.center.z, b.half_extents.x), (3, 4))
        # Degrees give the same float32 angle, so the same quaternion.
        self.assertEqual(self.quaternion(cc.oriented_box_axis_angle(
            0, 0, 0, 1, 1, 1, 0, 0, 1, cc.degrees_to_radians(90))),
            self.quaternion(s))

    def test_axis_angle_normalises_the_axis(self):
        s = cc.oriented_box_axis_angle(0, 0, 0, 1, 1, 1, 0, 0, 5,
                                       math.pi / 2)
        self.assertEqual(self.quaternion(s),
                         (F32_SQRT_HALF, 0, 0, F32_SQRT_HALF))
        # A half turn about (1, 2, 2) (length 3): (x, y, z) = (1, 2, 2) / 3;
        # w = cos(float32(pi) / 2) is not 0, as float32(pi) > pi.
        s = cc.oriented_box_axis_angle(0, 0, 0, 1, 1, 1, 1, 2, 2, math.pi)
        self.assertEqual(self.quaternion(s),
                         (-4.371138828673793e-08, 0.3333333432674408,
                          0.6666666865348816, 0.6666666865348816))
        self.assertAlmostEqual(sum(v * v for v in self.quaternion(s)), 1,
                               delta=1e-6)
        # A negative angle turns the other way: the conjugate.
        s = cc.oriented_box_axis_angle(0, 0, 0, 1, 1, 1, 0, 0, -2,
                                       math.pi / 2)
        self.assertEqual(self.quaternion(s),
                         (F32_SQRT_HALF, 0, 0, -F32_SQRT_HALF))

    def test_axis_angle_without_an_axis_is_the_identity(self):
        for axis in ((0, 0, 0), (-0.0, 0, 0), (math.inf, 0, 0),
                     (0, math.nan, 0)):
            with self.subTest(axis=axis):
                self.assertEqual(self.quaternion(cc.oriented_box_axis_angle(
                    0, 0, 0, 1, 1, 1, *axis, 1.0)), (1, 0, 0, 0))

    def test_axis_angle_normalises_a_tiny_axis_in_double(self):
        # float32(1e-30)^2 underflows float32, not double: still an axis.
        q = self.quaternion(cc.oriented_box_axis_angle(
            0, 0, 0, 1, 1, 1, 0, 1e-30, 0, 1.0))
        self.assertEqual(q, (0.8775825500488281, 0, 0.4794255495071411, 0))


class PairRequests(unittest.TestCase):

    def test_intersect_request_defaults_to_inclusive(self):
        a, b = cc.circle(0, 0, 1), cc.point(1, 0)
        r = cc.intersect_request([(a, b)])
        self.assertEqual(r.boundary, pb.BOUNDARY_RULE_INCLUSIVE)
        self.assertFalse(r.include_relation or r.include_separation)
        self.assertEqual((r.pairs[0].a, r.pairs[0].b), (a, b))

    def test_intersect_request_options_and_shape_pairs(self):
        pair = pb.ShapePair(a=cc.point(0, 0), b=cc.point(0, 0))
        r = cc.intersect_request([pair, (cc.point(1, 1), cc.point(2, 2))],
                                 boundary="exclusive", relation=True,
                                 separation=True)
        self.assertEqual(r.boundary, pb.BOUNDARY_RULE_EXCLUSIVE)
        self.assertTrue(r.include_relation and r.include_separation)
        self.assertEqual(len(r.pairs), 2)
        self.assertEqual(r.pairs[0], pair)

    def test_closest_point_request(self):
        target = cc.rect_from_corner_size(0, 0, 10, 10)
        r = cc.closest_point_request([(cc.point(13, 14), target)],
                                     boundary=cc.EXCLUSIVE)
        self.assertEqual(r.boundary, pb.BOUNDARY_RULE_EXCLUSIVE)
        self.assertEqual(r.queries[0].query.point.y, 14)

    def test_boundary_names_are_checked(self):
        self.assertEqual(cc.boundary_rule("INCLUSIVE"), cc.INCLUSIVE)
        self.assertEqual(cc.boundary_rule("BOUNDARY_RULE_EXCLUSIVE"),
                         cc.EXCLUSIVE)
        for bad in ("touching", 0, 3, True, None):
            with self.subTest(bad=bad), self.assertRaises(ValueError):
                cc.boundary_rule(bad)


class ColumnBuilders(unittest.TestCase):

    def test_circles_broadcast_a_scalar_radius(self):
        c = cc.circles([1, 2, 3], [4, 5, 6], radius=0.5)
        self.assertEqual(list(c.x), [1, 2, 3])
        self.assertEqual(list(c.y), [4, 5, 6])
        self.assertEqual(list(c.radius), [0.5, 0.5, 0.5])

    def test_points_have_an_empty_radius_column(self):
        c = cc.points([1, 2], [3, 4])
        self.assertEqual(list(c.radius), [])
        self.assertEqual(list(cc.points3([1], [2], [3]).radius), [])

    def test_columns_of_different_lengths_are_refused(self):
        with self.assertRaisesRegex(ValueError, "x has 2, y has 3"):
            cc.circles([1, 2], [1, 2, 3])

    def test_rects_from_corner_size(self):
        r = cc.rects_from_corner_size([10, 0], [20, 0], [10, 0.1], [10, 0.2])
        self.assertEqual(list(r.min_x), [10, 0])
        self.assertEqual(list(r.max_x), [20, F32_TENTH])
        self.assertEqual(list(r.max_y), [30, 0.20000000298023224])

    def test_corner_size_columns_add_in_float32(self):
        r = cc.rects_from_corner_size([16777217], [0], [1], [0])
        self.assertEqual(list(r.max_x), [16777216.0])

    def test_rects_from_center_half_extents(self):
        r = cc.rects_from_center_half_extents([5], [5], [2], [3])
        self.assertEqual((r.min_x[0], r.min_y[0], r.max_x[0], r.max_y[0]),
                         (3, 2, 7, 8))

    def test_boxes_from_center_half_extents(self):
        b = cc.boxes_from_center_half_extents([10], [20], [30], 1, 2, 3)
        self.assertEqual((b.min_x[0], b.min_y[0], b.min_z[0], b.max_x[0],
                          b.max_y[0], b.max_z[0]), (9, 18, 27, 11, 22, 33))

    def test_rotated_rects_take_angle_or_cos_sin(self):
        r = cc.rotated_rects([4], [2], [0], [1], [10], [20], [0.5])
        self.assertEqual((list(r.angle), list(r.cos)), ([0.5], []))
        r = cc.rotated_rects([4], [2], [0], [1], [10], [20], cos=[0], sin=[1])
        self.assertEqual((list(r.angle), list(r.cos), list(r.sin)),
                         ([], [0], [1]))
        for kwargs in ({}, {"angle": [1], "cos": [0], "sin": [1]},
                       {"cos": [1]}):
            with self.subTest(kwargs=kwargs), self.assertRaises(ValueError):
                cc.rotated_rects([4], [2], [0], [1], [10], [20], **kwargs)

    def test_rotated_rects_about_center(self):
        r = cc.rotated_rects_about_center([10], [20], [4], [2], [-0.5])
        self.assertEqual((r.pivot_x[0], r.pivot_y[0], r.position_x[0],
                          r.position_y[0], r.angle[0]), (2, 1, 12, 21, -0.5))

    def test_intersect_group_picks_the_kind_in_either_order(self):
        ball, box = cc.circles([0], [0], [1]), cc.rects([1], [1], [2], [2])
        g = cc.intersect_group(ball, box)
        self.assertEqual(g.WhichOneof("pairs"), "circle_rect")
        swapped = cc.intersect_group(box, ball)
        self.assertEqual(swapped, g)
        cube = cc.boxes([0], [0], [0], [1], [1], [1])
        ball3 = cc.spheres([0], [0], [0])
        kinds = [
            (cc.circles([0], [0]), cc.circles([0], [0]), "circle_circle"),
            (cc.circles([0], [0]),
             cc.rotated_rects([1], [1], [0], [0], [0], [0], [0]),
             "circle_rotated_rect"),
            (box, box, "rect_rect"),
            (ball3, ball3, "sphere_sphere"),
            (cube, ball3, "sphere_box"),
            (cube, cube, "box_box"),
        ]
        for a, b, kind in kinds:
            self.assertEqual(cc.intersect_group(a, b).WhichOneof("pairs"),
                             kind)

    def test_intersect_group_refuses_unsupported_and_uneven(self):
        with self.assertRaisesRegex(TypeError, "rects with rotated rects"):
            cc.intersect_group(
                cc.rects([0], [0], [1], [1]),
                cc.rotated_rects([1], [1], [0], [0], [0], [0], [0]))
        with self.assertRaises(TypeError):
            cc.intersect_group(cc.circles([0], [0]), cc.spheres([0], [0], [0]))
        with self.assertRaisesRegex(ValueError, "a has 1 shapes, b has 2"):
            cc.intersect_group(cc.circles([0], [0]), cc.circles([0, 1],
                                                                [0, 1]))

    def test_columns_requests(self):
        r = cc.intersect_columns_request(
            [(cc.circles([0], [0], [1]), cc.rects([1], [1], [2], [2]))],
            relation=True)
        self.assertEqual(r.boundary, pb.BOUNDARY_RULE_INCLUSIVE)
        self.assertTrue(r.include_relation)
        self.assertEqual(list(r.groups[0].circle_rect.b.max_y), [2])
        r = cc.closest_point_columns_request(
            [(cc.points([13], [14]), cc.rects([0], [0], [10], [10])),
             (cc.points3([0], [0], [0]), cc.boxes([1], [1], [1], 2, 2, 2))],
            boundary="exclusive")
        self.assertEqual(r.groups[0].WhichOneof("targets"), "rects")
        self.assertEqual(list(r.groups[0].queries2.x), [13])
        self.assertEqual(r.groups[1].WhichOneof("targets"), "boxes")
        self.assertEqual(list(r.groups[1].queries3.z), [0])
        with self.assertRaises(TypeError):
            cc.closest_point_group(cc.points([0], [0]),
                                   cc.boxes([1], [1], [1], 2, 2, 2))


class Bitsets(unittest.TestCase):

    def test_unpack_bits_is_lsb_first(self):
        # 0b00000101, 0b00000001: bits 0, 2 and 8 set.
        self.assertEqual(cc.unpack_bits(bits(0x05, 0x01), 9, as_numpy=False),
                         [True, False, True, False, False, False, False, False,
                          True])
        self.assertEqual(cc.unpack_bits(bits(0x80), 8, as_numpy=False),
                         [False] * 7 + [True])
        self.assertEqual(cc.unpack_bits(b"", 0, as_numpy=False), [])

    def test_unpack_bits_refuses_short_bitsets(self):
        with self.assertRaises(ValueError):
            cc.unpack_bits(bits(0xFF), 9, as_numpy=False)

    def test_hits_of_a_group_and_of_a_response(self):
        g0 = pb.IntersectColumnsResult(count=3, hit_bits=bits(0b110))
        g1 = pb.IntersectColumnsResult(count=2, hit_bits=bits(0b01))
        self.assertEqual(cc.hits(g0, as_numpy=False), [False, True, True])
        response = pb.IntersectColumnsResponse(groups=[g0, g1])
        self.assertEqual(cc.hits(response, as_numpy=False),
                         [False, True, True, True, False])
        with self.assertRaises(TypeError):
            cc.hits(pb.ClosestPointColumnsResult(), as_numpy=False)

    def test_inside_and_relations(self):
        r = pb.ClosestPointColumnsResult(count=2, inside_bits=bits(0b10))
        self.assertEqual(cc.inside(r, as_numpy=False), [False, True])
        g = pb.IntersectColumnsResult(count=2, hit_bits=bits(0b11),
                                      relations=bits(2, 3))
        self.assertEqual(cc.relations(g, as_numpy=False),
                         [pb.RELATION_TOUCHING, pb.RELATION_OVERLAPPING])
        with self.assertRaises(ValueError):
            cc.relations(pb.IntersectColumnsResult(count=1, hit_bits=b"\0"),
                         as_numpy=False)

    def test_default_follows_numpy_availability(self):
        got = cc.unpack_bits(bits(0x01), 1)
        if np is None:
            self.assertEqual(got, [True])
        else:
            self.assertIsInstance(got, np.ndarray)


@unittest.skipIf(np is None, "numpy is not installed")
class NumpyPaths(unittest.TestCase):

    def test_bits_decode_to_bool_arrays(self):
        got = cc.unpack_bits(bits(0x05, 0x01), 9, as_numpy=True)
        self.assertEqual(got.dtype, np.bool_)
        self.assertEqual(got.tolist(), cc.unpack_bits(bits(0x05, 0x01), 9,
                                                      as_numpy=False))
        g = pb.IntersectColumnsResult(count=2, hit_bits=bits(0b11),
                                      relations=bits(2, 3))
        self.assertEqual(cc.relations(g, as_numpy=True).tolist(), [2, 3])

    def test_arrays_build_the_same_columns_as_lists(self):
        x, w = [16777217.0, 0.1, -3.5], [1.0, 0.2, 2.25]
        self.assertEqual(
            cc.rects_from_corner_size(np.array(x), np.array(x), np.array(w),
                                      np.array(w)),
            cc.rects_from_corner_size(x, x, w, w))
        self.assertEqual(
            cc.rotated_rects_about_center(np.array(x), x, w, w, 0.25),
            cc.rotated_rects_about_center(x, x, w, w, 0.25))
        self.assertEqual(cc.circles(np.arange(3.0), np.zeros(3), 0.5),
                         cc.circles([0, 1, 2], [0, 0, 0], [0.5] * 3))

    def test_two_dimensional_arrays_are_refused(self):
        with self.assertRaises(ValueError):
            cc.circles(np.zeros((2, 2)), np.zeros((2, 2)))


class ColumnBatches(unittest.TestCase):

    def test_pairs_go_to_one_group_per_kind_in_order_of_first_use(self):
        batch = cc.IntersectColumnsBatch(relation=True, separation=True)
        batch.add(cc.circle(5, 5, 2), cc.rect_from_min_max(7, 0, 11, 10))
        batch.add(cc.point(0, 0), cc.circle(1, 0, 1))
        batch.add(cc.rect_from_min_max(0, 0, 1, 1), cc.point(3, 3))  # swapped
        batch.add(cc.sphere(0, 0, 0, 1), cc.box_from_min_max(1, 1, 1, 2, 2, 2))
        batch.add(cc.circle(0, 0, 1), cc.rotated_rect_about_center(
            0, 0, 2, 2, 0.5))
        batch.add(cc.circle(0, 0, 1), cc.rotated_rect_from_pivot_cos_sin(
            2, 2, 1, 1, 0, 0, 0, 1))
        self.assertEqual(len(batch), 6)
        groups = batch.request.groups
        self.assertEqual([g.WhichOneof("pairs") for g in groups],
                         ["circle_rect", "circle_circle", "sphere_box",
                          "circle_rotated_rect", "circle_rotated_rect"])
        cr = groups[0].circle_rect
        self.assertEqual(list(cr.a.x), [5, 3])  # the point went first
        self.assertEqual(list(cr.a.radius), [2, 0])
        self.assertEqual(list(cr.b.max_x), [11, 1])
        self.assertEqual(list(groups[1].circle_circle.a.radius), [0])
        self.assertEqual((list(groups[3].circle_rotated_rect.b.angle),
                          list(groups[4].circle_rotated_rect.b.cos)),
                         ([0.5], [0]))

    def test_unpack_restores_the_order_added(self):
        batch = cc.IntersectColumnsBatch(relation=True, separation=True)
        batch.add(cc.circle(0, 0, 1), cc.rect_from_min_max(0, 0, 1, 1))  # g0
        batch.add(cc.point(0, 0), cc.point(0, 0))  # g1
        batch.add(cc.circle(9, 9, 1), cc.rect_from_min_max(0, 0, 1, 1))  # g0
        response = pb.IntersectColumnsResponse(groups=[
            pb.IntersectColumnsResult(count=2, hit_bits=bits(0b01),
                                      relations=bits(3, 1),
                                      separations=[-1, 10.5]),
            pb.IntersectColumnsResult(count=1, hit_bits=bits(0b1),
                                      relations=bits(2), separations=[0]),
        ])
        self.assertEqual(batch.unpack(response), [
            cc.IntersectAnswer(True, pb.RELATION_OVERLAPPING, -1),
            cc.IntersectAnswer(True, pb.RELATION_TOUCHING, 0),
            cc.IntersectAnswer(False, pb.RELATION_DISJOINT, 10.5),
        ])
        short = pb.IntersectColumnsResponse(groups=response.groups[:1])
        with self.assertRaises(ValueError):
            batch.unpack(short)

    def test_unsupported_pairs_leave_the_batch_unchanged(self):
        batch = cc.IntersectColumnsBatch()
        with self.assertRaisesRegex(ValueError, "rect and a rotated_rect"):
            batch.add(cc.rect_from_min_max(0, 0, 1, 1),
                      cc.rotated_rect_about_center(0, 0, 1, 1, 0))
        with self.assertRaisesRegex(ValueError, "circle and a sphere"):
            batch.add(cc.circle(0, 0, 1), cc.sphere(0, 0, 0, 1))
        with self.assertRaisesRegex(
                ValueError, "a capsule3 and an oriented_box .*per-pair"):
            batch.add(cc.capsule3(0, 0, 0, 1, 0, 0, 1),
                      cc.oriented_box(0, 0, 0, 1, 1, 1, 1, 0, 0, 0))
        self.assertEqual((len(batch), len(batch.request.groups)), (0, 0))
        closest = cc.ClosestPointColumnsBatch()
        with self.assertRaisesRegex(
                ValueError, "a 3D query and a capsule3 target.*per-pair"):
            closest.add(cc.point3(0, 0, 0), cc.capsule3(0, 0, 0, 1, 0, 0, 1))

    def test_closest_point_batch(self):
        batch = cc.ClosestPointColumnsBatch()
        batch.add(cc.point(13, 14), cc.rect_from_min_max(0, 0, 10, 10))
        batch.add(cc.sphere(0, 0, 5, 1), cc.box_from_min_max(0, 0, 0, 1, 1, 1))
        batch.add(cc.circle(1, 1, 1), cc.rect_from_min_max(0, 0, 10, 10))
        g = batch.request.groups
        self.assertEqual([x.WhichOneof("targets") for x in g],
                         ["rects", "boxes"])
        self.assertEqual(list(g[0].queries2.radius), [0, 1])
        with self.assertRaises(ValueError):
            batch.add(cc.rect_from_min_max(0, 0, 1, 1), cc.point(0, 0))
        with self.assertRaises(ValueError):
            batch.add(cc.point(0, 0), cc.box_from_min_max(0, 0, 0, 1, 1, 1))
        response = pb.ClosestPointColumnsResponse(groups=[
            pb.ClosestPointColumnsResult(
                count=2, closest_x=[10, 1], closest_y=[10, 1],
                surface_x=[10, 0], surface_y=[10, 1], normal_x=[0.6, -1],
                normal_y=[0.8, 0], signed_distance=[5, -1], gap=[5, -2],
                inside_bits=bits(0b10)),
            pb.ClosestPointColumnsResult(
                count=1, closest_x=[0], closest_y=[0], closest_z=[1],
                surface_x=[0], surface_y=[0], surface_z=[1], normal_x=[0],
                normal_y=[0], normal_z=[1], signed_distance=[4], gap=[3],
                inside_bits=bits(0)),
        ])
        first, second, third = batch.unpack(response)
        self.assertEqual((first.closest_point.x, first.closest_point.z,
                          first.normal.y, first.signed_distance, first.inside),
                         (10, 0, 0.800000011920929, 5, False))
        self.assertEqual((second.closest_point.z, second.normal.z, second.gap),
                         (1, 1, 3))
        self.assertEqual((third.surface_point.x, third.inside), (0, True))


class FakeRpcError(grpc.RpcError, grpc.Call):
    """What grpcio raises for a failed unary call: an RpcError that is also
    a grpc.Call."""

    def __init__(self, code, details, trailers=()):
        self._code, self._details, self._trailers = code, details, trailers

    def code(self):
        return self._code

    def details(self):
        return self._details

    def trailing_metadata(self):
        return self._trailers

    def initial_metadata(self):
        return ()

    def is_active(self):
        return False

    def time_remaining(self):
        return None

    def cancel(self):
        return False

    def add_callback(self, callback):
        return False


def status_trailer(violations, type_url=cc.BAD_REQUEST_TYPE_URL):
    bad = pb.BadRequest(field_violations=[
        pb.BadRequest.FieldViolation(field=f, description=d)
        for f, d in violations])
    status = pb.RpcStatus(code=3, message="bad", details=[
        pb.StatusDetail(type_url="type.googleapis.com/google.rpc.DebugInfo",
                        value=b"\x0a\x01x"),
        pb.StatusDetail(type_url=type_url, value=bad.SerializeToString())])
    return ("grpc-status-details-bin", status.SerializeToString())


class ErrorDetails(unittest.TestCase):

    def test_field_violations_of_a_raw_rpc_error(self):
        e = FakeRpcError(grpc.StatusCode.INVALID_ARGUMENT, "bad", (
            ("collision-debug", "x"),
            status_trailer([("pairs[0].a.circle.radius",
                             "must be >= 0, got -1")])))
        self.assertEqual(cc.field_violations(e), [
            ("pairs[0].a.circle.radius", "must be >= 0, got -1")])
        self.assertEqual(cc.status_details(e).code, 3)

    def test_a_capped_list_says_how_many_it_left_out(self):
        listed = [("pairs[%d].a.circle.radius" % i, "must be >= 0, got -1")
                  for i in range(50)]
        e = FakeRpcError(grpc.StatusCode.INVALID_ARGUMENT, "bad", (
            status_trailer(listed + [("", "and 100 more invalid fields")]),))
        err = cc.error_from_rpc(e)
        self.assertIsInstance(err, cc.InvalidRequest)
        self.assertEqual(len(err.field_violations), 51)
        self.assertEqual(err.omitted_violations, 100)
        self.assertEqual(cc.omitted_violations(listed), 0)

    def test_no_or_broken_details_give_no_violations(self):
        for trailers in ((), None, (("grpc-status-details-bin", b"\xff\xff"),),
                         (status_trailer([("f", "d")], type_url="other"),)):
            with self.subTest(trailers=trailers):
                e = FakeRpcError(grpc.StatusCode.INVALID_ARGUMENT, "bad",
                                 trailers)
                self.assertEqual(cc.field_violations(e), [])
                self.assertEqual(cc.error_from_rpc(e).field_violations, [])

    def test_call_errors_look_like_grpc_errors(self):
        e = FakeRpcError(grpc.StatusCode.UNAVAILABLE, "overloaded",
                         (("grpc-retry-pushback-ms", "20"),))
        err = cc.error_from_rpc(e)
        self.assertIsInstance(err, grpc.RpcError)
        self.assertNotIsInstance(err, cc.InvalidRequest)
        self.assertEqual((err.code(), err.details(), err.message),
                         (grpc.StatusCode.UNAVAILABLE, "overloaded",
                          "overloaded"))
        self.assertEqual(str(err), "UNAVAILABLE: overloaded")
        self.assertEqual(err.retry_pushback, 0.02)
        self.assertIsNone(err.sequence)

    def test_stream_errors(self):
        error = pb.StreamError(code=3, message="pairs[0].a.circle.radius ...",
                               bad_request=pb.BadRequest(field_violations=[
                                   pb.BadRequest.FieldViolation(
                                       field="pairs[0].a.circle.radius",
                                       description="must be >= 0")]))
        self.assertEqual(cc.field_violations(error),
                         [("pairs[0].a.circle.radius", "must be >= 0")])
        from collision_client.errors import error_from_stream
        err = error_from_stream(error, 7)
        self.assertIsInstance(err, cc.InvalidRequest)
        self.assertEqual((err.sequence, err.code()),
                         (7, grpc.StatusCode.INVALID_ARGUMENT))
        self.assertEqual(cc.field_violations(err), err.field_violations)
        other = error_from_stream(pb.StreamError(code=8, message="busy"), 8)
        self.assertEqual(other.code(), grpc.StatusCode.RESOURCE_EXHAUSTED)


class Health(unittest.TestCase):

    def test_request_encoding(self):
        self.assertEqual(_health.encode_request(""), b"")
        self.assertEqual(_health.encode_request("ab"), b"\x0a\x02ab")
        name = "x" * 200  # a two-byte length: 200 = 0xC8 0x01
        self.assertEqual(_health.encode_request(name)[:3], b"\x0a\xc8\x01")

    def test_response_decoding(self):
        self.assertEqual(_health.decode_response(b""), _health.UNKNOWN)
        self.assertEqual(_health.decode_response(b"\x08\x01"), _health.SERVING)
        self.assertEqual(_health.decode_response(b"\x08\x02"),
                         _health.NOT_SERVING)
        # Unknown fields (a string 9, a fixed32 10) are skipped.
        self.assertEqual(_health.decode_response(
            b"\x4a\x02hi\x55" + struct.pack("<I", 7) + b"\x08\x01"),
            _health.SERVING)
        with self.assertRaises(ValueError):
            _health.decode_response(b"\x0a\x05ab")


class ClientOptions(unittest.TestCase):

    def test_service_config_retries_unavailable_within_a_budget(self):
        import json
        config = json.loads(cc.service_config(cc.RetryPolicy()))
        policy = config["methodConfig"][0]["retryPolicy"]
        self.assertEqual(policy["maxAttempts"], 4)
        self.assertEqual(policy["initialBackoff"], "0.020000s")
        self.assertEqual(policy["retryableStatusCodes"], ["UNAVAILABLE"])
        self.assertEqual(config["retryThrottling"],
                         {"maxTokens": 100, "tokenRatio": 0.1})
        self.assertEqual(json.loads(cc.service_config(None)), {})
        config = json.loads(cc.service_config(None, "round_robin",
                                              "collision.v1.CollisionService"))
        self.assertEqual(config["loadBalancingConfig"], [{"round_robin": {}}])
        self.assertEqual(config["healthCheckConfig"]["serviceName"],
                         "collision.v1.CollisionService")

    def test_bad_options_are_refused(self):
        with self.assertRaises(ValueError):
            cc.RetryPolicy(max_attempts=6)
        for kwargs in ({"metadata": [("Upper", "x")]},
                       {"metadata": [("grpc-timeout", "1")]},
                       {"metadata": [("authorization", "x")]},
                       {"metadata": [("k", "line\nbreak")]},
                       {"metadata": [("k-bin", "text")]},
                       {"token": "a\nb"}, {"deadline": 0},
                       {"connect_timeout": 0}, {"connect_timeout": 1e6},
                       {"retries": 9},
                       {"root_certificates": "/nonexistent/ca.pem"},
                       {"certificate_chain": b"x"},
                       {"tls": False, "root_certificates": b"x"}):
            with self.subTest(kwargs=kwargs), self.assertRaises(ValueError):
                cc.Client("127.0.0.1:1", **kwargs)
        with self.assertRaises(ValueError):
            cc.Client("")

    def test_call_options_carry_deadline_metadata_and_token(self):
        with cc.Client("127.0.0.1:1", deadline=2.5, token="s3cret",
                       metadata=[("tenant", "blue"), ("trace-bin", b"\1")],
                       retries=0) as client:
            options = client.call_options()
            self.assertEqual(options["timeout"], 2.5)
            self.assertEqual(options["metadata"], (
                ("tenant", "blue"), ("trace-bin", b"\1"),
                ("authorization", "Bearer s3cret")))
            self.assertEqual(client.call_options(0.5, [("x", "y")])["timeout"],
                             0.5)
            self.assertNotIn("methodConfig", client.service_config)

    def test_methods_refuse_the_wrong_request_type(self):
        with cc.Client("127.0.0.1:1") as client:
            with self.assertRaisesRegex(TypeError, "IntersectRequest"):
                client.intersect(pb.ClosestPointRequest())
            with self.assertRaisesRegex(TypeError, "ClosestPointColumns"):
                client.closest_point_columns(cc.IntersectColumnsBatch())

    def test_deadlines_bound_calls_to_a_server_that_never_answers(self):
        # A listening socket nobody accepts from: TCP connects, no HTTP/2.
        request = cc.intersect_request([(cc.point(0, 0), cc.point(0, 0))])
        with socket.socket() as listener:
            listener.bind(("127.0.0.1", 0))
            listener.listen(1)
            target = "127.0.0.1:%d" % listener.getsockname()[1]
            with cc.Client(target, deadline=0.2, retries=0) as client:
                for timeout in (None, 0.1):  # the client's, then the call's
                    start = time.monotonic()
                    with self.assertRaises(cc.CallError) as e:
                        client.intersect(request, timeout=timeout)
                    self.assertEqual(e.exception.code(),
                                     grpc.StatusCode.DEADLINE_EXCEEDED)
                    self.assertLess(time.monotonic() - start, 5)

    def test_a_connection_that_never_answers_fails_at_connect_timeout(self):
        # The same silent listener: with a connection attempt bounded at
        # 0.3 s, a call with 10 s to go fails UNAVAILABLE (the attempt timed
        # out), where gRPC's own 20 s would have let it reach its deadline
        # (DEADLINE_EXCEEDED, as in the test above).
        request = cc.intersect_request([(cc.point(0, 0), cc.point(0, 0))])
        with socket.socket() as listener:
            listener.bind(("127.0.0.1", 0))
            listener.listen(1)
            target = "127.0.0.1:%d" % listener.getsockname()[1]
            with cc.Client(target, deadline=10, connect_timeout=0.3,
                           retries=0) as client:
                with self.assertRaises(cc.CallError) as e:
                    client.intersect(request)
                self.assertEqual(e.exception.code(),
                                 grpc.StatusCode.UNAVAILABLE)
                self.assertIn("timed out", e.exception.details())

    def test_a_call_to_nobody_raises_call_error_within_its_deadline(self):
        with cc.Client("127.0.0.1:1", deadline=2, retries=0) as client:
            with self.assertRaises(cc.CallError) as e:
                client.intersect(cc.intersect_request(
                    [(cc.point(0, 0), cc.point(0, 0))]))
            self.assertEqual(e.exception.code(), grpc.StatusCode.UNAVAILABLE)
            with self.assertRaisesRegex(TimeoutError, "not serving"):
                client.wait_until_serving(timeout=0.2)


if __name__ == "__main__":
    unittest.main()
