// Shared by the scene session tests: a deterministic game (its messages
// tick after tick), replicas that tell whether they host a scene, a driver
// that keeps several messages in flight, and the answers of an unbroken raw
// stream to compare a session's with.
'use strict';

const assert = require('node:assert');
const http = require('node:http');
const { startServer } = require('./helpers');

const HISTORY = 16;  // ticks of history of the test scenes
const TEST_LIMIT_MS = 60000;  // what any one scenario may take

const config = (dimension = '2D') => ({
  dimension, boundary: 'INCLUSIVE', historyTicks: HISTORY,
});

// mulberry32: a small seeded generator, so that a game is the same on
// every run.
function rng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    random: next,
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: (xs) => xs[Math.floor(next() * xs.length)],
  };
}

// "full": entities of every kind of the dimension are born, move, change
// kind and die; column groups (circles or spheres with categories, points)
// move; ticks are sometimes skipped; every 37th tick is a snapshot.
// "upserts": only upserts of ids 1..40 and the columns, so that any message
// may be refused without making a later one invalid. Queries: overlaps with
// relation and separation, first-hit and all-hits raycasts with a mask and
// an exclusion, nearest, sweeps, and rewound ones (5 ticks back, at a
// fraction; past the window, clamped).
class Game {
  constructor({ dimension = '2D', mode = 'full', seed = 7, cc }) {
    this.cc = cc;
    this.three = dimension === '3D';
    this.mode = mode;
    this.r = rng(seed);
    this.tick = 0;
    this.firstTick = null;
    this.nextId = 1;
    this.alive = new Map();  // id -> entity (plain object)
    this.columns = Array.from({ length: 12 }, (_, i) => 100001 + i);
    this.columnPoints = Array.from({ length: 4 }, (_, i) => 200001 + i);
  }

  coord() { return this.r.int(-30, 30); }

  shape() {
    const { cc, r } = this;
    const [x, y, z] = [this.coord(), this.coord(), this.coord()];
    const size = r.int(0, 4);
    if (this.three) {
      const kind = r.pick(['point3', 'sphere', 'box', 'capsule3',
        'orientedBox']);
      if (kind === 'point3') return cc.point3(x, y, z);
      if (kind === 'sphere') return cc.sphere(x, y, z, size);
      if (kind === 'capsule3') {
        return cc.capsule3(x, y, z, x + size, y + 1, z, 0.5);
      }
      if (kind === 'orientedBox') {
        return cc.orientedBoxAxisAngle(x, y, z, 1, size / 2, 0.5, 0, 0, 1,
          0.4);
      }
      return cc.boxFromMinMax(x, y, z, x + size, y + 1, z + 2);
    }
    const kind = r.pick(['point', 'circle', 'rect', 'rotatedAngle',
      'rotatedCosSin']);
    if (kind === 'point') return cc.point(x, y);
    if (kind === 'circle') return cc.circle(x, y, size);
    if (kind === 'rect') return cc.rectFromMinMax(x, y, x + size, y + 2);
    if (kind === 'rotatedAngle') {
      return cc.rotatedRectFromPivot(size, 2, 1, 1, x, y,
        r.pick([0.3, -1.1, 2.0]));
    }
    return cc.rotatedRectFromPivotCosSin(size, 2, 0, 0, x, y, 0, 1);
  }

  entity(id) {
    const e = { id, shape: this.shape() };
    if (this.r.random() < 0.3) e.category = this.r.pick([0, 2, 3]);
    return e;
  }

  moved(e) {
    const out = JSON.parse(JSON.stringify(e));
    const dx = this.r.pick([-1, 0, 1]);
    const dy = this.r.pick([-1, 1]);
    const s = out.shape;
    if (s.point) s.point.x += dx;
    else if (s.circle) {
      s.circle.center.x += dx;
      s.circle.center.y += dy;
    } else if (s.rect) {
      s.rect.min.y += dy;
      s.rect.max.y += dy;
    } else if (s.rotatedRect) {
      s.rotatedRect.position.x += dx;
      if (s.rotatedRect.angle !== undefined) s.rotatedRect.angle += 0.25;
    } else if (s.point3) s.point3.z += dy;
    else if (s.sphere) s.sphere.center.x += dx;
    else if (s.box) {
      s.box.min.x += dx;
      s.box.max.x += dx;
    } else if (s.capsule3) {
      s.capsule3.a.x += dx;
      s.capsule3.b.y += dy;
    } else if (s.orientedBox) s.orientedBox.center.x += dx;
    return out;
  }

