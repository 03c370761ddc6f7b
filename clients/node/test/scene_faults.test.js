// A SceneSession against a scripted server: every status, at every point.
//
// tests/util/scripted_scene_server (COLLISION_SCRIPTED_SCENE_SERVER) is a
// SceneService that answers like a scene server (sequence, tick, entity
// count of the world it received on that stream) except where its fault
// plan says: end the stream with a status before answering message N or
// after answering it, stall, answer late, answer out of step, or exit (a
// replica killed). One server per case, on 127.0.0.1 port 0, waited for on
// its port file. Each case asserts what docs/node.md promises, the C++
// SceneSession's outcome (tests/client/scene_session_faults_test.cc):
// - a stream ended with UNAVAILABLE, ABORTED or CANCELLED (or OK: ended
//   without an answer) is transparent: the message is answered on a new
//   stream, against the whole world (config, snapshot, window and the
//   message replayed: the entity count says so);
// - any other status rejects the message in hand with a SceneSessionError
//   of that status (code, codeName, details as the server sent them) and
//   the next message reopens the scene from what the server acknowledged;
// - while the scene is being restored (the opening, the snapshot, a window
//   update), those four and RESOURCE_EXHAUSTED are retried, the others
//   returned for the oldest message;
// - a stall (or an answer later than messageTimeoutMs) rejects the message
//   with DEADLINE_EXCEEDED at messageTimeoutMs, and the next is answered;
// - an answer out of step is INTERNAL, and the session recovers;
// - a server gone for good gives UNAVAILABLE in bounded time, never a hang.
// Run: COLLISION_SCRIPTED_SCENE_SERVER=path/to/scripted_scene_server
//      node --test test/scene_faults.test.js
'use strict';

const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { loadPackage } = require('./helpers');

const cc = loadPackage();
const { SceneSessionError, status } = cc;

// Every status a stream can end with: the 16 errors, and OK (a stream that
// ends cleanly without the answer).
const STATUSES = Object.keys(status).filter((k) => Number.isInteger(status[k]))
  .sort((a, b) => status[a] - status[b]);
const ERRORS = STATUSES.filter((name) => name !== 'OK');  // a StreamError's
const TRANSPARENT = new Set(['OK', 'UNAVAILABLE', 'ABORTED', 'CANCELLED']);
const RETRIED_WHILE_RESTORING = new Set([...TRANSPARENT,
  'RESOURCE_EXHAUSTED']);
const SESSION = { maxReopens: 3, firstBackoffMs: 1, maxBackoffMs: 5 };
const MESSAGE_TIMEOUT_MS = 5000;  // the cases expecting none (a busy machine)
const SHORT_TIMEOUT_MS = 400;     // the stalls
const SLACK_MS = 3000;            // what an outcome may take past its deadline
const IDLE_MS = 300;              // for a status the server sent to arrive
const ROW_LIMIT_MS = 90000;       // one row of the matrix, all its statuses
const CASE_LIMIT_MS = 30000;      // one case

// Tick t: entity t arrives, entity t - 3 leaves.
function tickRequest(t) {
  const update = { tick: t, upserts: [{ id: String(t),
    shape: cc.circle(0, 0, 1) }] };
  if (t > 3) update.removals = [String(t - 3)];
  return { update };
}
const entitiesAfter = (t) => Math.min(t, 3);

function binary() {
  const b = process.env.COLLISION_SCRIPTED_SCENE_SERVER;
  assert.ok(b, 'set COLLISION_SCRIPTED_SCENE_SERVER to the ' +
    'scripted_scene_server binary');
  return b;
}

