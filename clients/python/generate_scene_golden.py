#!/usr/bin/python3
"""Writes testdata/golden/scenes.json: SceneService golden vectors.

Run by hand when the cases or the contract change, never by the tests,
with the python of a venv the collision-client wheel is installed in (CTest's
fixture python.WheelInstallsIntoCleanVenv makes
build/<preset>/clients/python/venv):

  build/ci/clients/python/venv/bin/python \
      clients/python/generate_scene_golden.py \
      --server build/ci/server/collision_server > testdata/golden/scenes.json

Each case below is one Session stream: its requests (written here as proto3
JSON), and for every rejected message or query the error code and the
substrings its message must contain. The expected answers are what a live
collision_server (started on 127.0.0.1 port 0, default flags) answers.
Cases marked hand_checked also carry the answer worked out by hand from
docs/scenes.md and collision.proto (the working is in `note`); the generator
refuses to write the file when the server's answer differs from it beyond
the file's float tolerance, so the file cannot drift from the hand review.
"""

import argparse
import json
import math
import sys

try:
    import collision_client
except ImportError:
    sys.exit("generate_scene_golden.py: collision_client is not installed; "
             "run it with the python of the venv the wheel is installed in "
             "(see this file's docstring)")
import grpc
from collision.v1 import scene_pb2, scene_pb2_grpc
from google.protobuf import json_format

from live_server import LiveServer
from test_scene_golden import case_differences, run_stream

TOLERANCE = {"abs": 1e-05, "rel": 1e-05}
SQRT2 = math.sqrt(2.0)
INC = "BOUNDARY_RULE_INCLUSIVE"
EXC = "BOUNDARY_RULE_EXCLUSIVE"

# --- requests -------------------------------------------------------------


def v2(x, y):
    return {"x": x, "y": y}


def v3(x, y, z=0):
    return {"x": x, "y": y, "z": z}


def point(x, y):
    return {"point": v2(x, y)}


def circle(x, y, r):
    return {"circle": {"center": v2(x, y), "radius": r}}


def rect(x0, y0, x1, y1):
    return {"rect": {"min": v2(x0, y0), "max": v2(x1, y1)}}


def rotated(size, pivot, position, angle=None, cos_sin=None):
    r = {"size": v2(*size), "pivot": v2(*pivot), "position": v2(*position)}
    if angle is not None:
        r["angle"] = angle
    else:
        r["rotation"] = {"cos": cos_sin[0], "sin": cos_sin[1]}
    return {"rotatedRect": r}


def point3(x, y, z):
    return {"point3": v3(x, y, z)}


def sphere(x, y, z, r):
    return {"sphere": {"center": v3(x, y, z), "radius": r}}


def box(x0, y0, z0, x1, y1, z1):
    return {"box": {"min": v3(x0, y0, z0), "max": v3(x1, y1, z1)}}


def entity(id_, shape, category=None):
    e = {"id": str(id_), "shape": shape}
    if category is not None:
        e["category"] = category
    return e


def columns(ids, kind, categories=None, **cols):
    g = {"ids": [str(i) for i in ids], kind: cols}
    if categories is not None:
        g["categories"] = categories
    return g


def at(q, tick, fraction=None):
    """The query `q` rewound to (tick, fraction): SceneQuery.at."""
    moment = {"tick": str(tick)}
    if fraction is not None:
        moment["fraction"] = fraction
    return dict(q, at=moment)


def config(dimension, boundary=INC, max_entities=None, history_ticks=None):
    c = {"dimension": dimension, "boundary": boundary}
    if max_entities is not None:
        c["maxEntities"] = max_entities
    if history_ticks is not None:
        c["historyTicks"] = history_ticks
    return c


def update(tick, upserts=(), cols=(), removals=(), snapshot=False):
    u = {"tick": str(tick), "upserts": list(upserts),
         "upsertColumns": list(cols), "removals": [str(r) for r in removals]}
    if snapshot:
        u["snapshot"] = True
    return u


def _query(kind, body, mask=None, exclude=None, max_hits=None,
           boundary=None):
    q = {kind: body}
    if mask is not None:
        q["mask"] = mask
    if exclude is not None:
        q["excludeId"] = str(exclude)
    if max_hits is not None:
        q["maxHits"] = max_hits
    if boundary is not None:
        q["boundary"] = boundary
    return q


def overlap(shape, relation=False, separation=False, **kw):
    return _query("overlap", {"shape": shape, "includeRelation": relation,
                              "includeSeparation": separation}, **kw)


def nearest(shape, k, max_distance=None, **kw):
    body = {"shape": shape, "k": k}
    if max_distance is not None:
        body["maxDistance"] = max_distance
    return _query("nearest", body, **kw)


def raycast(origin, direction, max_distance, all_hits=False, **kw):
    return _query("raycast", {"origin": origin, "direction": direction,
                              "maxDistance": max_distance,
                              "allHits": all_hits}, **kw)


def sweep(origin, direction, max_distance, radius, all_hits=False, **kw):
    return _query("sweep", {"origin": origin, "direction": direction,
                            "maxDistance": max_distance, "radius": radius,
                            "allHits": all_hits}, **kw)


def msg(sequence, cfg=None, upd=None, queries=()):
    m = {"sequence": str(sequence), "queries": list(queries)}
    if cfg is not None:
        m["config"] = cfg
    if upd is not None:
        m["update"] = upd
    return m


# --- expected answers -----------------------------------------------------


def answer(sequence, tick, entities, results=()):
    return {"sequence": str(sequence), "tick": str(tick),
            "entities": entities, "results": list(results)}


def result(hits=(), truncated=False, moment=None, clamped=False):
    r = {"hits": list(hits), "truncated": truncated}
    if moment is not None:  # a rewound query: the moment it was answered at
        r["at"] = {"tick": str(moment[0])}
        if moment[1]:
            r["at"]["fraction"] = moment[1]
        if clamped:
            r["clamped"] = True
    return r


def rel(id_, relation, separation=0.0):
    return {"id": str(id_), "relation": "RELATION_" + relation,
            "separation": separation}


def ids(*id_list):
    return [{"id": str(i)} for i in id_list]


def near(id_, closest, surface, normal, signed, gap, inside=False):
    return {"id": str(id_), "closest": {
        "closestPoint": v3(*closest), "surfacePoint": v3(*surface),
        "normal": v3(*normal), "signedDistance": signed, "gap": gap,
        "inside": inside}}


def hit(id_, distance, pt, normal):
    return {"id": str(id_), "distance": distance, "point": v3(*pt),
            "normal": v3(*normal)}


def error(code, *contains):
    return {"code": code, "message_contains": list(contains)}


def step(request, response=None, err=None, query_errors=()):
    s = {"request": request}
    if response is not None:
        s["response"] = response
    if err is not None:
        s["error"] = err
    if query_errors:
        s["query_errors"] = [dict(e, query=q) for q, e in query_errors]
    return s


def case(name, steps, note, hand_checked=False):
    return {"name": name, "hand_checked": hand_checked, "note": note,
            "steps": steps}


# --- the cases ------------------------------------------------------------

D2 = "DIMENSION_2D"
D3 = "DIMENSION_3D"
BIG = 9007199254740993  # 2^53 + 1: not a double; ids are uint64 everywhere

# The 45-degree diamond of case every_2d_kind: a 2x2 square about (30, 0).
DIAMOND_T = 5 + 30 - (SQRT2 - 0.5)  # ray y = 0.5 meets |x-30| + |y| = sqrt2
SWEEP_CORNER_T = 8 - math.sqrt(0.75)  # (8 - x)^2 + 0.5^2 = 1
# Ray y = 0.5 from x = -1 into the square 2x2 about (5,1) turned 0.5 rad.
RR_T = 6 + (0.5 * math.sin(0.5) - 1) / math.cos(0.5)


