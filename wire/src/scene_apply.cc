// Carrying out a validated SceneService message (scene_request.h): its
// update into the scene and the history, then its queries' answers, each
// from the scene at the latest tick or from the history at another moment.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "collision/wire/convert.h"
#include "collision/wire/scene_request.h"

namespace collision::wire {
namespace {

// One group of columns into a Scene or a SceneHistory (the same call).
template <typename Target>
void UpsertGroup(const SceneColumnUpserts& g, Target* target) {
  const float* columns[8];
  for (std::size_t c = 0; c < g.columns.size(); ++c) {
    columns[c] = g.columns[c].data();
  }
  target->UpsertColumns(g.kind, g.size(), g.ids.data(), columns,
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

void AnswerSceneQueries(const std::vector<ParsedSceneQuery>& queries,
                        const Scene& scene, const SceneHistory* history,
                        std::optional<uint64_t> tick,
                        v1::SceneResponse* response) {
  std::vector<OverlapHit> overlap;
  std::vector<NearestHit> nearest;
  std::vector<CastHit> cast;
  for (const ParsedSceneQuery& q : queries) {
    v1::SceneQueryResult* result = response->add_results();
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
        result->set_truncated(
            past ? history->Overlap(used, q.shape, q.boundary, q.filter,
                                    q.max_hits, &overlap)
                 : scene.Overlap(q.shape, q.boundary, q.filter, q.max_hits,
                                 &overlap));
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
            past ? history->Nearest(used, q.shape, q.k, q.max_gap, q.boundary,
                                    q.filter, &nearest)
                 : scene.Nearest(q.shape, q.k, q.max_gap, q.boundary, q.filter,
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
                                                   q.filter, q.all_hits,
                                                   q.max_hits, &cast)
                                   : scene.Cast(q.cast, q.boundary, q.filter,
                                                q.all_hits, q.max_hits, &cast));
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
  }
}

}  // namespace collision::wire
