// Shape builders for every parametrisation the seeds use, and the per-pair
// request builders. The wire carries one canonical form per shape (see
// collision.proto); derived values are computed in float32 (Math.fround),
// exactly as the C++ client and the seeds' own formulas compute them
// (x + w, c - h, ...), so every client sends the same bits.
'use strict';

const f = Math.fround;
const vec2 = (x, y) => ({ x, y });
const vec3 = (x, y, z) => ({ x, y, z });

// Degrees to radians, rounded to float32. The service only takes radians.
const degreesToRadians = (degrees) => f(f(degrees) * (Math.PI / 180));

const point = (x, y) => ({ point: vec2(x, y) });
const circle = (centerX, centerY, radius) =>
  ({ circle: { center: vec2(centerX, centerY), radius } });

const rectFromMinMax = (minX, minY, maxX, maxY) =>
  ({ rect: { min: vec2(minX, minY), max: vec2(maxX, maxY) } });
// Corner + size (seeds 000, 001): (x, y) is the top-left corner on a y-down
// screen, the bottom-left in a y-up frame; max = (x + width, y + height).
const rectFromCornerSize = (x, y, width, height) =>
  rectFromMinMax(x, y, f(f(x) + f(width)), f(f(y) + f(height)));
// Centre + half-extents (seed 002): min = c - h, max = c + h.
const rectFromCenterHalfExtents = (centerX, centerY, halfWidth, halfHeight) =>
  rectFromMinMax(f(f(centerX) - f(halfWidth)), f(f(centerY) - f(halfHeight)),
    f(f(centerX) + f(halfWidth)), f(f(centerY) + f(halfHeight)));

const rotatedBase = (width, height, pivotX, pivotY, positionX, positionY) => ({
  size: vec2(width, height),
  pivot: vec2(pivotX, pivotY),
  position: vec2(positionX, positionY),
});
// Seed 003: size, pivot offset from the min corner, where the pivot is, and
// the angle in radians (counter-clockwise in a y-up frame, clockwise on a
// y-down screen).
const rotatedRectFromPivot = (width, height, pivotX, pivotY, positionX,
  positionY, angleRadians) => ({
  rotatedRect: {
    ...rotatedBase(width, height, pivotX, pivotY, positionX, positionY),
    angle: angleRadians,
  },
});
// The same with an exact rotation (cos, sin), e.g. (0, 1) for a quarter
// turn; cos^2 + sin^2 must be within 1e-5 of 1.
const rotatedRectFromPivotCosSin = (width, height, pivotX, pivotY, positionX,
  positionY, cos, sin) => ({
  rotatedRect: {
    ...rotatedBase(width, height, pivotX, pivotY, positionX, positionY),
    rotation: { cos, sin },
  },
});
// A rectangle given by its unrotated corner + size, rotated by angleRadians
// about its centre (pivot = size / 2, position = the centre). Seed 004
// writes its angle with the opposite sign: pass -theta for its theta.
function rotatedRectAboutCenter(x, y, width, height, angleRadians) {
  const halfW = f(f(width) * 0.5);
  const halfH = f(f(height) * 0.5);
  return rotatedRectFromPivot(width, height, halfW, halfH, f(f(x) + halfW),
    f(f(y) + halfH), angleRadians);
}

const point3 = (x, y, z) => ({ point3: vec3(x, y, z) });
const sphere = (centerX, centerY, centerZ, radius) =>
  ({ sphere: { center: vec3(centerX, centerY, centerZ), radius } });
const boxFromMinMax = (minX, minY, minZ, maxX, maxY, maxZ) =>
  ({ box: { min: vec3(minX, minY, minZ), max: vec3(maxX, maxY, maxZ) } });
// Centre + half-extents (seed 002).
const boxFromCenterHalfExtents = (centerX, centerY, centerZ, halfX, halfY,
  halfZ) => boxFromMinMax(
  f(f(centerX) - f(halfX)), f(f(centerY) - f(halfY)), f(f(centerZ) - f(halfZ)),
  f(f(centerX) + f(halfX)), f(f(centerY) + f(halfY)), f(f(centerZ) + f(halfZ)));

// Every point within radius (>= 0) of the segment from a to b (a hitbox
// limb). a == b is a sphere; radius 0 the bare segment.
const capsule3 = (aX, aY, aZ, bX, bY, bZ, radius) =>
  ({ capsule3: { a: vec3(aX, aY, aZ), b: vec3(bX, bY, bZ), radius } });
// A box of half-extents (halfX, halfY, halfZ) turned by the unit quaternion
// (qw, qx, qy, qz) about its centre (Hamilton: the turn by angle t about the
// unit axis u is w = cos(t/2), (x, y, z) = sin(t/2) u). Sent as given,
// never normalised: the server refuses a quaternion whose squared length is
// not within 1e-5 of 1, naming ...oriented_box.rotation.
const orientedBox = (centerX, centerY, centerZ, halfX, halfY, halfZ, qw, qx,
  qy, qz) => ({
  orientedBox: {
    center: vec3(centerX, centerY, centerZ),
    halfExtents: vec3(halfX, halfY, halfZ),
    rotation: { w: qw, x: qx, y: qy, z: qz },
  },
});
// The same turned by angleRadians about the axis (axisX, axisY, axisZ),
// counter-clockwise looking down the axis (right-handed); the axis need not
// be unit length. A zero axis, or one whose length is not finite, gives the
// unturned box. Computed in double from the float32 inputs and rounded to
// float32 once, as the C++ client does.
function orientedBoxAxisAngle(centerX, centerY, centerZ, halfX, halfY, halfZ,
  axisX, axisY, axisZ, angleRadians) {
  const ax = f(axisX);
  const ay = f(axisY);
  const az = f(axisZ);
  const length = Math.sqrt(ax * ax + ay * ay + az * az);
  let q = [1, 0, 0, 0];
  if (length > 0 && Number.isFinite(length)) {
    const half = f(angleRadians) / 2;
    const k = Math.sin(half) / length;
    q = [Math.cos(half), ax * k, ay * k, az * k];
  }
  return orientedBox(centerX, centerY, centerZ, halfX, halfY, halfZ,
    ...q.map(f));
}

const asPair = (p, first, second) => (Array.isArray(p)
  ? { [first]: p[0], [second]: p[1] } : p);

// An IntersectRequest from [a, b] pairs (or { a, b } objects). Defaults:
// inclusive boundary (touching is a hit), no relation, no separation.
function intersectRequest(pairs, {
  boundary = 'BOUNDARY_RULE_INCLUSIVE', relation = false, separation = false,
} = {}) {
  return {
    pairs: pairs.map((p) => asPair(p, 'a', 'b')),
    boundary,
    includeRelation: relation,
    includeSeparation: separation,
  };
}

// A ClosestPointRequest from [query, target] pairs (or { query, target }
// objects). Default: inclusive boundary.
function closestPointRequest(queries, {
  boundary = 'BOUNDARY_RULE_INCLUSIVE',
} = {}) {
  return {
    queries: queries.map((q) => asPair(q, 'query', 'target')),
    boundary,
  };
}

module.exports = {
  degreesToRadians,
  point, circle,
  rectFromMinMax, rectFromCornerSize, rectFromCenterHalfExtents,
  rotatedRectFromPivot, rotatedRectFromPivotCosSin, rotatedRectAboutCenter,
  point3, sphere, boxFromMinMax, boxFromCenterHalfExtents,
  capsule3, orientedBox, orientedBoxAxisAngle,
  intersectRequest, closestPointRequest,
};
