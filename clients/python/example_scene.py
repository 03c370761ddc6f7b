#!/usr/bin/env python3
"""A game world kept on a running collision_server, from Python.

One SceneService.Session stream is one scene: the first message configures
it, then each message is one tick (its entity changes, then its queries).
The scene stubs come with the collision_client package (docs/python.md):

  python3 clients/python/example_scene.py 127.0.0.1:50051
"""

import queue
import sys

import collision_client as cc
import grpc
from collision.v1 import collision_pb2 as pb
from collision.v1 import scene_pb2 as scene
from collision.v1 import scene_pb2_grpc

PLAYERS = 1  # category (layer) bits
WALLS = 2
CODE_NAMES = {c.value[0]: c.name for c in grpc.StatusCode}


class SceneStream:
    """One Session stream, one message at a time: send() returns its answer."""

    def __init__(self, client, timeout_s=30):
        self._outbox = queue.Queue()
        stub = scene_pb2_grpc.SceneServiceStub(client.channel)
        # The deadline covers the whole stream (the whole match, here); the
        # client's metadata and token go with it.
        self._responses = stub.Session(iter(self._outbox.get, None),
                                       **client.call_options(timeout_s))
        self._sequence = 0

    def send(self, request):
        self._sequence += 1
        request.sequence = self._sequence
        self._outbox.put(request)
        response = next(self._responses)
        if response.HasField("error"):  # rejected whole; the scene goes on
            raise ValueError("%s: %s" % (CODE_NAMES[response.error.code],
                                         response.error.message))
        return response

    def close(self):
        self._outbox.put(None)  # half-close: the server ends the scene
        for _ in self._responses:
            pass


circle = cc.circle
rect = cc.rect_from_min_max


def main():
    target = sys.argv[1] if len(sys.argv) > 1 else "127.0.0.1:50051"
    shooter, enemy, wall, crate = 1, 2, 3, 4
    with cc.Client(target) as client:
        client.wait_until_serving(timeout=10)
        world = SceneStream(client)

        # Open the scene and add the entities of tick 1.
        reply = world.send(scene.SceneRequest(
            config=scene.SceneConfig(dimension=scene.DIMENSION_2D,
                                     boundary=pb.BOUNDARY_RULE_INCLUSIVE),
            update=scene.SceneUpdate(tick=1, upserts=[
                scene.SceneEntity(id=shooter, shape=circle(0, 0, 0.5),
                                  category=PLAYERS),
                scene.SceneEntity(id=enemy, shape=circle(10, 3, 0.5),
                                  category=PLAYERS),
                scene.SceneEntity(id=wall, shape=rect(6, -1, 7, 1),
                                  category=WALLS),
                scene.SceneEntity(id=crate, shape=rect(9, 1, 10, 2),
                                  category=WALLS)])))
        print("tick %d: %d entities" % (reply.tick, reply.entities))

        # Tick 2: the enemy moves behind the wall; the shooter fires along
        # +x (excluding itself: the ray starts inside it) and a grenade
        # goes off at (11, 0).
        reply = world.send(scene.SceneRequest(
            update=scene.SceneUpdate(tick=2, upserts=[
                scene.SceneEntity(id=enemy, shape=circle(12, 0, 0.5),
                                  category=PLAYERS)]),
            queries=[
                scene.SceneQuery(
                    raycast=scene.RaycastQuery(
                        origin=pb.Vec3(x=0, y=0), direction=pb.Vec3(x=1),
                        max_distance=50, all_hits=True),
                    exclude_id=shooter, mask=PLAYERS | WALLS),
                scene.SceneQuery(overlap=scene.OverlapQuery(
                    shape=circle(11, 0, 2), include_relation=True,
                    include_separation=True)),
            ]))
        print("tick %d: %d entities" % (reply.tick, reply.entities))
        shot, blast = reply.results
        for h in shot.hits:
            print("shot hits %d at distance %g, point (%g, %g), normal "
                  "(%g, %g)" % (h.id, h.distance, h.point.x, h.point.y,
                                h.normal.x, h.normal.y))
        for h in blast.hits:
            print("blast reaches %d: %s, separation %g" %
                  (h.id, pb.Relation.Name(h.relation), h.separation))

        # Lag compensation: the enemy runs up +y at 0.5 units a tick. On
        # tick 9 a shooter whose screen is 100 ms behind (6.4 ticks at the
        # default 64 Hz) fires at where they saw it; the scene is rewound
        # to that moment (tick 2.6, interpolated) to decide the hit.
        for tick in range(3, 10):
            world.send(scene.SceneRequest(
                update=scene.SceneUpdate(tick=tick, upserts=[
                    scene.SceneEntity(id=enemy,
                                      shape=circle(12, 0.5 * (tick - 2), 0.5),
                                      category=PLAYERS)])))
        seen = 9 - 0.100 * 64  # the shooter's moment: tick 2.6
        aim = pb.Vec3(x=12, y=0.5 * (seen - 2))
        shot = scene.SceneQuery(
            raycast=scene.RaycastQuery(origin=pb.Vec3(x=0, y=0),
                                       direction=aim, max_distance=50),
            exclude_id=shooter, mask=PLAYERS,
            at=scene.SceneMoment(tick=int(seen), fraction=seen - int(seen)))
        now = scene.SceneQuery()
        now.CopyFrom(shot)
        now.ClearField("at")
        reply = world.send(scene.SceneRequest(queries=[shot, now]))
        lagged, latest = reply.results
        print("shot rewound to tick %d + %.2f%s: %s" % (
            lagged.at.tick, lagged.at.fraction,
            " (clamped)" if lagged.clamped else "",
            "hits %d" % lagged.hits[0].id if lagged.hits else "miss"))
        print("the same shot at tick %d: %s" % (
            reply.tick, "hits %d" % latest.hits[0].id if latest.hits else
            "miss"))
        world.close()


if __name__ == "__main__":
    main()
