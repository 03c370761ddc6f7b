// collision-client: the Node client of the collision query service
// (gRPC, collision.v1). docs/node.md is the guide; index.d.ts the reference.
'use strict';

const grpc = require('@grpc/grpc-js');
const { PROTO_DIR } = require('./lib/protos');
const client = require('./lib/client');
const shapes = require('./lib/shapes');
const columns = require('./lib/columns');
const { RequestError, checkRequest, toUint64 } = require('./lib/request');
const {
  StreamMessageError, fieldViolations, statusDetails,
} = require('./lib/errors');

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

module.exports = {
  createClient: client.createClient,
  CollisionClient: client.CollisionClient,
  ...shapes,
  ...columns,
  BoundaryRule,
  Relation,
  Dimension,
  toUint64,
  checkRequest,
  RequestError,
  StreamMessageError,
  fieldViolations,
  statusDetails,
  grpc,
  status: grpc.status,
  protoDir: PROTO_DIR,
};
