// Errors for programs: the fields at fault of a rejected request, from
// wherever the error came (see "Errors for programs" in collision.proto).
'use strict';

const grpc = require('@grpc/grpc-js');
const { loadRoot } = require('./protos');

const DETAILS_KEY = 'grpc-status-details-bin';
const BAD_REQUEST_URL = 'type.googleapis.com/google.rpc.BadRequest';

const violationsOf = (badRequest) =>
  (badRequest && Array.isArray(badRequest.fieldViolations)
    ? badRequest.fieldViolations : [])
    .map((v) => ({ field: v.field || '', description: v.description || '' }));

// The google.rpc.Status in a call's trailing metadata (a grpc.Metadata), as
// { code, message, details: [{ typeUrl, value }] }; null when there is none
// or it does not decode (it came from outside: never trusted to be right).
function statusDetails(metadata) {
  if (!metadata || typeof metadata.get !== 'function') return null;
  const values = metadata.get(DETAILS_KEY);
  if (!values.length || !(values[0] instanceof Uint8Array)) return null;
  try {
    const RpcStatus = loadRoot().lookupType('collision.v1.RpcStatus');
    const s = RpcStatus.decode(values[0]);
    return {
      code: s.code,
      message: s.message,
      details: s.details.map((d) => ({ typeUrl: d.type_url, value: d.value })),
    };
  } catch {
    return null;
  }
}

function badRequestFromMetadata(metadata) {
  const status = statusDetails(metadata);
  const detail = status && status.details.find(
    (d) => d.typeUrl === BAD_REQUEST_URL);
  if (!detail) return [];
  try {
    const BadRequest = loadRoot().lookupType('collision.v1.BadRequest');
    return BadRequest.decode(detail.value).field_violations.map(
      (v) => ({ field: v.field, description: v.description }));
  } catch {
    return [];
  }
}

// The fields at fault, [{ field, description }] (empty when none are
// known), of: an error this package rejected with (it carries them as
// err.fieldViolations), any @grpc/grpc-js error (from its trailing
// metadata), or a StreamError of a response (its badRequest). When the
// server capped the list, its last entry has field '' and description
// 'and N more invalid fields'.
function fieldViolations(err) {
  if (!err || typeof err !== 'object') return [];
  if (Array.isArray(err.fieldViolations)) return err.fieldViolations;
  if (err.badRequest !== undefined) return violationsOf(err.badRequest);
  return badRequestFromMetadata(err.metadata);
}

// A failed call's error (a grpc-js ServiceError) with fieldViolations
// attached.
function withViolations(err) {
  if (err && typeof err === 'object' && !Array.isArray(err.fieldViolations)) {
    err.fieldViolations = badRequestFromMetadata(err.metadata);
  }
  return err;
}

// One message of a stream was rejected (the stream itself goes on): its
// response's StreamError as an Error. `response` is the whole response.
class StreamMessageError extends Error {
  constructor(response) {
    const { code, message } = response.error;
    const name = grpc.status[code] || `CODE_${code}`;
    super(`message ${response.sequence} rejected: ${name}: ${message}`);
    this.name = 'StreamMessageError';
    this.code = code;
    this.codeName = name;  // 'INVALID_ARGUMENT', as grpc.status names it
    this.details = message;
    this.sequence = response.sequence;
    this.fieldViolations = violationsOf(response.error.badRequest);
    this.response = response;
  }
}

module.exports = {
  BAD_REQUEST_URL, StreamMessageError, fieldViolations, statusDetails,
  withViolations, violationsOfMetadata: badRequestFromMetadata,
};
