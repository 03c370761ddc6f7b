// The CTest fixture of the installed-package tests, also run by hand:
//   node test/install_tarball.js --out DIR [--npm npm]
// Packs the package with `npm pack` (from a staged copy of its files, so the
// source tree is not written to; prepack copies the .proto files in), then
// creates DIR/consumer, a fresh project that depends on the tarball only,
// and installs it there with `npm ci` from the npm registry, at the versions
// of this package's package-lock.json (TypeScript too, for the types test).
// The tests then load collision-client from DIR/consumer.
'use strict';

const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const PACKAGE_DIR = path.resolve(__dirname, '..');
const PROTO_DIR = path.resolve(PACKAGE_DIR, '..', '..', 'proto');
const SHIPPED_PROTOS = ['proto/collision/v1/collision.proto',
  'proto/collision/v1/scene.proto', 'proto/grpc/health/v1/health.proto'];

function parseArgs(argv) {
  const args = { npm: 'npm', out: null };
  for (let i = 0; i < argv.length; i += 1) {
    if (argv[i] === '--out') args.out = path.resolve(argv[++i]);
    else if (argv[i] === '--npm') args.npm = argv[++i];
    else throw new Error(`unknown argument ${argv[i]}`);
  }
  if (!args.out) {
    throw new Error('usage: install_tarball.js --out DIR [--npm npm]');
  }
  return args;
}

const readJson = (file) => JSON.parse(fs.readFileSync(file, 'utf8'));
const writeJson = (file, value) =>
  fs.writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
const fresh = (dir) => {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
};

// `npm` runs through node when it is npm-cli.js (as npm_execpath is).
function npm(args, bin, options) {
  const [file, argv] = bin.endsWith('.js')
    ? [process.execPath, [bin, ...args]] : [bin, args];
  return execFileSync(file, argv, { encoding: 'utf8', ...options,
    stdio: ['ignore', 'pipe', 'inherit'] });
}

function pack(out, npmBin) {
  const stage = path.join(out, 'stage');
  fresh(stage);
  const manifest = readJson(path.join(PACKAGE_DIR, 'package.json'));
  const entries = ['package.json', 'LICENSE', 'README.md', 'scripts',
    ...manifest.files];
  for (const entry of entries) {
    const from = path.join(PACKAGE_DIR, entry);
    if (entry !== 'proto/' && fs.existsSync(from)) {
      fs.cpSync(from, path.join(stage, entry), { recursive: true });
    }
  }
  const stdout = npm(['pack', '--json', '--pack-destination', out], npmBin,
    { cwd: stage, env: { ...process.env, COLLISION_PROTO_DIR: PROTO_DIR } });
  // Some npm versions print the scripts' banners on stdout before the JSON.
  const packed = JSON.parse(stdout.slice(stdout.search(/^\[/m)))[0];
  const shipped = new Set(packed.files.map((f) => f.path));
  const listed = manifest.files.map((f) => f.replace(/\/$/, ''));
  const missing = [...SHIPPED_PROTOS.filter((f) => !shipped.has(f)),
    ...listed.filter((f) => ![...shipped].some(
      (s) => s === f || s.startsWith(`${f}/`)))];
  if (missing.length) {
    throw new Error(`the tarball lacks ${missing.join(', ')}`);
  }
  console.log(`packed ${packed.filename}: ${[...shipped].sort().join(' ')}`);
  return { manifest, tarball: path.join(out, packed.filename) };
}

// A lock file for the consumer: the tarball, and every package of this
// package's own lock file at its locked version.
function consumerLock(manifest, tarballName, tarball, typescript) {
  const own = readJson(path.join(PACKAGE_DIR, 'package-lock.json'));
  const integrity = `sha512-${crypto.createHash('sha512')
    .update(fs.readFileSync(tarball)).digest('base64')}`;
  const root = {
    name: 'collision-client-consumer',
    dependencies: { 'collision-client': `file:${tarballName}` },
    devDependencies: { typescript },
  };
  const packages = { '': root };
  packages['node_modules/collision-client'] = {
    version: manifest.version,
    resolved: `file:${tarballName}`,
    integrity,
    license: manifest.license,
    dependencies: manifest.dependencies,
    engines: manifest.engines,
  };
  for (const [key, value] of Object.entries(own.packages)) {
    if (key.startsWith('node_modules/')) packages[key] = value;
  }
  return { root, lock: {
    name: root.name, lockfileVersion: 3, requires: true, packages,
  } };
}

function install(out, npmBin, { manifest, tarball }) {
  const consumer = path.join(out, 'consumer');
  fresh(consumer);
  const tarballName = path.basename(tarball);
  fs.copyFileSync(tarball, path.join(consumer, tarballName));
  const own = readJson(path.join(PACKAGE_DIR, 'package-lock.json'));
  const typescript = own.packages['node_modules/typescript'].version;
  const { root, lock } = consumerLock(manifest, tarballName,
    path.join(consumer, tarballName), typescript);
  writeJson(path.join(consumer, 'package.json'), { ...root, private: true });
  writeJson(path.join(consumer, 'package-lock.json'), lock);
  process.stdout.write(npm(['ci', '--no-audit', '--no-fund'], npmBin,
    { cwd: consumer }));
  console.log(`installed into ${consumer}`);
}

function main() {
  const args = parseArgs(process.argv.slice(2));
  fs.mkdirSync(args.out, { recursive: true });
  install(args.out, args.npm, pack(args.out, args.npm));
}

main();
