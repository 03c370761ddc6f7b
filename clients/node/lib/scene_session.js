// A scene that survives its stream (the C++ client's SceneSession, and the
// Python package's): the session keeps the world the server acknowledged,
// and when the stream breaks (UNAVAILABLE, ABORTED or CANCELLED, or the
// stream ending without an answer: a drain, the server's maximum stream
// age, a replica killed) it opens a new stream, on whichever replica the
// channel picks, and sends the config, a snapshot of that world at the
// oldest tick of the history window, the acknowledged updates of the window
// (so rewound queries get the answers they would have got), then the
// messages that had no answer, in order. The game sees neither an error nor
// an answer computed against a partial world.
//
// send() hands a tick's message over and returns a promise of its answer at
// once: the game loop goes on, any number of messages are in flight, and
// answers come in order. docs/node.md ("Scenes") has the errors.
'use strict';

const grpc = require('@grpc/grpc-js');
const { checkRequest, encodeChecked } = require('./request');
const { StreamMessageError, violationsOfMetadata } = require('./errors');
const { loadRoot } = require('./protos');

const SCENE_REQUEST = 'collision.v1.SceneRequest';
const SCENE_UPDATE = 'collision.v1.SceneUpdate';
const S = grpc.status;
// The stream failed, not the message: reopen and resend.
const BROKEN = new Set([S.UNAVAILABLE, S.ABORTED, S.CANCELLED]);
// A stream that could not be (re)opened with one of these is tried again
// (RESOURCE_EXHAUSTED: a replica full of scenes; another may have room);
// any other status is the message's (or, opening, the config's).
const RETRYABLE = new Set([S.UNAVAILABLE, S.RESOURCE_EXHAUSTED, S.ABORTED,
  S.CANCELLED]);

// The stream's failure, or the session's own (code is a grpc.status).
class SceneSessionError extends Error {
  constructor(code, details, { metadata, fieldViolations } = {}) {
    const codeName = S[code] || `CODE_${code}`;
    super(`${codeName}: ${details}`);
    this.name = 'SceneSessionError';
    this.code = code;
    this.codeName = codeName;
    this.details = details;
    this.metadata = metadata || new grpc.Metadata();
    this.fieldViolations = fieldViolations || [];
    this.sequence = null;
  }
}

// The server's verdict on a message of a failover's replay (a snapshot, a
// window update): the scene was not restored. No message of the caller's
// was refused, so it fails the oldest one as a stream's failure would.
function refusedReplay(response) {
  const verdict = new StreamMessageError(response);
  return new SceneSessionError(verdict.code, verdict.details,
    { fieldViolations: verdict.fieldViolations });
}

const fromStatus = (status) => new SceneSessionError(status.code,
  status.details, {
    metadata: status.metadata,
    fieldViolations: violationsOfMetadata(status.metadata),
  });

// ---------------------------------------------------------------------------
// Bytes

function varint(value) {
  let v = BigInt(value);
  const out = [];
  while (v >= 0x80n) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
  return out;
}

// A SceneRequest's bytes: `sequence` (field 1), then a body serialized
// without one (protobuf reads fields in any order).
const withSequence = (sequence, body) =>
  Buffer.concat([Buffer.from([0x08, ...varint(sequence)]), body]);

// A SceneRequest carrying only `update` (field 3), from the update's bytes.
const updateOnly = (updateBytes) => Buffer.concat(
  [Buffer.from([0x1a, ...varint(updateBytes.length)]), updateBytes]);

// ---------------------------------------------------------------------------
// The world the server acknowledged

