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

// Where entry j's values and category come from: its staged row, or row
// j - first of a caller's columns (the family's columns, a point's radius
// column null: 0).
struct StagedRows {
  const float* rows;
  template <size_t kCols>
  void Read(size_t j, float* v, uint32_t* category) const {
    const float* row = rows + j * (kCols + 1);
    for (size_t c = 0; c < kCols; ++c) v[c] = row[c];
    std::memcpy(category, row + kCols, sizeof(uint32_t));
  }
};
template <bool kPoint>
struct CallerColumns {
  const float* columns[kMaxColumns];
  const uint32_t* categories;  // null: all 1
  size_t first;
  template <size_t kCols>
  void Read(size_t j, float* v, uint32_t* category) const {
    const size_t i = j - first;
    for (size_t c = 0; c + (kPoint ? 1 : 0) < kCols; ++c) v[c] = columns[c][i];
    if (kPoint) v[kCols - 1] = 0.0f;
    *category = categories == nullptr ? 1u : categories[i];
  }
};

// Writes entries [begin, end) of the order into the store: walking the
// store's slots in order when they are many, else each at its slot. The
// store's column pointers are held in locals: through the vectors, every
// float written would make the compiler reload them.
template <Family F, typename Source>
void MoveOrder::WriteEntries(Store* s, size_t begin, size_t end,
                             const Source& source) const {
  const size_t count = end - begin;
  if (count == 0) return;
  constexpr size_t kCols = ColumnCount(F);
  float* columns[kCols];
  for (size_t c = 0; c < kCols; ++c) columns[c] = s->columns[c].data();
  uint32_t* categories = s->categories.data();
  Aabb* boxes = s->boxes.data();
  const auto write = [&](size_t slot, size_t j) {
    float values[kCols];
    uint32_t category;
    source.template Read<kCols>(j, values, &category);
    for (size_t c = 0; c < kCols; ++c) columns[c][slot] = values[c];
    categories[slot] = category;
    if constexpr (F == Family::kRotatedRect || F == Family::kOrientedBox) {
      boxes[slot] = BoundsOf(F, values);
    } else {
      boxes[slot] = BoundsAs<F>(values);
    }
  };
  const size_t tree_size = s->tree_size;
  if (count * kGatherShare >= s->size()) {
    const size_t n = std::min(s->size(), entry_of_.size());
    const uint32_t* entry_of = entry_of_.data();
    size_t first = n;
    for (size_t slot = 0; slot < n; ++slot) {
      // Entries outside [begin, end) (kNone included) wrap past count.
      const size_t j = size_t{entry_of[slot]} - begin;
      if (j >= count) continue;
      write(slot, j + begin);
      first = std::min(first, slot);
    }
    s->moved |= first < tree_size;
  } else {
    bool moved = false;
    for (size_t j = begin; j < end; ++j) {
      write(slots_[j], j);
      moved |= slots_[j] < tree_size;
    }
    s->moved |= moved;
  }
}

size_t MoveOrder::StageColumns(Store* s, size_t n, const uint64_t* ids,
                               const float* const* columns, size_t given,
                               const uint32_t* categories) {
  if (broken_) return 0;
  const size_t room = std::min(n, ids_.size() - next_);
  const uint64_t* expected = ids_.data() + next_;
  const uint32_t* slots = slots_.data() + next_;
  size_t k = 0;
  while (k < room && expected[k] == ids[k] && slots[k] != kNone) ++k;
  const bool write_now = k * kGatherShare >= s->size();
  // Enough to walk the store for: written now, straight from the caller's
  // columns (after anything staged before, in order); else staged.
  if (write_now) Apply(s);
  const auto take = [&](auto family, const auto& source) {
    constexpr Family kFamily = decltype(family)::value;
    if (write_now) {
      WriteEntries<kFamily>(s, next_, next_ + k, source);
      return;
    }
    constexpr size_t kCols = ColumnCount(kFamily);
    float* row = rows_.data() + next_ * (kCols + 1);
    for (size_t i = 0; i < k; ++i, row += kCols + 1) {
      uint32_t category;
      source.template Read<kCols>(next_ + i, row, &category);
      std::memcpy(row + kCols, &category, sizeof(category));
    }
  };
  Dispatch([&](auto family) {
    const size_t ncols = ColumnCount(decltype(family)::value);
    if (given == ncols) {
      CallerColumns<false> source{{}, categories, next_};
      std::copy(columns, columns + given, source.columns);
      take(family, source);
    } else {
      CallerColumns<true> source{{}, categories, next_};
      std::copy(columns, columns + given, source.columns);
      take(family, source);
    }
  });
  next_ += k;
  if (write_now) applied_ = next_;
  if (k < n) broken_ = true;
  return k;
}

void MoveOrder::ApplyStaged(Store* s) {
  Dispatch([&](auto family) {
    WriteEntries<decltype(family)::value>(s, applied_, next_,
                                          StagedRows{rows_.data()});
  });
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
