// The package's helpers without a server: shape and column builders
// (float32 arithmetic, every convention), bitsets, request checking (enum
// names, field names, oneofs, uint64), and the decoding of error details.
// Expected values are computed by hand.
// Run: node --test test/unit.test.js
'use strict';

const test = require('node:test');
const assert = require('node:assert');
const { loadPackage } = require('./helpers');

const cc = loadPackage();

const check = (type, request) => cc.checkRequest(`collision.v1.${type}`,
  request);
const violations = (fn) => {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof cc.RequestError, err.stack);
    assert.strictEqual(err.code, cc.status.INVALID_ARGUMENT);
    return err.fieldViolations;
  }
  assert.fail('no RequestError');
  return null;
};

test('shape builders', async (t) => {
  await t.test('corner + size is min (x, y), max (x + w, y + h)', () => {
    assert.deepStrictEqual(cc.rectFromCornerSize(10, 20, 10, 10),
      { rect: { min: { x: 10, y: 20 }, max: { x: 20, y: 30 } } });
  });
  await t.test('corner + size adds in float32', () => {
    // 2^24 + 1 is not a float32: the sum rounds to 2^24 (even).
    assert.strictEqual(cc.rectFromCornerSize(16777216, 0, 1, 1).rect.max.x,
      16777216);
    // float32(0.1) + float32(0.3), rounded to float32.
    assert.strictEqual(cc.rectFromCornerSize(0.1, 0, 0.3, 0).rect.max.x,
      0.4000000059604645);
  });
  await t.test('centre + half-extents is c - h .. c + h', () => {
    assert.deepStrictEqual(cc.rectFromCenterHalfExtents(5, 5, 2, 3),
      { rect: { min: { x: 3, y: 2 }, max: { x: 7, y: 8 } } });
    assert.deepStrictEqual(cc.boxFromCenterHalfExtents(1, 2, 3, 1, 1, 2), {
      box: { min: { x: 0, y: 1, z: 1 }, max: { x: 2, y: 3, z: 5 } },
    });
  });
  await t.test('pivot rotated rects carry angle or (cos, sin)', () => {
    assert.deepStrictEqual(cc.rotatedRectFromPivot(4, 2, 1, 1, 10, 20, 0.5), {
      rotatedRect: { size: { x: 4, y: 2 }, pivot: { x: 1, y: 1 },
        position: { x: 10, y: 20 }, angle: 0.5 },
    });
    assert.deepStrictEqual(
      cc.rotatedRectFromPivotCosSin(4, 2, 0, 0, 0, 0, 0, 1).rotatedRect
        .rotation, { cos: 0, sin: 1 });
  });
  await t.test('rotation about the centre: pivot = size / 2, position = the '
    + 'centre, and seed 004 passes -theta', () => {
    const theta = cc.degreesToRadians(30);
    assert.deepStrictEqual(cc.rotatedRectAboutCenter(2, 4, 6, 3, -theta), {
      rotatedRect: { size: { x: 6, y: 3 }, pivot: { x: 3, y: 1.5 },
        position: { x: 5, y: 5.5 }, angle: -theta },
    });
  });
  await t.test('degrees to radians is rounded to float32', () => {
    assert.strictEqual(cc.degreesToRadians(180), 3.1415927410125732);
    assert.strictEqual(cc.degreesToRadians(90), 1.5707963705062866);
    assert.strictEqual(cc.degreesToRadians(0), 0);
  });
  await t.test('2D and 3D primitives', () => {
    assert.deepStrictEqual(cc.point(1, 2), { point: { x: 1, y: 2 } });
    assert.deepStrictEqual(cc.circle(1, 2, 3),
      { circle: { center: { x: 1, y: 2 }, radius: 3 } });
    assert.deepStrictEqual(cc.point3(1, 2, 3),
      { point3: { x: 1, y: 2, z: 3 } });
    assert.deepStrictEqual(cc.sphere(1, 2, 3, 4),
      { sphere: { center: { x: 1, y: 2, z: 3 }, radius: 4 } });
    assert.deepStrictEqual(cc.boxFromMinMax(0, 1, 2, 3, 4, 5),
      { box: { min: { x: 0, y: 1, z: 2 }, max: { x: 3, y: 4, z: 5 } } });
  });
  await t.test('a capsule3 is a segment and a radius', () => {
    assert.deepStrictEqual(cc.capsule3(1, 2, 3, 4, 5, 6, 0.5), {
      capsule3: { a: { x: 1, y: 2, z: 3 }, b: { x: 4, y: 5, z: 6 },
        radius: 0.5 },
    });
  });
  await t.test('an oriented box sends its quaternion as given', () => {
    assert.deepStrictEqual(cc.orientedBox(1, 2, 3, 4, 5, 6, 0.5, 0.5, 0.5,
      0.5), {
      orientedBox: { center: { x: 1, y: 2, z: 3 },
        halfExtents: { x: 4, y: 5, z: 6 },
        rotation: { w: 0.5, x: 0.5, y: 0.5, z: 0.5 } },
    });
    // Never normalised here: the server refuses it, naming the field.
    assert.deepStrictEqual(cc.orientedBox(0, 0, 0, 1, 1, 1, 2, 0, 0, 0)
      .orientedBox.rotation, { w: 2, x: 0, y: 0, z: 0 });
    // What is encoded: the .proto's field names.
    const sent = check('IntersectRequest', cc.intersectRequest([[
      cc.capsule3(0, 0, 0, 1, 0, 0, 1),
      cc.orientedBox(0, 0, 0, 1, 1, 1, 1, 0, 0, 0)]]));
    assert.deepStrictEqual(sent.pairs[0].b.oriented_box.half_extents,
      { x: 1, y: 1, z: 1 });
    assert.strictEqual(sent.pairs[0].a.capsule3.radius, 1);
  });
  // float32(cos(pi/4)) = float32(sin(pi/4)), and that of the half angle of
  // float32(pi/2): a quarter turn's quaternion.
  const sqrtHalf = 0.7071067690849304;
  const turn = (...args) => cc.orientedBoxAxisAngle(...args).orientedBox
    .rotation;
  await t.test('axis-angle: a quarter turn about z', () => {
    assert.deepStrictEqual(cc.orientedBoxAxisAngle(1, 2, 3, 4, 5, 6, 0, 0, 1,
      Math.PI / 2), {
      orientedBox: { center: { x: 1, y: 2, z: 3 },
        halfExtents: { x: 4, y: 5, z: 6 },
        rotation: { w: sqrtHalf, x: 0, y: 0, z: sqrtHalf } },
    });
    assert.deepStrictEqual(turn(0, 0, 0, 1, 1, 1, 0, 0, 1,
      cc.degreesToRadians(90)), { w: sqrtHalf, x: 0, y: 0, z: sqrtHalf });
  });
  await t.test('axis-angle normalises the axis', () => {
    assert.deepStrictEqual(turn(0, 0, 0, 1, 1, 1, 0, 0, 5, Math.PI / 2),
      { w: sqrtHalf, x: 0, y: 0, z: sqrtHalf });
    // A half turn about (1, 2, 2) (length 3): (x, y, z) = (1, 2, 2) / 3;
    // w = cos(float32(pi) / 2) is not 0, as float32(pi) > pi.
    const q = turn(0, 0, 0, 1, 1, 1, 1, 2, 2, Math.PI);
    assert.deepStrictEqual(q, { w: -4.371138828673793e-8,
      x: 0.3333333432674408, y: 0.6666666865348816, z: 0.6666666865348816 });
    assert.ok(Math.abs(q.w ** 2 + q.x ** 2 + q.y ** 2 + q.z ** 2 - 1) < 1e-6);
    // A negative axis turns the other way: the conjugate.
    assert.deepStrictEqual(turn(0, 0, 0, 1, 1, 1, 0, 0, -2, Math.PI / 2),
      { w: sqrtHalf, x: 0, y: 0, z: -sqrtHalf });
    // float32(1e-30)^2 underflows float32, not double: still an axis.
    assert.deepStrictEqual(turn(0, 0, 0, 1, 1, 1, 0, 1e-30, 0, 1),
      { w: 0.8775825500488281, x: 0, y: 0.4794255495071411, z: 0 });
  });
  await t.test('axis-angle without an axis is the identity', () => {
    for (const axis of [[0, 0, 0], [Infinity, 0, 0], [0, NaN, 0]]) {
      assert.deepStrictEqual(turn(0, 0, 0, 1, 1, 1, ...axis, 1),
        { w: 1, x: 0, y: 0, z: 0 }, `axis ${axis}`);
    }
  });
  await t.test('request builders default to the inclusive rule', () => {
    const a = cc.circle(0, 0, 1);
    const b = cc.point(1, 0);
    assert.deepStrictEqual(cc.intersectRequest([[a, b]]), {
      pairs: [{ a, b }], boundary: 'BOUNDARY_RULE_INCLUSIVE',
      includeRelation: false, includeSeparation: false,
    });
    assert.deepStrictEqual(cc.intersectRequest([{ a, b }],
      { boundary: 'EXCLUSIVE', relation: true, separation: true }), {
      pairs: [{ a, b }], boundary: 'EXCLUSIVE', includeRelation: true,
      includeSeparation: true,
    });
    assert.deepStrictEqual(cc.closestPointRequest([[b, a]]), {
      queries: [{ query: b, target: a }], boundary: 'BOUNDARY_RULE_INCLUSIVE',
    });
  });
});

