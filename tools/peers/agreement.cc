#include "tools/peers/agreement.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "collision/client/client.h"
#include "collision/client/columns.h"
#include "collision/client/session.h"

namespace collision::peers {
namespace {

struct OurAnswers {
  std::vector<bool> hits;
  std::vector<std::pair<float, float>> closest;
};

// Every path of the service on the same pairs; fails unless all agree.
absl::StatusOr<OurAnswers> AskService(const std::vector<CircleRectPair>& pairs,
                                      const std::string& target) {
  client::ClientOptions options;
  options.timeout = absl::Seconds(60);
  absl::StatusOr<std::unique_ptr<client::Client>> c =
      client::Client::Create(target, options);
  if (!c.ok()) return c.status();
  const size_t n = pairs.size();
  OurAnswers out;

  const v1::IntersectColumnsRequest columns = MakeIntersectColumns(pairs);
  absl::StatusOr<v1::IntersectColumnsResponse> by_columns =
      (*c)->IntersectColumns(columns);
  if (!by_columns.ok()) return by_columns.status();
  out.hits = client::UnpackBits(by_columns->groups(0).hit_bits(), n);

  absl::StatusOr<v1::IntersectResponse> by_pairs =
      (*c)->Intersect(MakeIntersect(pairs));
  if (!by_pairs.ok()) return by_pairs.status();

  absl::StatusOr<std::unique_ptr<client::QuerySession>> session =
      (*c)->OpenSession();
  if (!session.ok()) return session.status();
  if (absl::Status s = (*session)->Send(1, columns); !s.ok()) return s;
  absl::StatusOr<client::StreamReply> by_stream = (*session)->Receive();
  if (!by_stream.ok()) return by_stream.status();
  if (!by_stream->status.ok()) return by_stream->status;
  if (absl::Status s = (*session)->Finish(); !s.ok()) return s;
  const std::string& stream_bits =
      by_stream->response.intersect_columns().groups(0).hit_bits();

  for (size_t i = 0; i < n; ++i) {
    if (by_pairs->results(static_cast<int>(i)).hit() != out.hits[i] ||
        client::BitAt(stream_bits, i) != out.hits[i]) {
      return absl::InternalError(
          absl::StrCat("the service's paths disagree on pair ", i,
                       " (Intersect, IntersectColumns, QueryStream)"));
    }
  }

  absl::StatusOr<v1::ClosestPointColumnsResponse> cp_columns =
      (*c)->ClosestPointColumns(MakeClosestPointColumns(pairs));
  if (!cp_columns.ok()) return cp_columns.status();
  absl::StatusOr<v1::ClosestPointResponse> cp_pairs =
      (*c)->ClosestPoint(MakeClosestPoint(pairs));
  if (!cp_pairs.ok()) return cp_pairs.status();
  const v1::ClosestPointColumnsResult& g = cp_columns->groups(0);
  for (size_t i = 0; i < n; ++i) {
    const int k = static_cast<int>(i);
    const v1::Vec3& p = cp_pairs->results(k).closest_point();
    if (p.x() != g.closest_x(k) || p.y() != g.closest_y(k)) {
      return absl::InternalError(
          absl::StrCat("the service's paths disagree on closest point ", i,
                       " (ClosestPoint, ClosestPointColumns)"));
    }
    out.closest.emplace_back(g.closest_x(k), g.closest_y(k));
  }
  return out;
}

}  // namespace

absl::Status CheckAgreement(const std::vector<CircleRectPair>& pairs,
                            PgConnection* pg, const AgreementOptions& options,
                            std::ostream& out) {
  const PgBatch batch = MakePgBatch(pairs);
  absl::StatusOr<std::vector<bool>> pg_hits = pg->Hits(batch);
  if (!pg_hits.ok()) return pg_hits.status();
  absl::StatusOr<std::vector<std::pair<double, double>>> pg_closest =
      pg->ClosestPoints(batch);
  if (!pg_closest.ok()) return pg_closest.status();
  absl::StatusOr<OurAnswers> ours = AskService(pairs, options.target);
  if (!ours.ok()) return ours.status();

  int64_t hits = 0;
  int64_t disagree = 0;
  int64_t ours_only = 0;  // we say hit, PostGIS says no
  int64_t near = 0;       // |d^2 - r^2| within 2^-20 of r^2 (in double)
  int64_t touching = 0;   // d^2 == r^2 exactly
  int64_t touching_hits_pg = 0;
  int64_t touching_hits_ours = 0;
  double worst_margin = 0;
  int shown = 0;
  for (size_t i = 0; i < pairs.size(); ++i) {
    const CircleRectPair& p = pairs[i];
    const double r2 = double{p.r} * p.r;
    const double relative = MarginDouble(p) / std::max(r2, 1e-30);
    if (std::abs(relative) <= 0x1.0p-20) ++near;
    if (MarginDouble(p) == 0) {
      ++touching;
      touching_hits_pg += (*pg_hits)[i] ? 1 : 0;
      touching_hits_ours += ours->hits[i] ? 1 : 0;
    }
    hits += (*pg_hits)[i] ? 1 : 0;
    if ((*pg_hits)[i] == ours->hits[i]) continue;
    ++disagree;
    if (ours->hits[i]) ++ours_only;
    worst_margin = std::max(worst_margin, std::abs(relative));
    if (shown < options.show) {
      ++shown;
      out << absl::StrFormat(
          "  pair %d: circle (%.9g, %.9g) r %.9g, rect [%.9g, %.9g] x "
          "[%.9g, %.9g]: PostGIS %s, service %s; (d^2 - r^2) / r^2 = %.3g "
          "in double\n",
          i, p.x, p.y, p.r, p.min_x, p.max_x, p.min_y, p.max_y,
          (*pg_hits)[i] ? "hit" : "miss", ours->hits[i] ? "hit" : "miss",
          relative);
    }
  }
  double max_diff = 0;
  int64_t differ = 0;
  for (size_t i = 0; i < pairs.size(); ++i) {
    const double dx = std::abs((*pg_closest)[i].first - ours->closest[i].first);
    const double dy =
        std::abs((*pg_closest)[i].second - ours->closest[i].second);
    if (dx != 0 || dy != 0) ++differ;
    max_diff = std::max({max_diff, dx, dy});
  }
  const size_t n = pairs.size();
  out << absl::StrFormat(
      "Agreement on %d pairs (same float values; service float32, PostGIS "
      "float8): PostGIS hits %d (%.1f%%); %d pairs within 2^-20 of the "
      "boundary (relative, in d^2), %d touching exactly (hits: PostGIS %d, "
      "service %d); hit answers differ on %d pairs (%.3f%%), "
      "%d of them a hit only for the service; largest |d^2 - r^2| / r^2 "
      "among them %.3g. Closest points differ on %d pairs, by at most %.3g.\n",
      n, hits, 100.0 * static_cast<double>(hits) / static_cast<double>(n), near,
      touching, touching_hits_pg, touching_hits_ours, disagree,
      100.0 * static_cast<double>(disagree) / static_cast<double>(n), ours_only,
      worst_margin, differ, max_diff);
  out << "The service's Intersect, IntersectColumns and QueryStream agree on "
         "every pair; ClosestPoint and ClosestPointColumns on every point.\n";
  return absl::OkStatus();
}

}  // namespace collision::peers