// Per kept kind: the EntityColumns member and its columns, in the order of
// the kept numbers.
const COLUMNS = {
  point: ['circles', ['x', 'y']],
  circle: ['circles', ['x', 'y', 'radius']],
  rect: ['rects', ['min_x', 'min_y', 'max_x', 'max_y']],
  rotatedAngle: ['rotated_rects', ['size_x', 'size_y', 'pivot_x', 'pivot_y',
    'position_x', 'position_y', 'angle']],
  rotatedCosSin: ['rotated_rects', ['size_x', 'size_y', 'pivot_x', 'pivot_y',
    'position_x', 'position_y', 'cos', 'sin']],
  point3: ['spheres', ['x', 'y', 'z']],
  sphere: ['spheres', ['x', 'y', 'z', 'radius']],
  box: ['boxes', ['min_x', 'min_y', 'min_z', 'max_x', 'max_y', 'max_z']],
  capsule3: ['capsules', ['a_x', 'a_y', 'a_z', 'b_x', 'b_y', 'b_z', 'radius']],
  orientedBox: ['oriented_boxes', ['center_x', 'center_y', 'center_z',
    'half_x', 'half_y', 'half_z', 'rotation_w', 'rotation_x', 'rotation_y',
    'rotation_z']],
};

const n = (v) => v || 0;

// An entity's shape as [kind, numbers] (decoded, snake_case names).
function keepShape(s) {
  if (!s) return ['none', []];
  if (s.point) return ['point', [n(s.point.x), n(s.point.y)]];
  if (s.circle) {
    const c = s.circle.center || {};
    return ['circle', [n(c.x), n(c.y), n(s.circle.radius)]];
  }
  if (s.rect) {
    const lo = s.rect.min || {};
    const hi = s.rect.max || {};
    return ['rect', [n(lo.x), n(lo.y), n(hi.x), n(hi.y)]];
  }
  if (s.rotated_rect) {
    const r = s.rotated_rect;
    const size = r.size || {};
    const pivot = r.pivot || {};
    const at = r.position || {};
    const frame = [n(size.x), n(size.y), n(pivot.x), n(pivot.y), n(at.x),
      n(at.y)];
    if (r.angle !== undefined && r.angle !== null) {
      return ['rotatedAngle', [...frame, n(r.angle)]];
    }
    const turn = r.rotation || {};
    return ['rotatedCosSin', [...frame, n(turn.cos), n(turn.sin)]];
  }
  if (s.point3) {
    return ['point3', [n(s.point3.x), n(s.point3.y), n(s.point3.z)]];
  }
  if (s.sphere) {
    const c = s.sphere.center || {};
    return ['sphere', [n(c.x), n(c.y), n(c.z), n(s.sphere.radius)]];
  }
  if (s.box) {
    const lo = s.box.min || {};
    const hi = s.box.max || {};
    return ['box', [n(lo.x), n(lo.y), n(lo.z), n(hi.x), n(hi.y), n(hi.z)]];
  }
  if (s.capsule3) {
    const a = s.capsule3.a || {};
    const b = s.capsule3.b || {};
    return ['capsule3', [n(a.x), n(a.y), n(a.z), n(b.x), n(b.y), n(b.z),
      n(s.capsule3.radius)]];
  }
  if (s.oriented_box) {
    const c = s.oriented_box.center || {};
    const h = s.oriented_box.half_extents || {};
    const q = s.oriented_box.rotation || {};
    return ['orientedBox', [n(c.x), n(c.y), n(c.z), n(h.x), n(h.y), n(h.z),
      n(q.w), n(q.x), n(q.y), n(q.z)]];
  }
  return ['none', []];
}

function kindOfColumns(g) {
  const has = (a) => Array.isArray(a) && a.length > 0;
  if (g.circles) return [has(g.circles.radius) ? 'circle' : 'point', g.circles];
  if (g.spheres) return [has(g.spheres.radius) ? 'sphere' : 'point3', g.spheres];
  if (g.rotated_rects) {
    return [has(g.rotated_rects.angle) ? 'rotatedAngle' : 'rotatedCosSin',
      g.rotated_rects];
  }
  if (g.rects) return ['rect', g.rects];
  if (g.boxes) return ['box', g.boxes];
  if (g.capsules) return ['capsule3', g.capsules];
  if (g.oriented_boxes) return ['orientedBox', g.oriented_boxes];
  return ['none', null];
}

