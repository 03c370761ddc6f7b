// The columnar calls against a live collision_server give the per-pair
// calls' answers for the same pairs: 500 seeded random circle-rect,
// circle-rotated-rect and sphere-box pairs, columns given as Float32Arrays,
// Float64Arrays and plain arrays (the package encodes Float32 columns as
// their bytes), hits, relations and separations compared exactly.
// Run: COLLISION_SERVER=path/to/collision_server node --test test/columns.test.js
'use strict';

const test = require('node:test');
const assert = require('node:assert');
const { loadPackage, startServerAndClient } = require('./helpers');

const cc = loadPackage();
const N = 500;

// A fixed-seed generator (a 32-bit LCG): the same pairs every run.
function random(seed) {
  let s = seed >>> 0;
  return (lo, hi) => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return Math.fround(lo + (hi - lo) * (s / 2 ** 32));
  };
}

const column = (f) => Array.from({ length: N }, (_, i) => f(i));

test('columns agree with per-pair calls', async () => {
  const r = random(17);
  const circles = { x: new Float32Array(column(() => r(-10, 10))),
    y: new Float64Array(column(() => r(-10, 10))),
    radius: column(() => r(0, 3)) };
  const corners = { x: column(() => r(-10, 10)), y: column(() => r(-10, 10)),
    width: column(() => r(0, 5)), height: column(() => r(0, 5)) };
  const turned = { ...corners, angle: column(() => r(-4, 4)) };
  const spheres = { x: column(() => r(-5, 5)), y: column(() => r(-5, 5)),
    z: column(() => r(-5, 5)),
    radius: new Float32Array(column(() => r(0, 2))) };
  const boxes = { x: column(() => r(-5, 5)), y: column(() => r(-5, 5)),
    z: column(() => r(-5, 5)), halfX: column(() => r(0, 2)),
    halfY: column(() => r(0, 2)), halfZ: column(() => r(0, 2)) };

  const options = { relation: true, separation: true };
  const request = cc.intersectColumnsRequest([
    cc.columns.circleRect(circles, cc.columns.rectsFromCornerSize(corners)),
    cc.columns.circleRotatedRect(circles,
      cc.columns.rotatedRectsAboutCenter(turned)),
    cc.columns.sphereBox(spheres, cc.columns.boxesFromCenterHalfExtents(boxes)),
  ], options);
  const circle = (i) => cc.circle(circles.x[i], circles.y[i],
    circles.radius[i]);
  const pairs = [
    column((i) => [circle(i), cc.rectFromCornerSize(corners.x[i],
      corners.y[i], corners.width[i], corners.height[i])]),
    column((i) => [circle(i), cc.rotatedRectAboutCenter(turned.x[i],
      turned.y[i], turned.width[i], turned.height[i], turned.angle[i])]),
    column((i) => [cc.sphere(spheres.x[i], spheres.y[i], spheres.z[i],
      spheres.radius[i]), cc.boxFromCenterHalfExtents(boxes.x[i], boxes.y[i],
      boxes.z[i], boxes.halfX[i], boxes.halfY[i], boxes.halfZ[i])]),
  ];

  const env = await startServerAndClient(cc);
  try {
    const columns = await env.client.intersectColumns(request);
    const hitsByGroup = cc.hits(columns);
    const relationsByGroup = cc.relations(columns);
    let touching = 0;
    for (const [g, groupPairs] of pairs.entries()) {
      const perPair = await env.client.intersect(
        cc.intersectRequest(groupPairs, options));
      assert.strictEqual(columns.groups[g].count, N);
      assert.deepStrictEqual(hitsByGroup[g],
        perPair.results.map((x) => x.hit), `group ${g} hits`);
      assert.deepStrictEqual(relationsByGroup[g],
        perPair.results.map((x) => x.relation), `group ${g} relations`);
      assert.deepStrictEqual(columns.groups[g].separations,
        perPair.results.map((x) => x.separation), `group ${g} separations`);
      touching += hitsByGroup[g].filter(Boolean).length;
    }
    // Both answers occur: the comparison is not vacuous.
    assert.ok(touching > 50 && touching < 3 * N - 50, `${touching} hits`);
  } finally {
    await env.stop();
  }
});
