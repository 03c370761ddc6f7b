#include "collision/core/cast.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>
#include <limits>
#include <optional>
#include <variant>

#include "collision/core/hitbox3.h"
#include "collision/core/scalar.h"
#include "exact_vec.h"

namespace collision {
namespace {

// Every target is handled as a box [lo, hi] grown by a radius: a rectangle
// or box has radius 0, a point, circle or sphere is a box with lo == hi. A
// swept ball adds its radius. Arithmetic as in scalar.cc (exact_vec.h): no
// fused multiply-add, no reassociation, so that integer inputs stay exact.
using exact::A;
using exact::Dot;
using exact::kMinNormal;
using exact::ToVec3;
using exact::V;

// 0 - v rather than -v: a zero component comes out +0, not -0.
template <int N>
V<N> Negated(const V<N>& v) {
  V<N> out;
  for (int i = 0; i < N; ++i) out[i] = 0.0f - v[i];
  return out;
}

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kMaxFloat = std::numeric_limits<float>::max();

// v / |v|, dividing by the square root of the plain sum of squares so that
// an axis-aligned v comes out exact. When |v|^2 underflows (or overflows)
// v is first divided by its largest component, as scalar.cc does. A zero v
// gives `fallback`.
template <int N>
V<N> Unit(V<N> v, const V<N>& fallback) {
  float s = Dot<N>(v, v);
  if (!(s >= kMinNormal && s <= kMaxFloat)) {
    float m = 0;
    for (float x : v) m = std::max(m, std::fabs(x));
    if (m == 0.0f) return fallback;
    for (float& x : v) x = x / m;
    s = Dot<N>(v, v);
  }
  const float len = std::sqrt(s);
  for (float& x : v) x = x / len;
  return v;
}

// The segment o + t * d, t in [0, max].
template <int N>
struct Segment {
  V<N> o;
  V<N> d;
  float max;
};

template <int N>
V<N> At(const Segment<N>& s, float t) {
  V<N> p;
  for (int i = 0; i < N; ++i) p[i] = s.o[i] + t * s.d[i];
  return p;
}

// Which constraint set Span::enter: 2 * axis (+1 for the max face) for a
// slab, kRound for a disc, ball or cylinder, kNone before any constraint.
constexpr int kNone = -1;
constexpr int kRound = -2;

// The values of t where the line o + t * d lies in a convex part, as the
// intersection of one interval per constraint: [enter, exit] for the closed
// part and (enter, exit) for its interior. `closed` / `open` turn false when
// a constraint the line runs parallel to excludes the line entirely.
struct Span {
  float enter = -kInf;
  float exit = kInf;
  int face = kNone;
  bool closed = true;
  bool open = true;
};

// Strictly greater: the constraint clipped first keeps a tie.
void Clip(Span* s, float t0, float t1, int face) {
  if (t0 > s->enter) {
    s->enter = t0;
    s->face = face;
  }
  s->exit = std::min(s->exit, t1);
}

// One slab lo <= o + t * d <= hi (Ericson, RTCD 5.3.3). A zero d is handled
// exactly: the line is in the closed (open) slab or not at all.
void ClipSlab(Span* s, float o, float d, float lo, float hi, int axis) {
  if (d == 0.0f) {
    s->closed = s->closed && lo <= o && o <= hi;
    s->open = s->open && lo < o && o < hi;
    return;
  }
  const float t_lo = (lo - o) / d;
  const float t_hi = (hi - o) / d;
  if (d > 0.0f) {
    Clip(s, t_lo, t_hi, 2 * axis);
  } else {
    Clip(s, t_hi, t_lo, 2 * axis + 1);
  }
}

// |m + t * d| <= r over K components: a disc or ball (K = N), or the
// cross-section of a cylinder (K = 2). m is the origin relative to the
// centre. The half-b quadratic a t^2 + 2 b t + c = 0, with the discriminant
// taken from the perpendicular offset m - (b / a) d rather than b^2 - a c,
// and the roots in the cancellation-free form q / a and c / q (Haines et
// al., "Precision Improvements for Ray/Sphere Intersection", Ray Tracing
// Gems, ch. 7).
template <int K>
void ClipRound(Span* s, const V<K>& m, const V<K>& d, float r) {
  const float a = Dot<K>(d, d);
  const float m2 = Dot<K>(m, m);
  const float r2 = r * r;
  if (a == 0.0f) {  // moving along a cylinder's axis
    s->closed = s->closed && m2 <= r2;
    s->open = s->open && m2 < r2;
    return;
  }
  const float b = Dot<K>(m, d);
  const float k = b / a;
  V<K> perp;
  for (int i = 0; i < K; ++i) perp[i] = m[i] - k * d[i];
  // |perp| <= |m| exactly, so r2 - m2 is a lower bound; it keeps an origin
  // that is inside by the float test m2 < r2 inside despite rounding.
  const float disc = std::max(r2 - Dot<K>(perp, perp), r2 - m2);
  if (disc < 0.0f) {
    s->closed = s->open = false;
    return;
  }
  const float root = std::sqrt(a * disc);
  if (root == 0.0f) {  // tangent: one point, no interior
    const float t = (0.0f - b) / a;
    Clip(s, t, t, kRound);
    return;
  }
  const float q = b < 0.0f ? root - b : 0.0f - (b + root);
  const float c = m2 - r2;
  const float t0 = q / a;
  const float t1 = c / q;
  Clip(s, std::min(t0, t1), std::max(t0, t1), kRound);
}

// A point has no interior; a line meets it only when the cross product of
// m and d, evaluated in float, is exactly zero.
bool Collinear(const V<2>& m, const V<2>& d) {
  return m[0] * d[1] == m[1] * d[0];
}
bool Collinear(const V<3>& m, const V<3>& d) {
  return m[1] * d[2] == m[2] * d[1] && m[2] * d[0] == m[0] * d[2] &&
         m[0] * d[1] == m[1] * d[0];
}

template <int N>
void ClipPoint(Span* s, const V<N>& m, const V<N>& d) {
  s->open = false;
  if (!Collinear(m, d)) {
    s->closed = false;
    return;
  }
  const float t = (0.0f - Dot<N>(m, d)) / Dot<N>(d, d);
  Clip(s, t, t, kRound);
}

bool Touches(const Span& s, float max) {
  return s.closed && s.enter <= s.exit && s.enter <= max && s.exit >= 0.0f;
}
// The segment [0, max] meets the open interval (enter, exit).
bool PassesThrough(const Span& s, float max) {
  return s.open && s.enter < s.exit && s.enter < max && s.exit > 0.0f;
}
float Entry(const Span& s) { return s.enter > 0.0f ? s.enter : 0.0f; }

// One convex piece of the (grown) target. `own_face` is the face a first
// contact can legitimately come through: a slab face of axis own_face, any
// slab face (kNone), or the rounded surface (kRound).
struct Part {
  Span span;
  int own_face = kNone;
  float radius = 0;  // of the rounded constraint
};

bool EnteredThroughOwnFace(const Part& p) {
  if (Entry(p.span) == 0.0f) return true;
  if (p.own_face == kRound) return p.span.face == kRound;
  return p.span.face >= 0 &&
         (p.own_face == kNone || p.span.face / 2 == p.own_face);
}

// Slabs of [lo, hi], visited from axis `first` on so that it wins ties.
template <int N>
Part BoxPart(const Segment<N>& s, const V<N>& lo, const V<N>& hi, int first,
             int own_face) {
  Part p;
  p.own_face = own_face;
  for (int n = 0; n < N; ++n) {
    const int i = (first + n) % N;
    ClipSlab(&p.span, s.o[i], s.d[i], lo[i], hi[i], i);
  }
  return p;
}

template <int N>
Part BallPart(const Segment<N>& s, const V<N>& center, float radius) {
  Part p;
  p.own_face = kRound;
  p.radius = radius;
  V<N> m;
  for (int i = 0; i < N; ++i) m[i] = s.o[i] - center[i];
  if (radius == 0.0f) {
    ClipPoint<N>(&p.span, m, s.d);
  } else {
    ClipRound<N>(&p.span, m, s.d, radius);
  }
  return p;
}

// The earliest part the segment touches. A part entered through a face that
// is not its own (a grown box through a side that lies inside a corner
// ball, a cylinder through its cap) is never first in exact arithmetic, so
// it only stands in when rounding left nothing else.
struct Earliest {
  bool touch = false;
  bool through = false;
  bool own = false;
  Part best;

