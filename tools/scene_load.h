// collision_load --rpc=scene: game-server-shaped load on SceneService. Each
// of `scenes` workers opens a scene (client::SceneSession, which reopens it
// on failover) with `entities` circles in a square world, then ticks at
// `tick_rate`: every tick moves a share of the entities and asks `rays`
// raycasts, `sweeps` swept circles and `overlaps` circle overlaps. Ticks are
// due on a fixed schedule (open loop) and a tick's latency counts from the
// time it was due, so a slow server cannot hide its queueing (no
// coordinated omission). Reported like the other workloads: a "request" is
// a tick, its "pairs" are its queries. Raycasts can be rewound (lag
// compensation) by a uniformly drawn lag.
//
// A run for a duration ends on time: no tick is sent after its end, the
// ticks due in it and never sent are counted (RunResult::due, unsent), and
// its measured time is the real one, to the last answer. Each tick waits at
// most the client's deadline (ClientOptions::timeout) for its answer; a
// tick still unanswered at the end plus that deadline is counted as failed
// (DEADLINE_EXCEEDED) and its scene left behind: a server that hangs or
// goes away cannot hold the run.
#ifndef COLLISION_TOOLS_SCENE_LOAD_H_
#define COLLISION_TOOLS_SCENE_LOAD_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "tools/runner.h"

namespace collision::load {

struct SceneLoadOptions {
  int entities = 10000;
  double moving = 1.0;    // share of entities moved per tick, 0..1
  double tick_rate = 64;  // ticks per second per scene
  int rays = 256;         // raycasts per tick (length 100)
  int sweeps = 200;       // swept circles per tick (r 0.25, length 30)
  int overlaps = 50;      // circle overlaps per tick (r 5)
  bool columns = true;    // upserts as columns (else per entity)
  // Raycasts rewound by a lag drawn uniformly from [rewind_min, rewind_max]
  // (SceneQuery.at, lag compensation); both zero: not rewound.
  absl::Duration rewind_min = absl::ZeroDuration();
  absl::Duration rewind_max = absl::ZeroDuration();
  // SceneConfig.history_ticks: ticks of history each scene keeps; 0: what
  // the run needs (HistoryTicksNeeded).
  int history_ticks = 0;
  // The server's scene port ("host:port", or several with commas): scenes
  // go over plain TCP frames (SceneSessionOptions::scene_port); empty:
  // SceneService.Session on gRPC.
  std::string scene_port;
};

// `run.concurrency` is the number of scenes; `run.rate` is ignored (the
// tick rate paces each scene); `run.requests` (when > 0) is the number of
// measured ticks over all scenes. Fails only on invalid options or when no
// channel can be created: a scene that cannot be opened is counted
// (RunResult::scenes_opened, scene_open_error), as are failed ticks.
absl::StatusOr<RunResult> RunScenes(const RunOptions& run,
                                    const SceneLoadOptions& scene);

// The history a run's scenes ask for when --scene_history_ticks is 0, as a
// game would ask for what it rewinds: none (1 tick) without rewound
// raycasts, else the ticks --scene_rewind_max spans at --tick_rate plus
// the two an interpolated moment sits between. Asking the server's default
// (one second) instead reserved ~5 KB per entity for history nobody read,
// and the default run (8 scenes of 10k) did not fit the default budget.
int HistoryTicksNeeded(const SceneLoadOptions& scene);

}  // namespace collision::load

#endif  // COLLISION_TOOLS_SCENE_LOAD_H_
