// Calls a running collision_server from Node:
//   node clients/node/example.js 127.0.0.1:50051
'use strict';

const { grpc, loadProtos, unary } = require('./collision');

// Seeds 000/001: (x, y) is the top-left corner on a y-down screen.
const rectFromCornerSize = (x, y, w, h) =>
  ({ rect: { min: { x, y }, max: { x: x + w, y: y + h } } });
const circle = (x, y, radius) => ({ circle: { center: { x, y }, radius } });

async function main() {
  const target = process.argv[2] || '127.0.0.1:50051';
  const { collision } = loadProtos();
  const client = new collision.CollisionService(target,
    grpc.credentials.createInsecure());

  // Seed 001's touching circle: touching counts under INCLUSIVE.
  const request = {
    pairs: [{ a: circle(25, 25, 5), b: rectFromCornerSize(10, 20, 10, 10) }],
    boundary: 'BOUNDARY_RULE_INCLUSIVE',
    includeRelation: true,
    includeSeparation: true,
  };
  const hit = (await unary(client, 'Intersect', request, 5000)).results[0];
  console.log(`hit=${hit.hit} relation=${hit.relation} ` +
    `separation=${hit.separation}`);

  const reply = await unary(client, 'ClosestPoint', {
    queries: [{ query: { point: { x: 13, y: 14 } },
      target: rectFromCornerSize(0, 0, 10, 10) }],
    boundary: 'BOUNDARY_RULE_INCLUSIVE',
  }, 5000);
  const c = reply.results[0];
  console.log(`closest=(${c.closestPoint.x}, ${c.closestPoint.y}) ` +
    `distance=${c.signedDistance} inside=${c.inside}`);

  // Invalid input: INVALID_ARGUMENT naming the field.
  request.pairs[0].a.circle.radius = -1;
  try {
    await unary(client, 'Intersect', request, 5000);
  } catch (err) {
    console.log(`rejected: ${grpc.status[err.code]}: ${err.details}`);
  }
  client.close();
}

main().catch((err) => { console.error(err); process.exit(1); });
