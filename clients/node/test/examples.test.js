// The package's examples, as a user runs them, against a live
// collision_server: they exit 0 and print what their comments promise.
// Run: COLLISION_SERVER=path/to/collision_server node --test test/examples.test.js
'use strict';

const test = require('node:test');
const assert = require('node:assert');
const path = require('node:path');
const { execFile } = require('node:child_process');
const { packageDir, startServer } = require('./helpers');

const run = (script, address) => new Promise((resolve, reject) => {
  execFile(process.execPath, [path.join(packageDir(), script), address],
    { timeout: 30000 }, (err, stdout, stderr) => (err
      ? reject(new Error(`${script} failed: ${err.message}\n${stderr}`))
      : resolve(stdout)));
});

test('the examples run against a live collision_server', async (t) => {
  const server = await startServer();
  try {
    await t.test('example.js', async () => {
      const out = await run('example.js', server.address);
      assert.match(out, /^hit=true relation=RELATION_TOUCHING separation=0$/m);
      assert.match(out, /^closest=\(10, 10\) distance=5 inside=false$/m);
      assert.match(out, /^column hits=\[true,false\]$/m);
      assert.match(out,
        /^rejected: INVALID_ARGUMENT: pairs\[0\]\.a\.circle\.radius/m);
      assert.match(out,
        /^ {2}field pairs\[0\]\.a\.circle\.radius: must be >= 0, got -1$/m);
      assert.match(out, /^refused: .*BOUNDARY_RULE_INCLUSIVE/m);
    });
    await t.test('example_scene.js', async () => {
      const out = await run('example_scene.js', server.address);
      assert.match(out, /^tick 2: 4 entities$/m);
      assert.match(out, /^shot hits 3 at distance 6, /m);
      assert.match(out, /^blast reaches 2: RELATION_OVERLAPPING/m);
      assert.match(out, /^tick 3 rejected: INVALID_ARGUMENT: /m);
      assert.match(out,
        /^ {2}field update\.upserts\[0\]\.shape\.circle\.radius: /m);
      assert.match(out, /^shot rewound to tick 2 \+ 0\.60: hits 2$/m);
      assert.match(out, /^the same shot at tick 9: miss$/m);
    });
  } finally {
    const code = await server.stop();
    assert.strictEqual(code, 0, `collision_server exited ${code}`);
  }
});
