// Checks a request written as a plain object against its message type and
// turns it into what the serializer expects, so that mistakes the protobuf
// serializer would let through silently fail here, naming the field:
// an unknown field name ('centre'), an enum name that is not one
// ('INCLUDE' would be sent as *_UNSPECIFIED), two members of one oneof,
// a uint64 that is negative, fractional or above 2^53 as a Number (already
// rounded), a uint32 out of range (it would wrap).
//
// Accepted: field names in lowerCamelCase or as in the .proto (snake_case);
// null or undefined for unset; enum values by full name, short name (the
// name without the enum's prefix: 'INCLUSIVE', '2D') or number; 64-bit
// integers as decimal strings, BigInts or safe-integer Numbers (sent as
// decimal strings); floats as Numbers or the proto3 JSON strings ('NaN',
// 'Infinity', '-Infinity', '1.5'); repeated numbers as arrays or typed
// arrays (Float32Array, BigUint64Array, ...); each oneof's virtual
// discriminator as responses carry it (`kind: 'circle'`), when it agrees.
'use strict';

const os = require('node:os');
const protobuf = require('protobufjs');
const { loadRoot } = require('./protos');

const INVALID_ARGUMENT = 3;
const UINT64_MAX = (1n << 64n) - 1n;
const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;

// A request the client refused before sending it. Shaped like a gRPC error
// of the server's: code INVALID_ARGUMENT, `details`, `fieldViolations`.
class RequestError extends Error {
  constructor(typeName, violations) {
    const shown = violations.slice(0, 10)
      .map((v) => `${v.field} ${v.description}`);
    if (violations.length > shown.length) {
      shown.push(`and ${violations.length - shown.length} more`);
    }
    const details = `invalid ${typeName}: ${shown.join('; ')}`;
    super(details);
    this.name = 'RequestError';
    this.code = INVALID_ARGUMENT;
    this.details = details;
    this.fieldViolations = violations;
  }
}

const describe = (v) => {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'bigint') return `${v}n`;
  if (Array.isArray(v)) return 'an array';
  if (v !== null && typeof v === 'object') return 'an object';
  return String(v);
};

const join = (path, name) => (path ? `${path}.${name}` : name);

// 'BoundaryRule' -> 'BOUNDARY_RULE_'.
const enumPrefix = (name) =>
  `${name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase()}_`;

// What a message type's fields and oneofs are called, both spellings, and
// how each field is checked.
const typeInfo = new WeakMap();
function infoOf(type) {
  let info = typeInfo.get(type);
  if (!info) {
    const fields = new Map();
    for (const f of type.fieldsArray) {
      const kind = f.resolvedType instanceof protobuf.Type ? 'message'
        : f.resolvedType instanceof protobuf.Enum ? 'enum' : f.type;
      const entry = { field: f, name: f.name, kind, oneof: f.partOf };
      fields.set(f.name, entry);
      fields.set(protobuf.util.camelCase(f.name), entry);
    }
    const oneofs = new Map();
    for (const o of type.oneofsArray) {
      oneofs.set(o.name, o);
      oneofs.set(protobuf.util.camelCase(o.name), o);
    }
    info = {
      fields,
      oneofs,
      fullName: type.fullName.replace(/^\./, ''),
      names: type.fieldsArray.map((f) => f.name).join(', '),
    };
    typeInfo.set(type, info);
  }
  return info;
}

const enumInfo = new WeakMap();
function infoOfEnum(e) {
  let info = enumInfo.get(e);
  if (!info) {
    const prefix = enumPrefix(e.name);
    const byName = new Map();
    for (const [name, number] of Object.entries(e.values)) {
      byName.set(name, number);
      if (name.startsWith(prefix)) {
        byName.set(name.slice(prefix.length), number);
      }
    }
    const meaningful = Object.keys(e.values)
      .filter((n) => !n.endsWith('_UNSPECIFIED'));
    const shortOnes = meaningful.filter((n) => n.startsWith(prefix))
      .map((n) => n.slice(prefix.length));
    info = {
      byName,
      allowed: `one of ${meaningful.join(', ')}` +
        (shortOnes.length ? ` (or ${shortOnes.join(', ')})` : ''),
    };
    enumInfo.set(e, info);
  }
  return info;
}

function toBigInt(v) {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number') {
    return Number.isSafeInteger(v) ? BigInt(v) : null;
  }
  if (typeof v === 'string' && /^-?[0-9]+$/.test(v)) return BigInt(v);
  return null;
}

// A 64-bit unsigned integer as the decimal string the package sends and
// returns. Throws RangeError for anything else.
function toUint64(v) {
  const b = toBigInt(v);
  if (b === null || b < 0n || b > UINT64_MAX) {
    throw new RangeError(`${describe(v)} is not a uint64: use a decimal ` +
      'string, a BigInt, or a Number that is a safe integer, in ' +
      `[0, ${UINT64_MAX}]`);
  }
  return b.toString();
}

