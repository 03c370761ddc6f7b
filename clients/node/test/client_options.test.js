// The client's per-call options against a live collision_server that wants
// a bearer token: the token option (on calls, sessions and scene
// sessions), deadlines, cancelling with an AbortSignal, and metadata.
// Run: COLLISION_SERVER=path/to/collision_server node --test test/client_options.test.js
'use strict';

const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { loadPackage, startServerAndClient } = require('./helpers');

const cc = loadPackage();
const TOKEN = 'node-client-test-token';
const request = cc.intersectRequest([[cc.circle(0, 0, 1), cc.point(1, 0)]]);

test('token, deadline, cancel and metadata', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'collision-token-'));
  const tokenFile = path.join(dir, 'tokens');
  fs.writeFileSync(tokenFile, `${TOKEN}\n`);
  // The health service stays open without a token.
  const env = await startServerAndClient(cc, { token: TOKEN,
    metadata: { 'x-test-run': 'node' } }, [`--token_file=${tokenFile}`]);
  try {
    await t.test('the token option authenticates every call', async () => {
      const reply = await env.client.intersect(request);
      assert.strictEqual(reply.results[0].hit, true);
      const session = env.client.openQueryStream();
      assert.strictEqual((await session.intersect(request)).results[0].hit,
        true);
      await session.close();
    });
    await t.test('without it: UNAUTHENTICATED', async () => {
      const anonymous = cc.createClient(env.server.address);
      try {
        await assert.rejects(anonymous.intersect(request),
          (err) => err.code === cc.status.UNAUTHENTICATED &&
            Array.isArray(err.fieldViolations));
        // A scene session's opening is refused at once, not retried.
        await assert.rejects(anonymous.openSceneSession(
          { dimension: '2D', boundary: 'INCLUSIVE' }),
        (err) => err instanceof cc.SceneSessionError &&
          err.codeName === 'UNAUTHENTICATED');
      } finally {
        anonymous.close();
      }
    });
    await t.test('scene sessions carry the token', async () => {
      const scene = await env.client.openSceneSession(
        { dimension: '2D', boundary: 'INCLUSIVE' });
      assert.strictEqual((await scene.send({ update: { tick: 5 } })).tick,
        '5');
      await scene.close();
    });
    await t.test('a deadline that has passed: DEADLINE_EXCEEDED', async () => {
      await assert.rejects(env.client.intersect(request, { deadlineMs: 0 }),
        (err) => err.code === cc.status.DEADLINE_EXCEEDED);
    });
    await t.test('an aborted signal cancels: CANCELLED', async () => {
      const controller = new AbortController();
      const call = env.client.intersect(request,
        { signal: controller.signal, metadata: { 'x-call': '1' } });
      controller.abort();
      await assert.rejects(call, (err) => err.code === cc.status.CANCELLED);
    });
  } finally {
    await env.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
