// The 3D hitbox shapes (capsule3, orientedBox) through the package's
// builders against a live collision_server: a capsule that hits a turned
// box only because it is turned, one that misses it only because it is
// turned, and a quaternion that is not unit length refused by its field
// path rather than normalised.
// Run: COLLISION_SERVER=path/to/collision_server node --test test/hitbox_shapes.test.js
'use strict';

const test = require('node:test');
const assert = require('node:assert');
const { loadPackage, startServerAndClient } = require('./helpers');

const cc = loadPackage();

test('capsule3 and orientedBox against a live collision_server',
  async (t) => {
    const env = await startServerAndClient(cc);
    const { client } = env;
    try {
      await t.test('a capsule against a box turned a quarter about z',
        async () => {
          // A 4 x 1 x 1 box at the origin turned a quarter about z spans
          // x -0.5..0.5, y -2..2. A vertical capsule at (0, 1.5) hits it only
          // if it is turned (unturned, y ends at 0.5); one at (1.5, 0) misses
          // it only if it is turned (unturned, x ends at 2), by 1 - 0.25.
          const turned = cc.orientedBoxAxisAngle(0, 0, 0, 2, 0.5, 0.5, 0, 0,
            1, Math.PI / 2);
          const reply = await client.intersect(cc.intersectRequest([
            [cc.capsule3(0, 1.5, -3, 0, 1.5, 3, 0.1), turned],
            [cc.capsule3(1.5, 0, -3, 1.5, 0, 3, 0.25), turned],
          ], { relation: true, separation: true }));
          assert.deepStrictEqual(
            reply.results.map((r) => [r.hit, r.relation]),
            [[true, 'RELATION_OVERLAPPING'], [false, 'RELATION_DISJOINT']]);
          assert.ok(Math.abs(reply.results[1].separation - 0.75) < 1e-5,
            `separation ${reply.results[1].separation}`);
        });

      await t.test('a quaternion that is not unit length is refused, naming '
        + 'pairs[0].b.oriented_box.rotation', async () => {
        // w^2 + x^2 + y^2 + z^2 = 1.01: outside the 1e-5 tolerance.
        const request = cc.intersectRequest([[
          cc.capsule3(0, 0, 0, 1, 0, 0, 1),
          cc.orientedBox(0, 0, 0, 1, 1, 1, 1, 0.1, 0, 0)]]);
        await assert.rejects(client.intersect(request), (err) => {
          assert.ok(!(err instanceof cc.RequestError),
            'refused by the client, not the server');
          assert.strictEqual(err.code, cc.status.INVALID_ARGUMENT);
          assert.match(err.details, /pairs\[0\]\.b\.oriented_box\.rotation/);
          assert.deepStrictEqual(err.fieldViolations.map((v) => v.field),
            ['pairs[0].b.oriented_box.rotation']);
          return true;
        });
      });
    } finally {
      await env.stop();
    }
  });
