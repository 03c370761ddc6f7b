// collision-client: the Node client of the collision query service
// (gRPC, collision.v1). docs/node.md is the guide; index.d.ts the reference.
'use strict';

const grpc = require('@grpc/grpc-js');
const { PROTO_DIR } = require('./lib/protos');
const { createClient, CollisionClient } = require('./lib/client');
const { RequestError, checkRequest, toUint64 } = require('./lib/request');
const {
  StreamMessageError, fieldViolations, statusDetails,
} = require('./lib/errors');
const { SceneSession, SceneSessionError } = require('./lib/scene_session');

// Enum values by short name; requests take these, the full names, or the
// short names as strings.
const BoundaryRule = Object.freeze({
  UNSPECIFIED: 'BOUNDARY_RULE_UNSPECIFIED',
  INCLUSIVE: 'BOUNDARY_RULE_INCLUSIVE',
  EXCLUSIVE: 'BOUNDARY_RULE_EXCLUSIVE',
});
const Relation = Object.freeze({
  UNSPECIFIED: 'RELATION_UNSPECIFIED',
  DISJOINT: 'RELATION_DISJOINT',
  TOUCHING: 'RELATION_TOUCHING',
  OVERLAPPING: 'RELATION_OVERLAPPING',
});
const Dimension = Object.freeze({
  UNSPECIFIED: 'DIMENSION_UNSPECIFIED',
  D2: 'DIMENSION_2D',
  D3: 'DIMENSION_3D',
});

const { status } = grpc;
const protoDir = PROTO_DIR;

// ES modules (`import * as cc`, `import { circle }`) get only the names
// Node's cjs-module-lexer finds here without running the file: bare names
// and `...require()` of modules written the same way. A `name: value`
// entry ends the names it reads and `...x` is skipped, so neither may be
// used here. test/esm.test.js checks that every name reaches ES modules.
module.exports = {
  createClient,
  CollisionClient,
  ...require('./lib/shapes'),
  ...require('./lib/columns'),
  BoundaryRule,
  Relation,
  Dimension,
  toUint64,
  checkRequest,
  RequestError,
  StreamMessageError,
  SceneSession,
  SceneSessionError,
  fieldViolations,
  statusDetails,
  grpc,
  status,
  protoDir,
};