  void Offer(const Part& p, float max) {
    through = through || PassesThrough(p.span, max);
    if (!Touches(p.span, max)) return;
    const bool o = EnteredThroughOwnFace(p);
    if (!touch || (o && !own) ||
        (o == own && Entry(p.span) < Entry(best.span))) {
      best = p;
      touch = true;
      own = o;
    }
  }
};

// Box [lo, hi] grown by r > 0, as the union of convex parts that the
// region split of Ericson, RTCD 5.5.7 (moving sphere vs AABB) implies: the
// box grown along one axis at a time, a cylinder of radius r along each
// edge (3D), and a ball of radius r at each corner. The interior of the
// union is the union of the parts' interiors, so the exclusive rule holds
// per part.
template <int N>
void OfferGrownFaces(const Segment<N>& s, float r, const V<N>& lo,
                     const V<N>& hi, Earliest* e) {
  for (int k = 0; k < N; ++k) {
    V<N> a = lo, b = hi;
    a[k] = lo[k] - r;
    b[k] = hi[k] + r;
    e->Offer(BoxPart<N>(s, a, b, k, k), s.max);
  }
}

void OfferEdges(const Segment<2>&, float, const V<2>&, const V<2>&, Earliest*) {
}

void OfferEdges(const Segment<3>& s, float r, const V<3>& lo, const V<3>& hi,
                Earliest* e) {
  for (int k = 0; k < 3; ++k) {
    const int i = (k + 1) % 3, j = (k + 2) % 3;
    for (int corner = 0; corner < 4; ++corner) {
      Part p;
      p.own_face = kRound;
      p.radius = r;
      const float ei = (corner & 1) ? hi[i] : lo[i];
      const float ej = (corner & 2) ? hi[j] : lo[j];
      // The rounded constraint first: it keeps a tie with the cap.
      ClipRound<2>(&p.span, V<2>{s.o[i] - ei, s.o[j] - ej},
                   V<2>{s.d[i], s.d[j]}, r);
      ClipSlab(&p.span, s.o[k], s.d[k], lo[k], hi[k], k);
      e->Offer(p, s.max);
    }
  }
}

template <int N>
void OfferCorners(const Segment<N>& s, float r, const V<N>& lo, const V<N>& hi,
                  Earliest* e) {
  for (int corner = 0; corner < (1 << N); ++corner) {
    V<N> c;
    for (int i = 0; i < N; ++i) c[i] = ((corner >> i) & 1) ? hi[i] : lo[i];
    e->Offer(BallPart<N>(s, c, r), s.max);
  }
}

// A target: the box [lo, hi] grown by `radius` (0 for a rectangle or box;
// lo == hi for a point, circle or sphere).
template <int N>
struct Solid {
  V<N> lo;
  V<N> hi;
  float radius;
  bool ball;
};

// The face of a box part that the contact is on. A box grown along axis k
// that the segment entered through another face (only when rounding left
// no better part) touches the target at the end of that face, where the
// grown surface is the corner ball's and its normal is still along k.
template <int N>
int ContactFace(const Part& part, const V<N>& p, const V<N>& lo, const V<N>& hi,
                const V<N>& d) {
  if (EnteredThroughOwnFace(part) || part.own_face < 0) {
    return part.span.face;
  }
  const int k = part.own_face;
  const bool high = p[k] > hi[k] || (p[k] >= lo[k] && d[k] < 0.0f);
  return 2 * k + (high ? 1 : 0);
}

// The contact on the target and its outward normal when the part is first
// touched with the ball's centre (the ray's point) at p. For a swept ball
// both come from the centre (the closest point of the box and the direction
// to the centre), not from the part: near the seam of a face and a corner
// the parts' entries differ by less than their rounding, and whichever wins,
// the contact must be where the ball actually touches.
template <int N>
void Contact(const Part& part, const V<N>& p, const Solid<N>& t, const V<N>& d,
             float r, V<N>* point, V<N>* normal) {
  V<N> q, v;
  for (int i = 0; i < N; ++i) {
    q[i] = std::max(t.lo[i], std::min(p[i], t.hi[i]));
    v[i] = p[i] - q[i];
  }
  if (part.own_face != kRound) {
    const int face = ContactFace<N>(part, p, t.lo, t.hi, d);
    const int axis = face / 2;
    const float side = (face % 2) ? 1.0f : -1.0f;
    q[axis] = (face % 2) ? t.hi[axis] : t.lo[axis];
    // The centre is r out along this face's normal: exact, where p[axis]
    // may have rounded (or, for a ray, is on the face).
    v[axis] = side * r;
    if (r == 0.0f) {
      *normal = V<N>{};
      (*normal)[axis] = side;
      *point = q;
      return;
    }
  }
  // Through a point (a zero radius) the normal is undefined: -direction.
  const bool point_part = part.own_face == kRound && part.radius == 0.0f;
  *normal = point_part ? Negated<N>(d) : Unit<N>(v, Negated<N>(d));
  if (t.radius != 0.0f) {
    for (int i = 0; i < N; ++i) q[i] = q[i] + t.radius * (*normal)[i];
  }
  *point = q;
}

// Segment against the target grown by r. `first` is the axis that wins
// entering-face ties of a ray against a box.
template <int N>
CastResult CastSolid(const Segment<N>& s, float r, const Solid<N>& t,
                     Boundary boundary, int first) {
  Earliest e;
  if (t.ball) {
    e.Offer(BallPart<N>(s, t.lo, t.radius + r), s.max);
  } else if (r == 0.0f) {
    e.Offer(BoxPart<N>(s, t.lo, t.hi, first, kNone), s.max);
  } else {
    OfferGrownFaces<N>(s, r, t.lo, t.hi, &e);
    OfferEdges(s, r, t.lo, t.hi, &e);
    OfferCorners<N>(s, r, t.lo, t.hi, &e);
  }
  const bool hit = boundary == Boundary::kInclusive ? e.touch : e.through;
  if (!hit || !e.touch) return CastResult{};
  CastResult out;
  out.hit = true;
  out.distance = Entry(e.best.span);
  V<N> point, normal;
  Contact<N>(e.best, At(s, out.distance), t, s.d, r, &point, &normal);
  out.point = ToVec3(point);
  out.normal = ToVec3(normal);
  return out;
}

Solid<2> Ball2(Vec2 c, float radius) { return {A(c), A(c), radius, true}; }
Solid<3> Ball3(Vec3 c, float radius) { return {A(c), A(c), radius, true}; }

// R^T * v: ToLocal for a vector (no translation).
Vec2 ToLocalVector(const RotatedRect& r, Vec2 v) {
  const float c = r.rotation.cos;
  const float s = r.rotation.sin;
  return Vec2{c * v.x + s * v.y, c * v.y - s * v.x};
}

CastResult CastRotatedRect(Vec2 o, float r, Vec2 d, float max,
                           const RotatedRect& rr, Boundary boundary) {
  const Rect bounds = LocalBounds(rr);
  const Segment<2> s{A(ToLocal(rr, o)), A(ToLocalVector(rr, d)), max};
  // Break entering-face ties towards the local axis closer to world x, so
  // that a quarter-turned rectangle answers like the axis-aligned one.
  const int first =
      std::fabs(rr.rotation.cos) >= std::fabs(rr.rotation.sin) ? 0 : 1;
  CastResult out =
      CastSolid<2>(s, r, Solid<2>{A(bounds.min), A(bounds.max), 0.0f, false},
                   boundary, first);
  if (!out.hit) return out;
  const Vec2 p = ToWorldPoint(rr, Vec2{out.point.x, out.point.y});
  const Vec2 n = ToWorldVector(rr, Vec2{out.normal.x, out.normal.y});
  out.point = Vec3{p.x, p.y, 0.0f};
  out.normal = Vec3{n.x, n.y, 0.0f};
  return out;
}

// A cast that starts in the (grown) target: the origin for a ray, the
// target's closest point for a ball, and -direction, in world coordinates
// (not after a round trip through a rotated frame).
CastResult StartedInside(CastResult out, const Shape& origin, float radius,
                         Vec3 direction, const Shape& target,
                         Boundary boundary) {
  if (!out.hit || out.distance != 0.0f) return out;
  const V<3> n = Negated<3>(A(direction));
  out.normal = ToVec3(n);
  if (radius == 0.0f) {
    if (const auto* p = std::get_if<Vec2>(&origin)) {
      out.point = Vec3{p->x, p->y, 0.0f};
    } else {
      out.point = std::get<Vec3>(origin);
    }
  } else {
    out.point = ClosestPoint(origin, target, boundary).closest_point;
  }
  return out;
}

CastResult Cast2(Vec2 o, float r, Vec2 d, float max, const Shape& target,
                 Boundary boundary) {
  const Segment<2> s{A(o), A(d), max};
  CastResult out;
  switch (KindOf(target)) {
    case ShapeKind::kPoint2:
      out =
          CastSolid<2>(s, r, Ball2(std::get<Vec2>(target), 0.0f), boundary, 0);
      break;
    case ShapeKind::kCircle: {
      const Circle& c = std::get<Circle>(target);
      out = CastSolid<2>(s, r, Ball2(c.center, c.radius), boundary, 0);
      break;
    }
    case ShapeKind::kRect: {
      // In the rectangle's own frame (its min corner at 0), as a rotated
      // rectangle is cast in its: far from the world's origin the
      // cast's arithmetic on world coordinates lost what the frame keeps
      // (a sweep 1e5 away was off by 3e-3; now it answers as the same
      // rectangle given as a rotated one with no turn and no pivot).
      const Rect& rect = std::get<Rect>(target);
      const Segment<2> local{A(Vec2{o.x - rect.min.x, o.y - rect.min.y}), A(d),
                             max};
      const Vec2 size{rect.max.x - rect.min.x, rect.max.y - rect.min.y};
      out = CastSolid<2>(local, r,
                         Solid<2>{A(Vec2{0.0f, 0.0f}), A(size), 0.0f, false},
                         boundary, 0);
      if (out.hit) {
        out.point.x += rect.min.x;
        out.point.y += rect.min.y;
      }
      break;
    }
    case ShapeKind::kRotatedRect:
      out = CastRotatedRect(o, r, d, max, std::get<RotatedRect>(target),
                            boundary);
      break;
    default:
      assert(false && "2D cast against a 3D target");
      return CastResult{};
  }
  return StartedInside(out, o, r, Vec3{d.x, d.y, 0.0f}, target, boundary);
}

// An oriented box in its own frame, centred on it, with its local axes
// relabelled to follow the world's: local axis k is the one whose world
// direction is closest to world axis k (x first, then y of the two left).
// Entering-face ties go to the first axis, so a quarter-turned box, whose
// relabelled matrix is diagonal, runs the axis-aligned Box's arithmetic
// with some signs flipped and answers as it does.
struct BoxFrame {
  V<3> axis[3];  // world direction of relabelled local axis k
  V<3> half;     // half-extents along them
  V<3> center;
};

BoxFrame BoxFrameOf(const OrientedBox& box) {
  const Mat3 m = RotationMatrix(box.rotation);
  const V<3> h = A(box.half_extents);
  BoxFrame f;
  f.center = A(box.center);
  bool used[3] = {false, false, false};
  for (int k = 0; k < 3; ++k) {
    int best = -1;
    for (int i = 0; i < 3; ++i) {
      if (used[i]) continue;
      if (best < 0 ||
          std::fabs(m.m[3 * k + i]) > std::fabs(m.m[3 * k + best])) {
        best = i;
      }
    }
    used[best] = true;
    f.axis[k] = V<3>{m.m[best], m.m[3 + best], m.m[6 + best]};
    f.half[k] = h[best];
  }
  return f;
}

V<3> ToBoxFrame(const BoxFrame& f, const V<3>& world_vector) {
  return V<3>{Dot<3>(f.axis[0], world_vector), Dot<3>(f.axis[1], world_vector),
              Dot<3>(f.axis[2], world_vector)};
}

// R * v, + 0 so that a zero component comes out +0 as in the Box's answer.
Vec3 FromBoxFrame(const BoxFrame& f, const Vec3& v) {
  V<3> w;
  for (int i = 0; i < 3; ++i) {
    w[i] = f.axis[0][i] * v.x + f.axis[1][i] * v.y + f.axis[2][i] * v.z + 0.0f;
  }
  return ToVec3(w);
}

CastResult CastOrientedBox(Vec3 o, float r, Vec3 d, float max,
                           const OrientedBox& box, Boundary boundary) {
  const BoxFrame f = BoxFrameOf(box);
  V<3> rel;
  for (int i = 0; i < 3; ++i) rel[i] = A(o)[i] - f.center[i];
  const Segment<3> s{ToBoxFrame(f, rel), ToBoxFrame(f, A(d)), max};
  CastResult out = CastSolid<3>(
      s, r, Solid<3>{Negated<3>(f.half), f.half, 0.0f, false}, boundary, 0);
  if (!out.hit) return out;
  const Vec3 p = FromBoxFrame(f, out.point);
  out.point = Vec3{f.center[0] + p.x, f.center[1] + p.y, f.center[2] + p.z};
  out.normal = FromBoxFrame(f, out.normal);
  return out;
}

// A capsule grown by r is the capsule of radius radius + r: hitbox3's
// Raycast finds the entry. The contact and its normal are taken from the
// ball's centre p there, as Contact does for boxes: the normal points from
// the nearest point q of the segment to p, the contact is q + radius *
// normal. (A zero-length capsule is a sphere and is cast as one.)
CastResult CastCapsule(Vec3 o, float r, Vec3 d, float max,
                       const Capsule3& capsule, Boundary boundary) {
  const float grown = capsule.radius + r;
  const std::optional<RayHit3> hit =
      Raycast(o, d, max, Capsule3{capsule.a, capsule.b, grown}, boundary);
  if (!hit) return CastResult{};
  CastResult out;
  out.hit = true;
  // Raycast finds a bare segment's meeting point and takes its distance
  // from the origin, which can round past max_distance.
  out.distance = std::min(hit->t, max);
  if (out.distance == 0.0f) return out;  // StartedInside fills the rest
  const V<3> p = At(Segment<3>{A(o), A(d), max}, out.distance);
  if (grown == 0.0f) {
    // A bare segment, met at a point: the point rule's answer.
    out.point = ToVec3(p);
    out.normal = ToVec3(Negated<3>(A(d)));
    return out;
  }
  const V<3> a = A(capsule.a), b = A(capsule.b);
  V<3> ab, ap;
  for (int i = 0; i < 3; ++i) {
    ab[i] = b[i] - a[i];
    ap[i] = p[i] - a[i];
  }
  const float l2 = Dot<3>(ab, ab);
  const float s = std::max(0.0f, std::min(Dot<3>(ap, ab) / l2, 1.0f));
  V<3> q, v;
  for (int i = 0; i < 3; ++i) {
    q[i] = s == 0.0f ? a[i] : (s == 1.0f ? b[i] : a[i] + s * ab[i]);
    v[i] = p[i] - q[i];
  }
  if (s > 0.0f && s < 1.0f) {
    // Project out the axial part again: what rounding left of it (up to an
    // ulp of the coordinates, large against a thin capsule's radius) would
    // tilt the normal along the axis and, for a long capsule, make its
    // plane cut the capsule.
    const float k = Dot<3>(v, ab) / l2;
    for (int i = 0; i < 3; ++i) v[i] = v[i] - k * ab[i];
  }
  const V<3> n = Unit<3>(v, Negated<3>(A(d)));
  V<3> point;
  for (int i = 0; i < 3; ++i) point[i] = q[i] + capsule.radius * n[i];
  out.point = ToVec3(point);
  out.normal = ToVec3(n);
  return out;
}

CastResult Cast3(Vec3 o, float r, Vec3 d, float max, const Shape& target,
                 Boundary boundary) {
  const Segment<3> s{A(o), A(d), max};
  CastResult out;
  switch (KindOf(target)) {
    case ShapeKind::kPoint3:
      out =
          CastSolid<3>(s, r, Ball3(std::get<Vec3>(target), 0.0f), boundary, 0);
      break;
    case ShapeKind::kSphere: {
      const Sphere& sp = std::get<Sphere>(target);
      out = CastSolid<3>(s, r, Ball3(sp.center, sp.radius), boundary, 0);
      break;
    }
    case ShapeKind::kBox: {
      const Box& box = std::get<Box>(target);
      out = CastSolid<3>(s, r, Solid<3>{A(box.min), A(box.max), 0.0f, false},
                         boundary, 0);
      break;
    }
    case ShapeKind::kCapsule3: {
      const Capsule3& c = std::get<Capsule3>(target);
      if (c.a.x == c.b.x && c.a.y == c.b.y && c.a.z == c.b.z) {
        return Cast3(o, r, d, max, Sphere{c.a, c.radius}, boundary);
      }
      out = CastCapsule(o, r, d, max, c, boundary);
      break;
    }
    case ShapeKind::kOrientedBox:
      out = CastOrientedBox(o, r, d, max, std::get<OrientedBox>(target),
                            boundary);
      break;
    default:
      assert(false && "3D cast against a 2D target");
      return CastResult{};
  }
  return StartedInside(out, o, r, d, target, boundary);
}

}  // namespace

Vec2 NormalizeDirection(Vec2 direction) {
  const V<2> u = Unit<2>(A(direction), V<2>{});
  return Vec2{u[0], u[1]};
}

Vec3 NormalizeDirection(Vec3 direction) {
  const V<3> u = Unit<3>(A(direction), V<3>{});
  return Vec3{u[0], u[1], u[2]};
}

CastResult RayCast(Vec2 origin, Vec2 direction, float max_distance,
                   const Shape& target, Boundary boundary) {
  return Cast2(origin, 0.0f, direction, max_distance, target, boundary);
}

CastResult RayCast(Vec3 origin, Vec3 direction, float max_distance,
                   const Shape& target, Boundary boundary) {
  return Cast3(origin, 0.0f, direction, max_distance, target, boundary);
}

CastResult SweepCircle(Vec2 origin, float radius, Vec2 direction,
                       float max_distance, const Shape& target,
                       Boundary boundary) {
  return Cast2(origin, radius, direction, max_distance, target, boundary);
}

CastResult SweepSphere(Vec3 origin, float radius, Vec3 direction,
                       float max_distance, const Shape& target,
                       Boundary boundary) {
  return Cast3(origin, radius, direction, max_distance, target, boundary);
}

}  // namespace collision
