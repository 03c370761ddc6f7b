#!/usr/bin/env python3
"""A game world kept on a running collision_server, from asyncio Python.

A scene session is one scene: opening it sends the config, then each
message is one tick (its entity changes, then its queries). send() hands a
tick over and returns a Future of its answer at once, so the game loop
goes on while the server works and collects the answer later. A stream the
server drains or ages out, or a replica that dies, is reopened with the
world the session kept, unseen by the game (docs/python.md, "Scenes").

Installed with the collision-client wheel:

  python3 -m collision_client.examples.example_scene 127.0.0.1:50051
"""

import asyncio
import sys

import collision_client as cc
from collision.v1 import collision_pb2 as pb
from collision.v1 import scene_pb2 as scene

PLAYERS = 1  # category (layer) bits
WALLS = 2
SHOOTER, ENEMY, WALL, CRATE = 1, 2, 3, 4


def entity(entity_id, shape, category):
    return scene.SceneEntity(id=entity_id, shape=shape, category=category)


async def main(target):
    async with cc.AsyncClient(target) as client:
        await client.wait_until_serving(timeout=10)
        world = await client.open_scene(scene.SceneConfig(
            dimension=scene.DIMENSION_2D, boundary=pb.BOUNDARY_RULE_INCLUSIVE))

        # Tick 1: the entities.
        reply = await world.send(scene.SceneRequest(update=scene.SceneUpdate(
            tick=1, upserts=[
                entity(SHOOTER, cc.circle(0, 0, 0.5), PLAYERS),
                entity(ENEMY, cc.circle(10, 3, 0.5), PLAYERS),
                entity(WALL, cc.rect_from_min_max(6, -1, 7, 1), WALLS),
                entity(CRATE, cc.rect_from_min_max(9, 1, 10, 2), WALLS)])))
        print("tick %d: %d entities" % (reply.tick, reply.entities))

        # Tick 2: the enemy moves behind the wall; the shooter fires along
        # +x (excluding itself: the ray starts inside it) and a grenade
        # goes off at (11, 0). The answer is collected after the tick's own
        # work (here, none).
        answer = world.send(scene.SceneRequest(
            update=scene.SceneUpdate(tick=2, upserts=[
                entity(ENEMY, cc.circle(12, 0, 0.5), PLAYERS)]),
            queries=[
                scene.SceneQuery(
                    raycast=scene.RaycastQuery(
                        origin=pb.Vec3(x=0, y=0), direction=pb.Vec3(x=1),
                        max_distance=50, all_hits=True),
                    exclude_id=SHOOTER, mask=PLAYERS | WALLS),
                scene.SceneQuery(overlap=scene.OverlapQuery(
                    shape=cc.circle(11, 0, 2), include_relation=True,
                    include_separation=True)),
            ]))
        reply = await answer
        print("tick %d: %d entities" % (reply.tick, reply.entities))
        shot, blast = reply.results
        for h in shot.hits:
            print("shot hits %d at distance %g, point (%g, %g), normal "
                  "(%g, %g)" % (h.id, h.distance, h.point.x, h.point.y,
                                h.normal.x, h.normal.y))
        for h in blast.hits:
            print("blast reaches %d: %s, separation %g" %
                  (h.id, pb.Relation.Name(h.relation), h.separation))

        # A rejected tick changes nothing and the scene goes on: its answer
        # raises InvalidRequest with the fields at fault.
        try:
            await world.send(scene.SceneRequest(update=scene.SceneUpdate(
                tick=3, upserts=[entity(CRATE, cc.circle(9, 1, -1), WALLS)])))
        except cc.InvalidRequest as e:
            print("tick 3 rejected: %s: %s" % (e.code().name, e.details()))
            for v in e.field_violations:
                print("  field %s: %s" % (v.field, v.description))

        # Lag compensation: the enemy runs up +y at 0.5 units a tick; the
        # ticks are handed over without waiting, several in flight. On tick
        # 9 a shooter whose screen is 100 ms behind (6.4 ticks at the
        # default 64 Hz) fires at where they saw it: the scene is rewound
        # to that moment (tick 2.6, interpolated) to decide the hit.
        running = [world.send(scene.SceneRequest(update=scene.SceneUpdate(
            tick=tick, upserts=[entity(ENEMY, cc.circle(12, 0.5 * (tick - 2),
                                                         0.5), PLAYERS)])))
                   for tick in range(3, 10)]
        seen = 9 - 0.100 * 64  # the shooter's moment: tick 2.6
        aim = pb.Vec3(x=12, y=0.5 * (seen - 2))
        shot = scene.SceneQuery(
            raycast=scene.RaycastQuery(origin=pb.Vec3(x=0, y=0),
                                       direction=aim, max_distance=50),
            exclude_id=SHOOTER, mask=PLAYERS,
            at=scene.SceneMoment(tick=int(seen), fraction=seen - int(seen)))
        now = scene.SceneQuery()
        now.CopyFrom(shot)
        now.ClearField("at")
        fired = world.send(scene.SceneRequest(queries=[shot, now]))
        await asyncio.gather(*running)
        reply = await fired
        lagged, latest = reply.results
        print("shot rewound to tick %d + %.2f%s: %s" % (
            lagged.at.tick, lagged.at.fraction,
            " (clamped)" if lagged.clamped else "",
            "hits %d" % lagged.hits[0].id if lagged.hits else "miss"))
        print("the same shot at tick %d: %s" % (
            reply.tick, "hits %d" % latest.hits[0].id if latest.hits else
            "miss"))
        print("streams reopened: %d" % world.reopens)
        await world.close()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1] if len(sys.argv) > 1 else
                     "127.0.0.1:50051"))