// scripted_scene_server on 127.0.0.1:0 with `plan` (MESSAGE:KIND[:ARG]
// entries), resolved once its port file exists.
async function startScripted(plan) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'collision-faults-'));
  const portFile = path.join(dir, 'port');
  let log = '';
  const child = spawn(binary(), [`--port_file=${portFile}`,
    `--plan=${plan.join(',')}`], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.on('data', (d) => { log += d; });
  child.stderr.on('data', (d) => { log += d; });
  let alive = true;
  const exited = new Promise((resolve) => child.on('exit', () => {
    alive = false;
    resolve();
  }));
  const stop = async () => {
    if (alive) child.kill('SIGTERM');
    await exited;
    fs.rmSync(dir, { recursive: true, force: true });
  };
  // The port file is renamed into place once the server listens: polled
  // in short steps, bounded, failing fast if the server exits.
  const deadline = Date.now() + 20000;
  while (!fs.existsSync(portFile)) {
    if (!alive || Date.now() > deadline) {
      await stop();
      throw new Error(`scripted_scene_server did not start:\n${log}`);
    }
    await new Promise((r) => { setTimeout(r, 5); });
  }
  return {
    address: `127.0.0.1:${fs.readFileSync(portFile, 'utf8').trim()}`,
    plan: plan.join(','),
    log: () => log,
    // Streams the server saw opened, once its log (a pipe, read by this
    // loop) says at least `atLeast`, or 5 s passed.
    streams: async (atLeast) => {
      const count = () => log.split('\n')
        .filter((l) => /^stream \d+$/.test(l)).length;
      const until = Date.now() + 5000;
      while (count() < atLeast && alive && Date.now() < until) {
        await new Promise((r) => { setTimeout(r, 5); });
      }
      return count();
    },
    // Until the server logged a line starting with `line` (bounded):
    // "stream 1 ended: ..." is logged just before that status is sent.
    waitForLog: async (line) => {
      const until = Date.now() + 5000;
      while (!log.split('\n').some((l) => l.startsWith(line))) {
        assert.ok(Date.now() < until, `the server never logged ${line}`);
        await new Promise((r) => { setTimeout(r, 5); });
      }
    },
    kill: async () => {
      child.kill('SIGKILL');
      await exited;
    },
    stop,
  };
}

const outcome = (promise) => promise.then((r) => r, (e) => e);
const idle = (ms) => new Promise((r) => { setTimeout(r, ms); });

// A server with `plan`, a client of it and (unless `open` is false) a
// session of history `history`; `body` gets { server, client, scene }. A
// failed assertion carries the server's plan and log.
async function scripted(plan, body, { history = 4, open = true,
  messageTimeoutMs = MESSAGE_TIMEOUT_MS } = {}) {
  const server = await startScripted(plan);
  const client = cc.createClient(server.address);
  const env = {
    server,
    client,
    scene: null,
    open: async (h = history) => {
      env.scene = await client.openSceneSession(
        { dimension: '2D', historyTicks: h },
        { ...SESSION, messageTimeoutMs });
      return env.scene;
    },
  };
  try {
    if (open) await env.open();
    await body(env);
  } catch (err) {
    err.message += `\nscripted server, plan ${server.plan}:\n${server.log()}`;
    throw err;
  } finally {
    if (env.scene) env.scene.cancel();
    client.close();
    await server.stop();
  }
}

function assertAnswer(o, tick, entities, what) {
  assert.ok(!(o instanceof Error),
    `${what}: want an answer, got ${o && o.stack}`);
  assert.deepStrictEqual([BigInt(o.tick), o.entities],
    [BigInt(tick), entities], `${what}: [tick, entities]`);
}

// An error of class `type` (a SceneSessionError: the stream's) with status
// `name`; `scripted`: the server's own, as it sent it (`details`), with
// `sequence` (null: not a verdict on a message the caller sent).
function assertError(o, name, what, { scripted: fromServer = true,
  type = SceneSessionError, details = /scripted end/, sequence = null } = {}) {
  assert.ok(o instanceof type,
    `${what}: want a ${type.name} ${name}, got ${
      o instanceof Error ? o.stack : JSON.stringify(o)}`);
  assert.strictEqual(o.codeName, name, `${what}: ${o.message}`);
  assert.strictEqual(o.code, status[name], what);
  if (fromServer) {
    assert.match(o.details, details, what);
    assert.strictEqual(o.sequence, sequence, what);
  }
}
const VERDICT = { details: /scripted verdict/ };

async function timed(step) {
  const started = performance.now();
  const result = await step();
  return [result, performance.now() - started];
}

// Runs `body(name)` for every status (of `names`), as subtests.
async function everyStatus(t, body, names = STATUSES) {
  for (const name of names) {
    await t.test(name, () => body(name));
  }
}

// A test of one case, bounded.
const oneCase = (name, fn) => test(name, { timeout: CASE_LIMIT_MS }, fn);

const send = (scene, t) => outcome(scene.send(tickRequest(t)));
const sendAll = (scene, ticks) => Promise.all(
  ticks.map((t) => outcome(scene.send(tickRequest(t)))));

// ---- The matrix -------------------------------------------------------------

