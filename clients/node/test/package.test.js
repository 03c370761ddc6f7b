// What a user installs: the package's metadata, the files it ships, and
// that an installed copy loads its own .proto files (not the repository's).
// Run: node --test test/package.test.js (with COLLISION_CLIENT_PREFIX set,
// the installed copy is checked).
'use strict';

const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const path = require('node:path');
const { loadPackage, packageDir, repoFile } = require('./helpers');

const cc = loadPackage();
const dir = packageDir();
const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'),
  'utf8'));
const installed = Boolean(process.env.COLLISION_CLIENT_PREFIX);

test('package.json says what the package is', () => {
  assert.strictEqual(manifest.name, 'collision-client');
  assert.match(manifest.version, /^[0-9]+\.[0-9]+\.[0-9]+$/);
  assert.strictEqual(manifest.license, 'Apache-2.0');
  assert.notStrictEqual(manifest.private, true);
  assert.strictEqual(manifest.exports['.'].types, './index.d.ts');
  assert.ok(fs.existsSync(path.join(dir, manifest.types)));
  assert.ok(fs.existsSync(path.join(dir, 'LICENSE')));
  assert.deepStrictEqual(Object.keys(manifest.dependencies).sort(),
    ['@grpc/grpc-js', '@grpc/proto-loader', 'protobufjs']);
});

test('the .proto files are found where the package is', () => {
  const expected = installed ? path.join(dir, 'proto') : repoFile('proto');
  assert.strictEqual(cc.protoDir, expected);
  for (const f of ['collision/v1/collision.proto', 'collision/v1/scene.proto',
    'grpc/health/v1/health.proto']) {
    assert.ok(fs.existsSync(path.join(cc.protoDir, f)), f);
  }
});

test('an installed package ships no tests and no copy of the repository',
  { skip: !installed && 'the source tree is not the installed package' },
  () => {
    assert.deepStrictEqual(fs.readdirSync(dir).sort(), ['LICENSE',
      'README.md', 'example.js', 'example_scene.js', 'index.d.ts', 'index.js',
      'lib', 'package.json', 'proto'].sort());
  });
