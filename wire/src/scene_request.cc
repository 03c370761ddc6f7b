#include "collision/wire/scene_request.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "collision/core/cast.h"
#include "collision/core/scalar.h"
#include "collision/wire/convert.h"
#include "collision/wire/field_rules.h"
#include "collision/wire/scene_columns.h"
#include "collision/wire/shape_parser.h"

namespace collision::wire {
namespace {

bool ShapeFitsDimension(const Shape& shape, SceneDimension d) {
  return Is3D(KindOf(shape)) == (d == SceneDimension::k3D);
}

// Why a valid shape cannot be in (or ask) a scene of dimension d.
std::string WhyNotInScene(const Shape& shape, SceneDimension d) {
  const char* name = KindName(KindOf(shape));
  const char* is_a = std::strchr("aeiou", name[0]) ? "is an " : "is a ";
  return absl::StrCat(is_a, name, ", not a shape of this ", DimensionName(d),
                      " scene");
}

// Whether no id can repeat among the upserts without looking them up: the
// per-entity upserts and each column group each list their ids in
// increasing order (a column of array indices, say), and the groups' id
// ranges do not overlap (players' hitboxes by id after the world's
// entities, say).
bool IdsCannotRepeat(const ParsedSceneUpdate& u) {
  struct Range {
    uint64_t lo, hi;
  };
  std::vector<Range> ranges;
  ranges.reserve(u.column_upserts.size() + 1);
  const auto increasing = [&ranges](auto begin, auto end, auto id_of) {
    if (begin == end) return true;
    uint64_t last = id_of(*begin);
    const uint64_t first = last;
    for (auto it = std::next(begin); it != end; ++it) {
      const uint64_t id = id_of(*it);
      if (id <= last) return false;
      last = id;
    }
    ranges.push_back({first, last});
    return true;
  };
  if (!increasing(u.upserts.begin(), u.upserts.end(),
                  [](const SceneUpsert& e) { return e.id; })) {
    return false;
  }
  for (const SceneColumnUpserts& g : u.column_upserts) {
    if (!increasing(g.ids.begin(), g.ids.end(),
                    [](uint64_t id) { return id; })) {
      return false;
    }
  }
  std::sort(ranges.begin(), ranges.end(),
            [](const Range& a, const Range& b) { return a.lo < b.lo; });
  for (std::size_t i = 1; i < ranges.size(); ++i) {
    if (ranges[i].lo <= ranges[i - 1].hi) return false;
  }
  return true;
}

void ParseUpdate(const v1::SceneUpdate& u, const SceneSettings& settings,
                 std::optional<uint64_t> last_tick, const Scene& scene,
                 Parser* parser, Violations* v, ParsedSceneUpdate* out) {
  out->present = true;
  out->tick = u.tick();
  out->snapshot = u.snapshot();
  if (last_tick.has_value() && u.tick() <= *last_tick) {
    v->Add("update.tick", absl::StrCat("must be > the previous update's tick (",
                                       *last_tick, "), got ", u.tick()));
  }
  out->upserts.reserve(static_cast<std::size_t>(u.upserts_size()));
  for (int i = 0; i < u.upserts_size(); ++i) {
    const v1::SceneEntity& e = u.upserts(i);
    const uint32_t category = e.has_category() ? e.category() : 1;
    Shape shape;
    if (e.has_shape() && FastShape(e.shape(), &shape) &&
        ShapeFitsDimension(shape, settings.dimension)) {
      out->upserts.push_back(SceneUpsert{e.id(), shape, category});
      continue;
    }
    // Something is wrong with it: the parser names what.
    const std::string path = absl::StrCat("update.upserts[", i, "]");
    std::optional<Shape> parsed =
        parser->ParseShape(e.has_shape(), e.shape(), path + ".shape");
    if (parsed.has_value() &&
        !ShapeFitsDimension(*parsed, settings.dimension)) {
      v->Add(path + ".shape", WhyNotInScene(*parsed, settings.dimension));
    }
    out->upserts.push_back(
        SceneUpsert{e.id(), parsed.value_or(Shape{}), category});
  }
  out->column_upserts.resize(static_cast<std::size_t>(u.upsert_columns_size()));
  for (int i = 0; i < u.upsert_columns_size(); ++i) {
    ReadEntityColumns(u.upsert_columns(i),
                      absl::StrCat("update.upsert_columns[", i, "]"),
                      settings.dimension, parser, v,
                      &out->column_upserts[static_cast<std::size_t>(i)]);
  }
  out->removals.assign(u.removals().begin(), u.removals().end());
  if (u.snapshot() && !out->removals.empty()) {
    v->Add("update.removals",
           "must be empty in a snapshot (it replaces the whole world)");
  }
  // The set below, a hash apiece, is for ids that could repeat.
  if (out->removals.empty() && IdsCannotRepeat(*out)) return;
  absl::flat_hash_set<uint64_t> seen;
  seen.reserve(out->upserts.size() + out->removals.size());
  for (std::size_t i = 0; i < out->removals.size(); ++i) {
    const uint64_t id = out->removals[i];
    if (!seen.insert(id).second) {
      v->AddItem(absl::StrCat("update.removals[", i, "]"),
                 absl::StrCat("entity ", id, " appears twice in this update"));
    } else if (!scene.Contains(id)) {
      v->AddItem(absl::StrCat("update.removals[", i, "]"),
                 absl::StrCat("no entity ", id, " in the scene"));
    }
  }
  const auto once = [&](uint64_t id, const auto& path) {
    if (!seen.insert(id).second) {
      v->AddItem(path(),
                 absl::StrCat("entity ", id, " appears twice in this update"));
    }
  };
  for (std::size_t i = 0; i < out->upserts.size(); ++i) {
    once(out->upserts[i].id,
         [&] { return absl::StrCat("update.upserts[", i, "].id"); });
  }
  for (std::size_t g = 0; g < out->column_upserts.size(); ++g) {
    const std::vector<uint64_t>& ids = out->column_upserts[g].ids;
    for (std::size_t i = 0; i < ids.size(); ++i) {
      once(ids[i], [&] {
        return absl::StrCat("update.upsert_columns[", g, "].ids[", i, "]");
      });
    }
  }
}

// A rewound query's moment: a fraction in [0, 1), not after `latest`.
void ParseMoment(const v1::SceneMoment& at, int index,
                 std::optional<uint64_t> latest, Violations* v,
                 ParsedSceneQuery* out) {
  const std::string path = absl::StrCat("queries[", index, "].at");
  out->rewound = true;
  out->at = SceneMoment{at.tick(), at.fraction()};
  const float f = at.fraction();
  if (!(f >= 0.0f && f < 1.0f)) {
    v->Add(path + ".fraction", absl::StrCat("must be in [0, 1), got ", f));
    return;
  }
  if (!latest.has_value()) {
    v->AddItem(path,
               "the scene has no tick yet (send an update first); a query "
               "without `at` needs none");
  } else if (at.tick() > *latest || (at.tick() == *latest && f > 0.0f)) {
    v->Add(path,
           absl::StrCat("is in the future: tick ", at.tick(), " + ", f,
                        " is after the scene's latest tick (", *latest, ")"));
  }
}

// Entities the scene would hold after the update.
std::size_t CountAfter(const ParsedSceneUpdate& u, const Scene& scene) {
  if (u.snapshot) return u.upsert_count();
  std::size_t added = 0;
  for (const SceneUpsert& e : u.upserts) added += scene.Contains(e.id) ? 0 : 1;
  for (const SceneColumnUpserts& g : u.column_upserts) {
    added += scene.CountAbsent(g.kind, g.ids.data(), g.ids.size());
  }
  return scene.size() - u.removals.size() + added;
}

Vec3 CastVector(const v1::Vec3& v, bool present, const std::string& path,
                SceneDimension d, Parser* parser) {
  Vec3 out = parser->Point3(present, v, path);
  if (d == SceneDimension::k2D && present && out.z != 0.0f) {
    parser->violations()->Add(
        path + ".z", absl::StrCat("must be 0 in a 2D scene, got ", out.z));
  }
  return out;
}

void ParseCast(const v1::Vec3& origin, bool has_origin,
               const v1::Vec3& direction, bool has_direction,
               float max_distance, float radius, const std::string& path,
               SceneDimension d, Parser* parser, CastQuery* out) {
  out->origin = CastVector(origin, has_origin, path + ".origin", d, parser);
  const Vec3 dir =
      CastVector(direction, has_direction, path + ".direction", d, parser);
  out->max_distance = parser->Length(max_distance, path + ".max_distance");
  out->radius = parser->Length(radius, path + ".radius");
  if (has_direction && dir.x == 0.0f && dir.y == 0.0f && dir.z == 0.0f) {
    parser->violations()->Add(path + ".direction", "must not be zero");
  }
  if (d == SceneDimension::k2D) {
    const Vec2 u = NormalizeDirection(Vec2{dir.x, dir.y});
    out->direction = {u.x, u.y, 0.0f};
  } else {
    out->direction = NormalizeDirection(dir);
  }
}

// A query whose every field is valid, converted without building field
// paths (ParseQuery's rules); false sends it through ParseQuery, which names
// what is wrong.
bool FastCast(const v1::Vec3& origin, bool has_origin,
              const v1::Vec3& direction, bool has_direction, float max_distance,
              float radius, SceneDimension d, CastQuery* out) {
  auto coord = [](float v) { return Passes(v, FieldRule::kCoord); };
  if (!has_origin || !has_direction) return false;
  const Vec3 o{origin.x(), origin.y(), origin.z()};
  const Vec3 dir{direction.x(), direction.y(), direction.z()};
  if (!coord(o.x) || !coord(o.y) || !coord(o.z) || !coord(dir.x) ||
      !coord(dir.y) || !coord(dir.z) ||
      !Passes(max_distance, FieldRule::kLength) ||
      !Passes(radius, FieldRule::kLength)) {
    return false;
  }
  if (d == SceneDimension::k2D && (o.z != 0.0f || dir.z != 0.0f)) return false;
  if (dir.x == 0.0f && dir.y == 0.0f && dir.z == 0.0f) return false;
  out->origin = o;
  out->max_distance = max_distance;
  out->radius = radius;
  if (d == SceneDimension::k2D) {
    const Vec2 u = NormalizeDirection(Vec2{dir.x, dir.y});
    out->direction = {u.x, u.y, 0.0f};
  } else {
    out->direction = NormalizeDirection(dir);
  }
  return true;
}

bool FastQuery(const v1::SceneQuery& q, const SceneSettings& settings,
               const SceneLimits& limits, ParsedSceneQuery* out) {
  out->filter.mask = q.has_mask() ? q.mask() : 0xFFFFFFFFu;
  out->filter.exclude = q.has_exclude_id();
  out->filter.exclude_id = q.exclude_id();
  out->max_hits = q.max_hits() == 0 ? limits.max_hits : q.max_hits();
  if (out->max_hits > limits.max_hits) return false;
  switch (q.boundary()) {
    case v1::BOUNDARY_RULE_UNSPECIFIED:
      out->boundary = settings.boundary;
      break;
    case v1::BOUNDARY_RULE_INCLUSIVE:
      out->boundary = Boundary::kInclusive;
      break;
    case v1::BOUNDARY_RULE_EXCLUSIVE:
      out->boundary = Boundary::kExclusive;
      break;
    default:
      return false;
  }
  const SceneDimension d = settings.dimension;
  auto shape_of = [&](bool present, const v1::Shape& s) {
    return present && FastShape(s, &out->shape) &&
           ShapeFitsDimension(out->shape, d);
  };
  switch (q.query_case()) {
    case v1::SceneQuery::kOverlap:
      out->kind = SceneQueryKind::kOverlap;
      out->include_relation = q.overlap().include_relation();
      out->include_separation = q.overlap().include_separation();
      return shape_of(q.overlap().has_shape(), q.overlap().shape());
    case v1::SceneQuery::kNearest: {
      const v1::NearestQuery& n = q.nearest();
      out->kind = SceneQueryKind::kNearest;
      if (!shape_of(n.has_shape(), n.shape()) ||
          !IsBall(KindOf(out->shape)) || n.k() == 0 ||
          n.k() > limits.max_hits) {
        return false;
      }
      out->k = n.k();
      out->max_hits = out->k;
      out->max_gap = INFINITY;
      if (n.has_max_distance()) {
        const float m = n.max_distance();
        if (!Passes(m, FieldRule::kCoord)) return false;
        out->max_gap = m;
      }
      return true;
    }
    case v1::SceneQuery::kRaycast: {
      const v1::RaycastQuery& r = q.raycast();
      out->kind = SceneQueryKind::kCast;
      out->all_hits = r.all_hits();
      return FastCast(r.origin(), r.has_origin(), r.direction(),
                      r.has_direction(), r.max_distance(), 0.0f, d, &out->cast);
    }
    case v1::SceneQuery::kSweep: {
      const v1::SweepQuery& w = q.sweep();
      out->kind = SceneQueryKind::kCast;
      out->all_hits = w.all_hits();
      return FastCast(w.origin(), w.has_origin(), w.direction(),
                      w.has_direction(), w.max_distance(), w.radius(), d,
                      &out->cast);
    }
    case v1::SceneQuery::QUERY_NOT_SET:
      return false;
  }
  return false;
}

void ParseQuery(const v1::SceneQuery& q, int index,
                const SceneSettings& settings, const SceneLimits& limits,
                Parser* parser, Violations* v, ParsedSceneQuery* out) {
  const std::string path = absl::StrCat("queries[", index, "]");
  out->filter.mask = q.has_mask() ? q.mask() : 0xFFFFFFFFu;
  out->filter.exclude = q.has_exclude_id();
  out->filter.exclude_id = q.exclude_id();
  out->max_hits = q.max_hits() == 0 ? limits.max_hits : q.max_hits();
  if (out->max_hits > limits.max_hits) {
    v->Add(path + ".max_hits",
           absl::StrCat("must be <= this server's limit of ", limits.max_hits,
                        ", got ", q.max_hits()));
  }
  out->boundary = settings.boundary;
  if (q.boundary() != v1::BOUNDARY_RULE_UNSPECIFIED) {
    Violations rule;
    if (auto b = ParseBoundary(q.boundary(), &rule)) out->boundary = *b;
    if (!rule.empty()) v->Add(path + ".boundary", "is not a known rule");
  }
  const SceneDimension d = settings.dimension;
  auto shape_of = [&](bool present, const v1::Shape& s,
                      const std::string& p) -> Shape {
    std::optional<Shape> shape = parser->ParseShape(present, s, p);
    if (!shape.has_value()) return Shape{};
    if (!ShapeFitsDimension(*shape, d)) {
      v->Add(p, WhyNotInScene(*shape, d));
    }
    return *shape;
  };
  switch (q.query_case()) {
    case v1::SceneQuery::kOverlap: {
      out->kind = SceneQueryKind::kOverlap;
      out->shape = shape_of(q.overlap().has_shape(), q.overlap().shape(),
                            path + ".overlap.shape");
      out->include_relation = q.overlap().include_relation();
      out->include_separation = q.overlap().include_separation();
      return;
    }
    case v1::SceneQuery::kNearest: {
      const v1::NearestQuery& n = q.nearest();
      out->kind = SceneQueryKind::kNearest;
      out->shape = shape_of(n.has_shape(), n.shape(), path + ".nearest.shape");
      if (n.has_shape() && !IsBall(KindOf(out->shape))) {
        v->Add(path + ".nearest.shape",
               absl::StrCat("must be a point or circle (2D) or a point3 or "
                            "sphere (3D), got a ",
                            KindName(KindOf(out->shape))));
      }
      out->k = n.k();
      if (n.k() == 0 || n.k() > limits.max_hits) {
        v->Add(
            path + ".nearest.k",
            absl::StrCat("must be in [1, ", limits.max_hits, "], got ", n.k()));
      }
      out->max_gap =
          n.has_max_distance()
              ? parser->Coord(n.max_distance(), path + ".nearest.max_distance")
              : INFINITY;
      out->max_hits = out->k;
      return;
    }
    case v1::SceneQuery::kRaycast: {
      const v1::RaycastQuery& r = q.raycast();
      out->kind = SceneQueryKind::kCast;
      ParseCast(r.origin(), r.has_origin(), r.direction(), r.has_direction(),
                r.max_distance(), 0.0f, path + ".raycast", d, parser,
                &out->cast);
      out->all_hits = r.all_hits();
      return;
    }
    case v1::SceneQuery::kSweep: {
      const v1::SweepQuery& s = q.sweep();
      out->kind = SceneQueryKind::kCast;
      ParseCast(s.origin(), s.has_origin(), s.direction(), s.has_direction(),
                s.max_distance(), s.radius(), path + ".sweep", d, parser,
                &out->cast);
      out->all_hits = s.all_hits();
      return;
    }
    case v1::SceneQuery::QUERY_NOT_SET:
      break;
  }
  v->Add(path + ".query",
         "is required: set overlap, nearest, raycast or sweep");
}

}  // namespace

absl::StatusOr<SceneSettings> ParseSceneConfig(const v1::SceneConfig& config,
                                               const SceneLimits& limits) {
  Violations v;
  SceneSettings s;
  switch (config.dimension()) {
    case v1::DIMENSION_2D:
      s.dimension = SceneDimension::k2D;
      break;
    case v1::DIMENSION_3D:
      s.dimension = SceneDimension::k3D;
      break;
    default:
      v.Add("config.dimension", "is required: DIMENSION_2D or DIMENSION_3D");
  }
  Violations rule;
  if (auto b = ParseBoundary(config.boundary(), &rule)) s.boundary = *b;
  if (!rule.empty()) {
    v.Add("config.boundary",
          "is required: BOUNDARY_RULE_INCLUSIVE or BOUNDARY_RULE_EXCLUSIVE");
  }
  if (!v.empty()) return v.ToStatus();
  if (config.max_entities() > limits.max_entities) {
    return absl::ResourceExhaustedError(
        absl::StrCat("config.max_entities (", config.max_entities(),
                     ") is over this server's limit of ", limits.max_entities,
                     " entities per scene"));
  }
  s.max_entities =
      config.max_entities() == 0 ? limits.max_entities : config.max_entities();
  if (config.tick_rate() > 1000) {
    return InvalidField(
        "config.tick_rate",
        absl::StrCat("must be in [0, 1000] ticks per second (0: 64), got ",
                     config.tick_rate()));
  }
  const uint32_t rate = config.tick_rate() == 0 ? 64 : config.tick_rate();
  const uint32_t ticks =
      config.history_ticks() == 0 ? rate : config.history_ticks();
  if (ticks > limits.max_history_ticks) {
    return absl::ResourceExhaustedError(absl::StrCat(
        config.history_ticks() == 0
            ? absl::StrCat("one second of history at config.tick_rate ", rate,
                           " (", ticks, " ticks)")
            : absl::StrCat("config.history_ticks (", ticks, ")"),
        " is over this server's limit of ", limits.max_history_ticks,
        " ticks of history per scene; set config.history_ticks lower"));
  }
  s.history_ticks = ticks;
  // What the scene reserves: what it could come to hold, up to the
  // per-scene budget; its entity limit then falls to what that holds.
  const bool history = ticks > 1;
  s.memory_bytes = std::min(limits.scene_memory_bytes,
                            SceneBytesAtMost(s.max_entities, ticks));
  const std::size_t base = SceneBytesAtLeast(0, history);
  const std::size_t per_entity = SceneBytesAtLeast(1, history) - base;
  const std::size_t fits =
      s.memory_bytes > base ? (s.memory_bytes - base) / per_entity : 0;
  if (fits < s.max_entities) {
    if (config.max_entities() != 0 || fits == 0) {
      return absl::ResourceExhaustedError(absl::StrCat(
          s.max_entities, " entities", history ? " with a history" : "",
          " need at least ", SceneBytesAtLeast(s.max_entities, history),
          " bytes, over this server's memory budget of ",
          limits.scene_memory_bytes,
          " bytes per scene (scene_memory_bytes); ask for at most ", fits,
          " entities (config.max_entities)"));
    }
    s.max_entities = fits;
  }
  return s;
}

absl::StatusOr<ParsedSceneMessage> ParseSceneMessage(
    const v1::SceneRequest& request, const SceneSettings& settings,
    std::optional<uint64_t> last_tick, const Scene& scene,
    const SceneLimits& limits, bool config_allowed) {
  if (static_cast<std::size_t>(request.queries_size()) > limits.max_queries) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "queries has ", request.queries_size(),
        " queries, over this server's limit of ", limits.max_queries,
        " per message; split them over several messages"));
  }
  Violations v;
  Parser parser(&v);
  ParsedSceneMessage out;
  if (request.has_config() && !config_allowed) {
    v.Add("config",
          "is allowed only in the first message of the stream (the scene is "
          "configured already)");
  }
  if (request.has_update()) {
    ParseUpdate(request.update(), settings, last_tick, scene, &parser, &v,
                &out.update);
  }
  // Queries see the world after this message's update.
  const std::optional<uint64_t> latest =
      out.update.present ? std::optional<uint64_t>(out.update.tick) : last_tick;
  out.queries.resize(static_cast<std::size_t>(request.queries_size()));
  for (int i = 0; i < request.queries_size(); ++i) {
    ParsedSceneQuery* query = &out.queries[static_cast<std::size_t>(i)];
    if (!FastQuery(request.queries(i), settings, limits, query)) {
      *query = ParsedSceneQuery{};
      ParseQuery(request.queries(i), i, settings, limits, &parser, &v, query);
    }
    if (request.queries(i).has_at()) {
      ParseMoment(request.queries(i).at(), i, latest, &v, query);
    }
  }
  if (!v.empty()) return v.ToStatus();
  // At most the scene plus every upsert (counting the new ones exactly
  // costs a lookup each, so only when that bound is over the limit).
  const std::size_t most = out.update.snapshot
                               ? out.update.upsert_count()
                               : scene.size() - out.update.removals.size() +
                                     out.update.upsert_count();
  if (out.update.present && most > settings.max_entities) {
    const std::size_t after = CountAfter(out.update, scene);
    if (after > settings.max_entities) {
      return absl::ResourceExhaustedError(
          absl::StrCat("update would leave ", after,
                       " entities in the scene, over its "
                       "limit of ",
                       settings.max_entities,
                       " (config.max_entities, the server's limit or what "
                       "the scene's memory budget holds: "
                       "SceneResponse.scene.max_entities)"));
    }
  }
  return out;
}

std::size_t ParsedSceneUpdate::upsert_count() const {
  std::size_t n = upserts.size();
  for (const SceneColumnUpserts& g : column_upserts) n += g.size();
  return n;
}

}  // namespace collision::wire
