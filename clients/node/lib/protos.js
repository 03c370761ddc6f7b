// Where the package's .proto files are, and the two views of them it loads
// once, on first use: @grpc/proto-loader's service definitions (what
// @grpc/grpc-js calls with) and a protobufjs reflection root (what requests
// are checked against and error details are decoded with).
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');
const protobuf = require('protobufjs');

const PACKAGE_ROOT = path.resolve(__dirname, '..');
const PROTO_FILES = [
  'collision/v1/collision.proto',
  'collision/v1/scene.proto',
  'grpc/health/v1/health.proto',
];

// An installed package ships its own copies in proto/ (put there when it is
// packed). The repository keeps one copy of each, in proto/ at its top,
// which the source tree (clients/node) uses: that one is current even when
// an interrupted `npm pack` left a stale proto/ here behind.
function findProtoDir() {
  const inRepository =
    path.basename(PACKAGE_ROOT) === 'node' &&
    path.basename(path.dirname(PACKAGE_ROOT)) === 'clients';
  const candidates = [path.join(PACKAGE_ROOT, 'proto')];
  if (inRepository) {
    candidates.unshift(path.resolve(PACKAGE_ROOT, '..', '..', 'proto'));
  }
  const found = candidates.find((dir) => PROTO_FILES.every(
    (file) => fs.existsSync(path.join(dir, file))));
  if (!found) {
    throw new Error('collision-client: the .proto files are missing (looked ' +
      `in ${candidates.join(' and ')}); a packed package ships them in ` +
      'proto/, see docs/node.md');
  }
  return found;
}

const PROTO_DIR = findProtoDir();

// Responses: lowerCamelCase field names as in proto3 JSON, enums as names,
// 64-bit integers as decimal strings, bytes as Buffers, every field present
// (unset messages null), and each oneof's member name under the oneof's
// name (e.g. response.answer === 'intersect').
const LOADER_OPTIONS = {
  keepCase: false,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
  includeDirs: [PROTO_DIR],
};

let services = null;
function loadServices() {
  if (!services) {
    const definition = protoLoader.loadSync(PROTO_FILES, LOADER_OPTIONS);
    const loaded = grpc.loadPackageDefinition(definition);
    services = {
      CollisionService: loaded.collision.v1.CollisionService,
      SceneService: loaded.collision.v1.SceneService,
      Health: loaded.grpc.health.v1.Health,
    };
  }
  return services;
}

// Field names as written in the .proto files (snake_case), as the server's
// error messages and field paths spell them.
let root = null;
function loadRoot() {
  if (!root) {
    root = new protobuf.Root();
    root.resolvePath = (origin, target) => path.join(PROTO_DIR, target);
    root.loadSync(PROTO_FILES, { keepCase: true });
    root.resolveAll();
  }
  return root;
}

module.exports = { PROTO_DIR, PROTO_FILES, loadServices, loadRoot };
