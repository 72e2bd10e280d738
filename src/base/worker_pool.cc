#include "base/worker_pool.h"

#include <sched.h>

#include <algorithm>
#include <system_error>

namespace perflens {

size_t UsableCores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

WorkerPool::WorkerPool(size_t helpers) {
  for (size_t i = 0; i < helpers; ++i) {
    try {
      threads_.emplace_back([this, i] { Helper(i + 1); });
    } catch (const std::system_error&) {
      break;  // fewer helpers; the caller still does every index it gets
    }
  }
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard lock(m_);
    stop_ = true;
  }
  start_cv_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void WorkerPool::Work(size_t worker) {
  for (size_t i = next_.fetch_add(1, std::memory_order_relaxed); i < n_; i = next_.fetch_add(1, std::memory_order_relaxed))
    (*fn_)(worker, i);
}

void WorkerPool::Helper(size_t worker) {
  uint64_t seen = 0;
  for (;;) {
    {
      std::unique_lock lock(m_);
      start_cv_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
    }
    Work(worker);
    {
      std::lock_guard lock(m_);
      if (--busy_ == 0) done_cv_.notify_one();
    }
  }
}

void WorkerPool::Run(size_t n, const std::function<void(size_t, size_t)>& fn) {
  if (n == 0) return;
  if (threads_.empty() || n == 1) {
    for (size_t i = 0; i < n; ++i) fn(0, i);
    return;
  }
  Publish(n, &fn);
  Work(0);
  std::unique_lock lock(m_);
  done_cv_.wait(lock, [&] { return busy_ == 0; });
}

void WorkerPool::Publish(size_t n, const std::function<void(size_t, size_t)>* fn) {
  {
    std::lock_guard lock(m_);
    fn_ = fn;
    n_ = n;
    next_.store(0, std::memory_order_relaxed);
    busy_ = threads_.size();
    ++generation_;
  }
  start_cv_.notify_all();
}

void WorkerPool::Start(size_t n, std::function<void(size_t, size_t)> fn) {
  started_ = true;
  started_fn_ = std::move(fn);
  if (threads_.empty() || n == 0) {  // Finish does it all
    fn_ = &started_fn_;
    n_ = n;
    next_.store(0, std::memory_order_relaxed);
    return;
  }
  Publish(n, &started_fn_);
}

void WorkerPool::Finish() {
  if (!started_) return;
  started_ = false;
  Work(0);
  if (!threads_.empty()) {
    std::unique_lock lock(m_);
    done_cv_.wait(lock, [&] { return busy_ == 0; });
  }
}

}  // namespace perflens
