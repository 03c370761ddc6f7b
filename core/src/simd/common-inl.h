// Per-target building blocks shared by the kernels: scalar-exact min/max and
// clamp, the ball classification, and the loops that run a kernel over
// struct-of-arrays columns (full vectors, then one padded tail vector).
//
// Included once per Highway target through foreach_target.h; the include
// guard toggles with HWY_TARGET_TOGGLE as in hwy/examples/skeleton-inl.h.
#if defined(COLLISION_SIMD_COMMON_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef COLLISION_SIMD_COMMON_INL_H_
#undef COLLISION_SIMD_COMMON_INL_H_
#else
#define COLLISION_SIMD_COMMON_INL_H_
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "collision/core/kernels.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace collision {
namespace simd {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::ScalableTag<float>;
using VF = hn::Vec<DF>;
using MF = hn::Mask<DF>;

// Floats per vector on any target, for the padded tail buffers.
inline constexpr size_t kMaxLanes = HWY_MAX_BYTES / sizeof(float);

// std::min(a, b) and std::max(a, b) including which zero they return for
// (-0, +0): x86 min/max (and Highway's emulation) return the second operand
// on ties, std::min/std::max the first unless the second is strictly
// smaller/larger.
HWY_INLINE VF StdMin(VF a, VF b) { return hn::Min(b, a); }
HWY_INLINE VF StdMax(VF a, VF b) { return hn::Max(b, a); }
// The seeds' clamp, as scalar.cc: Max(lo, Min(c, hi)).
HWY_INLINE VF Clamp(VF c, VF lo, VF hi) { return StdMax(lo, StdMin(c, hi)); }
// Unary minus (flips the sign bit, also of zero).
HWY_INLINE VF Negate(VF v) { return hn::Xor(v, hn::SignBit(DF())); }

// Sum of squares in scalar.cc's order: ((v0*v0 + v1*v1) + v2*v2).
template <int N>
HWY_INLINE VF Dot(const VF* v) {
  VF s = hn::Mul(v[0], v[0]);
  for (int i = 1; i < N; ++i) s = hn::Add(s, hn::Mul(v[i], v[i]));
  return s;
}

// ClassifyBall() as two masks; disjoint is neither. A point strictly inside
// has d2 == 0 == r2 (every axis's offset is 0 inside), so "d2 == r2 and a
// point strictly inside" is just the latter: one mask operation fewer.
HWY_INLINE void ClassifyBall(VF d2, VF r2, MF strictly_inside, MF& overlap,
                             MF& touch) {
  const DF d;
  const MF eq = hn::Eq(d2, r2);
  const MF point_inside = hn::And(hn::Eq(r2, hn::Zero(d)), strictly_inside);
  overlap = hn::Or(hn::Lt(d2, r2), point_inside);
  touch = hn::AndNot(point_inside, eq);
}

// NormalizeTiny() of scalar.cc: v / max|v_i|, then / its length.
template <int N>
HWY_INLINE void NormalizeTiny(const VF* v, VF* out) {
  const DF d;
  VF m = hn::Zero(d);
  for (int i = 0; i < N; ++i) m = StdMax(m, hn::Abs(v[i]));
  for (int i = 0; i < N; ++i) out[i] = hn::Div(v[i], m);
  const VF len = hn::Sqrt(Dot<N>(out));
  for (int i = 0; i < N; ++i) out[i] = hn::Div(out[i], len);
}

// The low Lanes(d) bits of a mask, bit j = lane j.
HWY_INLINE uint64_t MaskBits(MF m) {
  const DF d;
  uint8_t bytes[8] = {0};
  const size_t num = hn::StoreMaskBits(d, m, bytes);
  uint64_t bits = 0;
  for (size_t k = 0; k < num && k < 8; ++k) {
    bits |= static_cast<uint64_t>(bytes[k]) << (8 * k);
  }
  return bits;
}

// Appends hit bits LSB-first; the lane count divides 64, so a full word is
// always reached exactly.
class BitWriter {
 public:
  explicit BitWriter(uint8_t* out) : out_(out) {}
  void Put(uint64_t bits, size_t count) {
    acc_ |= bits << fill_;
    fill_ += count;
    if (fill_ == 64) Write(8);
  }
  void Flush() { Write((fill_ + 7) / 8); }

