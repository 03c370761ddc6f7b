// createClient(): one channel to a collision server, promise-returning
// calls with a deadline on each, the per-tick sessions, and the health
// check.
'use strict';

const grpc = require('@grpc/grpc-js');
const { loadServices } = require('./protos');
const { encodeRequest } = require('./request');
const { withViolations } = require('./errors');
const { QuerySession, SceneStream } = require('./session');
const { openSceneSession } = require('./scene_session');

const V1 = 'collision.v1.';

// Retries of UNAVAILABLE (the server sheds load with it and a
// grpc-retry-pushback-ms trailer, which grpc-js honours), from a
// per-channel budget, as the C++ client's RetryOptions defaults. Only the
// CollisionService's unary calls: streams are not retried by gRPC.
const RETRY_SERVICE_CONFIG = {
  methodConfig: [{
    name: [{ service: 'collision.v1.CollisionService' }],
    retryPolicy: {
      maxAttempts: 4,
      initialBackoff: '0.020s',
      maxBackoff: '1s',
      backoffMultiplier: 2,
      retryableStatusCodes: ['UNAVAILABLE'],
    },
  }],
  retryThrottling: { maxTokens: 100, tokenRatio: 0.1 },
};

// Requests are checked and encoded by encodeRequest; grpc-js sends the bytes.
const asIs = (bytes) => bytes;

const deadlineIn = (ms) => (ms === Infinity || ms === undefined || ms === null
  ? Infinity : Date.now() + ms);

function addMetadata(md, entries) {
  if (!entries) return;
  if (entries instanceof grpc.Metadata) {
    md.merge(entries);
    return;
  }
  for (const [key, value] of Object.entries(entries)) {
    for (const v of Array.isArray(value) ? value : [value]) md.add(key, v);
  }
}

class CollisionClient {
  constructor(target, options = {}) {
    const services = loadServices();
    const credentials = options.credentials ||
      grpc.credentials.createInsecure();
    const channelOptions = { ...options.channelOptions };
    if (options.retry !== false &&
        channelOptions['grpc.service_config'] === undefined) {
      channelOptions['grpc.service_config'] =
        JSON.stringify(RETRY_SERVICE_CONFIG);
    }
    this.target = target;
    this.deadlineMs = options.deadlineMs === undefined
      ? 5000 : options.deadlineMs;
    this.streamDeadlineMs = options.streamDeadlineMs === undefined
      ? Infinity : options.streamDeadlineMs;
    this._metadata = options.metadata;
    this._token = options.token;
    // One channel, shared by the three stubs.
    this.collision = new services.CollisionService(target, credentials,
      channelOptions);
    const shared = { channelOverride: this.collision.getChannel() };
    this.scene = new services.SceneService(target, credentials, shared);
    this.health = new services.Health(target, credentials, shared);
    this._methods = {
      collision: services.CollisionService.service,
      scene: services.SceneService.service,
    };
  }

  _callMetadata(extra) {
    const md = new grpc.Metadata();
    addMetadata(md, this._metadata);
    if (this._token) md.set('authorization', `Bearer ${this._token}`);
    addMetadata(md, extra);
    return md;
  }

  _unary(method, requestType, request, options = {}) {
    let bytes;
    let metadata;
    try {
      bytes = encodeRequest(requestType, request).bytes;
      metadata = this._callMetadata(options.metadata);
    } catch (err) {
      return Promise.reject(err);
    }
    const deadline = deadlineIn(options.deadlineMs === undefined
      ? this.deadlineMs : options.deadlineMs);
    const def = this._methods.collision[method];
    return new Promise((resolve, reject) => {
      const call = this.collision.makeUnaryRequest(def.path, asIs,
        def.responseDeserialize, bytes, metadata, { deadline },
        (err, reply) => (err ? reject(withViolations(err)) : resolve(reply)));
      const { signal } = options;
      if (signal) {
        const cancel = () => call.cancel();
        if (signal.aborted) cancel();
        else signal.addEventListener('abort', cancel, { once: true });
      }
    });
  }

