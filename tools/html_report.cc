// HtmlReport: one page, inline CSS and SVG, nothing fetched.
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "tools/report.h"

namespace collision::load {
namespace {

constexpr double kW = 520, kH = 240, kLeft = 60, kBottom = 30, kTop = 10;

std::string Escape(const std::string& s) {
  return absl::StrReplaceAll(
      s, {{"&", "&amp;"}, {"<", "&lt;"}, {">", "&gt;"}, {"\"", "&quot;"}});
}

// Axes with a title and min/max labels; the plot area is
// [kLeft, kW - 10] x [kTop, kH - kBottom].
std::string Frame(const std::string& title, const std::string& x_label,
                  const std::string& y_max, const std::string& x_min,
                  const std::string& x_max) {
  return absl::StrFormat(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
      "height=\"%.0f\" role=\"img\" aria-label=\"%s\">"
      "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#fff\"/>"
      "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"#333\"/>"
      "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"#333\"/>"
      "<text x=\"4\" y=\"%.0f\" font-size=\"11\">%s</text>"
      "<text x=\"4\" y=\"%.0f\" font-size=\"11\">0</text>"
      "<text x=\"%.0f\" y=\"%.0f\" font-size=\"11\">%s</text>"
      "<text x=\"%.0f\" y=\"%.0f\" font-size=\"11\" "
      "text-anchor=\"end\">%s</text>"
      "<text x=\"%.0f\" y=\"%.0f\" font-size=\"11\" "
      "text-anchor=\"middle\">%s</text>",
      kW, kH, Escape(title), kW, kH, kLeft, kH - kBottom, kW - 10, kH - kBottom,
      kLeft, kTop, kLeft, kH - kBottom, kTop + 10, y_max, kH - kBottom, kLeft,
      kH - kBottom + 14, x_min, kW - 10, kH - kBottom + 14, x_max,
      (kLeft + kW) / 2, kH - 4, Escape(x_label));
}

double PlotX(double f) { return kLeft + f * (kW - 10 - kLeft); }
double PlotY(double f) { return kH - kBottom - f * (kH - kBottom - kTop); }

// Latency histogram on a log axis: the fine buckets regrouped into 60 bins.
std::string HistogramSvg(const Histogram& h) {
  const std::vector<Histogram::Bucket> buckets = h.Buckets();
  const double lo = std::max(1.0, double(h.min())) / 1000.0;
  const double hi = std::max(lo * 1.01, double(h.max()) / 1000.0 * 1.01);
  constexpr int kBins = 60;
  std::vector<int64_t> bins(kBins, 0);
  for (const Histogram::Bucket& b : buckets) {
    const double us = std::max(lo, double(b.low + b.high) / 2000.0);
    const int i = std::clamp(int(std::log(us / lo) / std::log(hi / lo) * kBins),
                             0, kBins - 1);
    bins[std::size_t(i)] += b.count;
  }
  const int64_t peak =
      std::max<int64_t>(1, *std::max_element(bins.begin(), bins.end()));
  std::string s =
      Frame("latency histogram", "latency (us, log scale)", absl::StrCat(peak),
            absl::StrFormat("%.0f", lo), absl::StrFormat("%.0f", hi));
  const double bw = (kW - 10 - kLeft) / kBins;
  for (int i = 0; i < kBins; ++i) {
    if (bins[std::size_t(i)] == 0) continue;
    const double f = double(bins[std::size_t(i)]) / double(peak);
    absl::StrAppendFormat(&s,
                          "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                          "height=\"%.1f\" fill=\"#3572b0\"><title>%lld "
                          "calls</title></rect>",
                          PlotX(double(i) / kBins), PlotY(f), bw - 1,
                          PlotY(0) - PlotY(f),
                          static_cast<long long>(bins[std::size_t(i)]));
  }
  // Percentile marks: a dashed line and its name where p50, p90, p99 and
  // p99.9 fall on the log axis.
  const std::pair<const char*, double> marks[] = {
      {"p50", 50}, {"p90", 90}, {"p99", 99}, {"p99.9", 99.9}};
  int row = 0;
  for (const auto& [name, q] : marks) {
    const double us = std::max(lo, double(h.Percentile(q)) / 1000.0);
    const double x =
        PlotX(std::clamp(std::log(us / lo) / std::log(hi / lo), 0.0, 1.0));
    absl::StrAppendFormat(&s,
                          "<line class=\"mark\" x1=\"%.1f\" y1=\"%.0f\" "
                          "x2=\"%.1f\" y2=\"%.0f\" stroke=\"#c0392b\" "
                          "stroke-dasharray=\"4 3\"/><text x=\"%.1f\" "
                          "y=\"%.0f\" font-size=\"10\" fill=\"#c0392b\">%s "
                          "%.0f</text>",
                          x, kTop, x, PlotY(0), x + 2, kTop + 10 + 11 * row,
                          name, us);
    row = (row + 1) % 4;
  }
  return s + "</svg>";
}

// Lines over the run's intervals: values[k][i] for line k.
std::string SeriesSvg(const std::string& title, const std::string& unit,
                      const std::vector<Interval>& series, double interval_s,
                      const std::vector<std::vector<double>>& values,
                      const std::vector<std::string>& colors) {
  double peak = 1e-9;
  for (const auto& line : values) {
    for (double v : line) peak = std::max(peak, v);
  }
  const double span = std::max(interval_s, double(series.size()) * interval_s);
  std::string s =
      Frame(title, "time (s)", absl::StrFormat("%.4g %s", peak, unit), "0",
            absl::StrFormat("%.0f", span));
  for (std::size_t k = 0; k < values.size(); ++k) {
    std::string d;
    for (std::size_t i = 0; i < values[k].size(); ++i) {
      const double t = (double(i) + 0.5) * interval_s / span;
      absl::StrAppendFormat(&d, "%s%.1f %.1f", i ? " L" : "M", PlotX(t),
                            PlotY(values[k][i] / peak));
    }
    if (values[k].size() == 1) {  // one point: a short flat segment
      absl::StrAppendFormat(&d, " L%.1f %.1f", PlotX(1),
                            PlotY(values[k][0] / peak));
    }
    absl::StrAppendFormat(&s,
                          "<path d=\"%s\" fill=\"none\" stroke=\"%s\" "
                          "stroke-width=\"2\"/>",
                          d, colors[k]);
  }
  return s + "</svg>";
}

std::string Row(const std::string& k, const std::string& v) {
  return absl::StrCat("<tr><th>", Escape(k), "</th><td>", Escape(v),
                      "</td></tr>");
}

}  // namespace

std::string HtmlReport(const Report& r) {
  const RunResult& x = r.run;
  const ReportConfig& c = r.config;
  const LatencySummary& l = r.latency_us;
  std::vector<double> rps, p50, p99;
  for (const Interval& i : x.series) {
    // The last interval is usually partial: rate over the part covered,
    // and a sliver of stragglers is left out.
    const double covered = std::min(c.interval_s, x.seconds - i.start_s);
    if (covered < 0.1 * c.interval_s) break;
    rps.push_back(double(i.requests) / covered);
    p50.push_back(double(i.p50_ns) / 1000.0);
    p99.push_back(double(i.p99_ns) / 1000.0);
  }
  std::string s =
      "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<title>collision_load report</title><style>"
      "body{font-family:sans-serif;margin:20px;color:#222}"
      "table{border-collapse:collapse;margin-bottom:16px}"
      "th,td{border:1px solid #ccc;padding:3px 8px;text-align:left}"
      "th{background:#f3f3f3}.warn{color:#b00;font-weight:bold}"
      "figure{display:inline-block;margin:8px;vertical-align:top}</style></"
      "head><body>"
      "<h1>collision_load report</h1><table>";
  s += Row("target", c.target);
  if (c.scene.has_value()) {
    s += Row("workload", absl::StrFormat("rpc %s, %d queries per tick, seed %d",
                                         c.ops, c.batch, c.seed));
    s += Row("scene", DescribeScene(*c.scene, c.concurrency));
  } else {
    s += Row("workload", absl::StrFormat("rpc %s, kinds %s, batch %d, seed %d",
                                         c.ops, c.kinds, c.batch, c.seed));
  }
  s += Row("load",
           absl::StrFormat(
               "%s, concurrency %d, connections %d",
               c.rate > 0 ? absl::StrFormat("open loop %.0f req/s%s", c.rate,
                                            c.poisson ? " Poisson" : "")
                          : std::string("closed loop"),
               c.concurrency, c.connections));
  s += Row("requests", absl::StrFormat("%d in %.2fs: %d ok, %d errors",
                                       x.requests, x.seconds, x.ok, x.errors));
  if (c.duration_s > 0) {
    s += Row("duration", absl::StrFormat("asked %.2fs, measured %.2fs",
                                         c.duration_s, x.seconds));
  }
  if (x.due > 0) {
    s += Row("open loop",
             absl::StrFormat("%d due, %d sent, %d never sent%s", x.due,
                             x.due - x.unsent, x.unsent,
                             x.unsent > 0 ? ": the rate was NOT REACHED" : ""));
  }
  if (x.scenes > 0) {
    s += Row("scenes", absl::StrFormat(
                           "%d of %d opened, %d left unanswered%s",
                           x.scenes_opened, x.scenes, x.scenes_abandoned,
                           x.scene_open_error.empty()
                               ? std::string()
                               : "; first not opened: " + x.scene_open_error));
  }
  s += Row("throughput",
           absl::StrFormat("%.1f requests/s, %.4g pair-tests/s",
                           r.requests_per_second, r.pair_tests_per_second));
  s += Row("latency (us)",
           absl::StrFormat("min %.1f, mean %.1f, p50 %.1f, p90 %.1f, p99 %.1f, "
                           "p99.9 %.1f, max %.1f",
                           l.min, l.mean, l.p50, l.p90, l.p99, l.p999, l.max));
  std::string codes;
  for (const auto& [code, n] : x.status_counts) {
    absl::StrAppend(&codes, code, "=", n, " ");
  }
  s += Row("status", codes);
  if (x.verified > 0) {
    s += Row("verify", absl::StrFormat("%d pairs checked, %d mismatches",
                                       x.verified_pairs, x.mismatches));
  }
  s += Row("client cpu", absl::StrFormat("%.0f%% of %d cores",
                                         100 * r.cpu_utilization, x.cores));
  s += "</table>";
  if (r.client_saturated) {
    s += "<p class=\"warn\">The client used more than 85% of the CPU: the "
         "numbers may measure the client, not the server.</p>";
  }
  s += "<figure>" + HistogramSvg(x.latency) +
       "<figcaption>latency histogram</figcaption></figure>";
  s += "<figure>" +
       SeriesSvg("throughput over time", "req/s", x.series, c.interval_s, {rps},
                 {"#3572b0"}) +
       "<figcaption>requests/s per interval</figcaption></figure>";
  s += "<figure>" +
       SeriesSvg("latency over time", "us", x.series, c.interval_s, {p50, p99},
                 {"#2a9d3f", "#d9541e"}) +
       "<figcaption>latency per interval: p50 (green), p99 "
       "(orange)</figcaption></figure>";
  return s + "</body></html>\n";
}

}  // namespace collision::load
