// Types of collision-client, the Node client of the collision query service
// (gRPC, collision.v1). Units, frames and rules of every field are those of
// proto/collision/v1/collision.proto and scene.proto (shipped in proto/);
// docs/node.md is the guide.
//
// Requests (what you pass in) have optional fields in lowerCamelCase;
// snake_case names, null/undefined for unset, and proto3 JSON strings for
// floats ('NaN', 'Infinity') are accepted at run time too. Responses (what
// you get back) have every field present: unset messages are null, enums
// are full names, uint64 values decimal strings, bytes Buffers, and each
// oneof's member name is under the oneof's name (response.answer).

import * as grpc from '@grpc/grpc-js';

export { grpc };
/** grpc.status: code numbers by name and names by number. */
export declare const status: typeof grpc.status;
/** The folder of the .proto files this package loads. */
export declare const protoDir: string;

// ---------------------------------------------------------------------------
// Scalars

/** A uint64 as the package returns it: a decimal string ('18446744073709551615'). */
export type Uint64 = string;
/**
 * A uint64 as the package takes it: a decimal string, a BigInt, or a Number
 * that is a safe integer (Numbers above 2^53 are refused: already rounded).
 * Sent as a decimal string.
 */
export type Uint64Input = string | bigint | number;
/** Numbers of a column: an array or a typed array (Float32Array, ...). */
export type NumberColumn = ArrayLike<number>;
/** uint64 values of a column. */
export type Uint64Column = ReadonlyArray<Uint64Input> | BigUint64Array;

/** Exactly one of T's members. */
type OneOf<T> = {
  [K in keyof T]: { [P in K]: T[K] } & { [P in Exclude<keyof T, K>]?: never };
}[keyof T];

// ---------------------------------------------------------------------------
// Enums. Requests take the full name, the short name (without the prefix)
// or the number; anything else is refused before sending (RequestError
// naming the allowed values). Responses carry full names.

export type BoundaryRuleName =
  | 'BOUNDARY_RULE_UNSPECIFIED'
  | 'BOUNDARY_RULE_INCLUSIVE'
  | 'BOUNDARY_RULE_EXCLUSIVE';
export type BoundaryRuleInput =
  | BoundaryRuleName | 'UNSPECIFIED' | 'INCLUSIVE' | 'EXCLUSIVE' | 0 | 1 | 2;
export type RelationName =
  | 'RELATION_UNSPECIFIED'
  | 'RELATION_DISJOINT'
  | 'RELATION_TOUCHING'
  | 'RELATION_OVERLAPPING';
export type DimensionName =
  | 'DIMENSION_UNSPECIFIED' | 'DIMENSION_2D' | 'DIMENSION_3D';
export type DimensionInput =
  | DimensionName | 'UNSPECIFIED' | '2D' | '3D' | 0 | 2 | 3;

/** Touching (distance exactly 0) is a hit under INCLUSIVE, not EXCLUSIVE. */
export declare const BoundaryRule: {
  readonly UNSPECIFIED: 'BOUNDARY_RULE_UNSPECIFIED';
  readonly INCLUSIVE: 'BOUNDARY_RULE_INCLUSIVE';
  readonly EXCLUSIVE: 'BOUNDARY_RULE_EXCLUSIVE';
};
export declare const Relation: {
  readonly UNSPECIFIED: 'RELATION_UNSPECIFIED';
  readonly DISJOINT: 'RELATION_DISJOINT';
  readonly TOUCHING: 'RELATION_TOUCHING';
  readonly OVERLAPPING: 'RELATION_OVERLAPPING';
};
export declare const Dimension: {
  readonly UNSPECIFIED: 'DIMENSION_UNSPECIFIED';
  readonly D2: 'DIMENSION_2D';
  readonly D3: 'DIMENSION_3D';
};

// ---------------------------------------------------------------------------
// Shapes (requests). Lengths in any one unit; angles in radians,
// counter-clockwise in a y-up frame (clockwise on a y-down screen).

export interface Vec2 { x?: number; y?: number }
export interface Vec3 { x?: number; y?: number; z?: number }
/** A disc: every point within radius (>= 0) of center. */
export interface Circle { center?: Vec2; radius?: number }
/** [min.x, max.x] x [min.y, max.y], edges included. */
export interface Rect { min?: Vec2; max?: Vec2 }
/** An exact rotation: cos^2 + sin^2 within 1e-5 of 1. */
export interface Rotation { cos?: number; sin?: number }
/**
 * Seed 003: spans [-pivot, size - pivot] in its own frame, rotated about the
 * pivot, pivot placed at position. Orientation: angle or rotation.
 */
