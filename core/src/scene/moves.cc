#include "scene/moves.h"

#include <algorithm>
#include <cstring>

namespace collision {
namespace scene {
namespace {

// Below this share of the store, the staged entries are written one by one
// at their slots; above it, the store's slots are walked in order.
constexpr size_t kGatherShare = 4;  // 1/4

}  // namespace

size_t MoveOrder::StageColumns(size_t n, const uint64_t* ids,
                               const float* const* columns, size_t given,
                               const uint32_t* categories) {
  if (broken_) return 0;
  const size_t room = std::min(n, ids_.size() - next_);
  const uint64_t* expected = ids_.data() + next_;
  const uint32_t* slots = slots_.data() + next_;
  size_t k = 0;
  while (k < room && expected[k] == ids[k] && slots[k] != kNone) ++k;
  // Column by column: each is read in sequence and written with the row
  // stride (the rows are read one per entity at the commit).
  const size_t stride = stride_;
  float* rows = rows_.data() + next_ * stride;
  for (size_t c = 0; c < stride - 1; ++c) {
    float* out = rows + c;
    if (c < given) {
      const float* in = columns[c];
      for (size_t i = 0; i < k; ++i) out[i * stride] = in[i];
    } else {
      for (size_t i = 0; i < k; ++i) out[i * stride] = 0.0f;
    }
  }
  float* cats = rows + (stride - 1);
  for (size_t i = 0; i < k; ++i) {
    const uint32_t category = categories == nullptr ? 1u : categories[i];
    std::memcpy(cats + i * stride, &category, sizeof(category));
  }
  next_ += k;
  if (k < n) broken_ = true;
  return k;
}

void MoveOrder::Apply(Store* s) {
  switch (family_) {
    case Family::kBall2:
      return ApplyAs<Family::kBall2>(s);
    case Family::kRect:
      return ApplyAs<Family::kRect>(s);
    case Family::kRotatedRect:
      return ApplyAs<Family::kRotatedRect>(s);
    case Family::kBall3:
      return ApplyAs<Family::kBall3>(s);
    case Family::kBox:
      return ApplyAs<Family::kBox>(s);
  }
}

template <Family F>
void MoveOrder::ApplyAs(Store* s) {
  const size_t count = next_ - applied_;
  if (count == 0) return;
  constexpr size_t kCols = ColumnCount(F);
  static_assert(kCols + 1 <= kMaxColumns + 1, "a row is columns + category");
  const float* rows = rows_.data();
  const auto write = [&](size_t slot, size_t j) {
    const float* values = rows + j * (kCols + 1);
    for (size_t c = 0; c < kCols; ++c) s->columns[c][slot] = values[c];
    std::memcpy(&s->categories[slot], values + kCols, sizeof(uint32_t));
    if constexpr (F == Family::kRotatedRect) {
      s->boxes[slot] = BoundsOf(F, values);
    } else {
      s->boxes[slot] = BoundsAs<F>(values);
    }
  };
  if (count * kGatherShare >= s->size()) {
    const size_t n = std::min(s->size(), entry_of_.size());
    const uint32_t* entry_of = entry_of_.data();
    size_t first = n;
    for (size_t slot = 0; slot < n; ++slot) {
      // Entries outside [applied_, next_) (kNone included) wrap past count.
      const size_t j = size_t{entry_of[slot]} - applied_;
      if (j >= count) continue;
      write(slot, j + applied_);
      first = std::min(first, slot);
    }
    s->moved |= first < s->tree_size;
  } else {
    for (size_t j = applied_; j < next_; ++j) {
      write(slots_[j], j);
      s->moved |= slots_[j] < s->tree_size;
    }
  }
  applied_ = next_;
}

void MoveOrder::Forget(uint32_t slot) {
  if (slot >= entry_of_.size() || entry_of_[slot] == kNone) return;
  slots_[entry_of_[slot]] = kNone;
  entry_of_[slot] = kNone;
}

void MoveOrder::Commit(Store* s) {
  Apply(s);
  if (broken_) {
    // This tick's order: the staged entries, then the hashed ones that are
    // still where they were written (a later upsert or removal of the same
    // tick may have moved or killed them).
    std::vector<uint64_t> ids;
    std::vector<uint32_t> slots;
    ids.reserve(next_ + recorded_.size());
    slots.reserve(next_ + recorded_.size());
    for (size_t j = 0; j < next_; ++j) {
      if (slots_[j] == kNone) continue;
      ids.push_back(ids_[j]);
      slots.push_back(slots_[j]);
    }
    for (const auto& [id, slot] : recorded_) {
      if (slot < s->size() && s->ids[slot] == id && s->alive[slot]) {
        ids.push_back(id);
        slots.push_back(slot);
      }
    }
    ids_.swap(ids);
    slots_.swap(slots);
    IndexSlots(s->size());
  }
  next_ = 0;
  applied_ = 0;
  broken_ = false;
  recorded_.clear();
}

void MoveOrder::Remap(const std::vector<uint32_t>& new_slot,
                      size_t store_size) {
  for (uint32_t& slot : slots_) {
    if (slot != kNone) slot = new_slot[slot];
  }
  IndexSlots(store_size);
}

void MoveOrder::IndexSlots(size_t store_size) {
  entry_of_.assign(store_size, kNone);
  for (size_t j = 0; j < slots_.size(); ++j) {
    const uint32_t slot = slots_[j];
    if (slot == kNone) continue;
    if (entry_of_[slot] != kNone) {
      // An id upserted twice in one tick: the order stops before the
      // second, so every slot has one entry.
      ids_.resize(j);
      slots_.resize(j);
      break;
    }
    entry_of_[slot] = static_cast<uint32_t>(j);
  }
  rows_.resize(ids_.size() * stride_);
}

void MoveOrder::Clear() { *this = MoveOrder(family_); }

size_t MoveOrder::memory_bytes() const {
  size_t bytes = ids_.capacity() * sizeof(uint64_t) +
                 (slots_.capacity() + entry_of_.capacity()) * sizeof(uint32_t) +
                 rows_.capacity() * sizeof(float) +
                 recorded_.capacity() * sizeof(recorded_[0]);
  return bytes;
}

}  // namespace scene
}  // namespace collision
