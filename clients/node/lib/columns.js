// The columnar (struct-of-arrays) requests IntersectColumns and
// ClosestPointColumns from arrays or typed arrays, one group per pair kind,
// and the bitsets of their responses decoded.
//
//   const req = intersectColumnsRequest(columns.circleRect(
//     { x: xs, y: ys, radius: rs }, { minX, minY, maxX, maxY }));
//   const hit = hits(await client.intersectColumns(req))[0];  // group 0
'use strict';

const f = Math.fround;

// Column sets: every field an array (or typed array) of n numbers.
// radius may be left out (points).
const FIELDS = {
  balls2: ['x', 'y'],
  balls3: ['x', 'y', 'z'],
  rects: ['minX', 'minY', 'maxX', 'maxY'],
  boxes: ['minX', 'minY', 'minZ', 'maxX', 'maxY', 'maxZ'],
  rotatedRects: ['sizeX', 'sizeY', 'pivotX', 'pivotY', 'positionX',
    'positionY'],
  // The inputs of the convention builders below.
  corner: ['x', 'y', 'width', 'height'],
  center2: ['x', 'y', 'halfWidth', 'halfHeight'],
  aboutCenter: ['x', 'y', 'width', 'height', 'angle'],
  center3: ['x', 'y', 'z', 'halfX', 'halfY', 'halfZ'],
};

const lengthOf = (v) => (v === undefined || v === null ? 0 : v.length);

// Every column of every set given has the same length: a mistake here is
// the caller's and cheaper to report before the round trip.
function checkLengths(where, sets) {
  let n = null;
  let first = '';
  const check = (name, column, optional) => {
    if (optional && lengthOf(column) === 0) return;
    if (column === undefined || column === null ||
        typeof column.length !== 'number') {
      throw new TypeError(`${where}: ${name} is missing (an array of ` +
        'numbers)');
    }
    if (n === null) {
      n = column.length;
      first = name;
    } else if (column.length !== n) {
      throw new RangeError(`${where}: ${name} has ${column.length} values, ` +
        `${first} has ${n}`);
    }
  };
  for (const [prefix, set, kind] of sets) {
    if (set === null || typeof set !== 'object') {
      throw new TypeError(`${where}: ${prefix || 'the argument'} must be an ` +
        'object of columns');
    }
    const name = (field) => (prefix ? `${prefix}.${field}` : field);
    for (const field of FIELDS[kind]) check(name(field), set[field]);
    if (kind === 'balls2' || kind === 'balls3') {
      check(name('radius'), set.radius, true);
    }
    if (kind === 'rotatedRects') {
      const angle = lengthOf(set.angle) > 0;
      const cosSin = lengthOf(set.cos) > 0 || lengthOf(set.sin) > 0;
      if (angle === cosSin) {
        throw new TypeError(`${where}: ${prefix} needs either angle or ` +
          'both cos and sin');
      }
      if (angle) {
        check(name('angle'), set.angle);
      } else {
        check(name('cos'), set.cos);
        check(name('sin'), set.sin);
      }
    }
  }
}

const group = (name, a, kindA, b, kindB) => {
  checkLengths(name, [['a', a, kindA], ['b', b, kindB]]);
  return { [name]: { a, b } };
};

// IntersectColumnGroup builders: pairs i of a and b.
const circleCircle = (a, b) => group('circleCircle', a, 'balls2', b, 'balls2');
const circleRect = (a, b) => group('circleRect', a, 'balls2', b, 'rects');
const circleRotatedRect = (a, b) =>
  group('circleRotatedRect', a, 'balls2', b, 'rotatedRects');
const rectRect = (a, b) => group('rectRect', a, 'rects', b, 'rects');
const sphereSphere = (a, b) => group('sphereSphere', a, 'balls3', b, 'balls3');
const sphereBox = (a, b) => group('sphereBox', a, 'balls3', b, 'boxes');
const boxBox = (a, b) => group('boxBox', a, 'boxes', b, 'boxes');

// ClosestPointColumnGroup builders: query i (points or circles for 2D
// targets, point3s or spheres for 3D ones) against target i.
const closest = (targetsName, queries, queriesKind, targets, targetsKind) => {
  checkLengths(targetsName, [['queries', queries, queriesKind],
    [targetsName, targets, targetsKind]]);
  const queriesName = queriesKind === 'balls2' ? 'queries2' : 'queries3';
  return { [queriesName]: queries, [targetsName]: targets };
};
const closestToCircles = (queries, circles) =>
  closest('circles', queries, 'balls2', circles, 'balls2');
const closestToRects = (queries, rects) =>
  closest('rects', queries, 'balls2', rects, 'rects');
const closestToRotatedRects = (queries, rotatedRects) =>
  closest('rotatedRects', queries, 'balls2', rotatedRects, 'rotatedRects');
const closestToSpheres = (queries, spheres) =>
  closest('spheres', queries, 'balls3', spheres, 'balls3');
const closestToBoxes = (queries, boxes) =>
  closest('boxes', queries, 'balls3', boxes, 'boxes');

// Column sets from the other conventions, computed in float32 as the shape
// builders do (Float32Array columns).
function mapColumns(n, fn) {
  const out = new Float32Array(n);
  for (let i = 0; i < n; i += 1) out[i] = fn(i);
  return out;
}

function rectsFromCornerSize({ x, y, width, height }) {
  checkLengths('rectsFromCornerSize',
    [['', { x, y, width, height }, 'corner']]);
  const n = x.length;
  return {
    minX: Float32Array.from(x),
    minY: Float32Array.from(y),
    maxX: mapColumns(n, (i) => f(f(x[i]) + f(width[i]))),
    maxY: mapColumns(n, (i) => f(f(y[i]) + f(height[i]))),
  };
}