export type RotatedRect = { size?: Vec2; pivot?: Vec2; position?: Vec2 } & (
  | { angle?: number; rotation?: never }
  | { rotation?: Rotation; angle?: never });
export interface Sphere { center?: Vec3; radius?: number }
/** Axis-aligned box [min, max] per axis, faces included. */
export interface Box { min?: Vec3; max?: Vec3 }
/**
 * A rotation in 3D as a unit quaternion w + xi + yj + zk (Hamilton: the turn
 * by angle t about the unit axis u is w = cos(t/2), (x, y, z) = sin(t/2) u).
 * w^2 + x^2 + y^2 + z^2 must be within 1e-5 of 1: never normalised.
 */
export interface Quaternion { w?: number; x?: number; y?: number; z?: number }
/** Every point within radius (>= 0) of the segment [a, b]. */
export interface Capsule3 { a?: Vec3; b?: Vec3; radius?: number }
/** center + R * local for local in [-halfExtents, halfExtents], R the
 * rotation's matrix. */
export interface OrientedBox { center?: Vec3; halfExtents?: Vec3; rotation?: Quaternion }

interface ShapeKinds {
  point: Vec2;
  circle: Circle;
  rect: Rect;
  rotatedRect: RotatedRect;
  point3: Vec3;
  sphere: Sphere;
  box: Box;
  /** Pairwise (Intersect, ClosestPoint targets) only: scenes refuse it. */
  capsule3: Capsule3;
  /** Pairwise (Intersect, ClosestPoint targets) only: scenes refuse it. */
  orientedBox: OrientedBox;
}
/** Exactly one kind: { circle: {...} }, { rect: {...} }, ... */
export type Shape = OneOf<ShapeKinds>;

// ---------------------------------------------------------------------------
// Intersect and ClosestPoint

export interface ShapePair { a?: Shape; b?: Shape }
export interface IntersectRequest {
  pairs?: ShapePair[];
  boundary?: BoundaryRuleInput;  // required by the server
  includeRelation?: boolean;
  includeSeparation?: boolean;
}
export interface IntersectResult {
  hit: boolean;
  relation: RelationName;  // RELATION_UNSPECIFIED unless includeRelation
  separation: number;      // distance; 0 touching; -depth overlapping
}
export interface IntersectResponse {
  results: IntersectResult[];  // results[i] answers pairs[i]
}

export interface ClosestPointQuery {
  query?: Shape;   // point or circle (2D), point3 or sphere (3D)
  target?: Shape;  // any shape of the same dimension
}
export interface ClosestPointRequest {
  queries?: ClosestPointQuery[];
  boundary?: BoundaryRuleInput;  // required by the server
}
/** A Vec3 of a response (2D answers have z = 0). */
export interface Vec3Value { x: number; y: number; z: number }
export interface ClosestPointResult {
  closestPoint: Vec3Value;
  surfacePoint: Vec3Value;
  normal: Vec3Value;
  signedDistance: number;  // negative strictly inside
  gap: number;             // signedDistance minus the query radius
  inside: boolean;
}
export interface ClosestPointResponse {
  results: ClosestPointResult[];  // results[i] answers queries[i]
}

// ---------------------------------------------------------------------------
// Columns (struct of arrays): every column of a group has the same length n.

