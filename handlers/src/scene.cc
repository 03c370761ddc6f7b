// Carrying out a validated SceneService message (wire/scene_request.h):
// its update into the scene and the history, then its queries' answers, each
// from the scene at the latest tick or from the history at another moment.
#include "collision/handlers/scene.h"

#include <time.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "collision/wire/convert.h"
#include "collision/wire/scene_request.h"

namespace collision::handlers {

using wire::SceneColumnUpserts;
using wire::SceneQueryKind;
using wire::SceneUpsert;
using wire::SetClosestPointResult;
using wire::SetVec3;
using wire::ToProto;
namespace {

// One group of columns into a Scene or a SceneHistory (the same call).
template <typename Target>
void UpsertGroup(const SceneColumnUpserts& g, Target* target) {
  std::array<const float*, std::tuple_size_v<decltype(g.columns)>> columns;
  for (std::size_t c = 0; c < g.columns.size(); ++c) {
    columns[c] = g.columns[c].data();
  }
  target->UpsertColumns(g.kind, g.size(), g.ids.data(), columns.data(),
                        g.categories.empty() ? nullptr : g.categories.data());
}

}  // namespace

bool RecordUpdateFirst(const ParsedSceneMessage& message,
                       const SceneHistory& history) {
  if (!message.update.present) return false;
  const uint64_t next = message.update.tick;
  for (const ParsedSceneQuery& q : message.queries) {
    if (!q.rewound) continue;
    // At the new tick itself the scene answers.
    if (q.at.tick == next && q.at.fraction == 0.0f) continue;
    if (!history.AnswerableBefore(next, q.at)) return true;
  }
  return false;
}

void ApplySceneUpdate(const ParsedSceneUpdate& update, Scene* scene,
                      SceneHistory* history, bool record_later) {
  ApplyToScene(update, scene);
  if (history != nullptr) ApplyToHistory(update, history, record_later);
}

void ApplyToScene(const ParsedSceneUpdate& update, Scene* scene) {
  if (!update.present) return;
  if (update.snapshot) scene->Clear();
  for (uint64_t id : update.removals) scene->Remove(id);
  for (const SceneUpsert& e : update.upserts) {
    scene->Upsert(e.id, e.shape, e.category);
  }
  for (const SceneColumnUpserts& g : update.column_upserts) {
    UpsertGroup(g, scene);
  }
  scene->Commit();
}

void ApplyToHistory(const ParsedSceneUpdate& update, SceneHistory* history,
                    bool record_later) {
  if (!update.present) return;
  if (update.snapshot) history->Clear();
  for (uint64_t id : update.removals) history->Remove(id);
  for (const SceneUpsert& e : update.upserts) {
    history->Upsert(e.id, e.shape, e.category);
  }
  for (const SceneColumnUpserts& g : update.column_upserts) {
    UpsertGroup(g, history);
  }
  if (!record_later) history->Commit(update.tick);
}

namespace {

// The calling thread's CPU time.
absl::Duration ThreadCpuTime() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return absl::DurationFromTimespec(now);
}

// What a message's queries may still spend: hits in the answer and CPU.
class WorkBudget {
 public:
  explicit WorkBudget(const SceneLimits& limits)
      : limits_(limits),
        hits_left_(limits.max_message_hits),
        wall_start_(absl::Now()),
        cpu_start_(ThreadCpuTime()) {}

  std::size_t hits_left() const { return hits_left_; }
  void Spend(std::size_t hits) { hits_left_ -= std::min(hits, hits_left_); }
  // Why the next query may not run, or "" (the CPU clock is read only once
  // the wall clock says the budget could be spent: CPU time <= wall time).
  std::string Spent() const {
    if (hits_left_ == 0) return HitsSpent();
    if (absl::Now() - wall_start_ < limits_.message_cpu) return "";
    if (ThreadCpuTime() - cpu_start_ < limits_.message_cpu) return "";
    return absl::StrCat("this message's queries used the server's budget of ",
                        absl::FormatDuration(limits_.message_cpu),
                        " of CPU per message (scene_message_cpu)");
  }
  std::string HitsSpent() const {
    return absl::StrCat("this message's answers reached the server's limit of ",
                        limits_.max_message_hits,
                        " hits per message (scene_max_message_hits)");
  }

