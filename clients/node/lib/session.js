// One bidirectional stream used one message at a time: send() writes a
// request and resolves to its response (responses come in order), or
// rejects with a StreamMessageError when the server rejected that message
// (the stream goes on), or with the stream's own error once it has failed.
'use strict';

const grpc = require('@grpc/grpc-js');
const { encodeRequest } = require('./request');
const { StreamMessageError, withViolations } = require('./errors');

const STREAM_END_KEY = 'collision-stream-end';

class Session {
  // open(): a new grpc-js duplex call that takes encoded requests.
  // reopen: resend the unanswered messages on a new stream when the server
  // ends one at its maximum age (UNAVAILABLE with trailer
  // collision-stream-end: max-age).
  constructor({ open, requestType, reopen }) {
    this._open = open;
    this._requestType = requestType;
    this._reopen = reopen;
    this._pending = [];  // sent, unanswered: { bytes, resolve, reject }
    this._failure = null;
    this._closing = false;
    this._nextSequence = 1n;
    this.reopened = 0;  // streams reopened after a max-age end
    this._finished = new Promise((resolve) => { this._finish = resolve; });
    this._start();
  }

  _start() {
    const call = this._open();
    this._call = call;
    let error = null;
    call.on('data', (response) => {
      if (call !== this._call) return;
      const entry = this._pending.shift();
      if (!entry) return;  // nothing asked for it: the server broke order
      if (response.error) entry.reject(new StreamMessageError(response));
      else entry.resolve(response);
    });
    call.on('error', (err) => { error = err; });  // 'status' follows
    call.on('status', (status) => {
      if (call !== this._call) return;
      // One value, or several joined by ', ' (grpc-js joins repeated
      // trailer entries).
      const ends = status.metadata.get(STREAM_END_KEY).join(',').split(',');
      const maxAge = status.code === grpc.status.UNAVAILABLE &&
        ends.some((v) => v.trim() === 'max-age');
      if (maxAge && this._reopen && !this._closing) {
        this.reopened += 1;
        this._start();
        for (const entry of this._pending) this._call.write(entry.bytes);
        return;
      }
      const failure = status.code === grpc.status.OK
        ? Object.assign(new Error('the stream has ended'), status)
        : withViolations(error || Object.assign(new Error(status.details),
          status));
      this._failure = failure;
      for (const entry of this._pending.splice(0)) entry.reject(failure);
      this._finish(status);
    });
  }

  // The request (sequence: yours, or the last one + 1 when not given)
  // checked, sent, and its response.
  send(request) {
    let bytes;
    try {
      if (this._failure) throw this._failure;
      if (this._closing) throw new Error('the session is closed');
      const given = request === null || request === undefined
        ? undefined : request.sequence;
      const encoded = encodeRequest(this._requestType, {
        ...request,
        sequence: given === undefined || given === null
          ? this._nextSequence.toString() : given,
      });
      bytes = encoded.bytes;
      this._nextSequence = BigInt(encoded.checked.sequence) + 1n;
    } catch (err) {
      return Promise.reject(err);
    }
    return new Promise((resolve, reject) => {
      this._pending.push({ bytes, resolve, reject });
      this._call.write(bytes);
    });
  }

  // Half-closes: the responses still due arrive, then this resolves to the
  // final status { code, details, metadata }.
  close() {
    if (!this._closing) {
      this._closing = true;
      this._call.end();
    }
    return this._finished;
  }

  // Ends the stream now; unanswered sends reject with CANCELLED.
  cancel() {
    this._closing = true;
    this._call.cancel();
    return this._finished;
  }
}

// CollisionService.QueryStream: one request per tick, any of the four kinds.
class QuerySession extends Session {
  intersect(request, sequence) {
    return this.send({ sequence, intersect: request })
      .then((r) => r.intersect);
  }

  closestPoint(request, sequence) {
    return this.send({ sequence, closestPoint: request })
      .then((r) => r.closestPoint);
  }

  intersectColumns(request, sequence) {
    return this.send({ sequence, intersectColumns: request })
      .then((r) => r.intersectColumns);
  }

  closestPointColumns(request, sequence) {
    return this.send({ sequence, closestPointColumns: request })
      .then((r) => r.closestPointColumns);
  }
}

// SceneService.Session, raw: the first message carries the config; each one
// is a tick's update and queries. The scene lives as long as the stream: it
// is not reopened (a new stream is a new, empty scene). scene_session.js's
// SceneSession is the one with failover.
class SceneStream extends Session {}

module.exports = { QuerySession, SceneStream };
