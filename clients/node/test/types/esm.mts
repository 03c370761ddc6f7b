// An ES module of a TypeScript user (.mts, module node16): the import forms
// docs/node.md shows, compiled by test/types.test.js with tsc --strict and
// then run (no server needed), so that a form tsc accepts but Node cannot
// link, or that yields undefined at run time, fails the test.
import * as cc from 'collision-client';
import {
  circle, columns, createClient, hits, intersectRequest, rectFromMinMax,
  status, BoundaryRule, RequestError, type IntersectResponse, type Shape,
} from 'collision-client';
import ccDefault from 'collision-client';

const shapes: Shape[] = [cc.circle(25, 25, 5), rectFromMinMax(10, 20, 20, 30)];
const request = intersectRequest([[shapes[0], shapes[1]]],
  { relation: true, boundary: BoundaryRule.INCLUSIVE });
const sameRequest = ccDefault.intersectRequest(
  [[circle(25, 25, 5), cc.rectFromMinMax(10, 20, 20, 30)]],
  { relation: true, boundary: cc.BoundaryRule.INCLUSIVE });
if (JSON.stringify(request) !== JSON.stringify(sameRequest)) {
  throw new Error('the namespace, named and default imports disagree');
}
const group = columns.circleRect({ x: [0], y: [0], radius: [1] },
  { minX: [0], minY: [0], maxX: [1], maxY: [1] });
const empty: IntersectResponse = { results: [] };
const bits: boolean[] = hits({ count: 1, hitBits: new Uint8Array([1]) });
const code: number = status.INVALID_ARGUMENT;
const dynamic = await import('collision-client');
if (typeof createClient !== 'function' || dynamic.createClient !== createClient ||
    !(RequestError.prototype instanceof Error) || !group || !bits[0] ||
    empty.results.length !== 0 || code !== 3) {
  throw new Error('an import form gave the wrong value');
}
// @ts-expect-error: not an export of the package
const missing: unknown = cc.notAnExport;
if (missing !== undefined) throw new Error('cc.notAnExport is defined');
console.log('esm.mts ran');