let updateType = null;
const decodeUpdate = (bytes) => {
  updateType = updateType || loadRoot().lookupType(SCENE_UPDATE);
  return updateType.toObject(updateType.decode(bytes),
    { longs: String, arrays: true });
};

class SceneWorld {
  constructor(config) {
    this.config = config;  // checked
    const rate = config.tick_rate || 64;
    // The server's default: one second at the tick rate (scene.proto).
    this.historyTicks = BigInt(Math.max(1, config.history_ticks || rate));
    this.entities = new Map();  // id (decimal) -> [kind, numbers, category]
    this.baseTick = null;       // BigInt
    this.recent = [];           // [{ tick: BigInt, bytes }], oldest first
    this.tick = null;           // BigInt
  }

  acknowledge(kept) {
    if (!kept) return;
    this.tick = kept.tick;
    this.recent.push(kept);
  }

  // Applies the updates that left the history window to the world. The
  // server keeps ticks [latest - (H - 1), latest]; an update at or before
  // the oldest of them only matters as part of the world then.
  fold() {
    if (this.tick === null) return;
    const h = this.historyTicks - 1n;
    const oldest = this.tick >= h ? this.tick - h : 0n;
    let folded = 0;
    while (folded < this.recent.length &&
           this.recent[folded].tick <= oldest) {
      this.apply(decodeUpdate(this.recent[folded].bytes));
      this.baseTick = this.recent[folded].tick;
      folded += 1;
    }
    if (folded) this.recent.splice(0, folded);
  }

  apply(u) {
    const world = this.entities;
    if (u.snapshot) world.clear();
    for (const id of u.removals || []) world.delete(id);
    for (const e of u.upserts || []) {
      const [kind, values] = keepShape(e.shape);
      world.set(e.id || '0', [kind, values,
        e.category === undefined || e.category === null ? null : e.category]);
    }
    for (const g of u.upsert_columns || []) {
      const [kind, cols] = kindOfColumns(g);
      if (!cols) continue;
      const names = COLUMNS[kind][1];
      const categories = g.categories || [];
      (g.ids || []).forEach((id, i) => {
        world.set(id, [kind, names.map((c) => n((cols[c] || [])[i])),
          categories.length ? categories[i] : null]);
      });
    }
  }

  // The world at baseTick as one snapshot update (checked form), in
  // columns.
  snapshot() {
    const groups = new Map();
    for (const [id, [kind, values, category]] of this.entities) {
      if (!COLUMNS[kind]) continue;
      let g = groups.get(kind);
      if (!g) {
        g = { ids: [], values: [], categories: [], anyCategory: false };
        groups.set(kind, g);
      }
      g.ids.push(id);
      g.values.push(values);
      g.categories.push(category === null ? 1 : category);
      g.anyCategory = g.anyCategory || category !== null;
    }
    const upsertColumns = [];
    for (const [kind, g] of groups) {
      const [member, names] = COLUMNS[kind];
      const cols = {};
      names.forEach((name, c) => {
        cols[name] = Float32Array.from(g.values, (v) => v[c]);
      });
      const group = { ids: g.ids, [member]: cols };
      if (g.anyCategory) group.categories = g.categories;
      upsertColumns.push(group);
    }
    return { tick: this.baseTick.toString(), snapshot: true,
      upsert_columns: upsertColumns };
  }

  // What a new stream carries before the unanswered messages (bodies
  // without sequence): the config and a snapshot, then the window's updates.
  replay() {
    const opening = { config: this.config };
    if (this.baseTick !== null) opening.update = this.snapshot();
    return [encodeChecked(SCENE_REQUEST, opening),
      ...this.recent.map((r) => updateOnly(r.bytes))];
  }
}

// ---------------------------------------------------------------------------
// The session

const DEFAULTS = {
  maxReopens: 8, firstBackoffMs: 20, maxBackoffMs: 1000,
  messageTimeoutMs: 10000,
};

