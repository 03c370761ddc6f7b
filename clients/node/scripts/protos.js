// `node scripts/protos.js copy|clean`, run by `npm pack` (prepack,
// postpack): the package ships its own copies of the .proto files in
// proto/, copied from the repository's proto/ (or $COLLISION_PROTO_DIR) while
// it is packed and removed after. The repository keeps one copy of each.
'use strict';

const fs = require('node:fs');
const path = require('node:path');

const PACKAGE_ROOT = path.resolve(__dirname, '..');
const TARGET = path.join(PACKAGE_ROOT, 'proto');
const FILES = [
  'collision/v1/collision.proto',
  'collision/v1/scene.proto',
  'grpc/health/v1/health.proto',
];

function copy() {
  const source = process.env.COLLISION_PROTO_DIR ||
    path.resolve(PACKAGE_ROOT, '..', '..', 'proto');
  const missing = FILES.filter((f) => !fs.existsSync(path.join(source, f)));
  if (missing.length) {
    throw new Error(`cannot ship the .proto files: ${missing.join(', ')} ` +
      `not in ${source} (pack from clients/node in the repository, or set ` +
      'COLLISION_PROTO_DIR to its proto/ folder)');
  }
  fs.rmSync(TARGET, { recursive: true, force: true });
  for (const f of FILES) {
    fs.mkdirSync(path.dirname(path.join(TARGET, f)), { recursive: true });
    fs.copyFileSync(path.join(source, f), path.join(TARGET, f));
  }
}

const clean = () => fs.rmSync(TARGET, { recursive: true, force: true });

const commands = { copy, clean };
const command = commands[process.argv[2]];
if (!command) {
  console.error('usage: node scripts/protos.js copy|clean');
  process.exit(2);
}
command();