test('column builders', async (t) => {
  await t.test('groups are named by pair kind and take typed arrays', () => {
    const a = { x: new Float32Array([1, 2]), y: [3, 4] };
    const b = { minX: [0, 0], minY: [0, 0], maxX: [1, 1], maxY: [1, 1] };
    assert.deepStrictEqual(cc.columns.circleRect(a, b),
      { circleRect: { a, b } });
    const request = cc.intersectColumnsRequest(cc.columns.circleRect(a, b),
      { relation: true });
    assert.strictEqual(request.boundary, 'BOUNDARY_RULE_INCLUSIVE');
    assert.strictEqual(request.groups.length, 1);
    // What is encoded: the .proto's names; float columns as given.
    const sent = check('IntersectColumnsRequest', request);
    assert.strictEqual(sent.groups[0].circle_rect.a.x, a.x);
    assert.deepStrictEqual(sent.groups[0].circle_rect.a.y, [3, 4]);
    assert.strictEqual(sent.include_relation, true);
  });
  await t.test('closest-point groups pick queries2 or queries3', () => {
    const q2 = { x: [0], y: [0] };
    const q3 = { x: [0], y: [0], z: [0] };
    const box = { minX: [0], minY: [0], minZ: [0], maxX: [1], maxY: [1],
      maxZ: [1] };
    assert.deepStrictEqual(Object.keys(cc.columns.closestToCircles(q2,
      { x: [1], y: [1], radius: [1] })), ['queries2', 'circles']);
    assert.deepStrictEqual(Object.keys(cc.columns.closestToBoxes(q3, box)),
      ['queries3', 'boxes']);
  });
  await t.test('columns of different lengths are refused, naming both', () => {
    assert.throws(() => cc.columns.circleCircle({ x: [1, 2], y: [1, 2] },
      { x: [1], y: [1, 2] }), /b\.x has 1 values, a\.x has 2/);
    assert.throws(() => cc.columns.circleRotatedRect({ x: [1], y: [1] },
      { sizeX: [1], sizeY: [1], pivotX: [0], pivotY: [0], positionX: [0],
        positionY: [0] }), /needs either angle or both cos and sin/);
  });
  await t.test('convention columns are computed in float32', () => {
    const rects = cc.columns.rectsFromCornerSize({ x: [10, 16777216],
      y: [20, 0], width: [10, 1], height: [10, 1] });
    assert.deepStrictEqual(Array.from(rects.maxX), [20, 16777216]);
    assert.deepStrictEqual(Array.from(rects.maxY), [30, 1]);
    const centred = cc.columns.rectsFromCenterHalfExtents({ x: [5], y: [5],
      halfWidth: [2], halfHeight: [3] });
    assert.deepStrictEqual([centred.minX[0], centred.minY[0], centred.maxX[0],
      centred.maxY[0]], [3, 2, 7, 8]);
    const turned = cc.columns.rotatedRectsAboutCenter({ x: [2], y: [4],
      width: [6], height: [3], angle: [0.5] });
    assert.deepStrictEqual([turned.pivotX[0], turned.pivotY[0],
      turned.positionX[0], turned.positionY[0], turned.angle[0]],
    [3, 1.5, 5, 5.5, 0.5]);
    const boxes = cc.columns.boxesFromCenterHalfExtents({ x: [1], y: [2],
      z: [3], halfX: [1], halfY: [1], halfZ: [2] });
    assert.deepStrictEqual([boxes.minZ[0], boxes.maxZ[0]], [1, 5]);
  });
});

