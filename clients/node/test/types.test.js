// The hand-written TypeScript types (index.d.ts) compile with tsc --strict
// against test/types/usage.ts, which uses every part of the API and checks
// that mistakes are type errors. With COLLISION_CLIENT_PREFIX the installed
// package is compiled against as a user's project would (its own
// node_modules, TypeScript from this package's lock file).
// test/types/esm.mts is an ES module of such a user (the import forms
// docs/node.md shows): compiled, then run against the installed package.
// Run: node --test test/types.test.js (TypeScript: npm ci here first)
'use strict';

const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { createRequire } = require('node:module');

const PACKAGE_DIR = path.resolve(__dirname, '..');

// The folder a TypeScript project compiles in and the node_modules it
// resolves from: inside the consumer folder when installed (modules resolve
// from its node_modules), else a scratch folder that maps the package name
// to this source tree.
function project() {
  const prefix = process.env.COLLISION_CLIENT_PREFIX;
  const dir = prefix
    ? fs.mkdtempSync(path.join(path.resolve(prefix), 'types-'))
    : fs.mkdtempSync(path.join(os.tmpdir(), 'collision-types-'));
  const modules = prefix ? path.join(path.resolve(prefix), 'node_modules')
    : path.join(PACKAGE_DIR, 'node_modules');
  return { dir, modules, installed: Boolean(prefix) };
}

// tsc --strict over `file` (from test/types) in `p.dir`, with `options`
// beside the strict node16 ones.
function compile(p, file, options) {
  const tsc = createRequire(path.join(p.modules, 'x.js'))
    .resolve('typescript/bin/tsc');
  fs.copyFileSync(path.join(__dirname, 'types', file), path.join(p.dir, file));
  const compilerOptions = {
    strict: true, noEmit: true, target: 'es2020', module: 'node16',
    moduleResolution: 'node16', types: ['node'],
    typeRoots: [path.join(p.modules, '@types')], ...options,
  };
  if (!p.installed) {
    compilerOptions.paths = {
      'collision-client': [path.join(PACKAGE_DIR, 'index.d.ts')],
      '@grpc/grpc-js': [path.join(p.modules, '@grpc', 'grpc-js')],
    };
  }
  fs.writeFileSync(path.join(p.dir, 'tsconfig.json'), JSON.stringify(
    { compilerOptions, files: [file] }));
  try {
    execFileSync(process.execPath, [tsc, '-p', p.dir], { encoding: 'utf8' });
  } catch (err) {
    assert.fail(`tsc failed on ${file}:\n${err.stdout}${err.stderr}`);
  }
}

test('index.d.ts compiles with a strict TypeScript user', () => {
  const p = project();
  try {
    compile(p, 'usage.ts', {});
  } finally {
    fs.rmSync(p.dir, { recursive: true, force: true });
  }
});

test('an ES module importing the package compiles and runs', (t) => {
  const p = project();
  try {
    compile(p, 'esm.mts', { noEmit: false, target: 'es2022', outDir: 'out' });
    if (!p.installed) {
      t.skip('run only against the installed package');
      return;
    }
    const out = execFileSync(process.execPath,
      [path.join(p.dir, 'out', 'esm.mjs')],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    assert.match(out, /^esm\.mts ran$/m);
  } finally {
    fs.rmSync(p.dir, { recursive: true, force: true });
  }
});
