// The hand-written TypeScript types (index.d.ts) compile with tsc --strict
// against test/types/usage.ts, which uses every part of the API and checks
// that mistakes are type errors. With COLLISION_CLIENT_PREFIX the installed
// package is compiled against as a user's project would (its own
// node_modules, TypeScript from this package's lock file).
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

test('index.d.ts compiles with a strict TypeScript user', () => {
  const prefix = process.env.COLLISION_CLIENT_PREFIX;
  // The project that compiles: inside the consumer folder when installed
  // (modules resolve from its node_modules), else a scratch folder that
  // maps the package name to this source tree.
  const project = prefix
    ? fs.mkdtempSync(path.join(path.resolve(prefix), 'types-'))
    : fs.mkdtempSync(path.join(os.tmpdir(), 'collision-types-'));
  const modules = prefix ? path.join(path.resolve(prefix), 'node_modules')
    : path.join(PACKAGE_DIR, 'node_modules');
  const tsc = createRequire(path.join(modules, 'x.js'))
    .resolve('typescript/bin/tsc');
  try {
    fs.copyFileSync(path.join(__dirname, 'types', 'usage.ts'),
      path.join(project, 'usage.ts'));
    const compilerOptions = {
      strict: true, noEmit: true, target: 'es2020', module: 'node16',
      moduleResolution: 'node16', types: ['node'],
      typeRoots: [path.join(modules, '@types')],
    };
    if (!prefix) {
      compilerOptions.paths = {
        'collision-client': [path.join(PACKAGE_DIR, 'index.d.ts')],
        '@grpc/grpc-js': [path.join(modules, '@grpc', 'grpc-js')],
      };
    }
    fs.writeFileSync(path.join(project, 'tsconfig.json'), JSON.stringify(
      { compilerOptions, files: ['usage.ts'] }));
    try {
      execFileSync(process.execPath, [tsc, '-p', project],
        { encoding: 'utf8' });
    } catch (err) {
      assert.fail(`tsc failed:\n${err.stdout}${err.stderr}`);
    }
  } finally {
    fs.rmSync(project, { recursive: true, force: true });
  }
});
