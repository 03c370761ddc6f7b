// Calls a running collision_server through the collision-client package:
//   node example.js 127.0.0.1:50051
// (in the repository: clients/node after `npm ci`; installed: node
// node_modules/collision-client/example.js 127.0.0.1:50051).
'use strict';

const cc = require('collision-client');

async function main() {
  const client = cc.createClient(process.argv[2] || '127.0.0.1:50051',
    { deadlineMs: 5000 });
  try {
    await client.waitUntilServing({ timeoutMs: 5000 });

    // Seed 001's touching circle (rect: top-left corner + size on a y-down
    // screen): touching counts under the inclusive rule, the default.
    const reply = await client.intersect(cc.intersectRequest(
      [[cc.circle(25, 25, 5), cc.rectFromCornerSize(10, 20, 10, 10)]],
      { relation: true, separation: true }));
    const hit = reply.results[0];
    console.log(`hit=${hit.hit} relation=${hit.relation} ` +
      `separation=${hit.separation}`);

    const nearest = (await client.closestPoint(cc.closestPointRequest(
      [[cc.point(13, 14), cc.rectFromCornerSize(0, 0, 10, 10)]])))
      .results[0];
    console.log(`closest=(${nearest.closestPoint.x}, ` +
      `${nearest.closestPoint.y}) distance=${nearest.signedDistance} ` +
      `inside=${nearest.inside}`);

    // Many pairs at once: columns, and the hits as one boolean per pair.
    const columns = await client.intersectColumns(cc.intersectColumnsRequest(
      cc.columns.circleRect(
        { x: new Float32Array([5, 50]), y: new Float32Array([5, 50]),
          radius: new Float32Array([2, 2]) },
        cc.columns.rectsFromCornerSize({ x: [7, 7], y: [0, 0],
          width: [4, 4], height: [10, 10] }))));
    console.log(`column hits=${JSON.stringify(cc.hits(columns)[0])}`);

    // Invalid input: INVALID_ARGUMENT, with each field at fault.
    try {
      await client.intersect(cc.intersectRequest(
        [[cc.circle(0, 0, -1), cc.point(1, 1)]]));
    } catch (err) {
      console.log(`rejected: ${cc.status[err.code]}: ${err.details}`);
      for (const v of cc.fieldViolations(err)) {
        console.log(`  field ${v.field}: ${v.description}`);
      }
    }

    // Caught before sending: an enum value that is not one.
    try {
      await client.intersect({ pairs: [], boundary: 'TOUCHING' });
    } catch (err) {
      console.log(`refused: ${err.message}`);
    }
  } finally {
    client.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
