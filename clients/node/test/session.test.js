// The per-tick QueryStream session against a live collision_server: every
// request kind answered in order, sequences numbered for the caller, and a
// stream the server ends at its maximum age reopened with no request lost.
// Run: COLLISION_SERVER=path/to/collision_server node --test test/session.test.js
'use strict';

const test = require('node:test');
const assert = require('node:assert');
const { loadPackage, startServerAndClient } = require('./helpers');

const cc = loadPackage();

test('a QueryStream session answers each kind in order', async () => {
  const env = await startServerAndClient(cc, { streamDeadlineMs: 20000 });
  try {
    const session = env.client.openQueryStream();
    // Sent together, answered in order.
    const [a, b, c, d, e] = await Promise.all([
      session.send({ sequence: '41', intersect: cc.intersectRequest(
        [[cc.circle(25, 25, 5), cc.rectFromCornerSize(10, 20, 10, 10)]],
        { relation: true }) }),
      session.closestPoint(cc.closestPointRequest(
        [[cc.point(13, 14), cc.rectFromCornerSize(0, 0, 10, 10)]])),
      session.intersectColumns(cc.intersectColumnsRequest(
        cc.columns.circleCircle({ x: [0, 0], y: [0, 0], radius: [1, 1] },
          { x: [2, 3], y: [0, 0], radius: [1, 1] }))),
      session.closestPointColumns(cc.closestPointColumnsRequest(
        cc.columns.closestToBoxes({ x: [0], y: [0], z: [5] },
          { minX: [-1], minY: [-1], minZ: [-1], maxX: [1], maxY: [1],
            maxZ: [1] }))),
      session.send({ sequence: 18446744073709551615n,
        intersect: cc.intersectRequest([[cc.point(0, 0), cc.point(0, 0)]]) }),
    ]);
    assert.strictEqual(a.sequence, '41');
    assert.strictEqual(a.answer, 'intersect');
    assert.deepStrictEqual(a.intersect.results.map((r) => r.relation),
      ['RELATION_TOUCHING']);
    assert.deepStrictEqual(b.results[0].closestPoint, { x: 10, y: 10, z: 0 });
    assert.deepStrictEqual(cc.hits(c), [[true, false]]);
    assert.deepStrictEqual(d.groups[0].closestZ, [1]);
    assert.deepStrictEqual(cc.inside(d), [[false]]);
    // uint64 out: a decimal string, exact.
    assert.strictEqual(e.sequence, '18446744073709551615');
    assert.strictEqual(e.intersect.results[0].hit, true);
    assert.strictEqual((await session.close()).code, cc.status.OK);
  } finally {
    await env.stop();
  }
});

test('a stream ended at its maximum age is reopened and nothing is lost',
  async () => {
    // Streams end themselves before the shorter of age and grace, less a
    // tenth: here after about 0.9 s.
    const env = await startServerAndClient(cc, {}, [
      '--max_connection_age=1s', '--max_connection_age_grace=1s']);
    try {
      const session = env.client.openQueryStream({ deadlineMs: 20000 });
      const request = cc.intersectRequest([[cc.circle(0, 0, 1),
        cc.point(1, 0)]]);
      const started = Date.now();
      let answered = 0;
      while (session.reopened < 3 && Date.now() - started < 10000) {
        // Ten in flight at once, so that some are unanswered at the end.
        const replies = await Promise.all(Array.from({ length: 10 },
          () => session.send({ intersect: request })));
        for (const r of replies) {
          answered += 1;
          assert.strictEqual(r.sequence, String(answered));
          assert.strictEqual(r.intersect.results[0].hit, true);
        }
      }
      assert.ok(session.reopened >= 3,
        `reopened ${session.reopened} times in 10 s`);
      await session.close();
    } finally {
      await env.stop();
    }
  });