const isNumberArray = (v) => ArrayBuffer.isView(v) && !(v instanceof DataView)
  && !(v instanceof BigInt64Array) && !(v instanceof BigUint64Array);

// The checked request has the .proto's field names, enum numbers, 64-bit
// integers as decimal strings and numeric typed arrays as given: what
// protobufjs's Type.encode takes (without the cost of Type.fromObject).
// Paths are built only for what fails.
class Checker {
  constructor() {
    this.violations = [];
  }

  fail(path, description) {
    this.violations.push({ field: path(), description });
    return undefined;
  }

  message(type, value, path) {
    const info = infoOf(type);
    if (value === null || typeof value !== 'object' || Array.isArray(value) ||
        ArrayBuffer.isView(value)) {
      return this.fail(() => path() || '(request)',
        `must be an object (a ${info.fullName}), got ${describe(value)}`);
    }
    const out = {};
    let chosen = null;     // oneof -> the member set
    let announced = null;  // [oneof, key, member name given]
    for (const key in value) {
      if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
      const v = value[key];
      if (v === undefined || v === null) continue;
      const entry = info.fields.get(key);
      const where = () => join(path(), entry ? entry.name : key);
      if (!entry) {
        const oneof = info.oneofs.get(key);
        if (oneof && typeof v === 'string') {
          (announced || (announced = [])).push([oneof, key, v]);
        } else {
          this.fail(where, `is not a field of ${info.fullName} ` +
            `(its fields: ${info.names})`);
        }
        continue;
      }
      if (entry.oneof) {
        chosen = chosen || new Map();
        if (chosen.has(entry.oneof)) {
          this.fail(where, 'cannot be set together with ' +
            `${chosen.get(entry.oneof)} (oneof ${entry.oneof.name} takes one ` +
            'of them)');
          continue;
        }
        chosen.set(entry.oneof, entry.name);
      }
      const checked = entry.field.repeated ? this.repeated(entry, v, where)
        : this.single(entry, v, where);
      if (checked !== undefined) out[entry.name] = checked;
    }
    for (const [oneof, key, member] of announced || []) {
      const set = chosen && chosen.get(oneof);
      const same = set !== undefined && (member === set ||
        member === protobuf.util.camelCase(set));
      if (!same && !(set === undefined && member === '')) {
        this.fail(() => join(path(), key), `says ${describe(member)} but the ` +
          `member of oneof ${oneof.name} that is set is ${set || 'none'}`);
      }
    }
    return out;
  }

  repeated(entry, v, path) {
    const { kind } = entry;
    // Typed arrays of floats (and unsigned ones of uint32s) hold only
    // valid values: encoded as they are.
    if (isNumberArray(v) && (kind === 'float' || kind === 'double' ||
        (kind === 'uint32' && (v instanceof Uint32Array ||
          v instanceof Uint16Array || v instanceof Uint8Array)))) {
      return v;
    }
    let items = v;
    if (ArrayBuffer.isView(v) && !(v instanceof DataView) &&
        kind !== 'message' && kind !== 'bytes' && kind !== 'string' &&
        kind !== 'bool') {
      items = Array.from(v);
    } else if (!Array.isArray(v)) {
      return this.fail(path, 'must be an array (repeated ' +
        `${entry.field.type}), got ${describe(v)}`);
    }
    const out = new Array(items.length);
    for (let i = 0; i < items.length; i += 1) {
      const item = items[i];
      const where = () => `${path()}[${i}]`;
      out[i] = item === null || item === undefined
        ? this.fail(where, 'is not set (repeated fields cannot hold unset ' +
          'elements)')
        : this.single(entry, item, where);
    }
    return out;
  }

  single(entry, v, path) {
    switch (entry.kind) {
      case 'message':
        return this.message(entry.field.resolvedType, v, path);
      case 'enum':
        return this.enumValue(entry.field.resolvedType, v, path);
      case 'float':
      case 'double':
        return typeof v === 'number' ? v : this.float(v, path);
      case 'int32':
      case 'sint32':
      case 'sfixed32':
        return this.integer(v, path, entry.kind, -(2 ** 31), 2 ** 31 - 1);
      case 'uint32':
      case 'fixed32':
        return this.integer(v, path, entry.kind, 0, 2 ** 32 - 1);
      case 'uint64':
      case 'fixed64':
        return this.int64(v, path, entry.kind, 0n, UINT64_MAX);
      case 'int64':
      case 'sint64':
      case 'sfixed64':
        return this.int64(v, path, entry.kind, INT64_MIN, INT64_MAX);
      case 'bool':
        return typeof v === 'boolean' ? v
          : this.fail(path, `must be true or false, got ${describe(v)}`);
      case 'string':
        return typeof v === 'string' ? v
          : this.fail(path, `must be a string, got ${describe(v)}`);
      case 'bytes':
        return (v instanceof Uint8Array || typeof v === 'string') ? v
          : this.fail(path, 'must be a Buffer, a Uint8Array or a base64 ' +
            `string, got ${describe(v)}`);
      default:
        return this.fail(path, `has unsupported type ${entry.kind}`);
    }
  }

