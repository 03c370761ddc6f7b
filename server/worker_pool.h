// A fixed pool of compute threads, so gRPC's small callback pool only ever
// receives and hands off (measured: reactions must stay short;
// docs/references.md), and large batches are split across every core.
#ifndef COLLISION_SERVER_WORKER_POOL_H_
#define COLLISION_SERVER_WORKER_POOL_H_

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace collision::server {

class WorkerPool {
 public:
  // threads == 0 means one per hardware thread.
  explicit WorkerPool(std::size_t threads = 0);
  // Runs every queued task, then joins the threads.
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  std::size_t size() const { return threads_.size(); }

  // Queues `task`. The queue is bounded by the caller: the service admits at
  // most max_in_flight requests, and each adds at most size() tasks.
  void Submit(std::function<void()> task);

  // Calls body(begin, end) for consecutive chunks of [0, n) of `chunk` items
  // (the last may be shorter), on the calling thread and on idle workers at
  // once. Stops handing out chunks once stop() returns true; returns false
  // if it stopped early. The caller never waits for a worker that has not
  // started, so calling this from a worker cannot deadlock.
  bool ParallelFor(std::size_t n, std::size_t chunk,
                   const std::function<void(std::size_t, std::size_t)>& body,
                   const std::function<bool()>& stop);

 private:
  void Run();

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  bool done_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace collision::server

#endif  // COLLISION_SERVER_WORKER_POOL_H_
