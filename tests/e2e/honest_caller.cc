#include "tests/e2e/honest_caller.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <thread>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "grpcpp/grpcpp.h"

namespace collision::hardening_testing {
namespace {

// Sample `percent` of sorted `ms` by nearest rank: rank ceil(percent/100 n).
double NearestRank(const std::vector<double>& ms, int percent) {
  const std::size_t rank = (percent * ms.size() + 99) / 100;
  return ms[std::max<std::size_t>(rank, 1) - 1];
}

}  // namespace

HonestCaller::HonestCaller(const std::string& target, const std::string& token)
    : authorization_(absl::StrCat("Bearer ", token)) {
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  args.SetInt("collision.test.fresh", rand());
  stub_ = v1::CollisionService::NewStub(grpc::CreateCustomChannel(
      target, grpc::InsecureChannelCredentials(), args));
  // Second circles at these distances from the first, every distance in
  // each of four directions at two places. All are exact in float, so
  // touching (2) is a hit and 1/16 past it is not, whatever the server's
  // arithmetic.
  const float distances[] = {0, 1, 1.9375f, 2, 2.0625f, 2.5f, 3, 10};
  const float directions[][2] = {{1, 0}, {0, 1}, {-1, 0}, {0, -1}};
  request_.set_boundary(v1::BOUNDARY_RULE_INCLUSIVE);
  for (int i = 0; i < 64; ++i) {
    const float d = distances[i % 8];
    const float* direction = directions[(i / 8) % 4];
    const float x = i < 32 ? 0.0f : 100.0f, y = i < 32 ? 0.0f : -37.0f;
    v1::ShapePair* pair = request_.add_pairs();
    v1::Circle* a = pair->mutable_a()->mutable_circle();
    a->set_radius(1);
    a->mutable_center()->set_x(x);
    a->mutable_center()->set_y(y);
    v1::Circle* b = pair->mutable_b()->mutable_circle();
    b->set_radius(1);
    b->mutable_center()->set_x(x + d * direction[0]);
    b->mutable_center()->set_y(y + d * direction[1]);
    expected_.push_back(d <= 2);
  }
}

HonestCaller::~HonestCaller() {
  if (thread_.joinable()) Stop();
}

Latencies HonestCaller::Run(int calls) {
  Tally tally;
  for (int i = 0; i < calls && tally.failed == 0; ++i) Call(&tally);
  return Summarize(std::move(tally));
}

void HonestCaller::Start() {
  running_ = Tally();
  stop_ = false;
  thread_ = std::thread([this] {
    do {
      Call(&running_);
    } while (!stop_.load());
  });
}

Latencies HonestCaller::Stop() {
  stop_ = true;
  thread_.join();
  return Summarize(std::move(running_));
}

void HonestCaller::Call(Tally* tally) {
  const auto deadline =
      std::chrono::system_clock::now() + std::chrono::seconds(10);
  int shed = 0;  // this call's attempts shed so far
  std::string failure;
  for (;;) {
    grpc::ClientContext context;
    context.set_deadline(deadline);
    context.AddMetadata("authorization", authorization_);
    v1::IntersectResponse response;
    const auto start = std::chrono::steady_clock::now();
    const grpc::Status s = stub_->Intersect(&context, request_, &response);
    const std::chrono::duration<double, std::milli> ms =
        std::chrono::steady_clock::now() - start;
    const auto& trailers = context.GetServerTrailingMetadata();
    const auto pushback = trailers.find("grpc-retry-pushback-ms");
    if (s.error_code() == grpc::StatusCode::UNAVAILABLE &&
        pushback != trailers.end()) {
      ++shed;
      ++tally->shed;
      if (tally->first_shed.empty()) tally->first_shed = s.error_message();
      if (!absl::StrContains(s.error_message(),
                             "answers wait for the transport")) {
        ++tally->shed_for_capacity;
      }
      int pushback_ms = 0;
      if (!absl::SimpleAtoi(absl::string_view(pushback->second.data(),
                                              pushback->second.size()),
                            &pushback_ms)) {
        failure = absl::StrCat(
            "unreadable grpc-retry-pushback-ms: ",
            std::string(pushback->second.data(), pushback->second.size()));
        break;
      }
      const auto retry_at = std::chrono::system_clock::now() +
                            std::chrono::milliseconds(pushback_ms);
      if (retry_at >= deadline) {
        failure = absl::StrCat(
            "shed ", shed,
            " times until its deadline, the last: ", s.error_message());
        break;
      }
      std::this_thread::sleep_until(retry_at);  // what the pushback asks
      continue;
    }
    if (!s.ok()) {
      failure = absl::StrCat(s.error_code(), " ", s.error_message());
    } else if (response.results_size() != request_.pairs_size()) {
      failure = absl::StrCat("wrong answer: ", response.results_size(),
                             " results for ", request_.pairs_size(), " pairs");
    } else {
      for (int i = 0; i < response.results_size() && failure.empty(); ++i) {
        if (response.results(i).hit() != expected_[i]) {
          failure = absl::StrCat("wrong answer: results[", i, "].hit is ",
                                 response.results(i).hit(), ", expected ",
                                 static_cast<bool>(expected_[i]));
        }
      }
    }
    if (failure.empty()) tally->answered_ms.push_back(ms.count());
    break;
  }
  tally->most_shed_in_a_row = std::max(tally->most_shed_in_a_row, shed);
  if (failure.empty()) return;
  if (tally->failed++ == 0) tally->first_failure = std::move(failure);
}

Latencies HonestCaller::Summarize(Tally tally) {
  Latencies l;
  l.answered = static_cast<int>(tally.answered_ms.size());
  l.shed = tally.shed;
  l.shed_for_capacity = tally.shed_for_capacity;
  l.first_shed = std::move(tally.first_shed);
  l.most_shed_in_a_row = tally.most_shed_in_a_row;
  l.failed = tally.failed;
  l.first_failure = std::move(tally.first_failure);
  std::vector<double>& ms = tally.answered_ms;
  if (!ms.empty()) {
    std::sort(ms.begin(), ms.end());
    l.p50_ms = NearestRank(ms, 50);
    l.p99_ms = NearestRank(ms, 99);
    l.max_ms = ms.back();
  }
  return l;
}

}  // namespace collision::hardening_testing
