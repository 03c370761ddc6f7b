// Shared helpers of the Node client: loads collision.v1 (CollisionService,
// SceneService) and grpc.health.v1 from the repository's .proto files at run
// time (@grpc/proto-loader), calls unary and bidirectional-stream methods,
// and starts a collision_server binary for tests.
'use strict';

const path = require('node:path');
const fs = require('node:fs');
const os = require('node:os');
const { spawn } = require('node:child_process');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const PROTO_ROOT = path.resolve(__dirname, '..', '..', 'proto');

// Field names are lowerCamelCase, as in proto3 JSON; enums are names; every
// field of a response is present (defaults: true).
const LOADER_OPTIONS = {
  keepCase: false,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
  includeDirs: [PROTO_ROOT],
};

function loadProtos() {
  const definition = protoLoader.loadSync(
    ['collision/v1/collision.proto', 'collision/v1/scene.proto',
     'grpc/health/v1/health.proto'],
    LOADER_OPTIONS);
  const loaded = grpc.loadPackageDefinition(definition);
  return { collision: loaded.collision.v1, health: loaded.grpc.health.v1 };
}

// Promisified unary call with a deadline (ms from now).
function unary(client, method, request, timeoutMs = 10000) {
  return new Promise((resolve, reject) => {
    client[method](request, { deadline: Date.now() + timeoutMs },
      (err, reply) => (err ? reject(err) : resolve(reply)));
  });
}

// A bidirectional stream (SceneService.Session, QueryStream) one message at
// a time: send(request) writes a message and resolves to the next response
// (rejects once the stream has failed or ended); close() half-closes and
// resolves to the final status { code, details }. The deadline (ms from now)
// covers the whole stream.
function bidi(client, method, timeoutMs = 30000) {
  const call = client[method]({ deadline: Date.now() + timeoutMs });
  const ready = [];    // responses no send() has asked for yet
  const waiting = [];  // send()s waiting for their response
  let failure = null;
  const fail = (err) => {
    failure = failure || err;
    for (const w of waiting.splice(0)) w.reject(failure);
  };
  call.on('data', (r) => (waiting.length ? waiting.shift().resolve(r)
    : ready.push(r)));
  call.on('error', fail);  // a non-OK status; 'status' reports it too
  call.on('end', () => fail(new Error('the stream ended')));
  const status = new Promise((resolve) => call.on('status', resolve));
  return {
    send(request) {
      call.write(request);
      return new Promise((resolve, reject) => {
        if (ready.length) resolve(ready.shift());
        else if (failure) reject(failure);
        else waiting.push({ resolve, reject });
      });
    },
    close() {
      call.end();
      return status;
    },
  };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Waits until the channel connects, then until the health service reports
// SERVING for the collision service.
async function waitUntilServing(address, protos, timeoutMs = 20000) {
  const deadline = Date.now() + timeoutMs;
  const health = new protos.health.Health(address,
    grpc.credentials.createInsecure());
  try {
    await new Promise((resolve, reject) => health.waitForReady(deadline,
      (err) => (err ? reject(err) : resolve())));
    for (;;) {
      const reply = await unary(health, 'Check',
        { service: 'collision.v1.CollisionService' },
        Math.max(1, deadline - Date.now()));
      if (reply.status === 'SERVING') return;
      if (Date.now() > deadline) throw new Error('health: not SERVING');
      await sleep(50);
    }
  } finally {
    health.close();
  }
}

// Starts `binary` on 127.0.0.1 port 0 and resolves to { address, stop }
// once the port file exists; stop() sends SIGTERM and resolves to the exit
// code.
async function startServer(binary, timeoutMs = 20000) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'collision-node-'));
  const portFile = path.join(dir, 'port');
  let log = '';
  const child = spawn(binary, ['--address=127.0.0.1:0',
    `--port_file=${portFile}`, '--drain_grace=0s'],
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
  const deadline = Date.now() + timeoutMs;
  while (!fs.existsSync(portFile)) {
    if (!alive || Date.now() > deadline) {
      await stop();
      throw new Error(`collision_server did not start:\n${log}`);
    }
    await sleep(50);
  }
  const port = fs.readFileSync(portFile, 'utf8').trim();
  return { address: `127.0.0.1:${port}`, stop, log: () => log };
}

module.exports = {
  grpc, loadProtos, unary, bidi, waitUntilServing, startServer, PROTO_ROOT,
};