def cases():
    out = []

    out.append(case(
        "scene2d/every_2d_kind_per_entity_overlap_nearest_raycast",
        [step(msg(1, config(D2)), answer(1, 0, 0)),
         step(msg(2, upd=update(100, [
             entity(1, point(0, 0)),
             entity(2, circle(10, 0, 2)),
             entity(3, rect(20, -1, 22, 1)),
             entity(4, rotated((2, 2), (1, 1), (30, 0), angle=0.7853982),
                    category=2)])),
              answer(2, 100, 4)),
         step(msg(3, queries=[
             overlap(circle(15, 0, 15), True, True),
             nearest(point(0, 0), 2),
             raycast(v3(-5, 0.5), v3(1, 0), 100, all_hits=True)]),
              answer(3, 100, 4, [
                  result([rel(1, "TOUCHING"), rel(2, "OVERLAPPING", -12),
                          rel(3, "OVERLAPPING", -10),
                          rel(4, "OVERLAPPING", 30 - SQRT2 - 15 - 15)]),
                  result([near(1, (0, 0), (0, 0), (1, 0), 0, 0, True),
                          near(2, (8, 0), (8, 0), (-1, 0), 8, 8)],
                         truncated=True),
                  result([hit(2, 15 - math.sqrt(3.75),
                              (10 - math.sqrt(3.75), 0.5),
                              (-math.sqrt(3.75) / 2, 0.25)),
                          hit(3, 25, (20, 0.5), (-1, 0)),
                          hit(4, DIAMOND_T, (DIAMOND_T - 5, 0.5),
                              (-SQRT2 / 2, SQRT2 / 2))])]))],
        "One entity of each 2D kind; the rotated rect is a 2x2 square turned "
        "45 degrees about its centre (30,0): a diamond |x-30| + |y| <= sqrt2. "
        "Overlap circle (15,0) r 15: the point (0,0) is at 15 = r: touching, "
        "separation 0; circle (10,0) r 2 at 5: 5-15-2 = -12; rect: nearest "
        "(20,0) at 5: 5-15 = -10; diamond: nearest vertex (30-sqrt2, 0) at "
        "13.5858: -1.4142. Nearest to (0,0), k 2 of 4: the point itself (gap "
        "0, inside under the inclusive rule, normal +x by the centre-on-"
        "centre rule), then the circle: closest (8,0), normal -x, gap 8; "
        "truncated. Ray y = 0.5 along +x from x = -5: misses the point; "
        "circle at x = 10 - sqrt(4 - 0.25) = 8.0635, t = 13.0635, normal "
        "((8.0635-10)/2, 0.5/2) = (-0.9682, 0.25); rect face x = 20, t 25; "
        "diamond edge x = 30 - (sqrt2 - 0.5) = 29.0858, t = 34.0858, normal "
        "(-1, 1)/sqrt2.",
        hand_checked=True))

    out.append(case(
        "scene2d/columnar_upserts_with_categories_points_and_rotated_rects",
        [step(msg(1, config(D2), update(1, [entity(1, circle(0, 0, 1))], [
            columns([10, 11, 12], "circles", categories=[1, 2, 4],
                    x=[0, 5, 10], y=[5, 5, 5], radius=[1, 1, 1]),
            columns([20, 21], "circles", x=[2, 8], y=[5, 5]),
            columns([30], "rects", min_x=[-1], min_y=[9], max_x=[11],
                    max_y=[10]),
            columns([40], "rotatedRects", size_x=[2], size_y=[1],
                    pivot_x=[1], pivot_y=[0.5], position_x=[5],
                    position_y=[-5], cos=[0], sin=[1])])),
              answer(1, 1, 8)),
         step(msg(2, queries=[
             overlap(circle(5, 5, 4), True),
             overlap(circle(5, 5, 4), True, mask=2),
             overlap(circle(5, 5, 4), mask=6),
             raycast(v3(5, -10), v3(0, 1), 100),
             raycast(v3(5, -10), v3(0, 1), 100, all_hits=True)]),
              answer(2, 1, 8, [
                  result([rel(10, "TOUCHING"), rel(11, "OVERLAPPING"),
                          rel(12, "TOUCHING"), rel(20, "OVERLAPPING"),
                          rel(21, "OVERLAPPING"), rel(30, "TOUCHING")]),
                  result([rel(11, "OVERLAPPING")]),
                  result(ids(11, 12)),
                  result([hit(40, 4, (5, -6), (0, -1))]),
                  result([hit(40, 4, (5, -6), (0, -1)),
                          hit(11, 14, (5, 4), (0, -1)),
                          hit(30, 19, (5, 9), (0, -1))])]))],
        "Columns: circles 10, 11, 12 at (0,5), (5,5), (10,5) r 1, categories "
        "1, 2, 4; points 20, 21 (circles without radius) at (2,5), (8,5), "
        "category 1; rect 30 [-1,11]x[9,10]; rotated rect 40 2x1 about its "
        "centre (5,-5), quarter turn (cos 0, sin 1): [4.5,5.5]x[-6,-4]; plus "
        "per-entity circle 1 at (0,0) r 1: 8 entities. Overlap circle (5,5) "
        "r 4: circles 10 and 12 at 5 = 4+1 touch, 11 overlaps, the points at "
        "3 overlap, the rect at 4 touches; circle 1 at 7.07 and rect 40 "
        "miss. Mask 2 keeps 11; mask 6 keeps 11 and 12. Ray x = 5 upwards "
        "from y = -10: rect 40 at y = -6 (t 4), circle 11 at y = 4 (t 14), "
        "rect 30 at y = 9 (t 19), all with normal -y; the first hit is 40.",
        hand_checked=True))

    big = rect(-1, -1, 7, 1)
    out.append(case(
        "scene2d/removals_moves_and_readds_between_ticks",
        [step(msg(1, config(D2), update(1, [
            entity(1, circle(0, 0, 1)), entity(2, circle(3, 0, 1)),
            entity(3, circle(6, 0, 1))]), [overlap(big)]),
              answer(1, 1, 3, [result(ids(1, 2, 3))])),
         step(msg(2, upd=update(2, [entity(3, circle(20, 0, 1)),
                                    entity(4, point(5, 0))], removals=[2]),
                  queries=[overlap(big)]),
              answer(2, 2, 3, [result(ids(1, 4))])),
         step(msg(3, upd=update(3, [entity(2, rect(2, -1, 4, 1))]),
                  queries=[overlap(big)]),
              answer(3, 3, 4, [result(ids(1, 2, 4))])),
         step(msg(4, upd=update(4, removals=[1, 4]), queries=[overlap(big)]),
              answer(4, 4, 2, [result(ids(2))]))],
        "Rect [-1,7]x[-1,1] over circles at x = 0, 3, 6: all three. Tick 2 "
        "removes 2, moves 3 to x = 20 and adds point 4 at (5,0): 1 and 4. "
        "Tick 3 re-adds id 2 as a rect [2,4]x[-1,1]: 1, 2, 4. Tick 4 "
        "removes 1 and 4: only 2 is left.",
        hand_checked=True))

    world = overlap(circle(0, 0, 100))
    out.append(case(
        "scene2d/snapshot_replaces_the_whole_world",
        [step(msg(1, config(D2), update(5, [
            entity(1, circle(0, 0, 1)), entity(2, circle(2, 0, 1)),
            entity(3, circle(4, 0, 1))]), [world]),
              answer(1, 5, 3, [result(ids(1, 2, 3))])),
         step(msg(2, upd=update(6, [entity(2, circle(10, 0, 1)),
                                    entity(7, point(0, 0))], snapshot=True),
                  queries=[world, overlap(circle(2, 0, 0.5))]),
              answer(2, 6, 2, [result(ids(2, 7)), result()])),
         step(msg(3, upd=update(7, removals=[2], snapshot=True)),
              err=error("INVALID_ARGUMENT",
                        "update.removals must be empty in a snapshot")),
         step(msg(4, upd=update(7, snapshot=True), queries=[world]),
              answer(4, 7, 0, [result()]))],
        "Three circles, then a snapshot of circle 2 moved to (10,0) and a new "
        "point 7: entities 1 and 3 are gone and nothing is left at the old "
        "(2,0). A snapshot with removals is rejected; an empty snapshot "
        "empties the scene.",
        hand_checked=True))

    out.append(case(
        "scene2d/overlap_exact_touch_under_both_boundary_rules",
        [step(msg(1, config(D2), update(1, [
            entity(1, circle(0, 0, 5)), entity(2, rect(10, 0, 14, 4)),
            entity(3, point(20, 0)), entity(4, circle(30, 0, 1))])),
              answer(1, 1, 4)),
         step(msg(2, queries=[
             overlap(circle(8, 0, 3), True, True),
             overlap(circle(8, 0, 3), True, True, boundary=EXC),
             overlap(point(14, 2), True, True),
             overlap(point(14, 2), True, True, boundary=EXC),
             overlap(rect(14, 4, 16, 6), True, True),
             overlap(circle(25, 0, 5), True, True),
             overlap(circle(25, 0, 5), True, True, boundary=EXC)]),
              answer(2, 1, 4, [
                  result([rel(1, "TOUCHING"), rel(2, "OVERLAPPING", -1)]),
                  result([rel(2, "OVERLAPPING", -1)]),
                  result([rel(2, "TOUCHING")]),
                  result(),
                  result([rel(2, "TOUCHING")]),
                  result([rel(3, "TOUCHING"), rel(4, "OVERLAPPING", -1)]),
                  result([rel(4, "OVERLAPPING", -1)])]))],
        "Scene rule inclusive. Circle (8,0) r 3 vs circle (0,0) r 5: d = 8 = "
        "5+3, touching (separation 0); vs rect [10,14]x[0,4]: nearest (10,0) "
        "at 2 < 3, overlapping, separation 2-3 = -1. Under the exclusive "
        "rule (query boundary) the touch is no hit. Point (14,2) on the "
        "rect's right edge: touching, a hit only when inclusive. Rect "
        "[14,16]x[4,6] meets rect 2 in the corner (14,4) only: touching. "
        "Circle (25,0) r 5: point (20,0) at 5 = r touches; circle (30,0) r 1 "
        "at 5 < 6 overlaps by 1.",
        hand_checked=True))

    out.append(case(
        "scene2d/exclusive_scene_rule_is_the_default_and_queries_override_it",
        [step(msg(1, config(D2, EXC), update(1, [
            entity(1, circle(0, 0, 2)), entity(2, rect(2, -1, 4, 1))]), [
                overlap(circle(5, 0, 1), True),
                overlap(circle(5, 0, 1), True, boundary=INC),
                raycast(v3(-5, 2), v3(1, 0), 10),
                raycast(v3(-5, 2), v3(1, 0), 10, boundary=INC)]),
              answer(1, 1, 2, [
                  result(), result([rel(2, "TOUCHING")]), result(),
                  result([hit(1, 5, (0, 2), (0, 1))])]))],
        "Scene rule exclusive. Circle (5,0) r 1 touches rect [2,4]x[-1,1] at "
        "(4,0) (d = 1 = r): no hit by default, touching under a query's "
        "inclusive rule. Ray y = 2 from x = -5 is tangent to circle (0,0) "
        "r 2 at (0,2): a graze misses under the scene's exclusive rule and "
        "hits at t 5, normal +y, under the inclusive one.",
        hand_checked=True))

    out.append(case(
        "scene2d/nearest_k_max_distance_and_ties_by_id",
        [step(msg(1, config(D2), update(1, [
            entity(1, circle(10, 0, 2)), entity(2, rect(0, 5, 2, 7)),
            entity(3, point(0, -6)), entity(4, point(6, 0)),
            entity(5, circle(0, 0, 1))])), answer(1, 1, 5)),
         step(msg(2, queries=[
             nearest(point(0, 0), 3),
             nearest(point(0, 0), 10, max_distance=6),
             nearest(circle(0, 0, 1), 2, max_distance=4.5),
             nearest(point(0, 0), 2, max_distance=6, exclude=5)]),
              answer(2, 1, 5, [
                  result([near(5, (0, 0), (1, 0), (1, 0), -1, -1, True),
                          near(2, (0, 5), (0, 5), (0, -1), 5, 5),
                          near(3, (0, -6), (0, -6), (0, 1), 6, 6)],
                         truncated=True),
                  result([near(5, (0, 0), (1, 0), (1, 0), -1, -1, True),
                          near(2, (0, 5), (0, 5), (0, -1), 5, 5),
                          near(3, (0, -6), (0, -6), (0, 1), 6, 6),
                          near(4, (6, 0), (6, 0), (-1, 0), 6, 6)]),
                  result([near(5, (0, 0), (1, 0), (1, 0), -1, -2, True),
                          near(2, (0, 5), (0, 5), (0, -1), 5, 4)]),
                  result([near(2, (0, 5), (0, 5), (0, -1), 5, 5),
                          near(3, (0, -6), (0, -6), (0, 1), 6, 6)],
                         truncated=True)]))],
        "From (0,0): circle 5 (0,0) r 1 holds the query centre: closest "
        "point the centre itself, surface (1,0) and normal +x (centre on "
        "centre), signed distance -1, inside; rect [0,2]x[5,7]: (0,5) at 5, "
        "normal -y; points (0,-6) and (6,0) at 6 (a tie, broken by id); "
        "circle (10,0) r 2 at 8. k 3: 5, 2, 3, truncated (5 qualify). "
        "max_distance 6 (inclusive): 5, 2, 3, 4, not truncated. A circle "
        "query of r 1: gaps one less (-2, 4, 5, 5, 7), within 4.5: 5 and 2 "
        "only. Excluding 5 with k 2: 2 and 3, truncated (4 ties with 3).",
        hand_checked=True))

    out.append(case(
        "scene2d/raycast_first_hit_all_hits_and_max_distance",
        [step(msg(1, config(D2), update(1, [
            entity(1, rect(4, -1, 6, 1)), entity(2, circle(10, 0, 1)),
            entity(3, circle(5, 0, 1))])), answer(1, 1, 3)),
         step(msg(2, queries=[
             raycast(v3(0, 0), v3(2, 0), 100),
             raycast(v3(0, 0), v3(2, 0), 100, all_hits=True),
             raycast(v3(0, 0), v3(2, 0), 9, all_hits=True),
             raycast(v3(0, 0), v3(2, 0), 8.5, all_hits=True),
             raycast(v3(0, 0), v3(-1, 0), 100, all_hits=True)]),
              answer(2, 1, 3, [
                  result([hit(1, 4, (4, 0), (-1, 0))]),
                  result([hit(1, 4, (4, 0), (-1, 0)),
                          hit(3, 4, (4, 0), (-1, 0)),
                          hit(2, 9, (9, 0), (-1, 0))]),
                  result([hit(1, 4, (4, 0), (-1, 0)),
                          hit(3, 4, (4, 0), (-1, 0)),
                          hit(2, 9, (9, 0), (-1, 0))]),
                  result([hit(1, 4, (4, 0), (-1, 0)),
                          hit(3, 4, (4, 0), (-1, 0))]),
                  result()]))],
        "Ray from (0,0) along (2,0) (normalised to (1,0)): rect [4,6]x[-1,1] "
        "and circle (5,0) r 1 are both entered at (4,0), t 4, normal -x: a "
        "tie, so the first hit is the lower id, 1; circle (10,0) r 1 at t 9. "
        "max_distance 9 ends exactly on circle 2 and hits it (inclusive); "
        "8.5 stops short. Backwards: nothing.",
        hand_checked=True))

    out.append(case(
        "scene2d/raycast_along_an_edge_inclusive_hits_exclusive_misses",
        [step(msg(1, config(D2), update(1, [
            entity(1, rect(2, 0, 4, 2)), entity(2, point(6, 2)),
            entity(3, rect(8, 1, 8, 3))])), answer(1, 1, 3)),
         step(msg(2, queries=[
             raycast(v3(0, 2), v3(1, 0), 20, all_hits=True),
             raycast(v3(0, 2), v3(1, 0), 20, all_hits=True, boundary=EXC),
             raycast(v3(10, 0), v3(-1, 0), 20),
             raycast(v3(2, -3), v3(0, 1), 20, all_hits=True),
             raycast(v3(2, -3), v3(0, 1), 20, all_hits=True, boundary=EXC)]),
              answer(2, 1, 3, [
                  result([hit(1, 2, (2, 2), (-1, 0)),
                          hit(2, 6, (6, 2), (-1, 0)),
                          hit(3, 8, (8, 2), (-1, 0))]),
                  result(),
                  result([hit(1, 6, (4, 0), (1, 0))]),
                  result([hit(1, 3, (2, 0), (0, -1))]),
                  result()]))],
        "Rect [2,4]x[0,2], point (6,2), zero-width rect x = 8, y in [1,3]. "
        "The ray y = 2 along +x runs along the rect's top edge: inclusive, "
        "it hits at (2,2), t 2, normal of the x slab entered last (-x; the y "
        "slab holds for every t); it meets the point at t 6 (normal = "
        "-direction) and crosses the segment at (8,2), t 8. Exclusive: the "
        "edge is a graze and the point and segment have no interior: no "
        "hits. Along the bottom edge y = 0 leftwards from x = 10: (4,0), "
        "t 6, normal +x. Up the left edge x = 2 from y = -3: (2,0), t 3, "
        "normal -y (inclusive), nothing (exclusive).",
        hand_checked=True))

    out.append(case(
        "scene2d/raycast_starting_inside_hits_at_zero_against_direction",
        [step(msg(1, config(D2), update(1, [
            entity(1, circle(0, 0, 5)), entity(2, rect(10, -2, 14, 2))])),
              answer(1, 1, 2)),
         step(msg(2, queries=[
             raycast(v3(1, 1), v3(3, 4), 10),
             raycast(v3(12, 0), v3(0, -2), 10),
             raycast(v3(10, 0), v3(1, 0), 10, boundary=EXC),
             raycast(v3(10, 0), v3(-1, 0), 10, boundary=EXC),
             raycast(v3(10, 0), v3(-1, 0), 10),
             sweep(v3(9.5, 0), v3(1, 0), 10, 1)]),
              answer(2, 1, 2, [
                  result([hit(1, 0, (1, 1), (-0.6, -0.8))]),
                  result([hit(2, 0, (12, 0), (0, 1))]),
                  result([hit(2, 0, (10, 0), (-1, 0))]),
                  result([hit(1, 5, (5, 0), (1, 0))]),
                  result([hit(2, 0, (10, 0), (1, 0))]),
                  result([hit(2, 0, (10, 0), (-1, 0))])]))],
        "Circle (0,0) r 5, rect [10,14]x[-2,2]. From (1,1) inside the circle "
        "along (3,4) (unit (0.6,0.8)): t 0, point = origin, normal -u = "
        "(-0.6,-0.8). From (12,0) inside the rect along (0,-2): t 0, normal "
        "+y. From (10,0) on the rect's left edge: exclusive, moving in (+x) "
        "hits at 0 with normal -x; moving out (-x) misses the rect and "
        "passes through the circle from (5,0), t 5, normal +x; inclusive, "
        "the same ray hits the rect at 0 (on the boundary) with normal -u "
        "= +x. A sweep of r 1 from (9.5,0) starts inside the rect grown by "
        "1: t 0, point the rect's closest point (10,0), normal -u = -x.",
        hand_checked=True))

    out.append(case(
        "scene2d/sweep_circle_face_corner_graze_and_all_hits",
        [step(msg(1, config(D2), update(1, [
            entity(1, rect(4, -1, 6, 1)), entity(2, rect(8, 0.5, 10, 3)),
            entity(3, circle(15, 0, 2)), entity(4, point(20, 1)),
            entity(5, circle(25, 3, 1))])), answer(1, 1, 5)),
         step(msg(2, queries=[
             sweep(v3(0, 0), v3(1, 0), 30, 1),
             sweep(v3(0, 0), v3(1, 0), 30, 1, all_hits=True),
             sweep(v3(0, 0), v3(1, 0), 30, 1, all_hits=True, boundary=EXC),
             sweep(v3(0, 0), v3(1, 0), 30, 0, all_hits=True),
             sweep(v3(0, 0), v3(1, 0), 7, 1, all_hits=True)]),
              answer(2, 1, 5, [
                  result([hit(1, 3, (4, 0), (-1, 0))]),
                  result([hit(1, 3, (4, 0), (-1, 0)),
                          hit(2, SWEEP_CORNER_T, (8, 0.5),
                              (-math.sqrt(0.75), -0.5)),
                          hit(3, 12, (13, 0), (-1, 0)),
                          hit(4, 20, (20, 1), (0, -1))]),
                  result([hit(1, 3, (4, 0), (-1, 0)),
                          hit(2, SWEEP_CORNER_T, (8, 0.5),
                              (-math.sqrt(0.75), -0.5)),
                          hit(3, 12, (13, 0), (-1, 0))]),
                  result([hit(1, 4, (4, 0), (-1, 0)),
                          hit(3, 13, (13, 0), (-1, 0))]),
                  result([hit(1, 3, (4, 0), (-1, 0))])]))],
        "A circle of r 1 swept from (0,0) along +x. Rect [4,6]x[-1,1]: face "
        "contact when the centre is at x 3: t 3, point (4,0), normal -x. "
        "Rect [8,10]x[0.5,3]: its corner (8,0.5) first, when (8-x)^2 + "
        "0.25 = 1: x = 8 - sqrt(0.75) = 7.1340, normal (centre - corner) = "
        "(-0.8660,-0.5). Circle (15,0) r 2 at centre distance 3: t 12, "
        "point (13,0). Point (20,1) is exactly r above the path: a graze at "
        "t 20, normal -y, inclusive only. Circle (25,3) r 1 is 2 away from "
        "the path edge: missed. Radius 0 is a ray: rect at t 4, circle at "
        "t 13. max_distance 7 stops before the corner at 7.134.",
        hand_checked=True))

    shooter = BIG
    out.append(case(
        "scene2d/layer_mask_category_zero_and_exclude_id",
        [step(msg(1, config(D2), update(1, [
            entity(shooter, circle(0, 0, 1), category=1),
            entity(2, circle(5, 0, 1), category=2),
            entity(3, circle(10, 0, 1), category=4),
            entity(4, circle(3, 0, 0.5), category=0)])), answer(1, 1, 4)),
         step(msg(2, queries=[
             raycast(v3(0, 0), v3(1, 0), 20, exclude=shooter),
             raycast(v3(0, 0), v3(1, 0), 20),
             raycast(v3(0, 0), v3(1, 0), 20, all_hits=True, mask=4),
             raycast(v3(0, 0), v3(1, 0), 20, all_hits=True, mask=6,
                     exclude=shooter),
             overlap(circle(5, 0, 10)),
             overlap(circle(5, 0, 10), mask=0),
             overlap(circle(5, 0, 10), mask=5, exclude=2),
             nearest(point(0, 0), 1, exclude=shooter)]),
              answer(2, 1, 4, [
                  result([hit(2, 4, (4, 0), (-1, 0))]),
                  result([hit(shooter, 0, (0, 0), (-1, 0))]),
                  result([hit(3, 9, (9, 0), (-1, 0))]),
                  result([hit(2, 4, (4, 0), (-1, 0)),
                          hit(3, 9, (9, 0), (-1, 0))]),
                  result(ids(2, 3, shooter)),
                  result(),
                  result(ids(3, shooter)),
                  result([near(2, (4, 0), (4, 0), (-1, 0), 4, 4)],
                         truncated=True)]))],
        "The shooter (id 2^53+1, category 1) is a circle r 1 at the origin; "
        "circles 2 (5,0) category 2, 3 (10,0) category 4, and 4 (3,0) r 0.5 "
        "category 0 (never hit). A shot along +x excluding the shooter skips "
        "4 and hits 2 at (4,0), t 4; not excluding it, it starts inside the "
        "shooter: t 0, normal -x. Mask 4: only 3, at t 9; mask 6: 2 and 3. "
        "Overlap circle (5,0) r 10: 2, 3 and the shooter by id (4 never); "
        "mask 0: nothing; mask 5 without 2: 3 and the shooter. Nearest to "
        "the origin without the shooter: 2 at gap 4 (3 qualifies too: "
        "truncated).",
        hand_checked=True))

    far = [entity(k, circle(60 - 10 * k, 0, 1)) for k in range(1, 6)]
    out.append(case(
        "scene2d/max_hits_keeps_lowest_ids_for_overlap_and_nearest_for_casts",
        [step(msg(1, config(D2), update(1, far)), answer(1, 1, 5)),
         step(msg(2, queries=[
             overlap(circle(30, 0, 100), max_hits=2),
             overlap(circle(30, 0, 100), max_hits=5),
             raycast(v3(0, 0), v3(1, 0), 100, all_hits=True, max_hits=2),
             raycast(v3(0, 0), v3(1, 0), 100, all_hits=True, max_hits=5),
             raycast(v3(0, 0), v3(1, 0), 100),
             sweep(v3(0, 0), v3(1, 0), 100, 0.5, all_hits=True, max_hits=1),
             nearest(point(0, 0), 2)]),
              answer(2, 1, 5, [
                  result(ids(1, 2), truncated=True),
                  result(ids(1, 2, 3, 4, 5)),
                  result([hit(5, 9, (9, 0), (-1, 0)),
                          hit(4, 19, (19, 0), (-1, 0))], truncated=True),
                  result([hit(5, 9, (9, 0), (-1, 0)),
                          hit(4, 19, (19, 0), (-1, 0)),
                          hit(3, 29, (29, 0), (-1, 0)),
                          hit(2, 39, (39, 0), (-1, 0)),
                          hit(1, 49, (49, 0), (-1, 0))]),
                  result([hit(5, 9, (9, 0), (-1, 0))]),
                  result([hit(5, 8.5, (9, 0), (-1, 0))], truncated=True),
                  result([near(5, (9, 0), (9, 0), (-1, 0), 9, 9),
                          near(4, (19, 0), (19, 0), (-1, 0), 19, 19)],
                         truncated=True)]))],
        "Circles r 1 with ids against distance: id k at x = 60 - 10k (5 at "
        "10, ..., 1 at 50). Overlap max_hits 2 keeps the lowest ids 1, 2, "
        "truncated; max_hits 5 = all five, not truncated. Ray along +x, all "
        "hits, max_hits 2: the nearest, 5 (t 9) and 4 (t 19), truncated. "
        "A first-hit cast answers its one hit, 5 at t 9, not truncated. A "
        "sweep of r 0.5 with max_hits 1: 5 at t 8.5 (contact (9,0)), "
        "truncated. Nearest k 2: 5 and 4, truncated.",
        hand_checked=True))

    rr = rotated((2, 2), (1, 1), (5, 1), angle=0.5)
    out.append(case(
        "scene2d/rect_overlap_query_fails_while_the_scene_holds_rotated_rects",
        [step(msg(1, config(D2), update(1, [
            entity(1, rect(0, 0, 2, 2)), entity(2, rr),
            entity(3, circle(10, 0, 1))]), [
                overlap(rect(-1, -1, 20, 3)),
                overlap(circle(5, 1, 10)),
                overlap(rotated((1, 1), (0.5, 0.5), (5, 1), angle=0.25)),
                raycast(v3(-1, 0.5), v3(1, 0), 30, all_hits=True)]),
              answer(1, 1, 3, [
                  {"error": {"code": 9}}, result(ids(1, 2, 3)),
                  {"error": {"code": 9}},
                  result([hit(1, 1, (0, 0.5), (-1, 0)),
                          hit(2, RR_T, (RR_T - 1, 0.5),
                              (-math.cos(0.5), -math.sin(0.5))),
                          hit(3, 11 - math.sqrt(0.75),
                              (10 - math.sqrt(0.75), 0.5),
                              (-math.sqrt(0.75), 0.5))])]),
              query_errors=[
                  (0, error("FAILED_PRECONDITION", "rect",
                            "rotated_rect entities")),
                  (2, error("FAILED_PRECONDITION", "rotated_rect"))]),
         step(msg(2, upd=update(2, removals=[2]), queries=[
             overlap(rect(-1, -1, 20, 3)),
             overlap(rotated((1, 1), (0.5, 0.5), (5, 1), angle=0.25))]),
              answer(2, 2, 2, [result(ids(1, 3)), {"error": {"code": 9}}]),
              query_errors=[
                  (1, error("FAILED_PRECONDITION", "rotated_rect",
                            "rect entities"))]),
         step(msg(3, upd=update(3, removals=[1]), queries=[
             overlap(rotated((4, 4), (2, 2), (10, 0), angle=0.25))]),
              answer(3, 3, 1, [result(ids(3))]))],
        "Intersect answers no rect vs rotated rect nor rotated rect vs "
        "rotated rect. With a rect, a rotated rect and a circle in the "
        "scene, a rect overlap query and a rotated-rect one each get "
        "FAILED_PRECONDITION naming the entity kind; the circle query and "
        "the raycast of the same message are answered. The ray y = 0.5 from "
        "x = -1: rect [0,2]^2 at t 1, normal -x; the rotated rect (2x2 about "
        "(5,1), 0.5 rad) in its frame: local x = cos(t-6) - 0.5 sin, in "
        "[-1,1] from t = 6 + (0.5 sin 0.5 - 1)/cos 0.5 = 5.1337, local y "
        "from t = 3.0, so the local x face, normal -(cos 0.5, sin 0.5); "
        "circle (10,0) r 1 at x = 10 - sqrt(0.75), t 10.1340, normal "
        "(-0.8660, 0.5). Once the rotated rect is removed the "
        "rect query is answered (rect [0,2]^2 and circle (10,0) r 1); the "
        "rotated-rect query still fails while a rect is left, and is "
        "answered against the circle alone.",
        hand_checked=True))

    out.append(case(
        "scene2d/rejected_update_names_every_bad_field_and_changes_nothing",
        [step(msg(1, config(D2), update(1, [entity(1, circle(0, 0, 1))])),
              answer(1, 1, 1)),
         step(msg(2, upd=update(2, [entity(2, circle(5, 0, 2)),
                                    entity(3, circle(8, 0, -1))], [
             columns([4, 5], "circles", x=[1, 2], y=[0, 0],
                     radius=[1, -2])]), queries=[world]),
              err=error("INVALID_ARGUMENT",
                        "update.upserts[1].shape.circle.radius must be >= 0",
                        "update.upsert_columns[0].circles.radius[1] must be "
                        ">= 0")),
         step(msg(3, queries=[world]), answer(3, 1, 1, [result(ids(1))])),
         step(msg(4, upd=update(2, [entity(6, rect(2, 0, 1, 1))])),
              err=error("INVALID_ARGUMENT",
                        "update.upserts[0].shape.rect.max.x must be >= "
                        "min.x")),
         step(msg(5, upd=update(2, cols=[
             columns([7, 8], "circles", x=[0, 1], y=[0])])),
              err=error("INVALID_ARGUMENT",
                        "update.upsert_columns[0].circles.y has 1 values for "
                        "2 ids")),
         step(msg(6, upd=update(2, [entity(2, circle(5, 0, 2))]),
                  queries=[world]),
              answer(6, 2, 2, [result(ids(1, 2))]))],
        "A message with a valid upsert (2), a negative radius per entity and "
        "one in columns is rejected whole, naming both bad fields; a later "
        "query sees only entity 1 at tick 1. A rect with max.x < min.x and "
        "columns of unequal length are rejected too. Tick 2 is still free "
        "and the valid upsert then goes through.",
        hand_checked=True))

    out.append(case(
        "scene2d/rejected_queries_name_the_query_and_field",
        [step(msg(1, config(D2), update(1, [entity(1, circle(0, 0, 1))])),
              answer(1, 1, 1)),
         step(msg(2, queries=[
             raycast(v3(0, 0), v3(0, 0), 10),
             nearest(rect(0, 0, 1, 1), 0),
             raycast(v3(0, 0, 1), v3(1, 0), 10),
             overlap(sphere(0, 0, 0, 1)),
             sweep(v3(0, 0), v3(1, 0), 10, -1),
             overlap(circle(0, 0, 1), max_hits=4000000000)]),
              err=error("INVALID_ARGUMENT",
                        "queries[0].raycast.direction must not be zero",
                        "queries[1].nearest.shape must be a point or circle",
                        "queries[1].nearest.k must be in [1, ",
                        "queries[2].raycast.origin.z must be 0 in a 2D scene",
                        "queries[3].overlap.shape is a sphere, not a shape of "
                        "this 2D scene",
                        "queries[4].sweep.radius must be >= 0",
                        "queries[5].max_hits must be <= this server's "
                        "limit")),
         step(msg(3, queries=[raycast(v3(-5, 0), v3(1, 0), 10)]),
              answer(3, 1, 1, [result([hit(1, 4, (-1, 0), (-1, 0))])]))],
        "Six bad queries in one message: a zero direction, a nearest shaped "
        "as a rect with k 0, a 2D ray with z = 1, a sphere in a 2D scene, "
        "a negative sweep radius, max_hits over the server's limit: one "
        "INVALID_ARGUMENT naming each. The stream stays open: the next "
        "ray from (-5,0) hits circle (0,0) r 1 at (-1,0), t 4.",
        hand_checked=True))

    out.append(case(
        "scene2d/stale_tick_unknown_removal_duplicate_id_and_second_config",
        [step(msg(1, config(D2), update(7, [entity(1, circle(0, 0, 1)),
                                            entity(2, circle(5, 0, 1))])),
              answer(1, 7, 2)),
         step(msg(2, upd=update(7, [entity(3, circle(9, 0, 1))])),
              err=error("INVALID_ARGUMENT",
                        "update.tick must be > the previous update's tick "
                        "(7), got 7")),
         step(msg(3, upd=update(6)),
              err=error("INVALID_ARGUMENT",
                        "update.tick must be > the previous update's tick "
                        "(7), got 6")),
         step(msg(4, upd=update(8, removals=[99])),
              err=error("INVALID_ARGUMENT",
                        "update.removals[0]: no entity 99 in the scene")),
         step(msg(5, upd=update(8, [entity(1, circle(1, 0, 1))],
                                removals=[1])),
              err=error("INVALID_ARGUMENT",
                        "entity 1 appears twice in this update")),
         step(msg(6, config(D3)),
              err=error("INVALID_ARGUMENT",
                        "config is allowed only in the first message")),
         step(msg(7), answer(7, 7, 2)),
         step(msg(8, upd=update(8, removals=[2])), answer(8, 8, 1))],
        "Tick 7 holds two entities. Tick 7 again and tick 6 are not after "
        "7; removing id 99 that was never added, naming id 1 both as an "
        "upsert and a removal, and a second config are rejected, each "
        "changing nothing: an empty message then reports tick 7 and 2 "
        "entities, and tick 8 removing 2 is accepted.",
        hand_checked=True))

    out.append(case(
        "scene2d/first_message_needs_a_valid_config_and_max_entities_holds",
        [step(msg(1, upd=update(1, [entity(1, circle(0, 0, 1))])),
              err=error("INVALID_ARGUMENT",
                        "config is required in the first message")),
         step(msg(2, {"boundary": INC}),
              err=error("INVALID_ARGUMENT", "config.dimension is required")),
         step(msg(3, {"dimension": D2}),
              err=error("INVALID_ARGUMENT", "config.boundary is required")),
         step(msg(4, config(D2, max_entities=4294967295)),
              err=error("RESOURCE_EXHAUSTED",
                        "config.max_entities (4294967295) is over this "
                        "server's limit")),
         step(msg(5, config(D2, max_entities=2), update(1, [
             entity(1, circle(0, 0, 1)), entity(2, circle(3, 0, 1)),
             entity(3, circle(6, 0, 1))])),
              err=error("RESOURCE_EXHAUSTED",
                        "update would leave 3 entities in the scene, over "
                        "its limit of 2")),
         step(msg(6, config(D2, max_entities=2), update(1, [
             entity(1, circle(0, 0, 1)), entity(2, circle(3, 0, 1))])),
              answer(6, 1, 2)),
         step(msg(7, upd=update(2, [entity(3, circle(6, 0, 1))])),
              err=error("RESOURCE_EXHAUSTED",
                        "update would leave 3 entities in the scene, over "
                        "its limit of 2")),
         step(msg(8, upd=update(2, [entity(3, circle(6, 0, 1))],
                                removals=[1])),
              answer(8, 2, 2))],
        "A first message without a config, or whose config lacks the "
        "dimension or the boundary rule, or asks for more entities than any "
        "server allows, opens nothing; nor does a first message whose "
        "update is over its own config's max_entities (the whole message is "
        "rejected). The next valid config opens the scene, and the limit of "
        "2 holds: adding a third is rejected, replacing one is not.",
        hand_checked=True))

    out.append(case(
        "scene3d/spheres_boxes_point3s_in_columns_overlap_both_rules",
        [step(msg(1, config(D3), update(1, [
            entity(1, sphere(0, 0, 0, 2)), entity(2, box(5, -1, -1, 7, 1, 1))
        ], [
            columns([3, 4], "spheres", x=[0, 0], y=[10, 0], z=[0, 10],
                    radius=[1, 1]),
            columns([5], "spheres", x=[0], y=[-5], z=[0]),
            columns([6], "boxes", min_x=[10], min_y=[10], min_z=[10],
                    max_x=[12], max_y=[12], max_z=[12])])),
              answer(1, 1, 6)),
         step(msg(2, queries=[
             overlap(sphere(3.5, 0, 0, 1.5), True, True),
             overlap(sphere(3.5, 0, 0, 1.5), True, True, boundary=EXC),
             overlap(sphere(0, 0, 0, 10), True, True),
             overlap(box(-1, -1, -1, 1, 1, 1), True, True),
             overlap(box(7, 1, 1, 8, 2, 2), True, True),
             overlap(point3(0, -5, 0), True, True)]),
              answer(2, 1, 6, [
                  result([rel(1, "TOUCHING"), rel(2, "TOUCHING")]),
                  result(),
                  result([rel(1, "OVERLAPPING", -12),
                          rel(2, "OVERLAPPING", -5),
                          rel(3, "OVERLAPPING", -1),
                          rel(4, "OVERLAPPING", -1),
                          rel(5, "OVERLAPPING", -5)]),
                  result([rel(1, "OVERLAPPING", -3)]),
                  result([rel(2, "TOUCHING")]),
                  result([rel(5, "TOUCHING")])]))],
        "Sphere 1 (0,0,0) r 2 and box 2 [5,7]x[-1,1]^2 per entity; spheres "
        "3 (0,10,0) and 4 (0,0,10) r 1, point3 5 (0,-5,0) (no radius) and "
        "box 6 [10,12]^3 in columns. Sphere (3.5,0,0) r 1.5 touches sphere "
        "1 (3.5 = 2 + 1.5) and box 2 (nearest (5,0,0) at 1.5): both "
        "touching, neither under the exclusive rule. Sphere (0,0,0) r 10: "
        "1 at separation 0-2-10 = -12, box 2 at 5-10 = -5, spheres 3, 4 at "
        "10-1-10 = -1, point 5 at 5-10 = -5; box 6 at sqrt(300) = 17.3 "
        "misses. Box [-1,1]^3 holds sphere 1's centre 1 from its faces: "
        "-(2 + 1) = -3. Box [7,8]x[1,2]^2 meets box 2 at its corner: "
        "touching. The point3 (0,-5,0) on point 5: touching.",
        hand_checked=True))

    out.append(case(
        "scene3d/nearest_raycast_along_a_box_edge_and_sweeps",
        [step(msg(1, config(D3), update(1, [
            entity(1, sphere(0, 0, 0, 2)), entity(2, box(5, -1, -1, 7, 1, 1)),
            entity(3, point3(0, 0, -8))])), answer(1, 1, 3)),
         step(msg(2, queries=[
             nearest(point3(0, 0, -4), 2),
             nearest(sphere(0, 0, -4, 1), 5, max_distance=3),
             raycast(v3(-10, 1, 1), v3(1, 0, 0), 20, all_hits=True),
             raycast(v3(-10, 1, 1), v3(1, 0, 0), 20, all_hits=True,
                     boundary=EXC),
             raycast(v3(0.5, 0, 0), v3(0, 0, -3), 1),
             sweep(v3(0, 0, -10), v3(0, 0, 1), 20, 1, all_hits=True),
             sweep(v3(6, 0, 10), v3(0, 0, -1), 20, 0.5)]),
              answer(2, 1, 3, [
                  result([near(1, (0, 0, -2), (0, 0, -2), (0, 0, -1), 2, 2),
                          near(3, (0, 0, -8), (0, 0, -8), (0, 0, 1), 4, 4)],
                         truncated=True),
                  result([near(1, (0, 0, -2), (0, 0, -2), (0, 0, -1), 2, 1),
                          near(3, (0, 0, -8), (0, 0, -8), (0, 0, 1), 4, 3)]),
                  result([hit(1, 10 - SQRT2, (-SQRT2, 1, 1),
                              (-SQRT2 / 2, 0.5, 0.5)),
                          hit(2, 15, (5, 1, 1), (-1, 0, 0))]),
                  result([hit(1, 10 - SQRT2, (-SQRT2, 1, 1),
                              (-SQRT2 / 2, 0.5, 0.5))]),
                  result([hit(1, 0, (0.5, 0, 0), (0, 0, 1))]),
                  result([hit(3, 1, (0, 0, -8), (0, 0, -1)),
                          hit(1, 7, (0, 0, -2), (0, 0, -1))]),
                  result([hit(2, 8.5, (6, 0, 1), (0, 0, 1))])]))],
        "Sphere 1 (0,0,0) r 2, box 2 [5,7]x[-1,1]^2, point3 3 (0,0,-8). "
        "Nearest to (0,0,-4): sphere 1 at (0,0,-2), gap 2, normal -z; the "
        "point at 4, normal +z; the box at sqrt(34) is third: truncated. A "
        "query sphere of r 1 within 3: gaps 1 and 3. Ray (-10,1,1) along +x "
        "enters sphere 1 where x^2 + 1 + 1 = 4: x = -sqrt2, t = 10 - sqrt2 "
        "= 8.5858, normal (-sqrt2, 1, 1)/2; then runs along box 2's edge "
        "y = z = 1: inclusive, hit at (5,1,1), t 15, normal of the x slab "
        "entered last (-x); exclusive, the edge is a graze and only the "
        "sphere is hit. A ray starting inside sphere 1 along (0,0,-3): t 0, "
        "point the origin, normal -u = +z. A sphere of r 1 swept up the z "
        "axis from z = -10 meets point 3 at t 1 (contact (0,0,-8)) and "
        "sphere 1 at t 10-3 = 7 (contact (0,0,-2)), normals -z. A sphere of "
        "r 0.5 falling from (6,0,10) meets box 2's top face z = 1 at t "
        "10-1-0.5 = 8.5, contact (6,0,1), normal +z.",
        hand_checked=True))

    out.append(case(
        "scene3d/shapes_of_the_other_dimension_are_rejected",
        [step(msg(1, config(D3), update(1, [entity(1, circle(0, 0, 1))])),
              err=error("INVALID_ARGUMENT",
                        "update.upserts[0].shape is a circle, not a shape of "
                        "this 3D scene")),
         step(msg(2, config(D3), update(1, cols=[
             columns([1], "circles", x=[0], y=[0])])),
              err=error("INVALID_ARGUMENT",
                        "update.upsert_columns[0] holds shapes of the wrong "
                        "dimension for a 3D scene")),
         step(msg(3, config(D3), update(1, [entity(1, sphere(0, 0, 0, 1))])),
              answer(3, 1, 1)),
         step(msg(4, queries=[overlap(rect(0, 0, 1, 1)),
                              nearest(box(0, 0, 0, 1, 1, 1), 1)]),
              err=error("INVALID_ARGUMENT",
                        "queries[0].overlap.shape is a rect, not a shape of "
                        "this 3D scene",
                        "queries[1].nearest.shape must be a point or circle "
                        "(2D) or a point3 or sphere (3D), got a box")),
         step(msg(5, queries=[overlap(sphere(1, 1, 1, 1))]),
              answer(5, 1, 1, [result(ids(1))]))],
        "A circle (per entity or in columns) in a 3D scene is rejected, and "
        "so is the opening message carrying it; a rect overlap and a box "
        "nearest query are rejected naming the query. Sphere (1,1,1) r 1 "
        "overlaps sphere (0,0,0) r 1 (d = sqrt3 < 2).",
        hand_checked=True))

    ray_down = raycast(v3(5, 10), v3(0, -1), 20)
    out.append(case(
        "scene2d/rewound_queries_interpolate_between_ticks",
        [step(msg(1, config(D2, history_ticks=8), update(10, [
            entity(1, circle(0, 0, 1)),
            entity(2, rotated((4, 2), (0, 0), (20, 0), cos_sin=(1, 0)))])),
              answer(1, 10, 2)),
         step(msg(2, upd=update(11, [
             entity(1, circle(10, 0, 1)),
             entity(2, rotated((4, 2), (0, 0), (20, 0), cos_sin=(-1, 0)))]),
             queries=[at(ray_down, 10, 0.5), at(ray_down, 10), ray_down,
                      at(overlap(point(19, 3)), 10, 0.5),
                      at(overlap(point(19, 3)), 10)]),
              answer(2, 11, 2, [
                  result([hit(1, 9, (5, 1, 0), (0, 1, 0))],
                         moment=(10, 0.5)),
                  result(moment=(10, 0)),
                  result(),
                  result(ids(2), moment=(10, 0.5)),
                  result(moment=(10, 0))]))],
        "Circle 1 (r 1) moves from (0,0) at tick 10 to (10,0) at tick 11; "
        "rotated rect 2 (4x2, pivot at its min corner, at (20,0)) turns "
        "from angle 0 to pi. At (10, 0.5) the circle is at (5,0): the ray "
        "down x = 5 from y = 10 meets it at (5,1), t 9, normal +y; at tick "
        "10 and at the latest tick (11) it misses. Opposite turns go "
        "counter-clockwise: at (10, 0.5) the rect is turned pi/2 and spans "
        "x in [18,20], y in [0,4], so the point (19,3) is inside; at tick "
        "10 it spans [20,24]x[0,2] and is not. Rewound answers carry the "
        "moment they were answered at; the unrewound one does not.",
        hand_checked=True))

    def circle_at(t):
        return update(t, [entity(1, circle(t, 0, 0.5))])

    out.append(case(
        "scene2d/rewound_queries_clamp_to_the_oldest_tick_and_refuse_the_"
        "future",
        [step(msg(1, config(D2, history_ticks=4), circle_at(1)),
              answer(1, 1, 1))] +
        [step(msg(t, upd=circle_at(t)), answer(t, t, 1)) for t in range(2, 7)] +
        [step(msg(7, queries=[at(overlap(point(1, 0)), 1, 0.5),
                              at(overlap(point(3, 0)), 2),
                              at(overlap(point(4.5, 0)), 4, 0.5)]),
              answer(7, 6, 1, [result(moment=(3, 0), clamped=True),
                               result(ids(1), moment=(3, 0), clamped=True),
                               result(ids(1), moment=(4, 0.5))])),
         step(msg(8, queries=[at(overlap(point(0, 0)), 6, 0.5),
                              at(overlap(point(0, 0)), 7),
                              at(overlap(point(0, 0)), 5, 1.0)]),
              err=error("INVALID_ARGUMENT",
                        "queries[0].at is in the future",
                        "queries[1].at is in the future",
                        "queries[2].at.fraction must be in [0, 1), got 1"))],
        "Circle 1 (r 0.5) at (t,0) on ticks 1..6; a history of 4 ticks "
        "keeps ticks 3..6. A query at (1, 0.5) or at 2 is answered at the "
        "oldest tick kept, 3 (circle at (3,0)), with clamped set: (1,0) is "
        "not in it, (3,0) is. At (4, 0.5) the circle is at (4.5,0). A moment "
        "after the latest tick (6 + 0.5, or 7) and a fraction of 1 are "
        "rejected, each naming its query.",
        hand_checked=True))

    return out


