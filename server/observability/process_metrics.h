// The process_* metrics every Prometheus client library exports (CPU time,
// resident and virtual memory, open and maximum file descriptors, start
// time), read from /proc/self at each scrape: dashboards and alerts written
// for any Prometheus-instrumented process work unchanged.
#ifndef COLLISION_SERVER_OBSERVABILITY_PROCESS_METRICS_H_
#define COLLISION_SERVER_OBSERVABILITY_PROCESS_METRICS_H_

#include <vector>

#include "prometheus/collectable.h"
#include "prometheus/metric_family.h"

namespace collision::server {

class ProcessCollector final : public prometheus::Collectable {
 public:
  std::vector<prometheus::MetricFamily> Collect() const override;
};

}  // namespace collision::server

#endif  // COLLISION_SERVER_OBSERVABILITY_PROCESS_METRICS_H_
