// Upserts staged in the order the last commit's came in, applied in the
// store's order at the commit.
//
// Why: a game names the same entities in the same order tick after tick
// (a columnar update is the same id column with new positions), while the
// store keeps them in the hierarchy's leaf order. Written as they arrive,
// every moved entity is a write (and a read of its stored id, to check the
// guess) at a place the id order does not predict: most of a tick's cost.
// Here an upsert that is the next one of the last commit's order is checked
// against that order's id column (read in sequence) and its values appended
// as a row of a staging buffer (written in sequence); the commit then walks
// the store's slots in order and gathers each one's staged row, a stream of
// writes with reads the processor can overlap (or, when few moved, writes
// the rows at their slots).
//
// One MoveOrder per family. An entry of the order is valid while its entity
// stays at its slot: Forget() drops an entry whose entity is killed (removed
// or changed family) and Remap() follows a rebuild. Anything out of order
// (an id that is not the next one, a new entity, a removal) goes the
// hashed way; the staged upserts are applied first (Apply), so every write
// to the store happens in the order the caller made it.
#ifndef COLLISION_CORE_SRC_SCENE_MOVES_H_
#define COLLISION_CORE_SRC_SCENE_MOVES_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

#include "scene/store.h"

namespace collision {
namespace scene {

class MoveOrder {
 public:
  explicit MoveOrder(Family family)
      : family_(family), stride_(ColumnCount(family) + 1) {}

  // Stages the upsert when `id` is the next entry of the order (and still at
  // its slot); otherwise returns false, and the rest of the tick's upserts
  // of this family go the hashed way (see Record).
  bool TryStage(uint64_t id, const Shape& shape, uint32_t category) {
    if (broken_ || next_ >= ids_.size() || ids_[next_] != id ||
        slots_[next_] == kNone) {
      broken_ = true;
      return false;
    }
    // Written straight into the row: through a local array, which the
    // compiler fills with merged 8-byte stores and the copy then reads a
    // float at a time, every read waits for a store (a forwarding stall:
    // 13% of a tick in perf;
    // docs/decisions/0009-scene-update-in-leaf-order.md).
    float* row = rows_.data() + next_ * stride_;
    ShapeColumns(shape, row);
    std::memcpy(row + stride_ - 1, &category, sizeof(category));
    ++next_;
    return true;
  }

  // Stages upserts i = 0.. of columns (`given` of the family's, the rest 0)
  // while ids[i] is the next entry of the order; returns how many. The
  // first one out of order ends staging for the tick, as in TryStage.
  // When they are many, they are written to `s` at once instead.
  size_t StageColumns(Store* s, size_t n, const uint64_t* ids,
                      const float* const* columns, size_t given,
                      const uint32_t* categories);

  // How many of ids[0..n) are the order's first entries, in order, each
  // still at its slot: entities the scene holds, known without hashing.
  size_t MatchingPrefix(const uint64_t* ids, size_t n) const {
    const size_t most = n < ids_.size() ? n : ids_.size();
    size_t i = 0;
    while (i < most && ids_[i] == ids[i] && slots_[i] != kNone) ++i;
    return i;
  }

  // Writes the upserts staged since the last Apply into the store (called
  // before every upsert out of order: nothing to do is the common case).
  void Apply(Store* s) {
    if (applied_ != next_) ApplyStaged(s);
  }
  // An upsert that went the hashed way, at its slot after it: the next
  // commit's order is the staged entries, then these.
  void Record(uint64_t id, uint32_t slot) { recorded_.emplace_back(id, slot); }
  // The entity at `slot` was killed: its entry no longer names it.
  void Forget(uint32_t slot);
  // Applies what is staged and makes this tick's order the next one's.
  void Commit(Store* s);
  // The store was rebuilt: old slot s is now new_slot[s] (dead: kNone).
  void Remap(const std::vector<uint32_t>& new_slot, size_t store_size);
  void Clear();
  size_t memory_bytes() const;

  static constexpr uint32_t kNone = ~uint32_t{0};

 private:
  template <Family F, typename Source>
  void WriteEntries(Store* s, size_t begin, size_t end,
                    const Source& source) const;
  // Calls f(std::integral_constant<Family, family_>{}).
  template <typename Fn>
  void Dispatch(Fn&& f) const {
    switch (family_) {
      case Family::kBall2:
        return f(std::integral_constant<Family, Family::kBall2>{});
      case Family::kRect:
        return f(std::integral_constant<Family, Family::kRect>{});
      case Family::kRotatedRect:
        return f(std::integral_constant<Family, Family::kRotatedRect>{});
      case Family::kBall3:
        return f(std::integral_constant<Family, Family::kBall3>{});
      case Family::kBox:
        return f(std::integral_constant<Family, Family::kBox>{});
      case Family::kCapsule3:
        return f(std::integral_constant<Family, Family::kCapsule3>{});
      case Family::kOrientedBox:
        return f(std::integral_constant<Family, Family::kOrientedBox>{});
    }
  }
  void IndexSlots(size_t store_size);
  void ApplyStaged(Store* s);

  Family family_;
  size_t stride_;  // floats per staged row: the columns, then the category

  // The order: entry j is the entity `ids_[j]` at store slot `slots_[j]`.
  std::vector<uint64_t> ids_;
  std::vector<uint32_t> slots_;
  std::vector<uint32_t> entry_of_;  // store slot -> entry, or kNone
  // This tick: entries [applied_, next_) are staged and not yet written,
  // entry j in row j (one row is read per moved entity, so it is one run of
  // memory, not a float in each of several columns).
  std::vector<float> rows_;
  size_t next_ = 0;
  size_t applied_ = 0;
  bool broken_ = false;
  std::vector<std::pair<uint64_t, uint32_t>> recorded_;
};

}  // namespace scene
}  // namespace collision

#endif  // COLLISION_CORE_SRC_SCENE_MOVES_H_
