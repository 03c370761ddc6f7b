// Compiled (never run) against the package's index.d.ts by
// test/types.test.js with tsc --strict: how a TypeScript user writes calls,
// and mistakes the types must catch (@ts-expect-error fails the compile
// when the line is accepted).
import * as cc from 'collision-client';
import {
  createClient, fieldViolations, hits, type CallError, type FieldViolation,
  type IntersectResponse, type SceneResponse, type SceneUpdate, type Shape,
} from 'collision-client';

export async function calls(): Promise<void> {
  const client = createClient('127.0.0.1:50051', {
    deadlineMs: 2000, token: 't', metadata: { 'x-tenant': 'a' },
    credentials: cc.grpc.credentials.createInsecure(),
  });
  await client.waitUntilServing({ timeoutMs: 1000 });

  const shapes: Shape[] = [
    cc.point(0, 0), cc.circle(0, 0, 1), cc.rectFromMinMax(0, 0, 1, 1),
    cc.rectFromCornerSize(0, 0, 1, 1), cc.rectFromCenterHalfExtents(0, 0, 1, 1),
    cc.rotatedRectFromPivot(1, 1, 0, 0, 0, 0, cc.degreesToRadians(30)),
    cc.rotatedRectFromPivotCosSin(1, 1, 0, 0, 0, 0, 0, 1),
    cc.rotatedRectAboutCenter(0, 0, 1, 1, -0.5), cc.point3(0, 0, 0),
    cc.sphere(0, 0, 0, 1), cc.boxFromMinMax(0, 0, 0, 1, 1, 1),
    cc.boxFromCenterHalfExtents(0, 0, 0, 1, 1, 1),
    cc.capsule3(0, 0, 0, 1, 0, 0, 0.5),
    cc.orientedBox(0, 0, 0, 1, 1, 1, 1, 0, 0, 0),
    cc.orientedBoxAxisAngle(0, 0, 0, 1, 1, 1, 0, 0, 1, Math.PI / 2),
    { orientedBox: { center: { x: 1 }, halfExtents: { x: 1, y: 1, z: 1 },
      rotation: { w: 1 } } },
  ];
  const reply: IntersectResponse = await client.intersect(cc.intersectRequest(
    [[shapes[0], shapes[1]], { a: shapes[2], b: shapes[3] }],
    { boundary: cc.BoundaryRule.EXCLUSIVE, relation: true }));
  const relation: cc.RelationName = reply.results[0].relation;
  const near = await client.closestPoint({
    queries: [{ query: cc.point(1, 1), target: shapes[2] }],
    boundary: 'INCLUSIVE',
  }, { deadlineMs: 100, signal: new AbortController().signal });
  const x: number = near.results[0].closestPoint.x;

  const columns = await client.intersectColumns(cc.intersectColumnsRequest([
    cc.columns.circleRect({ x: new Float32Array(2), y: [0, 1] },
      cc.columns.rectsFromCornerSize({ x: [0, 0], y: [0, 0], width: [1, 1],
        height: [1, 1] })),
    cc.columns.boxBox(
      { minX: [0], minY: [0], minZ: [0], maxX: [1], maxY: [1], maxZ: [1] },
      { minX: [0], minY: [0], minZ: [0], maxX: [1], maxY: [1], maxZ: [1] }),
  ]));
  const perGroup: boolean[][] = hits(columns);
  const firstGroup: boolean[] = hits(columns.groups[0]);
  const inside: boolean[][] = cc.inside(await client.closestPointColumns(
    cc.closestPointColumnsRequest(cc.columns.closestToRects({ x: [0], y: [0] },
      { minX: [0], minY: [0], maxX: [1], maxY: [1] }))));

  try {
    await client.intersect({ pairs: [], boundary: 'BOUNDARY_RULE_INCLUSIVE' });
  } catch (err) {
    const v: FieldViolation[] = fieldViolations(err);
    if (err instanceof cc.RequestError) console.log(err.fieldViolations);
    else console.log((err as CallError).code, v);
  }

  const session = client.openQueryStream({ reopen: true });
  const answer = await session.send({ sequence: 7n, intersect: { pairs: [] } });
  if (answer.answer === 'intersect') console.log(answer.intersect.results);
  const viaHelper: IntersectResponse = await session.intersect({ pairs: [] });
  await session.close();

  const scene = client.openScene({ deadlineMs: 60000 });
  const tick: SceneResponse = await scene.send({
    config: { dimension: '2D', boundary: 'INCLUSIVE' },
    update: {
      tick: 1,
      upserts: [{ id: '1', shape: cc.circle(0, 0, 1), category: 1 }],
      upsertColumns: [{ ids: new BigUint64Array([2n]), circles: { x: [1], y: [1] } }],
    },
    queries: [{ raycast: { origin: { x: 0 }, direction: { x: 1 } }, excludeId: 1n }],
  });
  const id: string = tick.results[0].hits[0].id;
  // Hitboxes as columns in a 3D scene.
  const hitboxes: SceneUpdate = {
    tick: 2,
    upsertColumns: [
      { ids: [10], capsules: { aX: [0], aY: [0], aZ: [0], bX: [1], bY: [0],
        bZ: [0], radius: [0.2] } },
      { ids: [11], orientedBoxes: { centerX: [0], centerY: [0], centerZ: [1],
        halfX: [0.1], halfY: [0.1], halfZ: [0.1], rotationW: [1],
        rotationX: [0], rotationY: [0], rotationZ: [0] } },
    ],
  };
  console.log(hitboxes.upsertColumns?.length);
  try {
    await scene.send({ update: { tick: 2, removals: ['1'] } });
  } catch (err) {
    if (err instanceof cc.StreamMessageError) console.log(err.fieldViolations);
  }
  await scene.close();

  // A scene with failover: ticks handed over, answers collected later.
  const world: cc.SceneSession = await client.openSceneSession(
    { dimension: '2D', boundary: 'INCLUSIVE', historyTicks: 64 },
    { maxReopens: 4, firstBackoffMs: 10, messageTimeoutMs: Infinity });
  const pending: Promise<SceneResponse> = world.send({
    update: { tick: 1, upserts: [{ id: 1n, shape: cc.circle(0, 0, 1) }] },
  });
  const answered: SceneResponse = await pending;
  try {
    await world.send({ queries: [{ overlap: { shape: cc.point(0, 0) } }] });
  } catch (err) {
    if (err instanceof cc.SceneSessionError) {
      const code: cc.grpc.status = err.code;
      console.log(code, err.codeName, err.details, err.fieldViolations);
    } else if (err instanceof cc.StreamMessageError) {
      console.log(err.codeName, err.sequence, fieldViolations(err));
    }
  }
  const counts: number = world.reopens + world.inFlight + world.keptUpdates +
    world.entities;
  const lastTick: string | null = world.tick;
  await world.close();
  client.close();
  console.log(relation, x, perGroup, firstGroup, inside, viaHelper, id,
    cc.toUint64(5), cc.protoDir, cc.status.INVALID_ARGUMENT, answered,
    counts, lastTick);
}

export function mistakes(client: cc.CollisionClient): void {
  // @ts-expect-error: not a BoundaryRule
  void client.intersect({ pairs: [], boundary: 'TOUCHING' });
  // @ts-expect-error: a shape is one kind
  const two: Shape = { circle: {}, rect: {} };
  // @ts-expect-error: an oriented box turns by a quaternion, not an angle
  const angled: Shape = { orientedBox: { rotation: { angle: 1 } } };
  // @ts-expect-error: an intersect group is one kind
  cc.intersectColumnsRequest({ circleCircle: { a: { x: [], y: [] }, b: { x: [], y: [] } }, rectRect: { a: { minX: [], minY: [], maxX: [], maxY: [] }, b: { minX: [], minY: [], maxX: [], maxY: [] } } });
  // @ts-expect-error: a stream request has one query kind
  void client.openQueryStream().send({ intersect: {}, closestPoint: {} });
  // @ts-expect-error: ids are uint64, not booleans
  void client.openScene().send({ update: { removals: [true] } });
  // @ts-expect-error: a scene session's options are numbers
  void client.openSceneSession({ dimension: '2D' }, { maxReopens: 'many' });
  // @ts-expect-error: a scene session is opened with its config
  void client.openSceneSession();
  console.log(two, angled);
}