  columnGroups(update) {
    const t = this.tick % 20;
    const n = this.columns.length;
    const xs = Float32Array.from({ length: n }, (_, i) => i - 6 + t * 0.5);
    const ys = Array.from({ length: n }, (_, i) => (i % 3) * 4 - 4);
    const groups = [];
    if (this.three) {
      groups.push({ ids: this.columns, spheres: { x: xs, y: ys,
        z: new Array(n).fill(1), radius: new Array(n).fill(0.5) } });
      // Hitboxes as columns: capsule limbs and a turning box.
      groups.push({ ids: [300001, 300002], capsules: {
        aX: [t, -t], aY: [0, 2], aZ: [0, 0], bX: [t + 2, -t], bY: [0, 4],
        bZ: [1, 0], radius: [0.5, 0.25] } });
      const turn = 0.1 * t;
      groups.push({ ids: [300003], orientedBoxes: {
        centerX: [t - 5], centerY: [3], centerZ: [1], halfX: [1], halfY: [2],
        halfZ: [0.5], rotationW: [Math.cos(turn / 2)], rotationX: [0],
        rotationY: [0], rotationZ: [Math.sin(turn / 2)] } });
    } else {
      groups.push({ ids: this.columns, categories: this.columns.map(
        (_, i) => (i % 2 ? 2 : 1)),
      circles: { x: xs, y: ys, radius: new Array(n).fill(0.5) } });
    }
    if (this.tick % 5 === 1 || update.snapshot) {
      const m = this.columnPoints.length;
      const ps = { x: new Array(m).fill(t), y: Array.from({ length: m },
        (_, i) => i) };
      if (this.three) {
        groups.push({ ids: this.columnPoints,
          spheres: { ...ps, z: new Array(m).fill(0) } });
      } else {
        groups.push({ ids: this.columnPoints, circles: ps });
      }
    }
    update.upsertColumns = groups;
  }

  update() {
    const { r } = this;
    const u = { tick: this.tick, upserts: [], removals: [] };
    if (this.mode === 'upserts') {
      const ids = Array.from({ length: 40 }, (_, i) => i + 1);
      for (let i = 0; i < 8; i += 1) {
        const [id] = ids.splice(r.int(0, ids.length - 1), 1);
        u.upserts.push(this.entity(id));
      }
      this.columnGroups(u);
      return u;
    }
    if (this.tick % 37 === 0) {
      u.snapshot = true;
      for (const id of [...this.alive.keys()].sort((a, b) => a - b)) {
        const e = this.moved(this.alive.get(id));
        u.upserts.push(e);
        this.alive.set(id, e);
      }
    } else {
      const ids = [...this.alive.keys()].sort((a, b) => a - b);
      for (let i = ids.length - 1; i > 0; i -= 1) {
        const j = r.int(0, i);
        [ids[i], ids[j]] = [ids[j], ids[i]];
      }
      if (ids.length > 30) {
        for (const id of ids.slice(0, 2)) {
          u.removals.push(id);
          this.alive.delete(id);
        }
      }
      for (const id of ids.slice(2, 8)) {
        const e = r.random() < 0.2 ? this.entity(id)
          : this.moved(this.alive.get(id));
        u.upserts.push(e);
        this.alive.set(id, e);
      }
      for (let k = r.int(1, 3); k > 0; k -= 1) {
        const e = this.entity(this.nextId);
        this.nextId += 1;
        u.upserts.push(e);
        this.alive.set(e.id, e);
      }
    }
    this.columnGroups(u);
    return u;
  }

  ball(radius) {
    const { cc } = this;
    return this.three
      ? cc.sphere(this.coord(), this.coord(), this.coord(), radius)
      : cc.circle(this.coord(), this.coord(), radius);
  }

  queries() {
    const { r } = this;
    const origin = { x: this.coord(), y: this.coord(),
      z: this.three ? this.coord() : 0 };
    const direction = { x: r.pick([1, 0.6, -1]), y: r.pick([0, 0.8]),
      z: this.three ? r.pick([0, 1]) : 0 };
    const qs = [
      { overlap: { shape: this.ball(8), includeRelation: true,
        includeSeparation: true } },
      { raycast: { origin, direction, maxDistance: 80 } },
      { raycast: { origin, direction, maxDistance: 80, allHits: true },
        mask: 2, excludeId: 3 },
      { nearest: { shape: this.ball(r.random() < 0.5 ? 0 : 1), k: 3 } },
      { sweep: { origin, direction, maxDistance: 60, radius: 0.5,
        allHits: true } },
    ];
    if (this.firstTick !== null && this.tick > this.firstTick + 6) {
      const at = { tick: this.tick - 5, fraction: 0.25 };
      qs.push({ overlap: { shape: this.ball(10) }, at });
      qs.push({ raycast: { origin, direction, maxDistance: 80,
        allHits: true }, at });
    }
    if (this.firstTick !== null && this.tick > this.firstTick + 3 * HISTORY) {
      qs.push({ overlap: { shape: this.ball(10) },
        at: { tick: this.tick - 2 * HISTORY } });
    }
    return qs;
  }

  next() {
    this.tick += this.r.random() < 0.1 ? 2 : 1;
    if (this.firstTick === null) this.firstTick = this.tick;
    return { update: this.update(), queries: this.queries() };
  }
}