function rectsFromCenterHalfExtents({ x, y, halfWidth, halfHeight }) {
  checkLengths('rectsFromCenterHalfExtents',
    [['', { x, y, halfWidth, halfHeight }, 'center2']]);
  const n = x.length;
  return {
    minX: mapColumns(n, (i) => f(f(x[i]) - f(halfWidth[i]))),
    minY: mapColumns(n, (i) => f(f(y[i]) - f(halfHeight[i]))),
    maxX: mapColumns(n, (i) => f(f(x[i]) + f(halfWidth[i]))),
    maxY: mapColumns(n, (i) => f(f(y[i]) + f(halfHeight[i]))),
  };
}

// Unrotated corner + size, rotated by angle (radians) about the centre;
// seed 004's angle is -angle.
function rotatedRectsAboutCenter({ x, y, width, height, angle }) {
  checkLengths('rotatedRectsAboutCenter',
    [['', { x, y, width, height, angle }, 'aboutCenter']]);
  const n = x.length;
  const halfW = mapColumns(n, (i) => f(f(width[i]) * 0.5));
  const halfH = mapColumns(n, (i) => f(f(height[i]) * 0.5));
  return {
    sizeX: Float32Array.from(width),
    sizeY: Float32Array.from(height),
    pivotX: halfW,
    pivotY: halfH,
    positionX: mapColumns(n, (i) => f(f(x[i]) + halfW[i])),
    positionY: mapColumns(n, (i) => f(f(y[i]) + halfH[i])),
    angle: Float32Array.from(angle),
  };
}

function boxesFromCenterHalfExtents({ x, y, z, halfX, halfY, halfZ }) {
  checkLengths('boxesFromCenterHalfExtents',
    [['', { x, y, z, halfX, halfY, halfZ }, 'center3']]);
  const n = x.length;
  const lo = (c, h) => mapColumns(n, (i) => f(f(c[i]) - f(h[i])));
  const hi = (c, h) => mapColumns(n, (i) => f(f(c[i]) + f(h[i])));
  return {
    minX: lo(x, halfX), minY: lo(y, halfY), minZ: lo(z, halfZ),
    maxX: hi(x, halfX), maxY: hi(y, halfY), maxZ: hi(z, halfZ),
  };
}

const asGroups = (groups) => (Array.isArray(groups) ? groups : [groups]);

// An IntersectColumnsRequest from one group or an array of them. Defaults:
// inclusive boundary, no relations, no separations.
function intersectColumnsRequest(groups, {
  boundary = 'BOUNDARY_RULE_INCLUSIVE', relation = false, separation = false,
} = {}) {
  return {
    groups: asGroups(groups),
    boundary,
    includeRelation: relation,
    includeSeparation: separation,
  };
}

// A ClosestPointColumnsRequest from one group or an array of them.
// Default: inclusive boundary.
function closestPointColumnsRequest(groups, {
  boundary = 'BOUNDARY_RULE_INCLUSIVE',
} = {}) {
  return { groups: asGroups(groups), boundary };
}

// Bit i of a packed bitset: byte i >> 3, least significant bit first. False
// past the end.
function bitAt(bytes, i) {
  const byte = i >> 3;
  return byte < bytes.length && ((bytes[byte] >> (i & 7)) & 1) === 1;
}

// The first n bits as booleans.
function unpackBits(bytes, n) {
  const out = new Array(n);
  for (let i = 0; i < n; i += 1) out[i] = bitAt(bytes, i);
  return out;
}

// How many of the first n bits are set.
function countBits(bytes, n) {
  let count = 0;
  for (let i = 0; i < n; i += 1) if (bitAt(bytes, i)) count += 1;
  return count;
}

const perGroup = (x, decode) =>
  (Array.isArray(x.groups) ? x.groups.map(decode) : decode(x));

// Hits of an IntersectColumnsResponse: one boolean array per group
// (hits(response)[g][i] is pair i of request group g). Given one
// IntersectColumnsResult, its array.
const hits = (x) => perGroup(x, (g) => unpackBits(g.hitBits, g.count));

// `inside` of a ClosestPointColumnsResponse, as hits() does.
const inside = (x) => perGroup(x, (g) => unpackBits(g.insideBits, g.count));

const RELATIONS = ['RELATION_UNSPECIFIED', 'RELATION_DISJOINT',
  'RELATION_TOUCHING', 'RELATION_OVERLAPPING'];
// Relations (names) of an IntersectColumnsResponse asked with relation:
// true, as hits() does; empty arrays when not asked for.
const relations = (x) => perGroup(x, (g) => Array.from(g.relations,
  (r) => RELATIONS[r] || `RELATION_${r}`));

// The builders by group kind, as one object (`cc.columns.circleRect`).
const columns = {
  circleCircle, circleRect, circleRotatedRect, rectRect, sphereSphere,
  sphereBox, boxBox,
  closestToCircles, closestToRects, closestToRotatedRects, closestToSpheres,
  closestToBoxes,
  rectsFromCornerSize, rectsFromCenterHalfExtents, rotatedRectsAboutCenter,
  boxesFromCenterHalfExtents,
};

// Bare names only: index.js re-exports this object and Node's
// cjs-module-lexer must find every name in it for ES modules (see index.js).
module.exports = {
  columns,
  intersectColumnsRequest, closestPointColumnsRequest,
  bitAt, unpackBits, countBits, hits, inside, relations,
};