  intersect(request, options) {
    return this._unary('Intersect', `${V1}IntersectRequest`,
      request, options);
  }

  closestPoint(request, options) {
    return this._unary('ClosestPoint',
      `${V1}ClosestPointRequest`, request, options);
  }

  intersectColumns(request, options) {
    return this._unary('IntersectColumns',
      `${V1}IntersectColumnsRequest`, request, options);
  }

  closestPointColumns(request, options) {
    return this._unary('ClosestPointColumns',
      `${V1}ClosestPointColumnsRequest`, request, options);
  }

  _stream(service, method, options) {
    const metadata = this._callMetadata(options.metadata);
    const deadline = deadlineIn(options.deadlineMs === undefined
      ? this.streamDeadlineMs : options.deadlineMs);
    const def = this._methods[service][method];
    return () => this[service].makeBidiStreamRequest(def.path, asIs,
      def.responseDeserialize, metadata, { deadline });
  }

  // A QueryStream session (one request per tick). reopen (default true):
  // a stream the server ends at its maximum age is reopened and the
  // requests it had not answered are resent.
  openQueryStream(options = {}) {
    return new QuerySession({
      open: this._stream('collision', 'QueryStream', options),
      requestType: `${V1}QueryStreamRequest`,
      reopen: options.reopen !== false,
    });
  }

  // A raw SceneService stream: one scene, alive as long as the stream (no
  // failover; the first message carries the config).
  openScene(options = {}) {
    return new SceneStream({
      open: this._stream('scene', 'Session', options),
      requestType: `${V1}SceneRequest`,
      reopen: false,
    });
  }

  // A scene that survives its streams (lib/scene_session.js): resolves to
  // the SceneSession once the server accepted `config`. Options:
  // deadlineMs (each stream; default the client's streamDeadlineMs),
  // metadata, maxReopens (8), firstBackoffMs (20), maxBackoffMs (1000),
  // messageTimeoutMs (10000; Infinity: none).
  openSceneSession(config, options = {}) {
    const def = this._methods.scene.Session;
    const ms = options.deadlineMs === undefined
      ? this.streamDeadlineMs : options.deadlineMs;
    let metadata;
    try {
      metadata = this._callMetadata(options.metadata);
    } catch (err) {
      return Promise.reject(err);
    }
    // Each stream its own deadline, counted from its opening.
    const open = () => this.scene.makeBidiStreamRequest(def.path, asIs,
      def.responseDeserialize, metadata.clone(), { deadline: deadlineIn(ms) });
    return openSceneSession(open, config, options);
  }

  // Resolves once the channel is connected and the health service reports
  // `service` SERVING; rejects after timeoutMs.
  async waitUntilServing({
    timeoutMs = 20000, service = 'collision.v1.CollisionService',
  } = {}) {
    const deadline = Date.now() + timeoutMs;
    await new Promise((resolve, reject) => this.health.waitForReady(deadline,
      (err) => (err ? reject(err) : resolve())));
    for (;;) {
      const reply = await new Promise((resolve, reject) => this.health.Check(
        { service }, { deadline },
        (err, r) => (err ? reject(err) : resolve(r))));
      if (reply.status === 'SERVING') return;
      if (Date.now() >= deadline) {
        throw new Error(`${service} is ${reply.status}, not SERVING, after ` +
          `${timeoutMs} ms`);
      }
      await new Promise((r) => { setTimeout(r, 50); });
    }
  }

  // Closes the channel; calls still running fail with CANCELLED or
  // UNAVAILABLE.
  close() {
    this.collision.close();
    this.scene.close();
    this.health.close();
  }
}

// A client of the service at `target` ('host:port', 'dns:///name:port').
// Options: deadlineMs (each unary call, default 5000), streamDeadlineMs
// (each session, default none), metadata (sent on every call), token
// (`authorization: Bearer <token>`), credentials (default insecure), retry
// (default true), channelOptions (grpc-js).
const createClient = (target, options) => new CollisionClient(target, options);

module.exports = { CollisionClient, createClient, RETRY_SERVICE_CONFIG };
