// The package from ES modules, as docs/node.md writes it: `import * as cc`,
// `import { circle, ... }`, the default import and `await import()` of the
// installed package each see every name `require` sees (Node gives an ES
// module only the names its cjs-module-lexer finds in index.js), and a call
// made through them reaches a live collision_server. The modules are files
// of a fresh folder inside the consumer project, so 'collision-client'
// resolves as in a user's project.
// Run: COLLISION_CLIENT_PREFIX=... COLLISION_SERVER=... node --test test/esm.test.js
'use strict';

const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFile } = require('node:child_process');
const { pathToFileURL } = require('node:url');
const { loadPackage, packageDir, startServer } = require('./helpers');

// The specifier the modules import: the package's name when installed,
// else (a developer's run) the source tree's entry point by URL.
const prefix = process.env.COLLISION_CLIENT_PREFIX;
const specifier = prefix ? 'collision-client'
  : pathToFileURL(path.join(packageDir(), 'index.js')).href;

// Each form prints, as JSON, the names it sees that are not the very
// objects `require` gives (and stops there if there are any), then the
// answer of one Intersect call.
const MODULES = {
  'namespace.mjs': `
import * as cc from '${specifier}';
import { createRequire } from 'node:module';
const cjs = createRequire(import.meta.url)('${specifier}');
const differ = Object.keys(cjs).filter((k) => cc[k] !== cjs[k]);
if (differ.length) { console.log(JSON.stringify({ differ })); process.exit(0); }
const client = cc.createClient(process.argv[2]);
await client.waitUntilServing({ timeoutMs: 10000 });
const reply = await client.intersect(cc.intersectRequest(
  [[cc.circle(25, 25, 5), cc.rectFromMinMax(10, 20, 20, 30)]], { relation: true }));
client.close();
console.log(JSON.stringify({ differ, result: reply.results[0],
  columns: typeof cc.columns.circleRect, status: cc.status.INVALID_ARGUMENT }));
`,
  'named.mjs': `
import {
  createClient, circle, rectFromMinMax, intersectRequest, columns, hits,
  fieldViolations, BoundaryRule, RequestError, status, grpc, protoDir,
} from '${specifier}';
const named = { createClient, circle, rectFromMinMax, intersectRequest,
  columns, hits, fieldViolations, BoundaryRule, RequestError, status, grpc,
  protoDir };
import { createRequire } from 'node:module';
const cjs = createRequire(import.meta.url)('${specifier}');
const differ = Object.keys(named).filter((k) => named[k] !== cjs[k]);
if (differ.length) { console.log(JSON.stringify({ differ })); process.exit(0); }
const client = createClient(process.argv[2]);
await client.waitUntilServing({ timeoutMs: 10000 });
const reply = await client.intersect(intersectRequest(
  [[circle(25, 25, 5), rectFromMinMax(10, 20, 20, 30)]],
  { relation: true, boundary: BoundaryRule.INCLUSIVE }));
client.close();
console.log(JSON.stringify({ differ, result: reply.results[0] }));
`,
  'default.mjs': `
import cc from '${specifier}';
import { createRequire } from 'node:module';
const cjs = createRequire(import.meta.url)('${specifier}');
const dynamic = await import('${specifier}');
const differ = [
  ...(cc === cjs ? [] : ['default']),
  ...(dynamic.default === cjs ? [] : ['import().default']),
  ...Object.keys(cjs).filter((k) => dynamic[k] !== cjs[k])
    .map((k) => \`import().\${k}\`),
];
if (differ.length) { console.log(JSON.stringify({ differ })); process.exit(0); }
const client = cc.createClient(process.argv[2]);
await client.waitUntilServing({ timeoutMs: 10000 });
const reply = await client.intersect(dynamic.intersectRequest(
  [[dynamic.circle(25, 25, 5), dynamic.rectFromMinMax(10, 20, 20, 30)]],
  { relation: true }));
client.close();
console.log(JSON.stringify({ differ, result: reply.results[0] }));
`,
};

const runModule = (file, address) => new Promise((resolve, reject) => {
  execFile(process.execPath, [file, address], { timeout: 30000 },
    (err, stdout, stderr) => (err
      ? reject(new Error(`${path.basename(file)} failed: ${err.message}\n` +
        `${stderr}`))
      : resolve(JSON.parse(stdout.trim().split('\n').pop()))));
});

test('ES modules see every export and call a live server', async (t) => {
  assert.ok(Object.keys(loadPackage()).length > 30, 'the package loads');
  const project = fs.mkdtempSync(prefix ? path.join(path.resolve(prefix), 'esm-')
    : path.join(os.tmpdir(), 'collision-esm-'));
  const server = await startServer();
  try {
    for (const [name, source] of Object.entries(MODULES)) {
      await t.test(name, async () => {
        const file = path.join(project, name);
        fs.writeFileSync(file, source);
        const out = await runModule(file, server.address);
        assert.deepStrictEqual(out.differ, [],
          `names an ES module does not get from ${specifier}`);
        assert.strictEqual(out.result.hit, true);
        assert.strictEqual(out.result.relation, 'RELATION_TOUCHING');
        if (name === 'namespace.mjs') {
          assert.strictEqual(out.columns, 'function');
          assert.strictEqual(out.status, 3);
        }
      });
    }
  } finally {
    fs.rmSync(project, { recursive: true, force: true });
    const code = await server.stop();
    assert.strictEqual(code, 0, `collision_server exited ${code}`);
  }
});
