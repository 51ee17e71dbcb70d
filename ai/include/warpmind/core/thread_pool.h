// warpmind::ThreadPool — the worker threads behind every multi-threaded CPU variant.
//
// parallel_for(n, fn) splits [0, n) into contiguous chunks, runs fn(begin, end, worker) on the pool
// and the calling thread, and returns when all chunks are done. `worker` is in [0, size()) and is
// stable for the duration of one call, so callers can keep per-worker scratch without locks.
// Calls from several threads at once are serialised. fn must not throw.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <string>
#include <type_traits>
#include <thread>
#include <vector>

namespace warpmind {

class ThreadPool {
 public:
  // threads == 0: one per hardware thread. The calling thread counts as one of them. Never throws: when
  // the system cannot start a thread (a thread limit, no memory for its stack), the pool keeps the threads
  // started so far — size() says how many, at least 1, the caller — and start_error() says why.
  explicit ThreadPool(unsigned threads = 0) noexcept;
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  unsigned size() const { return static_cast<unsigned>(workers_.size()) + 1; }
  // Why fewer threads than asked for run; empty when all started.
  const std::string& start_error() const { return start_error_; }

  // A non-owning reference to any callable fn(begin, end, worker): no allocation per call, so hot paths
  // can call parallel_for every tick.
  class RangeFn {
   public:
    template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, RangeFn>>>
    RangeFn(F& f)
        : obj_(const_cast<void*>(static_cast<const void*>(&f))),
          call_([](void* o, std::size_t b, std::size_t e, unsigned w) { (*static_cast<F*>(o))(b, e, w); }) {}
    void operator()(std::size_t b, std::size_t e, unsigned w) const { call_(obj_, b, e, w); }

   private:
    void* obj_;
    void (*call_)(void*, std::size_t, std::size_t, unsigned);
  };

  // min_chunk: the smallest range worth handing to a thread (avoids waking threads for tiny work).
  template <class F>
  void parallel_for(std::size_t n, F&& fn, std::size_t min_chunk = 1) {
    run(n, RangeFn(fn), min_chunk);
  }

 private:
  void run(std::size_t n, RangeFn fn, std::size_t min_chunk);
  void worker_loop(unsigned index);

  std::vector<std::thread> workers_;
  std::mutex call_mutex_;  // one parallel_for at a time
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable done_;
  const RangeFn* job_ = nullptr;  // the running job (points into run()'s frame)
  std::size_t job_n_ = 0;
  std::size_t chunk_ = 0;
  std::size_t next_ = 0;  // next chunk start (guarded by mutex_)
  unsigned active_ = 0;   // workers still inside the current job
  unsigned long generation_ = 0;
  bool stop_ = false;
  std::string start_error_;
};

}  // namespace warpmind