/** Circles, or points when radius is left out. */
export interface BallColumns2 { x: NumberColumn; y: NumberColumn; radius?: NumberColumn }
/** Spheres, or 3D points when radius is left out. */
export interface BallColumns3 {
  x: NumberColumn; y: NumberColumn; z: NumberColumn; radius?: NumberColumn;
}
export interface RectColumns {
  minX: NumberColumn; minY: NumberColumn; maxX: NumberColumn; maxY: NumberColumn;
}
export interface BoxColumns {
  minX: NumberColumn; minY: NumberColumn; minZ: NumberColumn;
  maxX: NumberColumn; maxY: NumberColumn; maxZ: NumberColumn;
}
/** Capsules in 3D (scene upsert columns): ends a and b, radius. */
export interface Capsule3Columns {
  aX: NumberColumn; aY: NumberColumn; aZ: NumberColumn;
  bX: NumberColumn; bY: NumberColumn; bZ: NumberColumn;
  radius: NumberColumn;
}
/** Oriented boxes (scene upsert columns); every row's quaternion unit. */
export interface OrientedBoxColumns {
  centerX: NumberColumn; centerY: NumberColumn; centerZ: NumberColumn;
  halfX: NumberColumn; halfY: NumberColumn; halfZ: NumberColumn;
  rotationW: NumberColumn; rotationX: NumberColumn;
  rotationY: NumberColumn; rotationZ: NumberColumn;
}
/** Rotated rects (see RotatedRect): angle, or both cos and sin. */
export interface RotatedRectColumns {
  sizeX: NumberColumn; sizeY: NumberColumn;
  pivotX: NumberColumn; pivotY: NumberColumn;
  positionX: NumberColumn; positionY: NumberColumn;
  angle?: NumberColumn; cos?: NumberColumn; sin?: NumberColumn;
}

interface IntersectGroupKinds {
  circleCircle: { a: BallColumns2; b: BallColumns2 };
  circleRect: { a: BallColumns2; b: RectColumns };
  circleRotatedRect: { a: BallColumns2; b: RotatedRectColumns };
  rectRect: { a: RectColumns; b: RectColumns };
  sphereSphere: { a: BallColumns3; b: BallColumns3 };
  sphereBox: { a: BallColumns3; b: BoxColumns };
  boxBox: { a: BoxColumns; b: BoxColumns };
}
/** n pairs of one kind. */
export type IntersectColumnGroup = OneOf<IntersectGroupKinds>;
export interface IntersectColumnsRequest {
  groups?: IntersectColumnGroup[];
  boundary?: BoundaryRuleInput;
  includeRelation?: boolean;
  includeSeparation?: boolean;
}
export interface IntersectColumnsResult {
  count: number;       // n
  hitBits: Buffer;     // bit i (LSB first in byte i / 8): hit of pair i; see hits()
  relations: Buffer;   // n Relation values when includeRelation; see relations()
  separations: number[];  // n values when includeSeparation
}
export interface IntersectColumnsResponse {
  groups: IntersectColumnsResult[];  // groups[g] answers request.groups[g]
}

interface ClosestTargetKinds {
  circles: BallColumns2;
  rects: RectColumns;
  rotatedRects: RotatedRectColumns;
  spheres: BallColumns3;
  boxes: BoxColumns;
}
/** n queries (queries2 for 2D targets, queries3 for 3D) against n targets. */
export type ClosestPointColumnGroup =
  ({ queries2: BallColumns2; queries3?: never } |
   { queries3: BallColumns3; queries2?: never }) & OneOf<ClosestTargetKinds>;
export interface ClosestPointColumnsRequest {
  groups?: ClosestPointColumnGroup[];
  boundary?: BoundaryRuleInput;
}
/** 2D groups leave the z columns empty. */
export interface ClosestPointColumnsResult {
  count: number;
  closestX: number[]; closestY: number[]; closestZ: number[];
  surfaceX: number[]; surfaceY: number[]; surfaceZ: number[];
  normalX: number[]; normalY: number[]; normalZ: number[];
  signedDistance: number[];
  gap: number[];
  insideBits: Buffer;  // see inside()
}
export interface ClosestPointColumnsResponse {
  groups: ClosestPointColumnsResult[];
}

// ---------------------------------------------------------------------------
// Errors

export interface FieldViolation {
  /** 'pairs[3].a.circle.radius'; '' for the request as a whole, and for the
   * last entry of a capped list ('and N more invalid fields'). */
  field: string;
  description: string;  // 'must be >= 0, got -1'
}
/** google.rpc.BadRequest. */
export interface BadRequest { fieldViolations: FieldViolation[] }
/** A per-message failure on a stream (the stream stays open). */
export interface StreamError {
  code: number;  // a gRPC status code (3: INVALID_ARGUMENT)
  message: string;
  badRequest: BadRequest | null;
}
/** google.rpc.Status, as the grpc-status-details-bin trailer holds it. */
export interface RpcStatus {
  code: number;
  message: string;
  details: Array<{ typeUrl: string; value: Uint8Array }>;
}

