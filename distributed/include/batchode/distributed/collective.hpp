// distributed/: what a distributed solve needs from the processes it runs on, and nothing of MPI's types:
// every process's text, one process's bytes gathered, a file written by all of them together. The
// C++ implementation is mpi::MpiCollective (mpi/, MPI's C API); Python's is written with
// mpi4py (python/batchode/_mpi.py), so the package needs no MPI library of its own and works with the
// MPI mpi4py was built for. One interface, so the algorithm (distributed_solve.hpp) exists once.
//
// Every member is collective: all processes call it, in the same order, with matching arguments.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace batchode::distributed {

/// Bytes one process writes into a file, at an offset from the file's start.
struct FilePiece {
  std::uint64_t offset = 0;
  const void* data = nullptr;
  std::size_t bytes = 0;
};

/// The processes of a distributed solve, as the algorithm (distributed_solve.hpp) talks to them:
/// mpi::MpiCollective in C++, an mpi4py communicator in Python. Every member is collective: all
/// processes call it, in the same order, with matching arguments.
class Collective {
 public:
  virtual ~Collective() = default;

  /// This process's rank (0 .. size() - 1) and the number of processes.
  virtual int rank() const = 0;
  virtual int size() const = 0;
  /// This process's rank among those on its node, and their number (which GPU it takes).
  virtual int local_rank() const = 0;
  virtual int local_size() const = 0;

  /// Every process's `text`, in rank order, on every process.
  virtual std::vector<std::string> allgather(const std::string& text) = 0;

  /// Process `root` receives every process's `bytes` bytes from `data`, in rank order, into `into`
  /// (which holds the sum of `bytes_by_rank`, the counts of all processes, known to all); the others
  /// pass `into` = nullptr. Counts may exceed 2^31 (sent in pieces).
  virtual void gather(const void* data, std::size_t bytes, void* into, const std::vector<std::uint64_t>& bytes_by_rank,
                      int root) = 0;

  /// Every process writes its `pieces` into the existing file `path`, all together (MPI-IO's
  /// collective writes). Returns this process's error, empty when its writes succeeded; never throws
  /// for a failed write, so that no process leaves the others waiting in the collective.
  virtual std::string write_at_all(const std::string& path, const std::vector<FilePiece>& pieces) = 0;

  /// Ends every process of the job after printing `why` (MPI_Abort): for a failure on one process
  /// where the others would otherwise wait for it forever (no memory for a result buffer).
  [[noreturn]] virtual void abort(const std::string& why) = 0;
};

/// The type of every exception a distributed solve throws on all processes alike (bad input, a
/// failed write): a front end may end normally on it, where any other exception on one process must
/// end the job (Collective::abort), since the others would wait for that process forever.
class ThrownOnEveryProcess {
 public:
  virtual ~ThrownOnEveryProcess() = default;
};

}  // namespace batchode::distributed