  // proto3 JSON's strings for floats: 'NaN', 'Infinity', '-1.5'.
  float(v, path) {
    if (typeof v === 'string' && v.trim() !== '' && !Number.isNaN(Number(v))) {
      return Number(v);
    }
    if (v === 'NaN') return NaN;
    return this.fail(path, `must be a number, got ${describe(v)}`);
  }

  integer(v, path, type, min, max) {
    const n = typeof v === 'string' && /^-?[0-9]+$/.test(v) ? Number(v) : v;
    if (typeof n === 'number' && Number.isInteger(n) && n >= min && n <= max) {
      return n;
    }
    return this.fail(path, `must be an integer in [${min}, ${max}] ` +
      `(${type}), got ${describe(v)}`);
  }

  int64(v, path, type, min, max) {
    const b = toBigInt(v);
    if (b !== null && b >= min && b <= max) return b.toString();
    const why = typeof v === 'number' && Number.isInteger(v)
      ? ' (a Number above 2^53 has been rounded already: use a string or ' +
        'a BigInt)' : '';
    return this.fail(path, `must be a ${type} in [${min}, ${max}] as a ` +
      `decimal string, a BigInt or a safe-integer Number, got ${describe(v)}` +
      why);
  }

  enumValue(e, v, path) {
    const info = infoOfEnum(e);
    if (typeof v === 'string') {
      const number = info.byName.get(v);
      if (number !== undefined) return number;
    } else if (typeof v === 'number' && Number.isInteger(v) &&
               e.valuesById[v] !== undefined) {
      return v;
    }
    return this.fail(path, `must be a ${e.name}: ${info.allowed}; got ` +
      describe(v));
  }
}

// Column messages (every field a packed repeated float) are encoded from
// Float32Arrays as their bytes, one copy per column: protobufjs writes
// floats one operation each, 20x slower for 100 000-pair columns. Wire
// floats are little-endian, as Float32Array is on a little-endian machine.
function encodeColumnsFast(type) {
  const fields = type.fieldsArray.map(
    (f) => ({ name: f.name, tag: ((f.id << 3) | 2) >>> 0 }));
  return (message, writer) => {
    const w = writer || protobuf.Writer.create();
    for (const { name, tag } of fields) {
      const v = message[name];
      if (v === undefined || v === null || v.length === 0) continue;
      const f32 = v instanceof Float32Array ? v : Float32Array.from(v);
      w.uint32(tag).bytes(
        new Uint8Array(f32.buffer, f32.byteOffset, f32.byteLength));
    }
    return w;
  };
}

let preparedRoot = null;
function root() {
  if (!preparedRoot) {
    preparedRoot = loadRoot();
    const pending = [preparedRoot];
    while (pending.length) {
      const ns = pending.pop();
      for (const nested of ns.nestedArray || []) {
        pending.push(nested);
        if (!(nested instanceof protobuf.Type)) continue;
        const fields = nested.fieldsArray;
        const columns = fields.length > 0 && fields.every(
          (f) => f.repeated && f.type === 'float' && f.packed);
        if (columns && os.endianness() === 'LE') {
          nested.setup();  // after which encode stays as set here
          nested.encode = encodeColumnsFast(nested);
        }
      }
    }
  }
  return preparedRoot;
}

function check(typeName, request) {
  const type = root().lookupType(typeName);
  const checker = new Checker();
  const out = checker.message(type, request, () => '');
  if (checker.violations.length) {
    throw new RequestError(typeName, checker.violations);
  }
  return { type, checked: out };
}

// `request` checked against the message type `typeName` (e.g.
// 'collision.v1.IntersectRequest'): what will be encoded (the .proto's
// field names, enum numbers, 64-bit integers as decimal strings). Throws a
// RequestError listing every field at fault.
const checkRequest = (typeName, request) => check(typeName, request).checked;

// `request` checked and encoded: the bytes sent, and what was encoded.
function encodeRequest(typeName, request) {
  const { type, checked } = check(typeName, request);
  return { bytes: type.encode(checked).finish(), checked };
}

// What checkRequest returned (or the package built in that form), encoded.
const encodeChecked = (typeName, checked) =>
  root().lookupType(typeName).encode(checked).finish();

module.exports = {
  RequestError, checkRequest, encodeRequest, encodeChecked, toUint64,
};
