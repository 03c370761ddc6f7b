// Scene upserts given as columns (collision.v1.EntityColumns): one shape
// kind per group, ids[i] gets row i. Checked like per-entity shapes, with a
// field path built only for a value that fails.
#ifndef COLLISION_WIRE_SCENE_COLUMNS_H_
#define COLLISION_WIRE_SCENE_COLUMNS_H_

#include <string>
#include <vector>

#include "collision/core/scene.h"
#include "collision/v1/scene.pb.h"
#include "collision/wire/scene_request.h"
#include "collision/wire/shape_parser.h"

namespace collision::wire {

// "2D" or "3D", as messages name a scene's dimension.
const char* DimensionName(SceneDimension d);

// Reads the group into `out`, recording violations (under `path`, e.g.
// "update.upsert_columns[2]") through `parser`.
void ReadEntityColumns(const v1::EntityColumns& group, const std::string& path,
                       SceneDimension dimension, Parser* parser, Violations* v,
                       SceneColumnUpserts* out);

}  // namespace collision::wire

#endif  // COLLISION_WIRE_SCENE_COLUMNS_H_