/** A failed call: @grpc/grpc-js's error with the fields at fault. */
export interface CallError extends grpc.ServiceError {
  fieldViolations: FieldViolation[];
}
/** A request refused before it was sent (a wrong enum or field name, an
 * out-of-range integer): shaped like the server's INVALID_ARGUMENT. */
export declare class RequestError extends Error {
  readonly name: 'RequestError';
  readonly code: 3;
  readonly details: string;
  readonly fieldViolations: FieldViolation[];
}
/** The server rejected one message of a session; the session goes on. */
export declare class StreamMessageError extends Error {
  readonly name: 'StreamMessageError';
  readonly code: number;
  /** The code's name, as cc.status names it ('INVALID_ARGUMENT'). */
  readonly codeName: string;
  readonly details: string;
  readonly sequence: Uint64;
  readonly fieldViolations: FieldViolation[];
  /** The whole response (only sequence and error are set). */
  readonly response: QueryStreamResponse | SceneResponse;
}
/**
 * The fields at fault of a RequestError, a StreamMessageError, any
 * @grpc/grpc-js error (decoded from its trailers) or a StreamError; [] when
 * none are known.
 */
export declare function fieldViolations(
  err: CallError | RequestError | StreamMessageError | StreamError | unknown,
): FieldViolation[];
/** The google.rpc.Status of a call's trailers; null when absent or garbled. */
export declare function statusDetails(
  metadata: grpc.Metadata | null | undefined): RpcStatus | null;

// ---------------------------------------------------------------------------
// QueryStream

type QueryKinds = {
  intersect: IntersectRequest;
  closestPoint: ClosestPointRequest;
  intersectColumns: IntersectColumnsRequest;
  closestPointColumns: ClosestPointColumnsRequest;
};
/** One tick's request; sequence defaults to the previous one + 1. */
export type QueryStreamRequest = { sequence?: Uint64Input } & OneOf<QueryKinds>;

interface AnswerKinds {
  intersect: IntersectResponse;
  closestPoint: ClosestPointResponse;
  intersectColumns: IntersectColumnsResponse;
  closestPointColumns: ClosestPointColumnsResponse;
}
export type QueryStreamResponse = { sequence: Uint64; error: StreamError | null } &
  { [K in keyof AnswerKinds]: { answer: K } & { [P in K]: AnswerKinds[K] } }[keyof AnswerKinds];

// ---------------------------------------------------------------------------
// SceneService

export interface SceneConfig {
  dimension?: DimensionInput;    // required
  boundary?: BoundaryRuleInput;  // required: the rule of queries that set none
  maxEntities?: number;   // 0: the server's limit
  tickRate?: number;      // ticks per second; 0: 64
  historyTicks?: number;  // ticks kept for rewound queries; 0: one second
}
export interface SceneEntity {
  id?: Uint64Input;
  shape?: Shape;
  category?: number;  // layer bits; unset: 1
}
interface EntityShapeKinds {
  circles: BallColumns2;
  rects: RectColumns;
  rotatedRects: RotatedRectColumns;
  spheres: BallColumns3;
  boxes: BoxColumns;
  capsules: Capsule3Columns;
  orientedBoxes: OrientedBoxColumns;
}
/** Upserts in columns: ids[i] gets shape i. */
export type EntityColumns = { ids?: Uint64Column; categories?: NumberColumn } &
  OneOf<EntityShapeKinds>;
export interface SceneUpdate {
  tick?: Uint64Input;  // > the previous update's tick
  snapshot?: boolean;
  upserts?: SceneEntity[];
  upsertColumns?: EntityColumns[];
  removals?: Uint64Column;
}
export interface OverlapQuery {
  shape?: Shape;
  includeRelation?: boolean;
  includeSeparation?: boolean;
}
export interface NearestQuery {
  shape?: Shape;  // point or circle (2D), point3 or sphere (3D)
  k?: number;
  maxDistance?: number;
}
export interface RaycastQuery {
  origin?: Vec3;
  direction?: Vec3;  // not zero
  maxDistance?: number;
  allHits?: boolean;
}
export interface SweepQuery {
  origin?: Vec3;
  direction?: Vec3;
  maxDistance?: number;
  radius?: number;
  allHits?: boolean;
}
/** tick plus fraction (in [0, 1)) of the way to tick + 1. */
export interface SceneMoment { tick?: Uint64Input; fraction?: number }
interface SceneQueryKinds {
  overlap: OverlapQuery;
  nearest: NearestQuery;
  raycast: RaycastQuery;
  sweep: SweepQuery;
}
export type SceneQuery = {
  mask?: number;          // unset: every layer
  excludeId?: Uint64Input;
  maxHits?: number;       // 0: the server's limit
  boundary?: BoundaryRuleInput;  // unset: the scene's
  at?: SceneMoment;       // unset: the latest tick
} & OneOf<SceneQueryKinds>;
export interface SceneRequest {
  sequence?: Uint64Input;  // default: the previous one + 1
  config?: SceneConfig;    // the first message only
  update?: SceneUpdate;
  queries?: SceneQuery[];
}

