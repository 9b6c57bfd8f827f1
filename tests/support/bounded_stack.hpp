// tests/support: runs a function on a thread whose stack is bounded, 8 MiB by default: what the
// library's worker threads get on Linux (glibc's default, the usual `ulimit -s`), whatever the limit of
// the shell running the test. A test that needs its solve to fit in a worker's stack calls through it.
#pragma once

#include <pthread.h>

#include <cstddef>
#include <exception>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <utility>

namespace batchode::testing {

inline constexpr std::size_t kWorkerStackBytes = std::size_t{8} << 20;

/// f() on a new thread with a stack of `bytes`; its result, or its exception rethrown here.
template <class F>
auto on_bounded_stack(F&& f, std::size_t bytes = kWorkerStackBytes) {
  using Result = decltype(f());
  struct Call {
    std::remove_reference_t<F>* f;
    std::optional<Result> result;
    std::exception_ptr error;
  } call{&f, std::nullopt, nullptr};
  auto body = [](void* arg) -> void* {
    Call& c = *static_cast<Call*>(arg);
    try {
      c.result.emplace((*c.f)());
    } catch (...) {
      c.error = std::current_exception();
    }
    return nullptr;
  };
  pthread_attr_t attr;
  pthread_t thread;
  if (pthread_attr_init(&attr) != 0 || pthread_attr_setstacksize(&attr, bytes) != 0 ||
      pthread_create(&thread, &attr, body, &call) != 0) {
    throw std::runtime_error("on_bounded_stack: cannot start a thread with the stack asked for");
  }
  pthread_attr_destroy(&attr);
  pthread_join(thread, nullptr);
  if (call.error) std::rethrow_exception(call.error);
  return std::move(*call.result);
}

}  // namespace batchode::testing
