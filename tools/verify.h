// --verify: the scalar reference (collision::core, linked by the tool only,
// never by the client library) recomputes a request's answers; responses
// are compared with them.
#ifndef COLLISION_TOOLS_VERIFY_H_
#define COLLISION_TOOLS_VERIFY_H_

#include <cstdint>

#include "absl/strings/string_view.h"
#include "collision/core/shapes.h"
#include "collision/v1/collision.pb.h"
#include "grpcpp/support/byte_buffer.h"
#include "tools/workload.h"

namespace collision::load {

// A wire shape as the service sees it: the wire layer's conversion
// (wire::FastShape), rotations from angles included. A shape the service
// would reject becomes the point (0, 0); the workload makes none.
Shape ToCoreShape(const v1::Shape& s);

// Fills item->expected_hit or item->expected_closest from item->shapes.
void ComputeExpected(Item* item, bool exclusive);

// Number of answers of `response` that differ from the expected ones (a
// response of the wrong size counts every pair). Every answer must be equal,
// closest points bit for bit (same conversion, kernels bit-identical to the
// scalar reference) except on a rectangle rotated by an angle, within 1e-5
// relative: its sin/cos may differ in the last bits between the tool's CPU
// and the server's (proto/README.md, "Exactness across machines").
int64_t CountMismatches(const Item& item, const v1::IntersectResponse& r);
int64_t CountMismatches(const Item& item, const v1::ClosestPointResponse& r);
int64_t CountMismatches(const Item& item,
                        const v1::IntersectColumnsResponse& r);
int64_t CountMismatches(const Item& item,
                        const v1::ClosestPointColumnsResponse& r);
int64_t CountMismatches(const Item& item, const v1::QueryStreamResponse& r);
// A unary answer still serialised: parsed as `item`'s response type (an
// answer that does not parse counts every pair).
int64_t CountSerializedMismatches(const Item& item,
                                  const grpc::ByteBuffer& response);
int64_t CountSerializedMismatches(const Item& item, absl::string_view message);

}  // namespace collision::load

#endif  // COLLISION_TOOLS_VERIFY_H_