export interface SceneHit {
  id: Uint64;
  relation: RelationName;           // overlap, when asked
  separation: number;               // overlap, when asked
  closest: ClosestPointResult | null;  // nearest
  distance: number;                 // raycast, sweep
  point: Vec3Value | null;          // raycast, sweep
  normal: Vec3Value | null;         // raycast, sweep
}
export interface SceneMomentValue { tick: Uint64; fraction: number }
export interface SceneQueryResult {
  hits: SceneHit[];
  truncated: boolean;
  error: StreamError | null;  // this query only (FAILED_PRECONDITION)
  at: SceneMomentValue | null;
  clamped: boolean;
}
export interface SceneResponse {
  sequence: Uint64;
  error: StreamError | null;  // the message was rejected whole
  tick: Uint64;
  entities: number;
  results: SceneQueryResult[];  // results[i] answers queries[i]
}

// ---------------------------------------------------------------------------
// The client

/** Metadata as an object ({ 'x-tenant': 'a' }) or a grpc.Metadata. */
export type MetadataInput =
  | Record<string, string | Buffer | Array<string | Buffer>>
  | grpc.Metadata;

export interface ClientOptions {
  /** Deadline of each unary call, ms. Default 5000. Infinity: none. */
  deadlineMs?: number;
  /** Deadline of each session (stream), ms. Default: none. */
  streamDeadlineMs?: number;
  /** Sent on every call. */
  metadata?: MetadataInput;
  /** Sent as `authorization: Bearer <token>` on every call. */
  token?: string;
  /** Default grpc.credentials.createInsecure(). */
  credentials?: grpc.ChannelCredentials;
  /** Retry UNAVAILABLE (up to 4 attempts, from a budget). Default true. */
  retry?: boolean;
  /** More @grpc/grpc-js channel options. */
  channelOptions?: grpc.ChannelOptions;
}
export interface CallOptions {
  deadlineMs?: number;      // default: the client's deadlineMs
  metadata?: MetadataInput;  // added to the client's
  signal?: AbortSignal;     // aborting cancels the call (CANCELLED)
}
export interface SessionOptions {
  deadlineMs?: number;      // default: the client's streamDeadlineMs
  metadata?: MetadataInput;
}
export interface QueryStreamOptions extends SessionOptions {
  /** Reopen a stream the server ends at its maximum age and resend what it
   * had not answered. Default true. */
  reopen?: boolean;
}

/** One stream, one message at a time; responses come in order. */
export interface Session<Request, Response> {
  /** Streams reopened after the server ended one at its maximum age. */
  readonly reopened: number;
  /** Resolves to the response; rejects with a StreamMessageError when the
   * server rejected this message, a RequestError when it was refused before
   * sending, or the stream's error (a CallError) once the stream failed. */
  send(request: Request): Promise<Response>;
  /** Half-closes; resolves to the final status once every response came. */
  close(): Promise<grpc.StatusObject>;
  /** Ends the stream now; unanswered sends reject with CANCELLED. */
  cancel(): Promise<grpc.StatusObject>;
}
export interface QuerySession extends Session<QueryStreamRequest, QueryStreamResponse> {
  intersect(request: IntersectRequest, sequence?: Uint64Input): Promise<IntersectResponse>;
  closestPoint(request: ClosestPointRequest, sequence?: Uint64Input): Promise<ClosestPointResponse>;
  intersectColumns(request: IntersectColumnsRequest, sequence?: Uint64Input): Promise<IntersectColumnsResponse>;
  closestPointColumns(request: ClosestPointColumnsRequest, sequence?: Uint64Input): Promise<ClosestPointColumnsResponse>;
}
/** One raw scene stream: the first message carries the config. Not
 * reopened: the scene lives as long as its stream (SceneSession is the one
 * with failover). */