// A collision_server that says how many scenes it hosts (its /metrics).
async function startReplica(flags = []) {
  const server = await startServer(['--metrics_address=127.0.0.1:0',
    ...flags]);
  // The log line naming the metrics port is written as the server starts
  // listening; wait for it (bounded) before reading it.
  const deadline = Date.now() + 20000;
  let found = null;
  while (!(found = /metrics=127\.0\.0\.1:(\d+)/.exec(server.log()))) {
    assert.ok(Date.now() < deadline, `no metrics port in:\n${server.log()}`);
    await new Promise((r) => { setTimeout(r, 10); });
  }
  const port = Number(found[1]);
  return {
    ...server,
    scenesOpen: () => new Promise((resolve) => {
      if (!server.alive()) {
        resolve(0);
        return;
      }
      http.get({ host: '127.0.0.1', port, path: '/metrics', timeout: 5000 },
        (res) => {
          let body = '';
          res.on('data', (d) => { body += d; });
          res.on('end', () => {
            const m = /^collision_scenes_open (\S+)$/m.exec(body);
            resolve(m ? Number(m[1]) : 0);
          });
        }).on('error', () => resolve(0));
    }),
  };
}

// Ticks `game` into `scene` with up to `window` messages in flight (each
// tick's answer collected `window` ticks later) until `until()`, then
// collects the rest; `onTick(n)` runs after each send. Records every
// request and its outcome (a response or the error it rejected with).
async function drive(scene, game, record, { until, window = 4, paceMs = 4,
  onTick = null }) {
  const end = Date.now() + TEST_LIMIT_MS;
  const inFlight = [];
  const collect = async () => {
    const [index, promise] = inFlight.shift();
    try {
      record.outcomes[index] = await promise;
    } catch (err) {
      record.outcomes[index] = err;
    }
  };
  let n = 0;
  while (!until()) {
    assert.ok(Date.now() < end, `still ticking after ${TEST_LIMIT_MS} ms ` +
      `(${n} ticks, ${scene.reopens} reopens)`);
    const request = game.next();
    record.sent.push(request);
    record.outcomes.push(null);
    inFlight.push([record.sent.length - 1, scene.send(request)]);
    n += 1;
    if (onTick) await onTick(n);
    while (inFlight.length >= window) await collect();
    if (paceMs) await new Promise((r) => { setTimeout(r, paceMs); });
  }
  while (inFlight.length) await collect();
}

const isAnswer = (o) => o !== null && typeof o === 'object' &&
  !(o instanceof Error) && Array.isArray(o.results);

// The answers of one raw Session stream (no session code in between) on a
// server of its own to `requests`, sent one at a time: each a response, or
// the StreamMessageError of a rejected message.
async function unbrokenAnswers(cc, flags, sceneConfig, requests) {
  const server = await startServer(flags);
  const client = cc.createClient(server.address);
  try {
    await client.waitUntilServing();
    const stream = client.openScene({ deadlineMs: 120000 });
    await stream.send({ sequence: 1, config: sceneConfig });
    const out = [];
    for (const [i, request] of requests.entries()) {
      try {
        out.push(await stream.send({ ...request, sequence: i + 2 }));
      } catch (err) {
        assert.ok(err instanceof cc.StreamMessageError, err.stack);
        out.push(err);
      }
    }
    await stream.close();
    return out;
  } finally {
    client.close();
    await server.stop();
  }
}

// Every answer equals the unbroken stream's, every verdict has its code and
// message; messages failed by their stream's end (a SceneSessionError) are
// left out of it. Returns how many rewound queries were compared, and how
// many of them clamped.
async function checkAgainstUnbroken(cc, record, flags, sceneConfig) {
  const kept = record.sent.map((request, i) => [request, record.outcomes[i]])
    .filter(([, o]) => !(o instanceof cc.SceneSessionError));
  const want = await unbrokenAnswers(cc, flags, sceneConfig,
    kept.map(([request]) => request));
  let rewound = 0;
  let clamped = 0;
  kept.forEach(([request, got], i) => {
    const where = `message ${i} (tick ${request.update.tick})`;
    const expected = want[i];
    if (expected instanceof Error) {
      assert.ok(got instanceof cc.StreamMessageError, `${where}: ${got}`);
      assert.strictEqual(got.code, expected.code, where);
      assert.strictEqual(got.details, expected.details, where);
      return;
    }
    assert.ok(isAnswer(got), `${where}: ${got && got.stack}`);
    assert.deepStrictEqual([got.tick, got.entities],
      [expected.tick, expected.entities], where);
    assert.strictEqual(got.results.length, expected.results.length, where);
    got.results.forEach((result, q) => {
      assert.deepStrictEqual(result, expected.results[q],
        `${where}, query ${q}`);
      if (request.queries[q].at) {
        rewound += 1;
        clamped += expected.results[q].clamped ? 1 : 0;
      }
    });
  });
  return { rewound, clamped };
}

module.exports = {
  HISTORY, TEST_LIMIT_MS, config, Game, startReplica, drive, isAnswer,
  checkAgainstUnbroken,
};