# --- output ---------------------------------------------------------------


def tidy(value):
    """Integral floats as ints, -0.0 and 0.0 dropped (a default)."""
    if isinstance(value, dict):
        return {k: tidy(v) for k, v in value.items()
                if not (isinstance(v, float) and v == 0.0)}
    if isinstance(value, list):
        return [tidy(v) for v in value]
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    return value


def canonical(message, json_format):
    return tidy(json_format.MessageToDict(message))


def answer_of(got, json_format):
    """The server's answer as the file holds it, and its per-query error
    messages (kept apart: they are compared by substring)."""
    response = canonical(got, json_format)
    messages = {}
    for q, r in enumerate(response.get("results", [])):
        if "message" in r.get("error", {}):
            messages[q] = r["error"].pop("message")
    return response, messages


def record(definition, responses, json_format):
    """The file's case: the server's answers in place of the hand ones."""
    steps = []
    for s, got in zip(definition["steps"], responses):
        out = {"request": s["request"]}
        if "error" in s:
            out["error"] = dict(s["error"], message=got.error.message)
        else:
            out["response"], messages = answer_of(got, json_format)
            if "query_errors" in s:
                out["query_errors"] = [dict(e, message=messages.get(e["query"]))
                                       for e in s["query_errors"]]
        steps.append(out)
    c = {"name": definition["name"]}
    if definition["hand_checked"]:
        c["hand_checked"] = True
    c["note"] = definition["note"]
    c["steps"] = steps
    return c


