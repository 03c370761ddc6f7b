// Replays testdata/golden/golden.json through the package's client against
// a real collision_server started on 127.0.0.1 port 0: hit, relation,
// inside and error codes exactly, floats within the file's tolerance, error
// messages containing the case's field path.
// Run: COLLISION_SERVER=path/to/collision_server node --test test/golden.test.js
// (CTest also sets COLLISION_CLIENT_PREFIX: the installed package is tested).
'use strict';

const test = require('node:test');
const assert = require('node:assert');
const { loadPackage, readGolden, startServerAndClient } = require('./helpers');

const cc = loadPackage();
const golden = readGolden('COLLISION_GOLDEN', 'golden.json');
const tol = {
  abs: golden.comparison.float_absolute,
  rel: golden.comparison.float_relative,
};

// Differences between an expected proto3-JSON value (defaults omitted) and a
// decoded response (every field present). A missing expected field is its
// default: 0, false, [], or the enum's *_UNSPECIFIED zero value.
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
  } else if (typeof got === 'string') {  // an enum name
    const ok = want === undefined ? got.endsWith('_UNSPECIFIED') : got === want;
    if (!ok) out.push(`${where}: want ${want}, got ${got}`);
  }
  return out;
}

const call = (client, c) => (c.rpc === 'Intersect'
  ? client.intersect(c.request) : client.closestPoint(c.request));

test('golden vectors against a live collision_server', async (t) => {
  assert.ok(golden.cases.length >= 60);
  const env = await startServerAndClient(cc);
  try {
    for (const c of golden.cases) {
      await t.test(c.name, async () => {
        assert.ok(c.rpc === 'Intersect' || c.rpc === 'ClosestPoint');
        if (c.error) {
          await assert.rejects(call(env.client, c), (err) => {
            assert.strictEqual(cc.status[err.code], c.error.code);
            assert.ok(err.details.includes(c.error.message_contains),
              `"${err.details}" lacks "${c.error.message_contains}"`);
            assert.ok(Array.isArray(err.fieldViolations));
            return true;
          });
          return;
        }
        const got = await call(env.client, c);
        assert.deepStrictEqual(compare(c.response, got, 'response', []), []);
      });
    }
  } finally {
    await env.stop();
  }
});