export type SceneStream = Session<SceneRequest, SceneResponse>;

export interface SceneSessionOptions extends SessionOptions {
  /** Streams in a row that may break (or fail to reopen) with no message
   * answered before the messages in flight fail with UNAVAILABLE.
   * Default 8. */
  maxReopens?: number;
  /** Backoff between reopenings, ms: none after the first break, then from
   * firstBackoffMs (20) doubling up to maxBackoffMs (1000). */
  firstBackoffMs?: number;
  maxBackoffMs?: number;
  /** A message unanswered this long (ms) on its stream fails with
   * DEADLINE_EXCEEDED; the others go on a new stream. Default 10000;
   * Infinity: none. */
  messageTimeoutMs?: number;
}
/** The stream's failure, or the session's own: a message in hand when the
 * server ended the stream with a status that is not a transport break
 * (RESOURCE_EXHAUSTED over --max_receive_message_bytes, DEADLINE_EXCEEDED
 * of a stream deadline), messageTimeoutMs, the service unreachable after
 * maxReopens (UNAVAILABLE), a send after close (FAILED_PRECONDITION),
 * cancel() (CANCELLED). */
export declare class SceneSessionError extends Error {
  readonly name: 'SceneSessionError';
  readonly code: grpc.status;
  /** The code's name ('DEADLINE_EXCEEDED'). */
  readonly codeName: string;
  readonly details: string;
  readonly metadata: grpc.Metadata;
  readonly fieldViolations: FieldViolation[];
  readonly sequence: null;
}
/**
 * A scene that survives its streams (client.openSceneSession): the
 * acknowledged world is kept, and a stream that breaks (a drain, the
 * server's maximum stream age, a replica killed) is reopened with the
 * config, a snapshot, the history window's updates and the messages that
 * had no answer. send() hands a tick over and resolves to its answer;
 * messages in flight are answered in order.
 */
export declare class SceneSession {
  private constructor();
  /** Streams reopened so far. */
  readonly reopens: number;
  /** Entities in the scene, as the server last acknowledged. */
  readonly entities: number;
  /** The last acknowledged update's tick, or null. */
  readonly tick: Uint64 | null;
  /** Updates kept for the history window (resent after a reopen). */
  readonly keptUpdates: number;
  /** Messages handed over and not yet answered. */
  readonly inFlight: number;
  /** Its sequence and config are the session's. Rejects with a
   * RequestError (refused before sending), a StreamMessageError (the
   * server's verdict: nothing changed, the scene goes on) or a
   * SceneSessionError. */
  send(request: SceneRequest): Promise<SceneResponse>;
  /** Waits for the answers in flight, half-closes, resolves once the
   * stream ended. Never rejects. */
  close(): Promise<void>;
  /** Ends the stream now; what is in flight rejects with CANCELLED. */
  cancel(): Promise<void>;
}

export declare class CollisionClient {
  constructor(target: string, options?: ClientOptions);
  readonly target: string;
  deadlineMs: number;
  streamDeadlineMs: number;
  /** The @grpc/grpc-js stubs (one channel). */
  readonly collision: grpc.Client;
  readonly scene: grpc.Client;
  readonly health: grpc.Client;
  /** Calls reject with a CallError (or a RequestError, unsent). */
  intersect(request: IntersectRequest, options?: CallOptions): Promise<IntersectResponse>;
  closestPoint(request: ClosestPointRequest, options?: CallOptions): Promise<ClosestPointResponse>;
  intersectColumns(request: IntersectColumnsRequest, options?: CallOptions): Promise<IntersectColumnsResponse>;
  closestPointColumns(request: ClosestPointColumnsRequest, options?: CallOptions): Promise<ClosestPointColumnsResponse>;
  openQueryStream(options?: QueryStreamOptions): QuerySession;
  openScene(options?: SessionOptions): SceneStream;
  /** A scene with failover, once the server accepted `config`; rejects
   * with a RequestError, the opening's StreamMessageError (the config
   * refused) or a SceneSessionError (unreachable). */
  openSceneSession(config: SceneConfig, options?: SceneSessionOptions): Promise<SceneSession>;
  /** Connected, and the health service says `service` (default
   * collision.v1.CollisionService) is SERVING; rejects after timeoutMs
   * (default 20000). */
  waitUntilServing(options?: { timeoutMs?: number; service?: string }): Promise<void>;
  close(): void;
}
/** A client of the service at target ('host:port', 'dns:///name:port'). */
export declare function createClient(target: string, options?: ClientOptions): CollisionClient;

