// warpmind::ThreadPool — the worker threads behind every multi-threaded CPU variant.
//
// parallel_for(n, fn) splits [0, n) into contiguous chunks, runs fn(begin, end, worker) on the pool
// and the calling thread, and returns when all chunks are done. `worker` is in [0, size()) and is
// stable for the duration of one call, so callers can keep per-worker scratch without locks.
// Calls from several threads at once are serialised. fn must not throw.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace warpmind {

class ThreadPool {
 public:
  // threads == 0: one per hardware thread. The calling thread counts as one of them.
  explicit ThreadPool(unsigned threads = 0);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  unsigned size() const { return static_cast<unsigned>(workers_.size()) + 1; }

  using RangeFn = std::function<void(std::size_t begin, std::size_t end, unsigned worker)>;
  // min_chunk: the smallest range worth handing to a thread (avoids waking threads for tiny work).
  void parallel_for(std::size_t n, const RangeFn& fn, std::size_t min_chunk = 1);

 private:
  void worker_loop(unsigned index);

  std::vector<std::thread> workers_;
  std::mutex call_mutex_;  // one parallel_for at a time
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable done_;
  const RangeFn* job_ = nullptr;
  std::size_t job_n_ = 0;
  std::size_t chunk_ = 0;
  std::size_t next_ = 0;     // next chunk start (guarded by mutex_)
  unsigned active_ = 0;      // workers still inside the current job
  unsigned long generation_ = 0;
  bool stop_ = false;
};

}  // namespace warpmind