def dump(cases_out):
    lines = [
        "{",
        '  "description": "collision.v1.SceneService golden vectors: each '
        'case is one Session stream, its requests and the answer to each. '
        'Canonical proto3 JSON. See README.md beside this file.",',
        '  "generator": "clients/python/generate_scene_golden.py",',
        '  "comparison": ' + json.dumps({
            "exact": ["sequence", "tick", "entities", "id", "relation",
                      "inside", "truncated", "number of results and hits",
                      "error.code"],
            "float_absolute": TOLERANCE["abs"],
            "float_relative": TOLERANCE["rel"],
            "float_rule": "|got - want| <= float_absolute or |got - want| "
                          "<= float_relative * max(|got|, |want|)",
            "error_rule": "code equal and the message contains every "
                          "message_contains substring"}) + ",",
        '  "cases": [',
    ]
    compact = {"separators": (",", ":")}
    for ci, c in enumerate(cases_out):
        head = '    {"name": %s,' % json.dumps(c["name"])
        if c.get("hand_checked"):
            head += ' "hand_checked": true,'
        lines.append(head)
        lines.append('     "note": %s,' % json.dumps(c["note"]))
        lines.append('     "steps": [')
        for si, s in enumerate(c["steps"]):
            parts = ['"request": ' + json.dumps(s["request"], **compact)]
            for key in ("response", "error", "query_errors"):
                if key in s:
                    parts.append('"%s": %s' % (key,
                                               json.dumps(s[key], **compact)))
            tail = "}" + ("," if si + 1 < len(c["steps"]) else "")
            lines.append("       {" + ",\n        ".join(parts) + tail)
        lines.append("     ]}" + ("," if ci + 1 < len(cases_out) else ""))
    lines += ["  ]", "}"]
    return "\n".join(lines) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--server", required=True, help="collision_server binary")
    args = p.parse_args()
    code_names = {c.value[0]: c.name for c in grpc.StatusCode}

    server = LiveServer(args.server)
    failures = []
    written = []
    try:
        client = collision_client.Client(server.address)
        stub = scene_pb2_grpc.SceneServiceStub(client.channel)
        for definition in cases():
            for s in definition["steps"]:  # canonical requests
                s["request"] = canonical(
                    json_format.ParseDict(s["request"],
                                          scene_pb2.SceneRequest()),
                    json_format)
            requests = [json_format.ParseDict(s["request"],
                                              scene_pb2.SceneRequest())
                        for s in definition["steps"]]
            responses, problems = run_stream(grpc, stub, requests)
            failures += ["%s: %s" % (definition["name"], p) for p in problems]
            # Every answer against the hand one; a step without one (only
            # in a case not hand_checked) is recorded, its errors checked.
            check = {"steps": []}
            for s in definition["steps"]:
                if "response" not in s and "error" not in s:
                    if definition["hand_checked"]:
                        failures.append("%s: a hand_checked case needs every "
                                        "answer" % definition["name"])
                    i = len(check["steps"])
                    if i < len(responses):
                        s = dict(s, response=answer_of(responses[i],
                                                       json_format)[0])
                check["steps"].append(s)
            diffs = case_differences(check, responses, TOLERANCE, json_format,
                                     scene_pb2, code_names)
            failures += ["%s: %s" % (definition["name"], d) for d in diffs]
            written.append(record(definition, responses, json_format))
        client.close()
    finally:
        rc = server.stop()
    if rc != 0:
        failures.append("collision_server exited with %s" % rc)
    if failures:
        sys.stderr.write("not written; the server disagrees:\n  " +
                         "\n  ".join(failures) + "\n")
        return 1
    sys.stdout.write(dump(written))
    return 0


if __name__ == "__main__":
    sys.exit(main())
