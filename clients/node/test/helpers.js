// Shared by the tests: the package under test, a collision_server on
// 127.0.0.1 port 0, and the golden files.
'use strict';

const assert = require('node:assert');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { createRequire } = require('node:module');

// The installed package when COLLISION_CLIENT_PREFIX names the folder it
// was installed into (CTest: the packed tarball, installed from the
// registry), else the source tree (a developer's run, after `npm ci` here).
// Returns the entry point's path.
function resolvePackage() {
  const prefix = process.env.COLLISION_CLIENT_PREFIX;
  if (!prefix) return require.resolve('..');
  // Resolved as a file of that folder would resolve it (from here, the
  // package's own name would resolve to this source tree).
  const consumerRequire = createRequire(path.join(path.resolve(prefix),
    'package.json'));
  const resolved = consumerRequire.resolve('collision-client');
  const installed = path.join(path.resolve(prefix), 'node_modules',
    'collision-client') + path.sep;
  assert.ok(resolved.startsWith(installed),
    `collision-client resolved to ${resolved}, not under ${installed}`);
  return resolved;
}

const loadPackage = () => require(resolvePackage());
// The folder of the package under test (its package.json, examples).
const packageDir = () => path.dirname(resolvePackage());

function serverBinary() {
  const binary = process.env.COLLISION_SERVER;
  assert.ok(binary, 'set COLLISION_SERVER to the collision_server binary');
  return binary;
}

// Starts collision_server on 127.0.0.1 port 0 (more flags in `flags`) and
// resolves to { address, stop, log, kill, exited, alive } once it has
// written its port file; the caller then waits on the health service.
// stop() sends SIGTERM and resolves to the exit code; kill(signal) sends
// one; exited resolves to the exit code (or the signal's name).
// Whether every thread of process `pid` is stopped (state T in
// /proc/PID/task/TID/stat).
function allThreadsStopped(pid) {
  try {
    return fs.readdirSync(`/proc/${pid}/task`).every((tid) => {
      const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      return stat.slice(stat.lastIndexOf(')') + 2).startsWith('T');
    });
  } catch (e) {
    return false;
  }
}

async function startServer(flags = []) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'collision-node-'));
  const portFile = path.join(dir, 'port');
  let log = '';
  const child = spawn(serverBinary(), ['--address=127.0.0.1:0',
    `--port_file=${portFile}`, '--drain_grace=0s', ...flags],
  { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.on('data', (d) => { log += d; });
  child.stderr.on('data', (d) => { log += d; });
  const exited = new Promise((resolve) => child.on('exit',
    (code, signal) => resolve(code === null ? signal : code)));
  let alive = true;
  exited.then(() => { alive = false; });
  const stop = async () => {
    if (alive) child.kill('SIGTERM');
    const code = await exited;
    fs.rmSync(dir, { recursive: true, force: true });
    return code;
  };
  // The port file appears, whole (it is renamed into place), once the
  // server listens.
  const deadline = Date.now() + 20000;
  while (!fs.existsSync(portFile)) {
    if (!alive || Date.now() > deadline) {
      await stop();
      throw new Error(`collision_server did not start:\n${log}`);
    }
    await new Promise((r) => { setTimeout(r, 20); });
  }
  const port = fs.readFileSync(portFile, 'utf8').trim();
  return {
    address: `127.0.0.1:${port}`,
    stop,
    log: () => log,
    kill: (signal) => child.kill(signal),
    // SIGSTOP, and wait (bounded) until every thread has stopped: a
    // signal takes effect as each thread next runs, which on a busy
    // machine can come after the caller's next messages are answered.
    pause: async () => {
      child.kill('SIGSTOP');
      const deadline = Date.now() + 10000;
      while (Date.now() < deadline && !allThreadsStopped(child.pid)) {
        await new Promise((r) => { setTimeout(r, 5); });
      }
    },
    exited,
    alive: () => alive,
  };
}

// A started server and a client of it that has seen it SERVING; stop()
// closes both and checks the server exited cleanly.
async function startServerAndClient(cc, clientOptions, flags) {
  const server = await startServer(flags);
  const client = cc.createClient(server.address, clientOptions);
  try {
    await client.waitUntilServing();
  } catch (err) {
    client.close();
    await server.stop();
    throw new Error(`${err.message}\n${server.log()}`);
  }
  return {
    server,
    client,
    async stop() {
      client.close();
      const code = await server.stop();
      assert.strictEqual(code, 0, `collision_server exited ${code}:\n` +
        server.log());
    },
  };
}

const repoFile = (...parts) => path.resolve(__dirname, '..', '..', '..',
  ...parts);

function readGolden(envName, file) {
  return JSON.parse(fs.readFileSync(process.env[envName] ||
    repoFile('testdata', 'golden', file), 'utf8'));
}

module.exports = {
  loadPackage, packageDir, startServer, startServerAndClient, readGolden,
  repoFile,
};