function checkOptions(o) {
  const ok = Number.isInteger(o.maxReopens) && o.maxReopens >= 0 &&
    o.firstBackoffMs >= 0 && o.maxBackoffMs >= o.firstBackoffMs &&
    (o.messageTimeoutMs === Infinity || o.messageTimeoutMs > 0);
  if (!ok) {
    throw new RangeError('scene session options: need an integer maxReopens ' +
      '>= 0, 0 <= firstBackoffMs <= maxBackoffMs and messageTimeoutMs > 0 ' +
      '(or Infinity)');
  }
}

// The wait before reopening after `failures` streams in a row ended with no
// message answered: none after the first (a stream ageing out is routine),
// then firstBackoffMs, doubling, up to maxBackoffMs.
const backoffMs = (failures, o) => (failures < 2 ? 0
  : Math.min(o.maxBackoffMs, o.firstBackoffMs * 2 ** (failures - 2)));

class SceneSession {
  // Use client.openSceneSession(config, options).
  constructor(openCall, config, options = {}) {
    this._options = { ...DEFAULTS };
    for (const [k, v] of Object.entries(options)) {
      if (v !== undefined && k in DEFAULTS) this._options[k] = v;
    }
    checkOptions(this._options);
    this._openCall = openCall;
    this._world = new SceneWorld(checkRequest('collision.v1.SceneConfig',
      config));
    this._pending = [];   // handed over, unanswered: oldest first
    this._written = 0;    // how many of them are on the current stream
    this._replay = [];    // sequences of the replay awaiting answers
    this._sequence = 0n;
    this._call = null;
    this._failures = 0;
    this._progress = false;
    this._entities = 0;
    this._reopens = 0;
    this._closing = false;
    this._retryTimer = null;
    this._messageTimer = null;
    this._opened = false;
    this._finished = new Promise((resolve) => { this._finish = resolve; });
    this._open = new Promise((resolve, reject) => {
      this._openResolve = resolve;
      this._openReject = reject;
    });
    this._startStream();
  }

  // Resolves once the server accepted the config (rejects when refused, or
  // when the service stayed unavailable or full for maxReopens attempts).
  opened() {
    return this._open;
  }

  /** Streams reopened so far. */
  get reopens() { return this._reopens; }

  /** Entities in the scene, as the server last acknowledged. */
  get entities() { return this._entities; }

  /** The tick of the last acknowledged update (a decimal string), or null. */
  get tick() { return this._world.tick === null ? null
    : this._world.tick.toString(); }

  /** Updates kept for the history window (resent after a reopen). */
  get keptUpdates() { return this._world.recent.length; }

  /** Messages handed over and not yet answered. */
  get inFlight() { return this._pending.length; }

  // Hands one tick's message over; resolves to its SceneResponse. Rejects
  // with a RequestError (refused before sending), a StreamMessageError (the
  // server's verdict) or a SceneSessionError (the stream's).
  send(request) {
    let message;
    try {
      // Encoded now (the caller may reuse its arrays): the update alone,
      // kept once acknowledged, and the body around it without sequence
      // and config, which are the session's.
      const checked = checkRequest(SCENE_REQUEST, request);
      const queries = encodeChecked(SCENE_REQUEST,
        { queries: checked.queries });
      let kept = null;
      let body = queries;
      if (checked.update) {
        kept = {
          tick: BigInt(checked.update.tick || 0),
          bytes: encodeChecked(SCENE_UPDATE, checked.update),
        };
        body = Buffer.concat([updateOnly(kept.bytes), queries]);
      }
      message = { body, kept, sequence: null };
    } catch (err) {
      return Promise.reject(err);
    }
    if (this._closing) {
      return Promise.reject(new SceneSessionError(S.FAILED_PRECONDITION,
        'the scene session is closed'));
    }
    const answer = new Promise((resolve, reject) => {
      message.resolve = resolve;
      message.reject = reject;
    });
    this._world.fold();  // what left the window, if not folded yet
    this._pending.push(message);
    // On the stream (after its replay, if any: answered first), or on the
    // next one.
    if (this._call) this._write(message);
    else if (!this._retryTimer) this._startStream();
    return answer;
  }

