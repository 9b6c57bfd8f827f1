// distributed/ (private): errors that travel between processes. Every collective call is made by every
// process in the same order whatever happened locally: a local failure becomes text (a kind letter, then
// the message) that travels with the next allgather, never an exception that would leave the others
// waiting; then every process throws the same one.
#pragma once

#include <cstdlib>
#include <string>
#include <vector>

#include "batchode/checks/invalid_input.hpp"
#include "batchode/distributed/collective.hpp"
#include "batchode/solver/systems/gpu_path.hpp"

namespace batchode::distributed::detail {

/// Separates the fields of one process's text: a control character no message or name contains.
constexpr char field = '\x1f';

/// `text` cut at every `by` (a trailing one gives a last empty part).
std::vector<std::string> split(const std::string& text, char by);

/// "" when `step()` returns, else the kind of what it threw ('I' InvalidInput, 'G' GpuUnavailable,
/// 'R' anything else) followed by its message.
template <class Step>
std::string capture(Step&& step) {
  try {
    step();
    return {};
  } catch (const InvalidInput& e) {
    return std::string("I") + e.what();
  } catch (const GpuUnavailable& e) {
    return std::string("G") + e.what();
  } catch (const std::exception& e) {
    return std::string("R") + e.what();
  } catch (...) {
    return "Ran unknown exception";
  }
}

/// Throws on every process when any process's error is not empty: the lowest failing rank's, as its
/// kind (InvalidInput, GpuUnavailable, else std::runtime_error), named by rank and host unless every
/// process failed with the same message (then it is simply the message).
void throw_first(const std::vector<std::string>& errors, const std::vector<std::string>& hosts);

/// Thrown when the processes were given different batches or options (InvalidInput, on every process).
[[noreturn]] void throw_everywhere_invalid(const std::string& message);

/// `make()` on this process alone (a placeholder or a receive buffer), between collective calls: a
/// failure here (no memory) ends the job, since the other processes would wait for this one forever.
template <class Make>
auto or_abort(Collective& c, const char* what, Make&& make) {
  try {
    return make();
  } catch (const std::exception& e) {
    c.abort("batchode: rank " + std::to_string(c.rank()) + ": " + what + ": " + e.what());
  }
  std::abort();  // abort() does not return (a call through the interface is not known to be noreturn)
}

}  // namespace batchode::distributed::detail
