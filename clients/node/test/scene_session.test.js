// A SceneSession's errors against live collision_servers: each refused or
// lost message fails alone with the documented error, and the scene goes on
// with every other answer equal to an unbroken raw stream's.
// - limits: a bad radius (INVALID_ARGUMENT with its field violation) and
//   too many queries (RESOURCE_EXHAUSTED) are the server's verdicts; a
//   message over --max_receive_message_bytes makes the server end the
//   stream (RESOURCE_EXHAUSTED): that message fails, the ones in flight
//   behind it are answered from a reopened scene;
// - a stream deadline (streamDeadlineMs) under a full pipeline:
//   DEADLINE_EXCEEDED for the oldest message in flight at each end;
// - send() hands ticks over and the loop goes on while the server answers
//   nothing (SIGSTOP); the answers come, in order, once it does;
// - a server stopped for a second (SIGSTOP): the messages unanswered past
//   messageTimeoutMs fail with DEADLINE_EXCEEDED;
// - close() and cancel(), sends after them, and bad options.
// Run: COLLISION_SERVER=path/to/collision_server node --test test/scene_session.test.js
'use strict';

const test = require('node:test');
const assert = require('node:assert');
const { loadPackage, startServerAndClient } = require('./helpers');
const {
  config, Game, drive, isAnswer, checkAgainstUnbroken,
} = require('./scene_helpers');

const cc = loadPackage();
// Small enough to refuse on purpose: 8 queries per message, messages up to
// 4 KiB (a tick of the game is well under it).
const LIMITS = ['--scene_max_queries=8', '--max_receive_message_bytes=4096'];

// The "upserts" game with refused messages at known ticks: a bad radius
// (tick % 50 == 10), too many queries (== 20), a message over the receive
// limit (== 30).
class RefusingGame extends Game {
  constructor() {
    super({ cc, mode: 'upserts' });
  }

  queries() {
    return super.queries().slice(0, 3);
  }

  next() {
    const request = super.next();
    const what = this.tick % 50;
    if (what === 10) {
      request.update.upserts.push({ id: 77, shape: cc.circle(0, 0, -1) });
    } else if (what === 20) {
      request.queries.push(...super.queries());
    } else if (what === 30) {
      for (let i = 0; i < 300; i += 1) {
        request.update.upserts.push({ id: 1000 + i,
          shape: cc.circle(i, 0, 1) });
      }
    }
    return request;
  }
}

const newRecord = () => ({ sent: [], outcomes: [] });

test('refused messages fail alone and the scene goes on', async () => {
  const env = await startServerAndClient(cc, {}, LIMITS);
  const record = newRecord();
  let reopens;
  try {
    const scene = await env.client.openSceneSession(config());
    await drive(scene, new RefusingGame(), record,
      { paceMs: 0, until: () => record.sent.length >= 160 });
    await scene.close();
    reopens = scene.reopens;
  } finally {
    await env.stop();
  }
  const seen = { 10: 0, 20: 0, 30: 0 };
  record.sent.forEach((request, i) => {
    const outcome = record.outcomes[i];
    const what = request.update.tick % 50;
    const where = `tick ${request.update.tick}`;
    if (!(what in seen)) {
      assert.ok(isAnswer(outcome), `${where}: ${outcome}`);
      return;
    }
    seen[what] += 1;
    if (what === 10) {
      assert.ok(outcome instanceof cc.StreamMessageError, where);
      assert.strictEqual(outcome.code, cc.status.INVALID_ARGUMENT);
      assert.strictEqual(outcome.codeName, 'INVALID_ARGUMENT');
      assert.deepStrictEqual(cc.fieldViolations(outcome), [{
        field: 'update.upserts[8].shape.circle.radius',
        description: 'must be >= 0, got -1' }]);
    } else if (what === 20) {
      assert.ok(outcome instanceof cc.StreamMessageError, where);
      assert.strictEqual(outcome.codeName, 'RESOURCE_EXHAUSTED');
      assert.match(outcome.details, /queries/);
    } else {  // the server ended the stream over it
      assert.ok(outcome instanceof cc.SceneSessionError, where);
      assert.strictEqual(outcome.code, cc.status.RESOURCE_EXHAUSTED);
      assert.strictEqual(outcome.codeName, 'RESOURCE_EXHAUSTED');
      assert.match(outcome.details, /larger than max/);
    }
  });
  assert.ok(seen[10] && seen[20] && seen[30], JSON.stringify(seen));
  assert.strictEqual(reopens, seen[30]);  // one per message over the limit
  await checkAgainstUnbroken(cc, record, LIMITS, config());
});