test('a stream ended with any status between answers',
  { timeout: ROW_LIMIT_MS }, (t) => everyStatus(t, (name) => scripted(
    [`4:end_before:${name}`], async ({ scene }) => {
      // Message 1 opens the scene, 2..4 are ticks 1..3.
      assertAnswer(await send(scene, 1), 1, 1, 'tick 1');
      assertAnswer(await send(scene, 2), 2, 2, 'tick 2');
      const [third, took] = await timed(() => send(scene, 3));
      assert.ok(took < MESSAGE_TIMEOUT_MS + SLACK_MS, `${took} ms`);
      if (TRANSPARENT.has(name)) {
        assertAnswer(third, 3, 3, 'tick 3, replayed');
        assert.strictEqual(scene.reopens, 1);
      } else {
        assertError(third, name, 'tick 3');
      }
      // Reopened from what the server acknowledged: without tick 3,
      // entity 3 never came and 1, 2 leave at ticks 4, 5.
      const want = TRANSPARENT.has(name) ? 3 : 2;
      for (const tick of [4, 5]) {
        assertAnswer(await send(scene, tick), tick, want, `tick ${tick}`);
      }
      await scene.close();
    })));

test('a stream ended with any status, messages in flight',
  { timeout: ROW_LIMIT_MS }, (t) => everyStatus(t, (name) => scripted(
    [`4:end_before:${name}`], async ({ scene }) => {
      // Ticks 1..5 handed over at once: only tick 3 may fail, the others
      // are answered in order against the whole world.
      const outcomes = await sendAll(scene, [1, 2, 3, 4, 5]);
      assertAnswer(outcomes[0], 1, 1, 'tick 1');
      assertAnswer(outcomes[1], 2, 2, 'tick 2');
      if (TRANSPARENT.has(name)) {
        for (const tick of [3, 4, 5]) {
          assertAnswer(outcomes[tick - 1], tick, entitiesAfter(tick),
            `tick ${tick}`);
        }
        assert.strictEqual(scene.reopens, 1);
      } else {
        assertError(outcomes[2], name, 'tick 3');
        assertAnswer(outcomes[3], 4, 2, 'tick 4');
        assertAnswer(outcomes[4], 5, 2, 'tick 5');
      }
      // Entity 3 leaves at tick 6 when it came: 4, 5, 6 either way.
      assertAnswer(await send(scene, 6), 6, 3, 'tick 6');
      await scene.close();
    })));

test('a stream ended with any status right after its answer',
  { timeout: ROW_LIMIT_MS }, (t) => everyStatus(t, (name) => scripted(
    [`3:end_after:${name}`], async ({ scene }) => {
      // Tick 2 (message 3) is answered, then the stream ends. Tick 3, sent
      // at once, may carry the status only when it was written before the
      // status came; the one after it is answered.
      assertAnswer(await send(scene, 1), 1, 1, 'tick 1');
      assertAnswer(await send(scene, 2), 2, 2, 'tick 2');
      const third = await send(scene, 3);
      const answered = !(third instanceof Error);
      if (TRANSPARENT.has(name) || answered) {
        assertAnswer(third, 3, 3, 'tick 3');
      } else {
        assertError(third, name, 'tick 3');
      }
      assertAnswer(await send(scene, 4), 4, answered ? 3 : 2, 'tick 4');
      await scene.close();
    })));

test('a stream ended with any status while the session is idle fails nothing',
  { timeout: ROW_LIMIT_MS }, (t) => everyStatus(t, (name) => scripted(
    [`3:end_after:${name}`], async ({ server, scene }) => {
      // As above, idle long enough for the status to come first: no
      // message was on the stream, so none fails.
      assertAnswer(await send(scene, 1), 1, 1, 'tick 1');
      assertAnswer(await send(scene, 2), 2, 2, 'tick 2');
      await server.waitForLog('stream 1 ended');
      await idle(IDLE_MS);
      assertAnswer(await send(scene, 3), 3, 3, 'tick 3');
      assert.strictEqual(scene.reopens, 1);
      await scene.close();
    })));

test('the opening ended with any status is retried or refused',
  { timeout: ROW_LIMIT_MS }, (t) => everyStatus(t, (name) => scripted(
    [`1:end_before:${name}`], async (env) => {
      if (RETRIED_WHILE_RESTORING.has(name)) {
        const scene = await env.open();
        assert.strictEqual(await env.server.streams(2), 2);
        assertAnswer(await send(scene, 1), 1, 1, 'tick 1');
        await scene.close();
      } else {
        assertError(await outcome(env.open()), name, 'the opening');
        assert.strictEqual(await env.server.streams(1), 1);
      }
    }, { open: false })));

// History 2: tick 3 (message 4) breaks the stream (UNAVAILABLE); the new
// stream carries the config with a snapshot of tick 1 (message 5), the
// window's tick 2 (message 6), then tick 3. The snapshot or the window
// update ends the stream with the status, or is answered with a StreamError
// of it (a verdict on a message the session sent, not the caller: a
// SceneSessionError, sequence null).
const RESTORE_FAULTS = [['end_before', STATUSES, {}],
  ['reject', ERRORS, VERDICT]];
