// A game world kept on a running collision_server, through the
// collision-client package. A scene session is one scene: opening it sends
// the config, then each message is one tick (its entity changes, then its
// queries). send() hands a tick over and returns a promise of its answer at
// once, so the game loop goes on while the server works. A stream the
// server drains or ages out, or a replica that dies, is reopened with the
// world the session kept, unseen by the game (docs/node.md, "Scenes").
//   node example_scene.js 127.0.0.1:50051
'use strict';

const cc = require('collision-client');

const PLAYERS = 1;  // category (layer) bits
const WALLS = 2;

// Ids are uint64: give them as decimal strings, BigInts or safe integers;
// answers carry them as decimal strings.
const [shooter, enemy, wall, crate] = ['1', '2', '3', '4'];

async function main() {
  const client = cc.createClient(process.argv[2] || '127.0.0.1:50051');
  try {
    await client.waitUntilServing({ timeoutMs: 5000 });
    const world = await client.openSceneSession(
      { dimension: '2D', boundary: 'INCLUSIVE' });

    // Tick 1: the entities.
    let reply = await world.send({
      update: {
        tick: 1,
        upserts: [
          { id: shooter, shape: cc.circle(0, 0, 0.5), category: PLAYERS },
          { id: enemy, shape: cc.circle(10, 3, 0.5), category: PLAYERS },
          { id: wall, shape: cc.rectFromMinMax(6, -1, 7, 1), category: WALLS },
          { id: crate, shape: cc.rectFromMinMax(9, 1, 10, 2), category: WALLS },
        ],
      },
    });
    console.log(`tick ${reply.tick}: ${reply.entities} entities`);

    // Tick 2: the enemy moves behind the wall; the shooter fires along +x
    // (excluding itself: the ray starts inside it) and a grenade goes off
    // at (11, 0). The answer is collected after the tick's own work.
    const answer = world.send({
      update: {
        tick: 2,
        upserts: [{ id: enemy, shape: cc.circle(12, 0, 0.5),
          category: PLAYERS }],
      },
      queries: [
        {
          raycast: {
            origin: { x: 0, y: 0 }, direction: { x: 1 }, maxDistance: 50,
            allHits: true,
          },
          excludeId: shooter,
          mask: PLAYERS | WALLS,
        },
        {
          overlap: {
            shape: cc.circle(11, 0, 2), includeRelation: true,
            includeSeparation: true,
          },
        },
      ],
    });
    reply = await answer;
    console.log(`tick ${reply.tick}: ${reply.entities} entities`);
    const [shot, blast] = reply.results;
    for (const h of shot.hits) {
      console.log(`shot hits ${h.id} at distance ${h.distance}, ` +
        `point (${h.point.x}, ${h.point.y}), normal (${h.normal.x}, ` +
        `${h.normal.y})`);
    }
    for (const h of blast.hits) {
      console.log(`blast reaches ${h.id}: ${h.relation}, ` +
        `separation ${h.separation}`);
    }

    // A rejected tick changes nothing and the scene goes on: its send
    // rejects with the fields at fault.
    try {
      await world.send({ update: { tick: 3, upserts: [
        { id: crate, shape: cc.circle(9, 1, -1), category: WALLS }] } });
    } catch (err) {
      console.log(`tick 3 rejected: ${err.codeName}: ${err.details}`);
      for (const v of err.fieldViolations) {
        console.log(`  field ${v.field}: ${v.description}`);
      }
    }

    // Lag compensation: the enemy runs up +y at 0.5 units a tick; the ticks
    // are handed over without waiting, several in flight. On tick 9 a
    // shooter whose screen is 100 ms behind (6.4 ticks at the default
    // 64 Hz) fires at where they saw it: the scene is rewound to that
    // moment (tick 2.6, interpolated) to decide the hit.
    const running = [];
    for (let tick = 3; tick <= 9; tick += 1) {
      running.push(world.send({ update: { tick, upserts: [{ id: enemy,
        shape: cc.circle(12, 0.5 * (tick - 2), 0.5), category: PLAYERS }] } }));
    }
    const seen = 9 - 0.100 * 64;  // the shooter's moment: tick 2.6
    const aimed = {
      raycast: { origin: { x: 0, y: 0 }, direction: { x: 12,
        y: 0.5 * (seen - 2) }, maxDistance: 50 },
      excludeId: shooter,
      mask: PLAYERS,
    };
    const fired = world.send({ queries: [
      { ...aimed, at: { tick: Math.floor(seen),
        fraction: seen - Math.floor(seen) } },
      aimed,
    ] });
    await Promise.all(running);
    reply = await fired;
    const [lagged, latest] = reply.results;
    console.log(`shot rewound to tick ${lagged.at.tick} + ` +
      `${lagged.at.fraction.toFixed(2)}${lagged.clamped ? ' (clamped)' : ''}: ` +
      `${lagged.hits.length ? `hits ${lagged.hits[0].id}` : 'miss'}`);
    console.log(`the same shot at tick ${reply.tick}: ` +
      `${latest.hits.length ? `hits ${latest.hits[0].id}` : 'miss'}`);
    console.log(`streams reopened: ${world.reopens}`);
    await world.close();
  } finally {
    client.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