 private:
  void Write(size_t bytes) {
    for (size_t k = 0; k < bytes; ++k) {
      out_[k] = static_cast<uint8_t>(acc_ >> (8 * k));
    }
    out_ += bytes;
    acc_ = 0;
    fill_ = 0;
  }
  uint8_t* out_;
  uint64_t acc_ = 0;
  size_t fill_ = 0;
};

// AVX-512 (BW, VL: part of Highway's AVX3 targets) turns a mask into bytes
// in one masked move; the portable form below selects 32-bit lanes and
// narrows them (two packs and a permute over the whole vector), ops on the
// vector pipes that bound the full-result kernels.
#undef COLLISION_SIMD_MASK_BYTES  // this file is included once per target
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
#define COLLISION_SIMD_MASK_BYTES 1
#endif

// Stores a mask as n bytes of 0/1.
HWY_INLINE void StoreFlags(MF m, uint8_t* p) {
#ifdef COLLISION_SIMD_MASK_BYTES
  _mm_storeu_si128(reinterpret_cast<__m128i*>(p),
                   _mm_maskz_mov_epi8(m.raw, _mm_set1_epi8(1)));
  return;
#endif
  const hn::RebindToSigned<DF> di;
  const hn::Rebind<uint8_t, DF> du8;
  const auto v = hn::IfThenElseZero(hn::RebindMask(di, m), hn::Set(di, 1));
  hn::StoreU(hn::DemoteTo(du8, v), du8, p);
}

HWY_INLINE void StoreRelation(MF overlap, MF touch, Relation* p) {
#ifdef COLLISION_SIMD_MASK_BYTES
  static_assert(static_cast<int>(Relation::kOverlapping) == 2 &&
                    static_cast<int>(Relation::kTouching) == 1,
                "the byte values below");
  // Overlapping wins where both are set, as in the portable form.
  const __m128i touching = _mm_maskz_mov_epi8(touch.raw, _mm_set1_epi8(1));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(p),
                   _mm_mask_mov_epi8(touching, overlap.raw, _mm_set1_epi8(2)));
  return;
#endif
  // A select, then 32 to 8 bits (pack, permute, pack), on every target
  // without mask registers: faster than spreading the masks' bits in
  // general registers on full-width vector pipes
  // (docs/decisions/0017-relation-bytes-on-avx2.md).
  const hn::RebindToSigned<DF> di;
  const hn::Rebind<uint8_t, DF> du8;
  const auto v = hn::IfThenElse(
      hn::RebindMask(di, overlap),
      hn::Set(di, static_cast<int32_t>(Relation::kOverlapping)),
      hn::IfThenElseZero(
          hn::RebindMask(di, touch),
          hn::Set(di, static_cast<int32_t>(Relation::kTouching))));
  hn::StoreU(hn::DemoteTo(du8, v), du8, reinterpret_cast<uint8_t*>(p));
}

// Copies the rem < kMaxLanes rows from `row` on of each column into padded
// buffers, repeating the last row (valid geometry) in the padding lanes.
template <size_t K>
HWY_INLINE void PadTail(const float* const* in, size_t row, size_t rem,
                        float (*buf)[kMaxLanes], const float** ptrs) {
  for (size_t k = 0; k < K; ++k) {
    for (size_t j = 0; j < kMaxLanes; ++j) {
      buf[k][j] = in[k][row + std::min(j, rem - 1)];
    }
    ptrs[k] = buf[k];
  }
}

// ---- Intersect driver ------------------------------------------------------
// A Kernel has kCols input columns and
//   template <bool kSep, bool kHitIncl>
//   static void Eval(const VF* x, MF& overlap, MF& touch, VF& separation);
// separation is only computed when kSep. With kHitIncl (only the inclusive
// hit is wanted) the kernel may skip the relation and put the hit in
// `overlap`, leaving `touch` unspecified.

// Which outputs a loop instantiation writes.
enum class IntersectMode {
  kGeneral,   // any combination of outputs, checked per vector
  kBitsIncl,  // only hit_bits, inclusive boundary: the leanest loop
};

HWY_INLINE MF TouchHits(bool inclusive) {
  const DF d;
  return hn::FirstN(d, inclusive ? hn::Lanes(d) : 0);
}

