// Where the service (float32) and PostGIS (float8) answer differently on the
// same pairs, and whether the service's paths agree with one another.
#ifndef COLLISION_TOOLS_PEERS_AGREEMENT_H_
#define COLLISION_TOOLS_PEERS_AGREEMENT_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "tools/peers/pairs.h"
#include "tools/peers/pg_driver.h"

namespace collision::peers {

struct AgreementOptions {
  std::string target;  // the service
  int show = 0;        // disagreeing pairs printed (verbose)
};

// Sends `pairs` once through PostGIS (one batch) and through the service
// (Intersect, IntersectColumns, QueryStream, ClosestPoint,
// ClosestPointColumns) and prints the counts to `out`. Fails when a system
// fails or the service's paths disagree with one another.
absl::Status CheckAgreement(const std::vector<CircleRectPair>& pairs,
                            PgConnection* pg, const AgreementOptions& options,
                            std::ostream& out);

}  // namespace collision::peers

#endif  // COLLISION_TOOLS_PEERS_AGREEMENT_H_
