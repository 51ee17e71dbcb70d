#include "warpmind/core/thread_pool.h"

#include <algorithm>
#include <exception>

namespace warpmind {

ThreadPool::ThreadPool(unsigned threads) noexcept {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  try {
    workers_.reserve(threads - 1);
    for (unsigned i = 1; i < threads; ++i) workers_.emplace_back([this, i] { worker_loop(i); });
  } catch (const std::exception& e) {  // std::system_error from a thread, std::bad_alloc from the list
    try {
      start_error_ = e.what();
    } catch (...) {
      // no memory left even for the message: size() still shows the shortfall
    }
    if (start_error_.empty()) start_error_ = "?";
  }
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  for (auto& t : workers_) t.join();
}

void ThreadPool::run(std::size_t n, RangeFn fn, std::size_t min_chunk) {
  if (n == 0) return;
  const std::size_t threads = size();
  min_chunk = std::max<std::size_t>(min_chunk, 1);
  // A few chunks per thread balances uneven work without much scheduling overhead.
  std::size_t chunk = std::max(min_chunk, (n + threads * 4 - 1) / (threads * 4));
  if (threads == 1 || n <= min_chunk) {
    fn(0, n, 0);
    return;
  }
  std::lock_guard call_lock(call_mutex_);
  {
    std::lock_guard lock(mutex_);
    job_ = &fn;
    job_n_ = n;
    chunk_ = chunk;
    next_ = 0;
    active_ = static_cast<unsigned>(workers_.size());
    ++generation_;
  }
  wake_.notify_all();
  // The caller works as worker 0.
  for (;;) {
    std::size_t begin;
    {
      std::lock_guard lock(mutex_);
      begin = next_;
      next_ = std::min(job_n_, next_ + chunk_);
    }
    if (begin >= n) break;
    fn(begin, std::min(n, begin + chunk), 0);
  }
  std::unique_lock lock(mutex_);
  done_.wait(lock, [this] { return active_ == 0; });
  job_ = nullptr;
}

void ThreadPool::worker_loop(unsigned index) {
  unsigned long seen = 0;
  for (;;) {
    const RangeFn* job;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      job = job_;
    }
    for (;;) {
      std::size_t begin, end;
      {
        std::lock_guard lock(mutex_);
        begin = next_;
        end = std::min(job_n_, next_ + chunk_);
        next_ = end;
      }
      if (begin >= end) break;
      (*job)(begin, end, index);
    }
    {
      std::lock_guard lock(mutex_);
      if (--active_ == 0) done_.notify_one();
    }
  }
}

}  // namespace warpmind