// ---------------------------------------------------------------------------
// Shape builders. Derived values are computed in float32, as the C++ client
// and the seeds compute them.

/** Degrees to radians, rounded to float32. */
export declare function degreesToRadians(degrees: number): number;
export declare function point(x: number, y: number): { point: Vec2 };
export declare function circle(centerX: number, centerY: number, radius: number): { circle: Circle };
export declare function rectFromMinMax(minX: number, minY: number, maxX: number, maxY: number): { rect: Rect };
/** Seeds 000, 001: (x, y) the top-left corner on a y-down screen;
 * max = (x + width, y + height). */
export declare function rectFromCornerSize(x: number, y: number, width: number, height: number): { rect: Rect };
/** Seed 002: min = c - h, max = c + h. */
export declare function rectFromCenterHalfExtents(centerX: number, centerY: number, halfWidth: number, halfHeight: number): { rect: Rect };
/** Seed 003: size, pivot (offset from the min corner), pivot position, angle. */
export declare function rotatedRectFromPivot(width: number, height: number, pivotX: number, pivotY: number, positionX: number, positionY: number, angleRadians: number): { rotatedRect: RotatedRect };
export declare function rotatedRectFromPivotCosSin(width: number, height: number, pivotX: number, pivotY: number, positionX: number, positionY: number, cos: number, sin: number): { rotatedRect: RotatedRect };
/** Unrotated corner + size, rotated about the centre. Seed 004 turns the
 * other way: pass -theta for its theta. */
export declare function rotatedRectAboutCenter(x: number, y: number, width: number, height: number, angleRadians: number): { rotatedRect: RotatedRect };
export declare function point3(x: number, y: number, z: number): { point3: Vec3 };
export declare function sphere(centerX: number, centerY: number, centerZ: number, radius: number): { sphere: Sphere };
export declare function boxFromMinMax(minX: number, minY: number, minZ: number, maxX: number, maxY: number, maxZ: number): { box: Box };
export declare function boxFromCenterHalfExtents(centerX: number, centerY: number, centerZ: number, halfX: number, halfY: number, halfZ: number): { box: Box };
/** Every point within radius of the segment from a to b (a hitbox limb). */
export declare function capsule3(aX: number, aY: number, aZ: number, bX: number, bY: number, bZ: number, radius: number): { capsule3: Capsule3 };
/** A box turned by the unit quaternion (qw, qx, qy, qz) about its centre;
 * sent as given (the server refuses one not within 1e-5 of unit length). */
export declare function orientedBox(centerX: number, centerY: number, centerZ: number, halfX: number, halfY: number, halfZ: number, qw: number, qx: number, qy: number, qz: number): { orientedBox: OrientedBox };
/** The same turned by angleRadians about the axis, counter-clockwise looking
 * down it; the axis is normalised; a zero or non-finite axis gives the
 * unturned box. */
export declare function orientedBoxAxisAngle(centerX: number, centerY: number, centerZ: number, halfX: number, halfY: number, halfZ: number, axisX: number, axisY: number, axisZ: number, angleRadians: number): { orientedBox: OrientedBox };

export interface IntersectOptions {
  boundary?: BoundaryRuleInput;  // default 'BOUNDARY_RULE_INCLUSIVE'
  relation?: boolean;            // default false
  separation?: boolean;          // default false
}
export interface ClosestPointOptions {
  boundary?: BoundaryRuleInput;  // default 'BOUNDARY_RULE_INCLUSIVE'
}
export declare function intersectRequest(
  pairs: ReadonlyArray<readonly [Shape, Shape] | ShapePair>,
  options?: IntersectOptions): IntersectRequest;
export declare function closestPointRequest(
  queries: ReadonlyArray<readonly [Shape, Shape] | ClosestPointQuery>,
  options?: ClosestPointOptions): ClosestPointRequest;

