// WorkerPool: helper threads that run one loop body over [0, n) together with the
// caller: the session unwinds the samples of one model state on every core (they are
// independent once their maps are fixed), the reader frames and decodes byte ranges of
// one file on every core (PerfFile::ReadRecordsParallel).
//
// Threads: Run (or Start and Finish) is called from one thread at a time (the owner's); `fn` runs on that thread (worker 0) and on the helpers (1..helpers), each
// index exactly once, and Run (Finish) returns after the last call has returned, so
// what `fn` wrote is visible to the caller then. Between Start and Finish the helpers
// work while the caller does something else. The helpers wait on a condition variable
// between runs.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace perflens {

// The cores this process may run on (its CPU affinity: `taskset -c 0` gives 1), at
// least 1; std::thread::hardware_concurrency() counts the machine's instead.
size_t UsableCores();

class WorkerPool {
 public:
  // Starts `helpers` threads (fewer when the system refuses more; 0 is allowed: Run then
  // runs everything on the caller).
  explicit WorkerPool(size_t helpers);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // The caller and the helpers: the `worker` values fn gets are below this.
  size_t workers() const { return threads_.size() + 1; }
  // Calls fn(worker, i) once for every i in [0, n), on all workers, and returns when
  // every call has returned.
  void Run(size_t n, const std::function<void(size_t worker, size_t i)>& fn);
  // Run in two halves: Start hands [0, n) to the helpers and returns at once; Finish
  // takes the indexes still left on the caller (worker 0) and returns when every call
  // has returned. Every Start is followed by one Finish before the next Start or Run.
  void Start(size_t n, std::function<void(size_t worker, size_t i)> fn);
  void Finish();

 private:
  void Work(size_t worker);
  // Hands [0, n) of *fn to the helpers (the caller may join in with Work(0)).
  void Publish(size_t n, const std::function<void(size_t, size_t)>* fn);
  void Helper(size_t worker);

  std::vector<std::thread> threads_;
  std::mutex m_;
  std::condition_variable start_cv_, done_cv_;
  uint64_t generation_ = 0;  // bumped by each Run (under m_)
  size_t busy_ = 0;          // helpers still in the current run (under m_)
  bool stop_ = false;
  // The current run; written under m_ before generation_ moves.
  const std::function<void(size_t, size_t)>* fn_ = nullptr;
  std::function<void(size_t, size_t)> started_fn_;  // Start's (fn_ points to it)
  bool started_ = false;
  size_t n_ = 0;
  std::atomic<size_t> next_{0};
};

}  // namespace perflens