  // Waits for the answers of the messages in flight, half-closes and
  // resolves once the stream ended. Never rejects.
  close() {
    if (!this._closing) {
      this._closing = true;
      this._maybeEnd();
    }
    return this._finished;
  }

  // Ends the stream now; the messages in flight reject with CANCELLED.
  cancel() {
    this._closing = true;
    this._clearTimers();
    const call = this._call;
    this._call = null;
    if (call) call.cancel();
    const error = new SceneSessionError(S.CANCELLED,
      'the scene session was cancelled');
    this._failAll(error);
    this._settleOpen(error);
    this._finish();
    return this._finished;
  }

  // ---- Streams --------------------------------------------------------------

  _clearTimers() {
    clearTimeout(this._retryTimer);
    clearTimeout(this._messageTimer);
    this._retryTimer = null;
    this._messageTimer = null;
  }

  _nextSequence() {
    this._sequence += 1n;
    return this._sequence;
  }

  _write(message) {
    message.sequence = this._nextSequence();
    message.sentAt = performance.now();
    this._written += 1;
    this._call.write(withSequence(message.sequence, message.body));
    if (this._written === 1 && this._replay.length === 0) this._armTimer();
  }

  _startStream() {
    this._retryTimer = null;
    this._world.fold();
    let call;
    let replay;
    try {
      replay = this._world.replay();
      call = this._openCall();
    } catch (err) {  // grpc-js's own: the client is closed
      this._progress = false;
      this._ended(new SceneSessionError(S.CANCELLED,
        `the scene stream could not be opened (is the client closed?): ${
          err.message}`));
      return;
    }
    this._call = call;
    this._progress = false;
    this._written = 0;
    this._replay = [];
    call.on('data', (response) => {
      if (call === this._call) this._take(response);
    });
    call.on('error', () => {});  // the status follows, with the same
    call.on('status', (status) => {
      if (call !== this._call) return;
      this._call = null;
      if (status.code === S.OK && this._closing && !this._pending.length) {
        this._clearTimers();
        this._finish();
        return;
      }
      this._ended(status.code === S.OK
        ? new SceneSessionError(S.UNAVAILABLE,
          'the scene stream ended without an answer')
        : fromStatus(status));
    });
    for (const body of replay) {
      const sequence = this._nextSequence();
      this._replay.push(sequence);
      call.write(withSequence(sequence, body));
    }
    this._replayStartedAt = performance.now();
    this._armTimer();
    // Then the messages that had no answer, in order (answered after the
    // replay; a failed replay discards the stream and what it answered).
    for (const message of this._pending) this._write(message);
  }

  // An answer: to the replay, or to the oldest message in flight.
  _take(response) {
    const seq = response.sequence;
    if (this._replay.length) {
      // Left in _replay when it ends the stream: the scene was not
      // restored, whichever replay message it was (the last one included),
      // and _ended judges it by what retrying may mend.
      const expected = this._replay[0];
      if (seq !== expected.toString()) {
        this._dropStream(this._outOfStep(seq, expected));
      } else if (response.error) {
        this._dropStream(this._opened ? refusedReplay(response)
          : new StreamMessageError(response));  // the config: the caller's
      } else {
        this._replay.shift();
        if (!this._replay.length) {  // the scene is whole again
          if (this._opened) this._reopens += 1;
          else this._settleOpen(null);
          this._armTimer();
          this._maybeEnd();
        }
      }
      return;
    }
    const message = this._pending[0];
    if (!this._written || seq !== message.sequence.toString()) {
      this._dropStream(this._outOfStep(seq,
        message && this._written ? message.sequence : null));
      return;
    }
    this._pending.shift();
    this._written -= 1;
    this._progress = true;
    if (response.error) {  // the server's verdict: nothing changed
      message.reject(new StreamMessageError(response));
    } else {
      this._world.acknowledge(message.kept);
      this._entities = response.entities;
      message.resolve(response);
      // Folding what left the window waits until the game had its answer.
      if (message.kept) setImmediate(() => this._world.fold());
    }
    this._armTimer();
    this._maybeEnd();
  }