for (const [fault, names, expected] of RESTORE_FAULTS) {
  for (const [at, what] of [[5, 'snapshot'], [6, 'window update']]) {
    const plan = (name) => ['4:end_before:UNAVAILABLE',
      `${at}:${fault}:${name}`];
    test(`${fault} with any status at the failover's ${what}`,
      { timeout: ROW_LIMIT_MS }, (t) => everyStatus(t, (name) => scripted(
        plan(name), async ({ scene }) => {
          assertAnswer(await send(scene, 1), 1, 1, 'tick 1');
          assertAnswer(await send(scene, 2), 2, 2, 'tick 2');
          const third = await send(scene, 3);
          if (RETRIED_WHILE_RESTORING.has(name)) {
            assertAnswer(third, 3, 3, 'tick 3');
          } else {
            assertError(third, name, 'tick 3', expected);
            // Never answered: sent again, on a scene restored whole.
            assertAnswer(await send(scene, 3), 3, 3, 'tick 3 again');
          }
          assertAnswer(await send(scene, 4), 4, 3, 'tick 4');
          await scene.close();
        }, { history: 2 }), names));

    test(`${fault} with any status at the failover's ${what}, ` +
      'messages in flight', { timeout: ROW_LIMIT_MS },
    (t) => everyStatus(t, (name) => scripted(plan(name),
      async ({ scene }) => {
        assertAnswer(await send(scene, 1), 1, 1, 'tick 1');
        assertAnswer(await send(scene, 2), 2, 2, 'tick 2');
        const [third, fourth] = await sendAll(scene, [3, 4]);
        if (RETRIED_WHILE_RESTORING.has(name)) {
          assertAnswer(third, 3, 3, 'tick 3');
          assertAnswer(fourth, 4, 3, 'tick 4');
        } else {
          // Tick 3, the oldest, fails; entity 1 leaves, 4 comes, 3 never
          // did.
          assertError(third, name, 'tick 3', expected);
          assertAnswer(fourth, 4, 2, 'tick 4');
        }
        await scene.close();
      }, { history: 2 }), names));
  }
}

test('a verdict with any status fails its message alone',
  { timeout: ROW_LIMIT_MS }, (t) => everyStatus(t, (name) => scripted(
    [`3:reject:${name}`], async ({ scene }) => {
      // Tick 2 (message 3) answered with a StreamError: that message
      // changed nothing, the stream and the scene go on.
      assertAnswer(await send(scene, 1), 1, 1, 'tick 1');
      assertError(await send(scene, 2), name, 'tick 2',
        { ...VERDICT, type: cc.StreamMessageError, sequence: '3' });
      assertAnswer(await send(scene, 3), 3, 2, 'tick 3');  // 1 and 3
      assert.strictEqual(scene.reopens, 0);
      await scene.close();
    }), ERRORS));

test('a verdict with any status on the opening is retried or refused',
  { timeout: ROW_LIMIT_MS }, (t) => everyStatus(t, (name) => scripted(
    [`1:reject:${name}`], async (env) => {
      if (RETRIED_WHILE_RESTORING.has(name)) {
        const scene = await env.open();
        assert.strictEqual(await env.server.streams(2), 2);
        assertAnswer(await send(scene, 1), 1, 1, 'tick 1');
        await scene.close();
      } else {
        // docs/node.md: the opening's StreamMessageError.
        assertError(await outcome(env.open()), name, 'the opening',
          { ...VERDICT, type: cc.StreamMessageError, sequence: '1' });
        assert.strictEqual(await env.server.streams(1), 1);
      }
    }, { open: false }), ERRORS));

for (const [fault, name] of [['stall', 'DEADLINE_EXCEEDED'],
  ['out_of_step', 'INTERNAL']]) {
  oneCase(`a ${fault} at the failover's snapshot fails the oldest message`,
    () => scripted(['4:end_before:UNAVAILABLE', `5:${fault}`],
      async ({ scene }) => {
        // Not retried: the oldest message fails, the next send restores
        // the scene whole.
        assertAnswer(await send(scene, 1), 1, 1, 'tick 1');
        assertAnswer(await send(scene, 2), 2, 2, 'tick 2');
        const [third, took] = await timed(() => send(scene, 3));
        assertError(third, name, 'tick 3', { scripted: false });
        assert.ok(took < SHORT_TIMEOUT_MS + SLACK_MS, `${took} ms`);
        assertAnswer(await send(scene, 3), 3, 3, 'tick 3 again');
        await scene.close();
      }, { history: 2, messageTimeoutMs: SHORT_TIMEOUT_MS }));
}