test('bitsets', async (t) => {
  // Byte 0 = 0b00000101: bits 0 and 2; byte 1 = 0b00000001: bit 8.
  const bits = Buffer.from([0x05, 0x01]);
  await t.test('bit i is bit i % 8 of byte i / 8, LSB first', () => {
    assert.deepStrictEqual(cc.unpackBits(bits, 9),
      [true, false, true, false, false, false, false, false, true]);
    assert.strictEqual(cc.countBits(bits, 9), 3);
    assert.strictEqual(cc.bitAt(bits, 2), true);
    assert.strictEqual(cc.bitAt(bits, 100), false);
  });
  await t.test('hits/inside/relations decode per group', () => {
    const response = { groups: [
      { count: 9, hitBits: bits, relations: Buffer.from([1, 2, 3, 0, 0, 0,
        0, 0, 3]), separations: [] },
      { count: 0, hitBits: Buffer.alloc(0), relations: Buffer.alloc(0),
        separations: [] },
    ] };
    assert.deepStrictEqual(cc.hits(response), [cc.unpackBits(bits, 9), []]);
    assert.deepStrictEqual(cc.hits(response.groups[0]),
      cc.unpackBits(bits, 9));
    assert.deepStrictEqual(cc.relations(response)[0].slice(0, 3),
      ['RELATION_DISJOINT', 'RELATION_TOUCHING', 'RELATION_OVERLAPPING']);
    assert.deepStrictEqual(cc.inside({ groups: [{ count: 3,
      insideBits: Buffer.from([0x06]) }] }), [[false, true, true]]);
  });
});