// Whether a touch is a hit (inclusive boundary), as a bool and as a mask of
// every lane or none. On AVX-512 the mask: a branch on the bool made GCC
// move both masks to general registers and back each vector, where the mask
// costs a kand and a kor. Elsewhere masks are vectors and the branch is the
// cheaper (docs/decisions/0016-full-result-kernels.md).
template <class Kernel, bool kSep, IntersectMode kMode>
HWY_INLINE MF IntersectStep(const float* const* in, size_t i, bool inclusive,
                            MF touch_hits, uint8_t* hit, Relation* relation,
                            float* separation) {
  constexpr bool kHitIncl = kMode == IntersectMode::kBitsIncl;
  const DF d;
  VF x[Kernel::kCols];
  for (size_t k = 0; k < Kernel::kCols; ++k) {
    x[k] = hn::LoadU(d, in[k] + i);
#if HWY_ARCH_X86 && HWY_TARGET != HWY_SCALAR && HWY_COMPILER_GCC_ACTUAL
    // The full-result kernels read a box's bounds twice (the clamp, then
    // the depth); left alone GCC folds each read into its operation as a
    // load of its own, two loads per bound on the load ports. An empty asm
    // that "changes" the register makes the one load the only one. (GCC
    // only: the builds this matters for; clang's sanitizer builds reject
    // the constraint on some targets.)
    if (kSep) asm("" : "+v"(x[k].raw));
#endif
  }
  MF overlap, touch;
  VF sep = hn::Zero(d);
  Kernel::template Eval<kSep, kHitIncl>(x, overlap, touch, sep);
  if (kHitIncl) return overlap;
#ifdef COLLISION_SIMD_MASK_BYTES
  (void)inclusive;
  const MF h = hn::Or(overlap, hn::And(touch, touch_hits));
#else
  (void)touch_hits;
  const MF h = inclusive ? hn::Or(overlap, touch) : overlap;
#endif
  if (hit != nullptr) StoreFlags(h, hit + i);
  if (relation != nullptr) StoreRelation(overlap, touch, relation + i);
  if (kSep) hn::StoreU(sep, d, separation + i);
  return h;
}

// The last rem < Lanes() pairs from row i on, through padded buffers. Not
// inlined into RunIntersectT: its stack buffers would make the loop's frame
// realign the stack and keep a frame pointer, one general register fewer for
// the loop, which then spills column pointers with 10 or more columns (each
// spill reload is one more load per vector on the ports that bound it).
template <class Kernel, bool kSep, IntersectMode kMode>
HWY_NOINLINE void IntersectTail(const float* const* cols, size_t i, size_t rem,
                                bool inclusive, const IntersectOutputs& out,
                                BitWriter& bits) {
  constexpr size_t K = Kernel::kCols;
  HWY_ALIGN float buf[K][kMaxLanes];
  const float* ptrs[K];
  PadTail<K>(cols, i, rem, buf, ptrs);
  uint8_t hit_tail[kMaxLanes] = {};
  Relation relation_tail[kMaxLanes] = {};
  HWY_ALIGN float sep_tail[kMaxLanes] = {};
  const MF h = IntersectStep<Kernel, kSep, kMode>(
      ptrs, 0, inclusive, TouchHits(inclusive), hit_tail, relation_tail,
      sep_tail);
  for (size_t j = 0; j < rem; ++j) {
    if (out.hit != nullptr) out.hit[i + j] = hit_tail[j];
    if (out.relation != nullptr) out.relation[i + j] = relation_tail[j];
    if (kSep) out.separation[i + j] = sep_tail[j];
  }
  if (out.hit_bits != nullptr) {
    const uint64_t b = MaskBits(h) & ((uint64_t{1} << rem) - 1);
    if (hn::Lanes(DF()) >= 8) {
      for (size_t k = 0; k < (rem + 7) / 8; ++k) {
        out.hit_bits[i / 8 + k] = static_cast<uint8_t>(b >> (8 * k));
      }
    } else {
      bits.Put(b, rem);
    }
  }
}