// ---------------------------------------------------------------------------
// Column builders; each checks that its columns have one length (TypeError,
// RangeError otherwise).

export declare const columns: {
  circleCircle(a: BallColumns2, b: BallColumns2): IntersectColumnGroup;
  circleRect(a: BallColumns2, b: RectColumns): IntersectColumnGroup;
  circleRotatedRect(a: BallColumns2, b: RotatedRectColumns): IntersectColumnGroup;
  rectRect(a: RectColumns, b: RectColumns): IntersectColumnGroup;
  sphereSphere(a: BallColumns3, b: BallColumns3): IntersectColumnGroup;
  sphereBox(a: BallColumns3, b: BoxColumns): IntersectColumnGroup;
  boxBox(a: BoxColumns, b: BoxColumns): IntersectColumnGroup;
  closestToCircles(queries: BallColumns2, circles: BallColumns2): ClosestPointColumnGroup;
  closestToRects(queries: BallColumns2, rects: RectColumns): ClosestPointColumnGroup;
  closestToRotatedRects(queries: BallColumns2, rotatedRects: RotatedRectColumns): ClosestPointColumnGroup;
  closestToSpheres(queries: BallColumns3, spheres: BallColumns3): ClosestPointColumnGroup;
  closestToBoxes(queries: BallColumns3, boxes: BoxColumns): ClosestPointColumnGroup;
  /** Corner + size columns to min/max (float32). */
  rectsFromCornerSize(c: { x: NumberColumn; y: NumberColumn; width: NumberColumn; height: NumberColumn }): RectColumns;
  rectsFromCenterHalfExtents(c: { x: NumberColumn; y: NumberColumn; halfWidth: NumberColumn; halfHeight: NumberColumn }): RectColumns;
  /** Corner + size + angle about the centre (seed 004: -theta). */
  rotatedRectsAboutCenter(c: { x: NumberColumn; y: NumberColumn; width: NumberColumn; height: NumberColumn; angle: NumberColumn }): RotatedRectColumns;
  boxesFromCenterHalfExtents(c: { x: NumberColumn; y: NumberColumn; z: NumberColumn; halfX: NumberColumn; halfY: NumberColumn; halfZ: NumberColumn }): BoxColumns;
};
/** One group or several; defaults as intersectRequest's. */
export declare function intersectColumnsRequest(
  groups: IntersectColumnGroup | IntersectColumnGroup[],
  options?: IntersectOptions): IntersectColumnsRequest;
export declare function closestPointColumnsRequest(
  groups: ClosestPointColumnGroup | ClosestPointColumnGroup[],
  options?: ClosestPointOptions): ClosestPointColumnsRequest;

// ---------------------------------------------------------------------------
// Bitsets: bit i is bit i % 8 (least significant first) of byte i / 8.

export declare function bitAt(bytes: Uint8Array, i: number): boolean;
export declare function unpackBits(bytes: Uint8Array, n: number): boolean[];
export declare function countBits(bytes: Uint8Array, n: number): number;
/** hits(response)[g][i]: pair i of request group g; hits(group) one group's. */
export declare function hits(response: { groups: ReadonlyArray<{ count: number; hitBits: Uint8Array }> }): boolean[][];
export declare function hits(group: { count: number; hitBits: Uint8Array }): boolean[];
export declare function inside(response: { groups: ReadonlyArray<{ count: number; insideBits: Uint8Array }> }): boolean[][];
export declare function inside(group: { count: number; insideBits: Uint8Array }): boolean[];
/** Relation names (requests with relation: true; else empty arrays). */
export declare function relations(response: { groups: ReadonlyArray<{ relations: Uint8Array }> }): RelationName[][];
export declare function relations(group: { relations: Uint8Array }): RelationName[];

// ---------------------------------------------------------------------------
// Requests and uint64

/** A uint64 as the decimal string sent; RangeError when it is not one. */
export declare function toUint64(value: Uint64Input): Uint64;
/**
 * A request checked against its message type ('collision.v1.IntersectRequest'),
 * as every call checks it before sending; returns what is then encoded (the
 * .proto's snake_case field names, enum numbers, uint64 decimal strings,
 * float columns as given). Throws a RequestError listing every field at fault.
 */
export declare function checkRequest(typeName: string, request: unknown): Record<string, unknown>;