test('request checking', async (t) => {
  await t.test('enum names: full, short or number; others name the allowed '
    + 'values', () => {
    const base = { pairs: [] };
    // Encoded as the enum's numbers.
    assert.strictEqual(check('IntersectRequest',
      { ...base, boundary: 'BOUNDARY_RULE_INCLUSIVE' }).boundary, 1);
    assert.strictEqual(check('IntersectRequest',
      { ...base, boundary: cc.BoundaryRule.EXCLUSIVE }).boundary, 2);
    assert.strictEqual(check('IntersectRequest',
      { ...base, boundary: 'INCLUSIVE' }).boundary, 1);
    assert.strictEqual(check('IntersectRequest',
      { ...base, boundary: 2 }).boundary, 2);
    assert.strictEqual(check('SceneRequest',
      { config: { dimension: '3D' } }).config.dimension, 3);
    assert.deepStrictEqual(violations(() => check('IntersectRequest',
      { ...base, boundary: 'INCLUDE' })), [{
      field: 'boundary',
      description: 'must be a BoundaryRule: one of BOUNDARY_RULE_INCLUSIVE, ' +
        'BOUNDARY_RULE_EXCLUSIVE (or INCLUSIVE, EXCLUSIVE); got "INCLUDE"',
    }]);
    assert.deepStrictEqual(violations(() => check('IntersectRequest',
      { ...base, boundary: 7 })).map((v) => v.field), ['boundary']);
    assert.deepStrictEqual(violations(() => check('IntersectRequest',
      { ...base, boundary: 'inclusive' })).map((v) => v.field), ['boundary']);
  });
  await t.test('a wrong enum name is refused before anything is sent',
    async () => {
      const client = cc.createClient('127.0.0.1:1');  // nothing listens
      try {
        await assert.rejects(client.intersect({ pairs: [
          { a: cc.point(0, 0), b: cc.point(0, 0) }], boundary: 'INCLUDE' }),
        (err) => err instanceof cc.RequestError &&
          err.fieldViolations[0].field === 'boundary' &&
          /BOUNDARY_RULE_INCLUSIVE/.test(err.message));
      } finally {
        client.close();
      }
    });
  await t.test('field names: camelCase or snake_case; unknown ones named',
    () => {
      assert.deepStrictEqual(check('IntersectRequest',
        { include_relation: true, includeSeparation: true }),
      { include_relation: true, include_separation: true });
      assert.deepStrictEqual(violations(() => check('IntersectRequest', {
        pairs: [{ a: { circle: { centre: { x: 1 } } } }],
      })).map((v) => v.field), ['pairs[0].a.circle.centre']);
    });
  await t.test('two members of one oneof are refused', () => {
    assert.deepStrictEqual(violations(() => check('ShapePair', {
      a: { circle: { radius: 1 }, rect: {} },
    })), [{ field: 'a.rect', description: 'cannot be set together with ' +
      'circle (oneof kind takes one of them)' }]);
  });
  await t.test('response-shaped objects go back in: null is unset, oneof '
    + 'names agree', () => {
    assert.deepStrictEqual(check('Shape',
      { kind: 'circle', circle: { center: null, radius: 1 }, rect: null }),
    { circle: { radius: 1 } });
    assert.deepStrictEqual(violations(() => check('Shape',
      { kind: 'rect', circle: { radius: 1 } })).map((v) => v.field), ['kind']);
  });
  await t.test('numbers: proto3 JSON strings, ranges of 32-bit integers',
    () => {
      const c = check('Circle', { radius: 'Infinity', center: { x: 'NaN',
        y: '1.5' } });
      assert.strictEqual(c.radius, Infinity);
      assert.ok(Number.isNaN(c.center.x));
      assert.strictEqual(c.center.y, 1.5);
      assert.deepStrictEqual(violations(() => check('SceneQuery',
        { mask: -1, max_hits: 2 ** 32 })).map((v) => v.field),
      ['mask', 'max_hits']);
      assert.deepStrictEqual(violations(() => check('Circle',
        { radius: 'big' })).map((v) => v.field), ['radius']);
    });
});

