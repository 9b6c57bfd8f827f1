// python/: a long C++ call made from Python with the GIL released and Ctrl-C honoured. Python runs
// its signal handlers only on the main thread, between bytecodes or in PyErr_CheckSignals, so the
// work goes to a thread of its own (WorkThread, one per Solver, kept between solves) while the
// calling thread waits, and every 100 ms takes the GIL and asks Python whether a signal came. If one
// did (KeyboardInterrupt is then pending), the stop flag is set: the solve ends (SolveOptions.stop:
// on the CPU within about a thousand steps of each run in progress, so even one long run stops at
// once; on a GPU before the next chunk), the work is waited for, and the pending exception is raised.
// Nothing is left running.
#pragma once

#include <pybind11/pybind11.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>

#include "bindings.hpp"

namespace batchode::python {

/// One thread that runs one Solver's solves, kept for the Solver's life: a thread per solve would
/// cost its start every time and leave the TimeLogger a new per-thread state each time.
class WorkThread {
 public:
  WorkThread() : thread_([this] { loop(); }) {}
  ~WorkThread() {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      quit_ = true;
    }
    wake_.notify_one();
    thread_.join();
  }
  WorkThread(const WorkThread&) = delete;
  WorkThread& operator=(const WorkThread&) = delete;

  /// Hands `job` (which must not throw) to the thread.
  void start(std::function<void()> job) {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      job_ = std::move(job);
      done_ = false;
    }
    wake_.notify_one();
  }
  /// Waits up to `timeout` for the job handed last; true once it has returned.
  bool wait_for(std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> lock(mutex_);
    return finished_.wait_for(lock, timeout, [&] { return done_; });
  }

 private:
  void loop() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      wake_.wait(lock, [&] { return quit_ || job_; });
      if (quit_) return;
      std::function<void()> job = std::move(job_);
      job_ = nullptr;
      lock.unlock();
      job();
      lock.lock();
      done_ = true;
      finished_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_, finished_;
  std::function<void()> job_;
  bool done_ = true, quit_ = false;
  std::thread thread_;  // last: started once the members it uses exist
};

/// Runs work() (which returns R) on `thread` and returns its value or rethrows its exception.
/// Called with the GIL held; `stop` is the flag the work reads. Throws pybind11::error_already_set
/// with KeyboardInterrupt (or whatever a signal handler raised) when interrupted.
template <class Work>
auto run_interruptible(WorkThread& thread, std::atomic<bool>& stop, Work&& work) -> decltype(work()) {
  using R = decltype(work());
  stop.store(false);
  std::optional<R> value;
  std::exception_ptr error;
  bool interrupted = false;
  {
    pybind11::gil_scoped_release released;
    thread.start([&]() noexcept {
      try {
        value.emplace(work());
      } catch (...) {
        error = std::current_exception();
      }
    });
    while (!thread.wait_for(std::chrono::milliseconds(100))) {
      pybind11::gil_scoped_acquire held;
      flush_python_output();      // a long solve's progress lines as they come
      if (interrupted) continue;  // stopping: wait for the work to notice
      if (PyErr_CheckSignals() != 0) {  // the handler raised: its exception stays pending
        interrupted = true;
        stop.store(true);
      }
    }
  }
  stop.store(false);  // the Solver's next call starts unstopped, whoever makes it
  flush_python_output();
  if (interrupted) throw pybind11::error_already_set();
  if (error) std::rethrow_exception(error);
  return std::move(*value);
}

}  // namespace batchode::python
