// A game world kept on a running collision_server, through the
// collision-client package. One scene session is one scene: the first
// message configures it, then each message is one tick (its entity
// changes, then its queries).
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
    // The deadline covers the match.
    const world = client.openScene({ deadlineMs: 60000 });

    // Open the scene and add the entities of tick 1. Sequences are
    // numbered 1, 2, ... unless a message sets its own.
    let reply = await world.send({
      config: { dimension: '2D', boundary: 'INCLUSIVE' },
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
    // at (11, 0).
    reply = await world.send({
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
        { id: crate, shape: cc.circle(9, 1, -1) }] } });
    } catch (err) {
      console.log(`tick 3 rejected: ${cc.status[err.code]}: ${err.details}`);
      for (const v of err.fieldViolations) {
        console.log(`  field ${v.field}: ${v.description}`);
      }
    }
    await world.close();
  } finally {
    client.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
