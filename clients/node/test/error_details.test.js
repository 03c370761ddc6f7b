// Errors machines can read, against a live collision_server: a rejected
// request's field violations reach the caller from the status details
// trailer (unary calls), from StreamError.bad_request (QueryStream and
// scene messages), and stay within the trailer's size when many fields are
// wrong (capped, with an "and N more invalid fields" entry).
// Run: COLLISION_SERVER=path/to/collision_server node --test test/error_details.test.js
'use strict';

const test = require('node:test');
const assert = require('node:assert');
const { loadPackage, startServerAndClient } = require('./helpers');

const cc = loadPackage();

const badCircles = (n) => cc.intersectRequest(Array.from({ length: n },
  () => [cc.circle(0, 0, -1), cc.point(1, 1)]));

test('error details from a live collision_server', async (t) => {
  const env = await startServerAndClient(cc);
  const { client } = env;
  try {
    await t.test('a negative radius names pairs[0].a.circle.radius',
      async () => {
        await assert.rejects(client.intersect(badCircles(1)), (err) => {
          assert.strictEqual(err.code, cc.status.INVALID_ARGUMENT);
          assert.ok(err.metadata.get('grpc-status-details-bin').length,
            'no grpc-status-details-bin trailer: the server sends no details');
          assert.deepStrictEqual(err.fieldViolations, [{
            field: 'pairs[0].a.circle.radius',
            description: 'must be >= 0, got -1',
          }]);
          assert.deepStrictEqual(cc.fieldViolations(err), err.fieldViolations);
          const status = cc.statusDetails(err.metadata);
          assert.strictEqual(status.code, cc.status.INVALID_ARGUMENT);
          assert.strictEqual(status.details[0].typeUrl,
            'type.googleapis.com/google.rpc.BadRequest');
          return true;
        });
      });

    await t.test('150 bad pairs are capped with "and N more invalid fields"',
      async () => {
        await assert.rejects(client.intersect(badCircles(150)), (err) => {
          // Not a metadata-size failure: the trailer fits.
          assert.strictEqual(err.code, cc.status.INVALID_ARGUMENT,
            `${cc.status[err.code]}: ${err.details}`);
          const v = err.fieldViolations;
          assert.ok(v.length > 1 && v.length < 150, `${v.length} violations`);
          const last = v[v.length - 1];
          assert.strictEqual(last.field, '');
          const more = /^and ([0-9]+) more invalid fields$/.exec(
            last.description);
          assert.ok(more, `last violation: ${JSON.stringify(last)}`);
          assert.strictEqual(v.length - 1 + Number(more[1]), 150);
          v.slice(0, -1).forEach((x, i) => assert.strictEqual(x.field,
            `pairs[${i}].a.circle.radius`));
          return true;
        });
      });

    await t.test('a bad column element names the column and index',
      async () => {
        const request = cc.intersectColumnsRequest(cc.columns.circleRect(
          { x: [0, 0], y: [0, 0], radius: new Float32Array([1, -2]) },
          { minX: [1, 1], minY: [1, 1], maxX: [2, 2], maxY: [2, 2] }));
        await assert.rejects(client.intersectColumns(request), (err) => {
          assert.strictEqual(err.code, cc.status.INVALID_ARGUMENT);
          assert.deepStrictEqual(err.fieldViolations.map((x) => x.field),
            ['groups[0].circle_rect.a.radius[1]']);
          return true;
        });
      });

    await t.test('a rejected QueryStream message carries its violations',
      async () => {
        const session = client.openQueryStream();
        await assert.rejects(session.intersect(badCircles(2)), (err) => {
          assert.ok(err instanceof cc.StreamMessageError);
          assert.strictEqual(err.code, cc.status.INVALID_ARGUMENT);
          assert.deepStrictEqual(err.fieldViolations.map((x) => x.field),
            ['pairs[0].a.circle.radius', 'pairs[1].a.circle.radius']);
          assert.deepStrictEqual(cc.fieldViolations(err.response.error),
            err.fieldViolations);
          return true;
        });
        // The stream goes on.
        const ok = await session.intersect(cc.intersectRequest(
          [[cc.circle(0, 0, 1), cc.point(1, 0)]]));
        assert.strictEqual(ok.results[0].hit, true);
        assert.strictEqual((await session.close()).code, cc.status.OK);
      });

    await t.test('a rejected scene message carries its violations',
      async () => {
        const scene = client.openScene();
        await scene.send(
          { config: { dimension: '2D', boundary: 'INCLUSIVE' } });
        await assert.rejects(scene.send({ update: { tick: 1, upserts: [
          { id: 1, shape: cc.circle(0, 0, -1) }] } }), (err) => {
          assert.ok(err instanceof cc.StreamMessageError);
          assert.deepStrictEqual(err.fieldViolations.map((x) => x.field),
            ['update.upserts[0].shape.circle.radius']);
          return true;
        });
        assert.strictEqual((await scene.close()).code, cc.status.OK);
      });
  } finally {
    await env.stop();
  }
});