test('uint64', async (t) => {
  await t.test('in: decimal strings, BigInts, safe Numbers; sent as strings',
    () => {
      assert.strictEqual(cc.toUint64('18446744073709551615'),
        '18446744073709551615');
      assert.strictEqual(cc.toUint64(18446744073709551615n),
        '18446744073709551615');
      assert.strictEqual(cc.toUint64(9007199254740991), '9007199254740991');
      assert.strictEqual(cc.toUint64(0), '0');
      const sent = check('SceneUpdate', { tick: 7n,
        removals: new BigUint64Array([1n, 9007199254740993n]),
        upserts: [{ id: '9007199254740993', category: 1 }] });
      assert.deepStrictEqual(sent, { tick: '7',
        removals: ['1', '9007199254740993'],
        upserts: [{ id: '9007199254740993', category: 1 }] });
    });
  await t.test('out of range, fractional or rounded values are refused',
    () => {
      for (const bad of [-1, 1.5, 2 ** 53, '-1', '18446744073709551616',
        2n ** 64n, '1e3', 'x']) {
        assert.throws(() => cc.toUint64(bad), RangeError, String(bad));
      }
      const [v] = violations(() => check('SceneEntity', { id: 2 ** 60 }));
      assert.strictEqual(v.field, 'id');
      assert.match(v.description, /has been rounded already/);
    });
});

// Protobuf wire bytes by hand: a length-delimited field (lengths < 128).
const field = (tag, bytes) => Buffer.concat([Buffer.from([tag,
  bytes.length]), Buffer.from(bytes)]);
const text = (tag, s) => field(tag, Buffer.from(s));

test('error details decode from the grpc-status-details-bin trailer', () => {
  const violation = Buffer.concat([text(0x0a, 'pairs[0].a.circle.radius'),
    text(0x12, 'must be >= 0, got -1')]);
  const badRequest = field(0x0a, violation);
  const detail = Buffer.concat([
    text(0x0a, 'type.googleapis.com/google.rpc.BadRequest'),
    field(0x12, badRequest)]);
  const status = Buffer.concat([Buffer.from([0x08, 0x03]),
    text(0x12, 'pairs[0].a.circle.radius must be >= 0, got -1'),
    field(0x1a, detail)]);
  const metadata = new cc.grpc.Metadata();
  metadata.set('grpc-status-details-bin', status);
  const err = Object.assign(new Error('x'), { code: 3, metadata });
  assert.deepStrictEqual(cc.fieldViolations(err), [{
    field: 'pairs[0].a.circle.radius', description: 'must be >= 0, got -1',
  }]);
  assert.strictEqual(cc.statusDetails(metadata).code, 3);
  // A StreamError of a response, and garbage.
  assert.deepStrictEqual(cc.fieldViolations({ code: 3, message: 'm',
    badRequest: { fieldViolations: [{ field: '', description: 'and 2 more ' +
      'invalid fields' }] } }), [{ field: '', description: 'and 2 more ' +
      'invalid fields' }]);
  const garbage = new cc.grpc.Metadata();
  garbage.set('grpc-status-details-bin', Buffer.from([0xff, 0xff]));
  assert.deepStrictEqual(cc.fieldViolations({ metadata: garbage }), []);
  assert.deepStrictEqual(cc.fieldViolations(new Error('plain')), []);
});
