// Writes the cross-language golden vectors (testdata/golden/golden.json) to
// stdout. Run by hand when the cases or the contract change, never by tests:
//
//   cmake --preset release
//   cmake --build --preset release --target collision_golden_gen
//   out=testdata/golden/golden.json
//   build/release/tools/golden/collision_golden_gen > "$out"
//
// Requests are built with the C++ client's shape builders (the seeds'
// parametrisations) and written as canonical proto3 JSON. Expected answers
// come from the scalar reference (collision::Intersect / ClosestPoint) after
// the server's own validation (server::Parse*Request), which also supplies the
// expected error messages. Cases marked hand_checked carry the answer worked
// out by hand (relations, closest points); the generator aborts if the scalar
// reference disagrees with it, so the file cannot silently drift from the
// hand review.
#include "tools/golden/golden_cases.h"

namespace collision::golden {
namespace {

std::string Json(const google::protobuf::Message& m) {
  std::string out;
  const auto s = google::protobuf::util::MessageToJsonString(m, &out);
  if (!s.ok()) Die(s.ToString());
  return out;
}

std::string Quote(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') out += '\\';
    out += ch;
  }
  return out + "\"";
}

const char* CodeName(absl::StatusCode code) {
  switch (code) {
    case absl::StatusCode::kInvalidArgument:
      return "INVALID_ARGUMENT";
    default:
      Die(absl::StrCat("unexpected status code ", static_cast<int>(code)));
  }
}

bool Near(float got, float want) {
  return std::fabs(got - want) <= 1e-5f * std::max(1.0f, std::fabs(want));
}

// Computes the expected answer of one case: "response" or "error" JSON.
std::string Expect(const Case& k) {
  const wire::RequestLimits limits;
  absl::Status status;
  std::string response;
  if (k.intersect) {
    auto parsed = wire::ParseIntersectRequest(*k.intersect, limits);
    status = parsed.status();
    if (parsed.ok()) {
      std::vector<IntersectResult> results;
      for (const ShapePair& p : parsed->pairs) {
        results.push_back(Intersect(p.a, p.b, parsed->boundary));
      }
      v1::IntersectResponse r;
      wire::FillIntersectResponse(*parsed, results, &r);
      if (!k.hand_relations.empty()) {
        if (k.hand_relations.size() != results.size()) Die(k.name + ": count");
        for (size_t i = 0; i < results.size(); ++i) {
          const Relation got = results[i].relation;
          const v1::Relation want = k.hand_relations[i];
          const bool same = (got == Relation::kDisjoint && want == kD) ||
                            (got == Relation::kTouching && want == kT) ||
                            (got == Relation::kOverlapping && want == kO);
          if (!same)
            Die(absl::StrCat(k.name, ": hand relation differs at ", i));
        }
      }
      response = Json(r);
    }
  } else {
    auto parsed = wire::ParseClosestPointRequest(*k.closest, limits);
    status = parsed.status();
    if (parsed.ok()) {
      v1::ClosestPointResponse r;
      std::vector<ClosestPointResult> results;
      for (const ClosestPointItem& item : parsed->items) {
        results.push_back(
            ClosestPoint(item.query, item.target, parsed->boundary));
      }
      wire::FillClosestPointResponse(results, &r);
      if (!k.hand_closest.empty()) {
        if (k.hand_closest.size() != results.size()) Die(k.name + ": count");
        for (size_t i = 0; i < results.size(); ++i) {
          const ClosestPointResult& g = results[i];
          const HandClosest& w = k.hand_closest[i];
          if (!Near(g.closest_point.x, w.x) || !Near(g.closest_point.y, w.y) ||
              !Near(g.closest_point.z, w.z) ||
              !Near(g.signed_distance, w.signed_distance) ||
              g.inside != w.inside || !Near(g.normal.x, w.nx) ||
              !Near(g.normal.y, w.ny) || !Near(g.normal.z, w.nz)) {
            Die(absl::StrCat(k.name, ": hand closest point differs at ", i));
          }
        }
      }
      response = Json(r);
    }
  }
  if (k.message_contains.empty() != status.ok()) {
    Die(absl::StrCat(k.name, ": expected ",
                     k.message_contains.empty() ? "success" : "an error",
                     ", got ", status.ToString()));
  }
  if (!status.ok()) {
    const std::string message(status.message());
    if (message.find(k.message_contains) == std::string::npos) {
      Die(absl::StrCat(k.name, ": message lacks '", k.message_contains,
                       "': ", message));
    }
    return absl::StrCat(
        "\"error\": {\"code\": ", Quote(CodeName(status.code())),
        ", \"message_contains\": ", Quote(k.message_contains),
        ", \"message\": ", Quote(message), "}");
  }
  return absl::StrCat("\"response\": ", response);
}

void Write(const std::vector<Case>& cases) {
  std::printf(
      "{\n"
      "  \"description\": \"collision.v1 golden vectors. Requests and "
      "responses are canonical proto3 JSON (lowerCamelCase names, defaults "
      "omitted). See README.md beside this file.\",\n"
      "  \"generator\": \"tools/golden/generate_golden.cc\",\n"
      "  \"comparison\": {\"exact\": [\"hit\", \"relation\", \"inside\", "
      "\"error.code\"], \"float_absolute\": 1e-05, \"float_relative\": 1e-05, "
      "\"float_rule\": \"|got - want| <= float_absolute or |got - want| <= "
      "float_relative * max(|got|, |want|)\", \"error_rule\": \"code equal "
      "and message contains message_contains\"},\n"
      "  \"cases\": [\n");
  for (size_t i = 0; i < cases.size(); ++i) {
    const Case& k = cases[i];
    const bool hand = !k.hand_relations.empty() || !k.hand_closest.empty() ||
                      !k.message_contains.empty();
    std::printf(
        "    {\"name\": %s,\n     \"rpc\": %s, \"source\": %s, "
        "\"hand_checked\": %s,\n     \"note\": %s,\n     \"request\": %s,\n"
        "     %s}%s\n",
        Quote(k.name).c_str(),
        Quote(k.intersect ? "Intersect" : "ClosestPoint").c_str(),
        Quote(k.source).c_str(), hand ? "true" : "false", Quote(k.note).c_str(),
        Json(k.intersect
                 ? static_cast<const google::protobuf::Message&>(*k.intersect)
                 : *k.closest)
            .c_str(),
        Expect(k).c_str(), i + 1 < cases.size() ? "," : "");
  }
  std::printf("  ]\n}\n");
}

}  // namespace
}  // namespace collision::golden

int main() {
  namespace g = collision::golden;
  std::vector<g::Case> all = g::SeedCases();
  for (auto* more : {&g::PairKindCases, &g::ClosestCases, &g::ErrorCases,
                     &g::HitboxCases}) {
    for (g::Case& k : more()) all.push_back(std::move(k));
  }
  g::Write(all);
  return 0;
}