  _outOfStep(got, expected) {
    return new SceneSessionError(S.INTERNAL, expected === null
      ? `the server answered message ${got}, which was not sent`
      : `the server answered message ${got} when ${expected} was next`);
  }

  // Ends the current stream with `error` (ours: a bad answer, a timeout).
  _dropStream(error) {
    const call = this._call;
    this._call = null;
    if (call) call.cancel();
    this._ended(error);
  }

  _failHead(error) {
    const message = this._pending.shift();
    this._written = Math.max(0, this._written - 1);
    this._progress = true;
    message.reject(error);
  }

  _failAll(error) {
    for (const message of this._pending.splice(0)) message.reject(error);
    this._written = 0;
  }

  _settleOpen(error) {
    if (this._opened) return;
    this._opened = true;
    if (error) {
      this._open.catch(() => {});  // rejected: open() may be gone
      this._openReject(error);
    } else {
      this._openResolve();
    }
  }

  // The stream ended with `error`. A status that is not a transport break
  // is the message's in hand (the server ended the stream over it: a limit,
  // a deadline), as is any status that is not retryable while the scene
  // was being restored; the others go again on a new stream.
  _ended(error) {
    clearTimeout(this._messageTimer);
    this._messageTimer = null;
    const inReplay = this._replay.length > 0;
    this._replay = [];
    if (!this._opened) {
      if (!RETRYABLE.has(error.code) ||
          this._failures + 1 > this._options.maxReopens) {
        this._settleOpen(error);
        this._finish();
        return;
      }
    } else if (this._pending.length && (inReplay
      ? !RETRYABLE.has(error.code)
      : this._written > 0 && !BROKEN.has(error.code))) {
      this._failHead(error);
    }
    this._written = 0;
    this._failures = this._progress ? 0 : this._failures + 1;
    this._last = error;
    if (this._opened && this._failures > this._options.maxReopens) {
      this._failAll(new SceneSessionError(S.UNAVAILABLE,
        `the scene could not be reopened after ${this._options.maxReopens} ` +
        `attempts; last error: ${error.message}`));
      this._failures = 0;
    }
    if (this._opened && !this._pending.length) {
      if (this._closing) this._finish();
      return;  // idle: the next send reopens the scene
    }
    this._retryTimer = setTimeout(() => this._startStream(),
      backoffMs(this._failures, this._options));
  }

  // Half-closes once closing with nothing in flight.
  _maybeEnd() {
    if (!this._closing || this._pending.length) return;
    if (this._call) {
      if (!this._replay.length) this._call.end();
    } else if (!this._retryTimer) {
      this._clearTimers();
      this._finish();
    }
  }

  // The timer of the oldest unanswered message on the stream (or of the
  // replay): past messageTimeoutMs it fails with DEADLINE_EXCEEDED and the
  // stream is dropped; the others go again on a new one.
  _armTimer() {
    clearTimeout(this._messageTimer);
    this._messageTimer = null;
    const timeout = this._options.messageTimeoutMs;
    if (!this._call || timeout === Infinity) return;
    let since;
    if (this._replay.length) since = this._replayStartedAt;
    else if (this._written) since = this._pending[0].sentAt;
    else return;
    const call = this._call;
    this._messageTimer = setTimeout(() => {
      if (call !== this._call) return;
      this._dropStream(new SceneSessionError(S.DEADLINE_EXCEEDED,
        `no answer within the session's messageTimeoutMs (${timeout} ms); ` +
        'the scene is reopened for the messages after it'));
    }, Math.max(0, since + timeout - performance.now()));
  }
}

// A session whose streams `openCall()` opens: resolves once the config was
// accepted (CollisionClient.openSceneSession).
async function openSceneSession(openCall, config, options) {
  const session = new SceneSession(openCall, config, options);
  await session.opened();
  return session;
}

module.exports = { SceneSession, SceneSessionError, openSceneSession };