template <class Kernel, bool kSep, IntersectMode kMode>
HWY_NOINLINE void RunIntersectT(const float* const* in, size_t n,
                                bool inclusive, const IntersectOutputs& out) {
  const DF d;
  constexpr size_t K = Kernel::kCols;
  // Local copies: the outputs are byte arrays that may alias anything, so
  // pointers read through `in`/`out` would be reloaded after every store.
  const float* cols[K];
  for (size_t k = 0; k < K; ++k) cols[k] = in[k];
  uint8_t* const hit = out.hit;
  uint8_t* const hit_bits = out.hit_bits;
  Relation* const relation = out.relation;
  float* const separation = out.separation;
  const size_t lanes = hn::Lanes(d);
  // With >= 8 lanes every vector's bits start on a byte boundary.
  const bool direct_bits = lanes >= 8;
  BitWriter bits(hit_bits);
  // A pointer of its own rather than hit_bits + i / 8: one general register
  // fewer in the loop (see IntersectTail).
  uint8_t* bits_out = hit_bits;
  const MF touch_hits = TouchHits(inclusive);
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    const MF h = IntersectStep<Kernel, kSep, kMode>(
        cols, i, inclusive, touch_hits, hit, relation, separation);
    if (hit_bits != nullptr) {
      if (direct_bits) {
        hn::StoreMaskBits(d, h, bits_out);
        bits_out += lanes / 8;
      } else {
        bits.Put(MaskBits(h), lanes);
      }
    }
  }
  if (i < n) {
    IntersectTail<Kernel, kSep, kMode>(cols, i, n - i, inclusive, out, bits);
  }
  if (hit_bits != nullptr && !direct_bits) bits.Flush();
}

template <class Kernel>
HWY_INLINE void RunIntersect(const float* const* in, size_t n,
                             Boundary boundary, const IntersectOutputs& out) {
  const bool inclusive = boundary == Boundary::kInclusive;
  if (out.separation != nullptr) {
    RunIntersectT<Kernel, true, IntersectMode::kGeneral>(in, n, inclusive, out);
  } else if (inclusive && out.hit == nullptr && out.relation == nullptr) {
    RunIntersectT<Kernel, false, IntersectMode::kBitsIncl>(in, n, inclusive,
                                                           out);
  } else {
    RunIntersectT<Kernel, false, IntersectMode::kGeneral>(in, n, inclusive,
                                                          out);
  }
}

// ---- ClosestPoint driver ---------------------------------------------------
// A Kernel has kCols input columns and
//   static void Eval(const VF* x, bool inclusive, VF* f, MF& inside);
// writing f[kClosestFloats] in the order of ClosestPointOutputs' float columns
// (closest xyz, surface xyz, normal xyz, signed_distance, gap).

inline constexpr size_t kClosestFloats = 11;

template <class Kernel>
HWY_INLINE void ClosestStepT(const float* const* in, size_t i,
                             float* const* fout, uint8_t* inside_out,
                             bool inclusive) {
  const DF d;
  VF x[Kernel::kCols];
  for (size_t k = 0; k < Kernel::kCols; ++k) x[k] = hn::LoadU(d, in[k] + i);
  VF f[kClosestFloats];
  MF inside;
  Kernel::Eval(x, inclusive, f, inside);
  for (size_t k = 0; k < kClosestFloats; ++k) {
    if (fout[k] != nullptr) hn::StoreU(f[k], d, fout[k] + i);
  }
  StoreFlags(inside, inside_out + i);
}

// fout: the 11 float output columns, null for the ones to skip (2D z).
template <class Kernel>
HWY_NOINLINE void RunClosest(const float* const* in, size_t n,
                             Boundary boundary, float* const* fout,
                             uint8_t* inside) {
  const DF d;
  const bool inclusive = boundary == Boundary::kInclusive;
  const size_t lanes = hn::Lanes(d);
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    ClosestStepT<Kernel>(in, i, fout, inside, inclusive);
  }
  if (i < n) {
    const size_t rem = n - i;
    HWY_ALIGN float buf[Kernel::kCols][kMaxLanes];
    const float* ptrs[Kernel::kCols];
    PadTail<Kernel::kCols>(in, i, rem, buf, ptrs);
    HWY_ALIGN float obuf[kClosestFloats][kMaxLanes] = {};
    float* optrs[kClosestFloats];
    for (size_t k = 0; k < kClosestFloats; ++k) optrs[k] = obuf[k];
    uint8_t ibuf[kMaxLanes] = {};
    ClosestStepT<Kernel>(ptrs, 0, optrs, ibuf, inclusive);
    for (size_t k = 0; k < kClosestFloats; ++k) {
      if (fout[k] == nullptr) continue;
      for (size_t j = 0; j < rem; ++j) fout[k][i + j] = obuf[k][j];
    }
    for (size_t j = 0; j < rem; ++j) inside[i + j] = ibuf[j];
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
}  // namespace collision
HWY_AFTER_NAMESPACE();

#endif  // COLLISION_SIMD_COMMON_INL_H_
