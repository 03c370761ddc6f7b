// Replays testdata/golden/scenes.json against a real collision_server started
// on 127.0.0.1 port 0: each case on one SceneService.Session stream, one
// message at a time. Sequence, tick, entity count, ids, relations, inside,
// truncated and error codes exactly; floats within the file's tolerance;
// error messages containing every `message_contains` substring; through the
// package's SceneService session (a rejected message rejects its send with
// a StreamMessageError that carries the response).
// Run: COLLISION_SERVER=path/to/collision_server node --test test/scene_golden.test.js
// (CTest also sets COLLISION_CLIENT_PREFIX: the installed package is tested).
'use strict';

const test = require('node:test');
const assert = require('node:assert');
const { loadPackage, readGolden, startServerAndClient } = require('./helpers');

const cc = loadPackage();
const golden = readGolden('COLLISION_SCENES', 'scenes.json');
const tol = {
  abs: golden.comparison.float_absolute,
  rel: golden.comparison.float_relative,
};

const isInteger = (s) => /^-?[0-9]+$/.test(s);

// Differences between an expected proto3-JSON value (defaults omitted) and a
// decoded response (every field present; 64-bit integers as decimal
// strings). A missing expected field is its default: 0, "0", false, "", [],
// unset, or the enum's *_UNSPECIFIED zero value.
function compare(want, got, where, out) {
  if (Array.isArray(got)) {
    const w = want === undefined ? [] : want;
    if (w.length !== got.length) {
      out.push(`${where}: want ${w.length} items, got ${got.length}`);
      return out;
    }
    got.forEach((g, i) => compare(w[i], g, `${where}[${i}]`, out));
  } else if (got !== null && typeof got === 'object') {
    const w = want === undefined ? {} : want;
    for (const key of new Set([...Object.keys(w), ...Object.keys(got)])) {
      if (!(key in got)) out.push(`${where}.${key}: not in the response`);
      else compare(w[key], got[key], `${where}.${key}`, out);
    }
  } else if (got === null) {
    if (want !== undefined) out.push(`${where}: want ${want}, got unset`);
  } else if (typeof got === 'number') {
    const w = want === undefined ? 0 : Number(want);  // "NaN", "Infinity"
    const d = Math.abs(got - w);
    const ok = (Number.isNaN(w) && Number.isNaN(got)) || d <= tol.abs ||
      d <= tol.rel * Math.max(Math.abs(got), Math.abs(w));
    if (!ok) out.push(`${where}: want ${w}, got ${got}`);
  } else if (typeof got === 'boolean') {
    if (got !== (want === undefined ? false : want)) {
      out.push(`${where}: want ${want}, got ${got}`);
    }
  } else if (typeof got === 'string') {
    let ok;
    if (isInteger(got)) {  // a 64-bit integer: compared exactly
      ok = BigInt(got) === BigInt(want === undefined ? 0 : want);
    } else if (want === undefined) {  // an enum's zero value, or ""
      ok = got === '' || got.endsWith('_UNSPECIFIED');
    } else {
      ok = got === want;
    }
    if (!ok) out.push(`${where}: want ${want}, got ${got}`);
  }
  return out;
}

// A StreamError against { code: name, message_contains: [...] }.
function errorDifferences(want, got, where) {
  if (got === null) return [`${where}: want ${want.code}, got none`];
  const out = [];
  if (cc.status[got.code] !== want.code) {
    out.push(`${where}.code: want ${want.code}, got ` +
      `${cc.status[got.code]} (${got.message})`);
  }
  for (const part of want.message_contains) {
    if (!got.message.includes(part)) {
      out.push(`${where}.message: "${got.message}" lacks "${part}"`);
    }
  }
  return out;
}

function stepDifferences(step, got) {
  const out = [];
  const { sequence } = step.request;  // every step sets its own
  if (BigInt(got.sequence) !== BigInt(sequence)) {
    out.push(`sequence: want ${sequence}, got ${got.sequence}`);
  }
  if (step.error) {
    out.push(...errorDifferences(step.error, got.error, 'error'));
    if (got.results.length) out.push('a rejected message has results');
    return out;
  }
  if (got.error !== null) {
    return [...out, `unexpected error ${cc.status[got.error.code]}: ` +
      got.error.message];
  }
  for (const e of step.query_errors || []) {
    const r = got.results[e.query];
    out.push(...errorDifferences(e, r ? r.error : null,
      `results[${e.query}].error`));
  }
  // Per-query error messages are compared by substring, above; the grant
  // depends on the server's limits (testdata/golden/README.md).
  for (const r of got.results) if (r.error !== null) r.error.message = '';
  got.scene = null;
  return compare(step.response, got, 'response', out);
}

// The response to `request`, also when the server rejected it.
const sendAnyway = (scene, request) => scene.send(request).catch((err) => {
  if (!(err instanceof cc.StreamMessageError)) throw err;
  assert.strictEqual(err.response.sequence, err.sequence);
  return err.response;
});

test('scene golden vectors against a live collision_server', async (t) => {
  assert.ok(golden.cases.length >= 15);
  const env = await startServerAndClient(cc, { streamDeadlineMs: 30000 });
  try {
    for (const c of golden.cases) {
      await t.test(c.name, async () => {
        const scene = env.client.openScene();
        const diffs = [];
        try {
          for (const [i, step] of c.steps.entries()) {
            const got = await sendAnyway(scene, step.request);
            diffs.push(...stepDifferences(step, got)
              .map((d) => `steps[${i}].${d}`));
          }
        } finally {
          const status = await scene.close();
          assert.strictEqual(status.code, cc.status.OK, status.details);
        }
        assert.deepStrictEqual(diffs, []);
      });
    }
  } finally {
    await env.stop();
  }
});
