// Executing a validated collision.v1.SceneService message (wire/
// scene_request.h validates and converts): the update applied to the scene
// and its history, and the queries answered, within the message's limits.
#ifndef COLLISION_HANDLERS_SCENE_H_
#define COLLISION_HANDLERS_SCENE_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "collision/core/scene.h"
#include "collision/core/scene_history.h"
#include "collision/v1/scene.pb.h"
#include "collision/wire/scene_request.h"

namespace collision::handlers {

using wire::ParsedSceneMessage;
using wire::ParsedSceneQuery;
using wire::ParsedSceneUpdate;
using wire::SceneLimits;

// Applies a validated update to the scene and, when the scene keeps one,
// its history, and commits both; `record_later`: the history's commit is
// left to the caller (history->Commit(update.tick)), which makes it after
// sending the answer when RecordUpdateFirst() allows.
void ApplySceneUpdate(const ParsedSceneUpdate& update, Scene* scene,
                      SceneHistory* history, bool record_later = false);
// Its two halves: the scene's update (committed), and the history's
// (staged, and committed unless `record_later`).
void ApplyToScene(const ParsedSceneUpdate& update, Scene* scene);
void ApplyToHistory(const ParsedSceneUpdate& update, SceneHistory* history,
                    bool record_later);

// Whether the message's update must be in the history before its queries
// are answered: some rewound query needs the update's tick, or would be
// clamped otherwise (SceneHistory::AnswerableBefore). Recording 10k moving
// entities costs about as much as answering a reference tick's queries, so
// a server records the others after the answer has left.
bool RecordUpdateFirst(const ParsedSceneMessage& message,
                       const SceneHistory& history);

// Answers the queries into `response` (results[i] for queries[i]): at the
// latest tick from the scene, rewound ones from the history (`history`
// null: the scene keeps none, so they are clamped to the latest tick).
// `tick`: the scene's latest tick, if any. The message's work is bounded
// by `limits` (max_message_hits, message_cpu): once either is spent, the
// query that would pass it and every later one get a RESOURCE_EXHAUSTED
// error saying which (the ones before keep their answers).
void AnswerSceneQueries(const std::vector<ParsedSceneQuery>& queries,
                        const Scene& scene, const SceneHistory* history,
                        std::optional<uint64_t> tick, const SceneLimits& limits,
                        v1::SceneResponse* response);

}  // namespace collision::handlers

#endif  // COLLISION_HANDLERS_SCENE_H_
