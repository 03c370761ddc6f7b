#include "server/worker_pool.h"

#include <algorithm>
#include <atomic>
#include <memory>

namespace collision::server {

WorkerPool::WorkerPool(std::size_t threads) {
  if (threads == 0) {
    threads = std::max(1u, std::thread::hardware_concurrency());
  }
  threads_.reserve(threads);
  for (std::size_t i = 0; i < threads; ++i) {
    threads_.emplace_back([this] { Run(); });
  }
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    done_ = true;
  }
  cv_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void WorkerPool::Submit(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(std::move(task));
  }
  cv_.notify_one();
}

void WorkerPool::Run() {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return done_ || !queue_.empty(); });
      if (queue_.empty()) return;  // done_ and drained
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    task();
  }
}

namespace {

// Shared by the caller and the helpers of one ParallelFor.
struct Job {
  std::size_t n = 0;
  std::size_t chunk = 0;
  std::size_t chunks = 0;
  std::atomic<std::size_t> next{0};
  std::atomic<bool> stopped{false};
  std::mutex mu;
  std::condition_variable cv;
  std::size_t finished = 0;  // chunks claimed and completed (or skipped)
};

// Claims and runs chunks until none are left or the job is stopped.
void Work(Job& job, const std::function<void(std::size_t, std::size_t)>& body,
          const std::function<bool()>& stop) {
  for (;;) {
    const std::size_t c = job.next.fetch_add(1);
    if (c >= job.chunks) return;
    if (!job.stopped.load() && stop()) job.stopped.store(true);
    if (!job.stopped.load()) {
      const std::size_t begin = c * job.chunk;
      body(begin, std::min(job.n, begin + job.chunk));
    }
    std::lock_guard<std::mutex> lock(job.mu);
    if (++job.finished == job.chunks) job.cv.notify_all();
  }
}

}  // namespace

bool WorkerPool::ParallelFor(
    std::size_t n, std::size_t chunk,
    const std::function<void(std::size_t, std::size_t)>& body,
    const std::function<bool()>& stop) {
  if (n == 0) return !stop();
  chunk = std::max<std::size_t>(chunk, 1);
  auto job = std::make_shared<Job>();
  job->n = n;
  job->chunk = chunk;
  job->chunks = (n + chunk - 1) / chunk;
  // Helpers only see `body` and `stop` while a chunk they claimed is
  // running, and the caller waits for every claimed chunk, so references
  // stay valid; a helper that starts after the last chunk returns at once.
  const std::size_t helpers = std::min(job->chunks - 1, size());
  for (std::size_t i = 0; i < helpers; ++i) {
    Submit([job, &body, &stop] { Work(*job, body, stop); });
  }
  Work(*job, body, stop);
  std::unique_lock<std::mutex> lock(job->mu);
  job->cv.wait(lock, [&] { return job->finished == job->chunks; });
  return !job->stopped.load();
}

}  // namespace collision::server