oneCase('a stalled answer fails at messageTimeoutMs, the next is answered',
  () => scripted(['3:stall'], async ({ scene }) => {
    assertAnswer(await send(scene, 1), 1, 1, 'tick 1');
    const [second, took] = await timed(() => send(scene, 2));
    assertError(second, 'DEADLINE_EXCEEDED', 'tick 2', { scripted: false });
    assert.match(second.details, /messageTimeoutMs/);
    assert.ok(took >= SHORT_TIMEOUT_MS * 0.9 &&
      took < SHORT_TIMEOUT_MS + SLACK_MS, `${took} ms`);
    assertAnswer(await send(scene, 2), 2, 2, 'tick 2 again');
    await scene.close();
  }, { messageTimeoutMs: SHORT_TIMEOUT_MS }));

oneCase('a stall with messages in flight fails only its message',
  () => scripted(['3:stall'], async ({ scene }) => {
    assertAnswer(await send(scene, 1), 1, 1, 'tick 1');
    const [second, third] = await sendAll(scene, [2, 3]);
    assertError(second, 'DEADLINE_EXCEEDED', 'tick 2', { scripted: false });
    assertAnswer(third, 3, 2, 'tick 3');  // entities 1 and 3
    await scene.close();
  }, { messageTimeoutMs: SHORT_TIMEOUT_MS }));

oneCase('a late answer within messageTimeoutMs is an answer',
  () => scripted(['3:delay:300'], async ({ scene }) => {
    assertAnswer(await send(scene, 1), 1, 1, 'tick 1');
    const [second, took] = await timed(() => send(scene, 2));
    assertAnswer(second, 2, 2, 'tick 2');
    assert.ok(took >= 250, `${took} ms`);
    assert.strictEqual(scene.reopens, 0);
    await scene.close();
  }));

oneCase('an answer later than messageTimeoutMs fails its message',
  () => scripted(['3:delay:2000'], async ({ scene }) => {
    assertAnswer(await send(scene, 1), 1, 1, 'tick 1');
    const [second, took] = await timed(() => send(scene, 2));
    assertError(second, 'DEADLINE_EXCEEDED', 'tick 2', { scripted: false });
    assert.ok(took < SHORT_TIMEOUT_MS + SLACK_MS, `${took} ms`);
    assertAnswer(await send(scene, 2), 2, 2, 'tick 2 again');
    await scene.close();
  }, { messageTimeoutMs: SHORT_TIMEOUT_MS }));

oneCase('an answer out of step is INTERNAL and the session recovers',
  () => scripted(['3:out_of_step'], async ({ scene }) => {
    assertAnswer(await send(scene, 1), 1, 1, 'tick 1');
    assertError(await send(scene, 2), 'INTERNAL', 'tick 2',
      { scripted: false });
    assertAnswer(await send(scene, 2), 2, 2, 'tick 2 again');
    assertAnswer(await send(scene, 3), 3, 3, 'tick 3');
    await scene.close();
  }));

oneCase('a server that exits mid-message is UNAVAILABLE, not a hang',
  () => scripted(['3:exit'], async ({ scene }) => {
    // It exits on reading tick 2 (message 3): connections drop with no
    // status, and every reopening is refused.
    assertAnswer(await send(scene, 1), 1, 1, 'tick 1');
    const [outcomes, took] = await timed(() => sendAll(scene, [2, 3]));
    outcomes.forEach((o, i) => assertError(o, 'UNAVAILABLE', `tick ${i + 2}`,
      { scripted: false }));
    assert.ok(took < SLACK_MS, `${took} ms`);
    assertError(await send(scene, 4), 'UNAVAILABLE', 'tick 4',
      { scripted: false });
    const [, closing] = await timed(() => scene.close());
    assert.ok(closing < SLACK_MS, `${closing} ms`);
    assertError(await send(scene, 5), 'FAILED_PRECONDITION', 'after close',
      { scripted: false });
  }));

oneCase('a server killed while idle is UNAVAILABLE, not a hang',
  () => scripted([], async ({ server, scene }) => {
    assertAnswer(await send(scene, 1), 1, 1, 'tick 1');
    await server.kill();
    const [second, took] = await timed(() => send(scene, 2));
    assertError(second, 'UNAVAILABLE', 'tick 2', { scripted: false });
    assert.match(second.details, /could not be reopened after 3 attempts/);
    assert.ok(took < SLACK_MS, `${took} ms`);
    const [, closing] = await timed(() => scene.close());
    assert.ok(closing < SLACK_MS, `${closing} ms`);
  }));