 private:
  const SceneLimits& limits_;
  std::size_t hits_left_;
  const absl::Time wall_start_;
  const absl::Duration cpu_start_;
};

void SetBudgetError(const std::string& why, std::size_t index,
                    std::size_t count, v1::SceneQueryResult* result) {
  result->Clear();
  result->mutable_error()->set_code(
      static_cast<int>(absl::StatusCode::kResourceExhausted));
  result->mutable_error()->set_message(absl::StrCat(
      why, " before queries[", index, "]: it and the ", count - index - 1,
      " after it were not answered; spread the queries over more messages or "
      "ask for fewer hits"));
}

struct Scratch {
  std::vector<OverlapHit> overlap;
  std::vector<NearestHit> nearest;
  std::vector<CastHit> cast;
};

// One query's answer, with at most `hit_cap` hits; true when the cap (not
// the query's own max_hits or k) cut its hits short.
bool AnswerQuery(const ParsedSceneQuery& q, const Scene& scene,
                 const SceneHistory* history, std::optional<uint64_t> tick,
                 std::size_t hit_cap, Scratch* scratch,
                 v1::SceneQueryResult* result) {
  std::vector<OverlapHit>& overlap = scratch->overlap;
  std::vector<NearestHit>& nearest = scratch->nearest;
  std::vector<CastHit>& cast = scratch->cast;
  const std::size_t own = q.kind == SceneQueryKind::kNearest ? q.k
                          : q.kind == SceneQueryKind::kCast && !q.all_hits
                              ? 1
                              : q.max_hits;
  const std::size_t max_hits = std::min(q.max_hits, hit_cap);
  const std::size_t k = std::min(q.k, hit_cap);
  // The moment it is answered at: the latest tick from the scene, any
  // other from the history (validated: never after the latest tick).
  SceneMoment used{tick.value_or(0), 0.0f};
  bool clamped = false;
  if (q.rewound && tick.has_value()) {
    if (history != nullptr) {
      clamped = history->Resolve(q.at, &used) == MomentResolution::kClamped;
    } else {
      clamped = q.at.tick < *tick;  // no history: the latest tick only
    }
  }
  const bool past = used.tick != tick.value_or(0) || used.fraction != 0.0f;
  if (q.rewound && tick.has_value()) {
    result->mutable_at()->set_tick(used.tick);
    if (used.fraction != 0.0f)
      result->mutable_at()->set_fraction(used.fraction);
    result->set_clamped(clamped);
  }
  switch (q.kind) {
    case SceneQueryKind::kOverlap: {
      ShapeKind blocking;
      const bool can =
          past ? history->CanOverlap(used, KindOf(q.shape), &blocking)
               : scene.CanOverlap(KindOf(q.shape), &blocking);
      if (!can) {
        result->mutable_error()->set_code(
            static_cast<int>(absl::StatusCode::kFailedPrecondition));
        result->mutable_error()->set_message(absl::StrCat(
            "an overlap query shaped as a ", KindName(KindOf(q.shape)),
            " cannot be tested against ", KindName(blocking),
            " entities, which this scene holds (Intersect does not answer "
            "that pair); use a circle or point query"));
        break;
      }
      result->set_truncated(past
                                ? history->Overlap(used, q.shape, q.boundary,
                                                   q.filter, max_hits, &overlap)
                                : scene.Overlap(q.shape, q.boundary, q.filter,
                                                max_hits, &overlap));
      for (const OverlapHit& h : overlap) {
        v1::SceneHit* hit = result->add_hits();
        hit->set_id(h.id);
        if (q.include_relation) {
          hit->set_relation(ToProto(h.result.relation));
        }
        if (q.include_separation) hit->set_separation(h.result.separation);
      }
      break;
    }
    case SceneQueryKind::kNearest: {
      result->set_truncated(
          past ? history->Nearest(used, q.shape, k, q.max_gap, q.boundary,
                                  q.filter, &nearest)
               : scene.Nearest(q.shape, k, q.max_gap, q.boundary, q.filter,
                               &nearest));
      for (const NearestHit& h : nearest) {
        v1::SceneHit* hit = result->add_hits();
        hit->set_id(h.id);
        SetClosestPointResult(h.result, hit->mutable_closest());
      }
      break;
    }
    case SceneQueryKind::kCast: {
      result->set_truncated(past ? history->Cast(used, q.cast, q.boundary,
                                                 q.filter, q.all_hits, max_hits,
                                                 &cast)
                                 : scene.Cast(q.cast, q.boundary, q.filter,
                                              q.all_hits, max_hits, &cast));
      for (const CastHit& h : cast) {
        v1::SceneHit* hit = result->add_hits();
        hit->set_id(h.id);
        hit->set_distance(h.result.distance);
        SetVec3(h.result.point, hit->mutable_point());
        SetVec3(h.result.normal, hit->mutable_normal());
      }
      break;
    }
  }
  return hit_cap < own && result->truncated();
}

}  // namespace

void AnswerSceneQueries(const std::vector<ParsedSceneQuery>& queries,
                        const Scene& scene, const SceneHistory* history,
                        std::optional<uint64_t> tick, const SceneLimits& limits,
                        v1::SceneResponse* response) {
  Scratch scratch;
  WorkBudget budget(limits);
  for (std::size_t i = 0; i < queries.size(); ++i) {
    v1::SceneQueryResult* result = response->add_results();
    if (std::string spent = budget.Spent(); !spent.empty()) {
      SetBudgetError(spent, i, queries.size(), result);
      for (std::size_t j = i + 1; j < queries.size(); ++j) {
        SetBudgetError(spent, i, queries.size(), response->add_results());
      }
      return;
    }
    if (AnswerQuery(queries[i], scene, history, tick, budget.hits_left(),
                    &scratch, result)) {
      // Its true answer does not fit what is left.
      SetBudgetError(budget.HitsSpent(), i, queries.size(), result);
      for (std::size_t j = i + 1; j < queries.size(); ++j) {
        SetBudgetError(budget.HitsSpent(), i, queries.size(),
                       response->add_results());
      }
      return;
    }
    budget.Spend(static_cast<std::size_t>(result->hits_size()));
  }
}

}  // namespace collision::handlers