test('a stream deadline fails the oldest message in flight, the rest go on',
  async () => {
    const env = await startServerAndClient(cc, { streamDeadlineMs: 500 });
    const record = newRecord();
    let reopens;
    try {
      const scene = await env.client.openSceneSession(config());
      await drive(scene, new Game({ cc, mode: 'upserts' }), record,
        { paceMs: 0, window: 6, until: () => scene.reopens >= 3 });
      await scene.close();
      reopens = scene.reopens;
    } finally {
      await env.stop();
    }
    const failed = record.outcomes.filter((o) => !isAnswer(o));
    for (const e of failed) {
      assert.ok(e instanceof cc.SceneSessionError, e);
      assert.strictEqual(e.codeName, 'DEADLINE_EXCEEDED');
    }
    // One message per stream at most, the one the deadline caught (a
    // stream whose deadline comes during its replay is no reopen).
    assert.ok(failed.length >= 1 && failed.length <= 2 * (reopens + 1),
      `${failed.length} failed, ${reopens} reopens`);
    await checkAgainstUnbroken(cc, record, [], config());
  });

test('send hands ticks over while the server answers nothing', async () => {
  const env = await startServerAndClient(cc);
  try {
    const scene = await env.client.openSceneSession(config(),
      { messageTimeoutMs: Infinity });
    const game = new Game({ cc, mode: 'upserts' });
    await env.server.pause();  // it holds its connections, answers nothing
    let answers;
    let settled = 0;
    try {
      const started = performance.now();
      answers = [1, 2, 3, 4, 5].map(() => scene.send(game.next()));
      const handedOver = performance.now() - started;
      for (const a of answers) a.then(() => { settled += 1; }, () => {});
      await new Promise((r) => { setTimeout(r, 200); });  // the loop goes on
      assert.ok(handedOver < 5000, `${handedOver} ms`);
      assert.strictEqual(settled, 0);
      assert.strictEqual(scene.inFlight, 5);
    } finally {
      env.server.kill('SIGCONT');
    }
    const ticks = (await Promise.all(answers)).map((a) => BigInt(a.tick));
    assert.deepStrictEqual(ticks, [...ticks].sort((a, b) => (a < b ? -1 : 1)));
    await scene.close();
  } finally {
    await env.stop();
  }
});

test('a stalled server times the oldest messages out, the rest go on',
  async () => {
    const env = await startServerAndClient(cc);
    const record = newRecord();
    let resume = null;
    try {
      const scene = await env.client.openSceneSession(config(),
        { messageTimeoutMs: 300 });
      await drive(scene, new Game({ cc, mode: 'upserts' }), record, {
        onTick: (n) => {
          if (n !== 100) return;
          // SIGSTOP: the server holds its connections and answers nothing
          // for a second.
          env.server.kill('SIGSTOP');
          const timer = setTimeout(() => env.server.kill('SIGCONT'), 1000);
          resume = () => {
            clearTimeout(timer);
            env.server.kill('SIGCONT');
          };
        },
        until: () => record.sent.length >= 400,
      });
      await scene.close();
    } finally {
      if (resume) resume();
      await env.stop();
    }
    const failed = record.outcomes.filter((o) => !isAnswer(o));
    assert.ok(failed.length >= 1);
    for (const e of failed) {
      assert.ok(e instanceof cc.SceneSessionError, e);
      assert.strictEqual(e.code, cc.status.DEADLINE_EXCEEDED);
      assert.match(e.details, /messageTimeoutMs/);
    }
    await checkAgainstUnbroken(cc, record, [], config());
  });

test('close, cancel and the options', async () => {
  const env = await startServerAndClient(cc);
  try {
    const { client } = env;
    // The config is checked before anything is sent; a refused one
    // rejects the opening with the server's verdict.
    await assert.rejects(client.openSceneSession({ dimension: '4D' }),
      cc.RequestError);
    await assert.rejects(client.openSceneSession({ dimension: '2D' }),
      (err) => err.codeName === 'INVALID_ARGUMENT' &&
        /config\.boundary/.test(err.details));
    await assert.rejects(client.openSceneSession(config(),
      { maxReopens: -1 }), RangeError);

    // close(): the answers in flight come first, then the stream ends.
    let scene = await client.openSceneSession(config());
    const game = new Game({ cc, mode: 'upserts' });
    const inFlight = [1, 2, 3].map(() => scene.send(game.next()));
    await scene.close();
    for (const answer of await Promise.all(inFlight)) {
      assert.ok(isAnswer(answer));
    }
    assert.strictEqual(scene.inFlight, 0);
    await assert.rejects(scene.send(game.next()),
      (err) => err instanceof cc.SceneSessionError &&
        err.codeName === 'FAILED_PRECONDITION');
    await scene.close();  // idempotent

    // A request refused before sending rejects alone.
    scene = await client.openSceneSession(config());
    await assert.rejects(scene.send({ update: { tick: -1 } }),
      cc.RequestError);
    assert.ok(isAnswer(await scene.send(game.next())));
    // cancel(): what is in flight rejects with CANCELLED.
    const cancelled = scene.send(game.next());
    await scene.cancel();
    await assert.rejects(cancelled, (err) => err.codeName === 'CANCELLED');
  } finally {
    await env.stop();
  }
});
