#!/usr/bin/env python3
"""Calls a running collision_server through the collision_client package.

  /usr/bin/python3 clients/python/build_wheel.py /tmp/dist
  python3 -m pip install /tmp/dist/collision_client-0.1.0-py3-none-any.whl
  python3 -m collision_client.examples.example 127.0.0.1:50051
"""

import sys

import collision_client as cc


def main():
    target = sys.argv[1] if len(sys.argv) > 1 else "127.0.0.1:50051"
    with cc.Client(target, deadline=5) as client:
        client.wait_until_serving(timeout=10)

        # Seed 001's circle touching a corner + size rectangle: touching is a
        # hit under the default boundary rule, INCLUSIVE.
        reply = client.intersect(cc.intersect_request(
            [(cc.circle(25, 25, 5), cc.rect_from_corner_size(10, 20, 10, 10))],
            relation=True, separation=True))
        r = reply.results[0]
        print("hit=%s relation=%s separation=%g" %
              (r.hit, cc.pb.Relation.Name(r.relation), r.separation))

        # A 4 x 2 rectangle (top-left (0, 0)) turned 90 degrees about its
        # centre (2, 1) spans x 1..3, y -1..3; a quarter turn is exact, so
        # (1, 3) touches its corner exactly.
        turned = cc.rotated_rect_about_center(0, 0, 4, 2,
                                              cc.degrees_to_radians(90))
        r = client.intersect(cc.intersect_request(
            [(cc.point(1, 3), turned)], relation=True)).results[0]
        print("turned: hit=%s relation=%s" %
              (r.hit, cc.pb.Relation.Name(r.relation)))

        # Closest point of the rectangle (0, 0)-(10, 10) to (13, 14).
        c = client.closest_point(cc.closest_point_request(
            [(cc.point(13, 14), cc.rect_from_corner_size(0, 0, 10, 10))]
        )).results[0]
        print("closest=(%g, %g) distance=%g inside=%s" %
              (c.closest_point.x, c.closest_point.y, c.signed_distance,
               c.inside))

        # Many pairs of one kind as columns (lists or numpy arrays); the hit
        # bits come back decoded.
        xs = [0, 5, 10, 15]
        reply = client.intersect_columns(cc.intersect_columns_request([
            (cc.circles(xs, [0] * 4, radius=1),
             cc.rects_from_corner_size([9] * 4, -1, 4, 2))]))
        print("columns hits: %s" % [bool(h) for h in cc.hits(reply)])

        # One request per game tick on one stream.
        with client.open_session() as session:
            for tick in (1, 2, 3):
                answer = session.call(cc.intersect_request(
                    [(cc.circle(tick, 0, 1),
                      cc.rect_from_corner_size(3, -1, 2, 2))]), sequence=tick)
                print("tick %d: hit=%s" % (tick, answer.results[0].hit))

        # Invalid input is rejected whole, naming each field at fault.
        bad = cc.intersect_request([
            (cc.circle(0, 0, -1), cc.point(0, 0)),
            (cc.point(0, 0), cc.rect_from_min_max(1, 0, 0, 1)),
        ])
        try:
            client.intersect(bad)
        except cc.InvalidRequest as e:
            print("rejected: %s: %s" % (e.code().name, e.details()))
            for field, description in e.field_violations:
                print("  %s: %s" % (field or "(the request)", description))


if __name__ == "__main__":
    main()
