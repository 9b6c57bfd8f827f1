// mpi/: the distributed::Collective of an MPI communicator (MPI's C API), and the session that starts
// MPI. The only header of batchode that includes mpi.h.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "batchode/distributed/collective.hpp"

namespace batchode::mpi {

/// MPI for the life of this object: MPI_Init_thread (MPI_THREAD_FUNNELED: only the thread that made
/// it calls MPI; batchode's own threads never do) unless MPI was already started by someone else (then
/// it is theirs to finalize), MPI_Finalize at the end otherwise. An MpiCollective must be gone before
/// the session ends.
class MpiSession {
 public:
  MpiSession(int* argc, char*** argv);
  MpiSession() : MpiSession(nullptr, nullptr) {}
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  /// Processes in MPI_COMM_WORLD.
  int world_size() const;
  /// Waits until every process of MPI_COMM_WORLD has called it.
  void barrier() const;
  /// Prints `why` on this process's stderr and ends the job (MPI_Abort on MPI_COMM_WORLD).
  [[noreturn]] void abort(const std::string& why) const;

 private:
  bool owns_ = false;
};

/// The processes of `comm` (MPI_COMM_WORLD by default), on a duplicate of it (so batchode's messages
/// never meet the caller's receives, and the caller's error handler stays theirs). Errors of MPI calls
/// become std::runtime_error naming the call and MPI's message (MPI_ERRORS_RETURN on the duplicate).
class MpiCollective final : public distributed::Collective {
 public:
  explicit MpiCollective(MPI_Comm comm = MPI_COMM_WORLD);
  ~MpiCollective() override;
  MpiCollective(const MpiCollective&) = delete;
  MpiCollective& operator=(const MpiCollective&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::vector<std::string> allgather(const std::string& text) override;
  void gather(const void* data, std::size_t bytes, void* into, const std::vector<std::uint64_t>& bytes_by_rank,
              int root) override;
  std::string write_at_all(const std::string& path, const std::vector<distributed::FilePiece>& pieces) override;
  [[noreturn]] void abort(const std::string& why) override;

  int local_rank() const override { return local_rank_; }
  int local_size() const override { return local_size_; }
  MPI_Comm comm() const { return comm_; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1, local_rank_ = 0, local_size_ = 1;
};

}  // namespace batchode::mpi
