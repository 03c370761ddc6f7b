// A scene update's validation (scene_request.h) where it takes shortcuts:
// an id repeated in one update is found whatever the order of the ids
// (strictly increasing ids skip the search, since they cannot repeat), and
// the entity limit counts exactly whenever the upper bound is over it.
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "collision/handlers/scene.h"
#include "collision/wire/scene_request.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace collision::wire {
namespace {

using handlers::ApplySceneUpdate;
using ::testing::HasSubstr;

void AddCircle(v1::SceneUpdate* u, uint64_t id, float x) {
  v1::SceneEntity* e = u->add_upserts();
  e->set_id(id);
  e->mutable_shape()->mutable_circle()->mutable_center()->set_x(x);
  e->mutable_shape()->mutable_circle()->set_radius(1);
}

// A column group of circles with these ids.
void AddColumns(v1::SceneUpdate* u, std::initializer_list<uint64_t> ids) {
  v1::EntityColumns* g = u->add_upsert_columns();
  for (uint64_t id : ids) {
    g->add_ids(id);
    g->mutable_circles()->add_x(static_cast<float>(id));
    g->mutable_circles()->add_y(0);
    g->mutable_circles()->add_radius(1);
  }
}

struct Fixture {
  explicit Fixture(std::size_t max_entities) {
    v1::SceneConfig config;
    config.set_dimension(v1::DIMENSION_2D);
    config.set_boundary(v1::BOUNDARY_RULE_INCLUSIVE);
    config.set_max_entities(static_cast<uint32_t>(max_entities));
    settings = *ParseSceneConfig(config, limits);
  }
  absl::StatusOr<ParsedSceneMessage> Parse(const v1::SceneRequest& r) {
    return ParseSceneMessage(r, settings, tick, scene, limits, false);
  }
  // Parses and applies; the status of the parse.
  absl::Status Apply(const v1::SceneRequest& r) {
    absl::StatusOr<ParsedSceneMessage> parsed = Parse(r);
    if (!parsed.ok()) return parsed.status();
    ApplySceneUpdate(parsed->update, &scene, nullptr);
    tick = parsed->update.tick;
    return absl::OkStatus();
  }
  SceneLimits limits;
  SceneSettings settings;
  Scene scene{SceneDimension::k2D};
  std::optional<uint64_t> tick;
};

TEST(SceneUpdate, AnIdRepeatedInOneUpdateIsFoundInAnyOrder) {
  Fixture f(100);
  const std::initializer_list<uint64_t> increasing = {1, 2, 5, 9};
  v1::SceneRequest ok;
  ok.mutable_update()->set_tick(1);
  AddColumns(ok.mutable_update(), increasing);
  ASSERT_TRUE(f.Apply(ok).ok());
  EXPECT_EQ(f.scene.size(), 4u);

  // Repeats next to each other, apart, across the per-entity upserts and
  // the columns, and in a second column group.
  for (const auto& [per_entity, columns, twice] :
       {std::tuple<std::vector<uint64_t>, std::vector<uint64_t>, uint64_t>{
            {}, {3, 3}, 3},
        {{}, {9, 4, 9}, 9},
        {{7}, {2, 7}, 7},
        {{8, 8}, {}, 8},
        {{1, 2}, {3, 1}, 1}}) {
    v1::SceneRequest r;
    r.mutable_update()->set_tick(2);
    for (uint64_t id : per_entity) AddCircle(r.mutable_update(), id, 0);
    v1::EntityColumns* g = r.mutable_update()->add_upsert_columns();
    for (uint64_t id : columns) {
      g->add_ids(id);
      g->mutable_circles()->add_x(0);
      g->mutable_circles()->add_y(0);
      g->mutable_circles()->add_radius(1);
    }
    if (columns.empty()) r.mutable_update()->clear_upsert_columns();
    const absl::StatusOr<ParsedSceneMessage> parsed = f.Parse(r);
    ASSERT_FALSE(parsed.ok()) << twice;
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(parsed.status().message(),
                HasSubstr("entity " + std::to_string(twice) +
                          " appears twice in this update"));
  }
  // The second appearance (per-entity upserts first, then the columns) is
  // named by its field.
  v1::SceneRequest named;
  named.mutable_update()->set_tick(2);
  for (uint64_t id : {6, 4, 6}) AddCircle(named.mutable_update(), id, 0);
  AddColumns(named.mutable_update(), {3, 4});
  const absl::StatusOr<ParsedSceneMessage> twice = f.Parse(named);
  ASSERT_FALSE(twice.ok());
  EXPECT_THAT(twice.status().message(),
              HasSubstr("update.upserts[2].id: entity 6 appears twice"));
  EXPECT_THAT(twice.status().message(),
              HasSubstr("update.upsert_columns[0].ids[1]: entity 4 appears "
                        "twice"));
  // Increasing across both forms is accepted.
  v1::SceneRequest both;
  both.mutable_update()->set_tick(2);
  AddCircle(both.mutable_update(), 1, 0);
  AddColumns(both.mutable_update(), {2, 3});
  EXPECT_TRUE(f.Parse(both).ok());
  // So are groups each increasing whose id ranges do not meet, in any order
  // (hitboxes by id after the world's entities, sent first).
  v1::SceneRequest apart;
  apart.mutable_update()->set_tick(2);
  AddCircle(apart.mutable_update(), 100, 0);
  AddCircle(apart.mutable_update(), 101, 0);
  AddColumns(apart.mutable_update(), {50, 60});
  AddColumns(apart.mutable_update(), {2, 3});
  EXPECT_TRUE(f.Parse(apart).ok());
  // Two increasing groups whose ranges meet at a shared id.
  v1::SceneRequest meet;
  meet.mutable_update()->set_tick(2);
  AddCircle(meet.mutable_update(), 100, 0);
  AddColumns(meet.mutable_update(), {1, 5});
  AddColumns(meet.mutable_update(), {5, 9});
  const absl::StatusOr<ParsedSceneMessage> shared = f.Parse(meet);
  ASSERT_FALSE(shared.ok());
  EXPECT_THAT(shared.status().message(),
              HasSubstr("update.upsert_columns[1].ids[0]: entity 5 appears "
                        "twice"));
}

TEST(SceneUpdate, TheEntityLimitCountsOnlyNewIds) {
  Fixture f(4);
  v1::SceneRequest first;
  first.mutable_update()->set_tick(1);
  AddColumns(first.mutable_update(), {1, 2, 3});
  ASSERT_TRUE(f.Apply(first).ok());
  // 3 + 3 upserts is over 4, but two of them exist: 4 after.
  v1::SceneRequest at_limit;
  at_limit.mutable_update()->set_tick(2);
  AddColumns(at_limit.mutable_update(), {1, 2, 4});
  ASSERT_TRUE(f.Apply(at_limit).ok());
  EXPECT_EQ(f.scene.size(), 4u);
  // One more new id: 5 after.
  v1::SceneRequest over;
  over.mutable_update()->set_tick(3);
  AddColumns(over.mutable_update(), {3, 5});
  const absl::StatusOr<ParsedSceneMessage> parsed = f.Parse(over);
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(parsed.status().message(),
              HasSubstr("update would leave 5 entities in the scene, over its "
                        "limit of 4"));
  // With a removal it fits again.
  over.mutable_update()->add_removals(1);
  EXPECT_TRUE(f.Parse(over).ok());
}

}  // namespace
}  // namespace collision::wire
