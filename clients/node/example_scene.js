// A game world kept on a running collision_server, from Node. One
// SceneService.Session stream is one scene: the first message configures it,
// then each message is one tick (its entity changes, then its queries).
//   node clients/node/example_scene.js 127.0.0.1:50051
'use strict';

const { grpc, loadProtos, bidi } = require('./collision');

const PLAYERS = 1;  // category (layer) bits
const WALLS = 2;

const circle = (x, y, radius) => ({ circle: { center: { x, y }, radius } });
const rect = (x0, y0, x1, y1) =>
  ({ rect: { min: { x: x0, y: y0 }, max: { x: x1, y: y1 } } });

// Ids are uint64: strings on the wire and in answers.
const [shooter, enemy, wall, crate] = ['1', '2', '3', '4'];

async function main() {
  const target = process.argv[2] || '127.0.0.1:50051';
  const { collision } = loadProtos();
  const client = new collision.SceneService(target,
    grpc.credentials.createInsecure());
  const world = bidi(client, 'Session');  // the deadline covers the match
  let sequence = 0;
  const send = async (request) => {
    sequence += 1;
    const reply = await world.send({ sequence: String(sequence), ...request });
    if (reply.error) {  // rejected whole; the scene goes on
      const { code, message } = reply.error;
      throw new Error(`${grpc.status[code]}: ${message}`);
    }
    return reply;
  };

  // Open the scene and add the entities of tick 1.
  let reply = await send({
    config: { dimension: 'DIMENSION_2D', boundary: 'BOUNDARY_RULE_INCLUSIVE' },
    update: {
      tick: '1',
      upserts: [
        { id: shooter, shape: circle(0, 0, 0.5), category: PLAYERS },
        { id: enemy, shape: circle(10, 3, 0.5), category: PLAYERS },
        { id: wall, shape: rect(6, -1, 7, 1), category: WALLS },
        { id: crate, shape: rect(9, 1, 10, 2), category: WALLS },
      ],
    },
  });
  console.log(`tick ${reply.tick}: ${reply.entities} entities`);

  // Tick 2: the enemy moves behind the wall; the shooter fires along +x
  // (excluding itself: the ray starts inside it) and a grenade goes off at
  // (11, 0).
  reply = await send({
    update: {
      tick: '2',
      upserts: [{ id: enemy, shape: circle(12, 0, 0.5), category: PLAYERS }],
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
          shape: circle(11, 0, 2), includeRelation: true,
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
  await world.close();
  client.close();
}

main().catch((err) => { console.error(err); process.exit(1); });
