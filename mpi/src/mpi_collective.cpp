// mpi/: MpiCollective and MpiSession over MPI's C API. Large messages and writes go in pieces of at
// most 1 GiB: MPI counts are int.
#include "batchode/mpi/mpi_collective.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

namespace batchode::mpi {

using distributed::FilePiece;

namespace {

constexpr std::size_t piece_bytes = std::size_t{1} << 30;

std::string mpi_error_text(int code) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) return fmt::format("MPI error {}", code);
  return std::string(text, static_cast<std::size_t>(length));
}

void check(int code, const char* call) {
  if (code != MPI_SUCCESS) throw std::runtime_error(fmt::format("{} failed: {}", call, mpi_error_text(code)));
}

/// Prints `why` and ends every process of `comm`'s job.
[[noreturn]] void abort_job(MPI_Comm comm, const std::string& why) {
  std::fprintf(stderr, "%s\n", why.c_str());
  std::fflush(stderr);
  MPI_Abort(comm, 1);
  std::abort();  // MPI_Abort does not return; should it, this process still ends
}

}  // namespace

MpiSession::MpiSession(int* argc, char*** argv) {
  int initialized = 0;
  check(MPI_Initialized(&initialized), "MPI_Initialized");
  if (initialized) return;
  int provided = 0;
  check(MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  owns_ = true;
}

MpiSession::~MpiSession() {
  if (!owns_) return;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

int MpiSession::world_size() const {
  int size = 1;
  check(MPI_Comm_size(MPI_COMM_WORLD, &size), "MPI_Comm_size");
  return size;
}

void MpiSession::barrier() const { check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier"); }

void MpiSession::abort(const std::string& why) const { abort_job(MPI_COMM_WORLD, why); }

MpiCollective::MpiCollective(MPI_Comm comm) {
  check(MPI_Comm_dup(comm, &comm_), "MPI_Comm_dup");
  check(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  check(MPI_Comm_rank(comm_, &rank_), "MPI_Comm_rank");
  check(MPI_Comm_size(comm_, &size_), "MPI_Comm_size");
  MPI_Comm node = MPI_COMM_NULL;
  check(MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node), "MPI_Comm_split_type");
  check(MPI_Comm_rank(node, &local_rank_), "MPI_Comm_rank (node)");
  check(MPI_Comm_size(node, &local_size_), "MPI_Comm_size (node)");
  MPI_Comm_free(&node);
}

MpiCollective::~MpiCollective() {
  int finalized = 1;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Comm_free(&comm_);
}

void MpiCollective::abort(const std::string& why) { abort_job(comm_, why); }

std::vector<std::string> MpiCollective::allgather(const std::string& text) {
  const long long length = static_cast<long long>(text.size());
  std::vector<long long> lengths(static_cast<std::size_t>(size_));
  check(MPI_Allgather(&length, 1, MPI_LONG_LONG, lengths.data(), 1, MPI_LONG_LONG, comm_), "MPI_Allgather");
  std::vector<int> counts(static_cast<std::size_t>(size_)), displacements(static_cast<std::size_t>(size_));
  long long total = 0;
  for (int r = 0; r < size_; ++r) {
    if (lengths[r] > static_cast<long long>(piece_bytes) || total > static_cast<long long>(piece_bytes)) {
      throw std::runtime_error("MpiCollective::allgather: more than 1 GiB of text");
    }
    counts[r] = static_cast<int>(lengths[r]);
    displacements[r] = static_cast<int>(total);
    total += lengths[r];
  }
  std::string all(static_cast<std::size_t>(total), '\0');
  check(MPI_Allgatherv(text.data(), static_cast<int>(text.size()), MPI_CHAR, all.data(), counts.data(),
                       displacements.data(), MPI_CHAR, comm_),
        "MPI_Allgatherv");
  std::vector<std::string> texts;
  for (int r = 0; r < size_; ++r) texts.push_back(all.substr(static_cast<std::size_t>(displacements[r]), lengths[r]));
  return texts;
}

void MpiCollective::gather(const void* data, std::size_t bytes, void* into,
                           const std::vector<std::uint64_t>& bytes_by_rank, int root) {
  // Point to point in pieces: counts above 2^31 and no staging copy. The root copies its own part.
  constexpr int tag = 7157;
  if (rank_ != root) {
    const char* p = static_cast<const char*>(data);
    for (std::size_t sent = 0; sent < bytes; sent += piece_bytes) {
      const int n = static_cast<int>(std::min(piece_bytes, bytes - sent));
      check(MPI_Send(p + sent, n, MPI_BYTE, root, tag, comm_), "MPI_Send");
    }
    return;
  }
  char* out = static_cast<char*>(into);
  for (int r = 0; r < size_; ++r) {
    const std::size_t n = static_cast<std::size_t>(bytes_by_rank[r]);
    if (r == root) {
      if (n > 0) std::copy_n(static_cast<const char*>(data), n, out);
    } else {
      for (std::size_t got = 0; got < n; got += piece_bytes) {
        const int piece = static_cast<int>(std::min(piece_bytes, n - got));
        check(MPI_Recv(out + got, piece, MPI_BYTE, r, tag, comm_, MPI_STATUS_IGNORE), "MPI_Recv");
      }
    }
    out += n;
  }
}

std::string MpiCollective::write_at_all(const std::string& path, const std::vector<FilePiece>& pieces) {
  // Every process makes as many collective calls as the process with the most (pieces of 1 GiB):
  // MPI_File_write_at_all must be called by all, so one with less to write writes 0 bytes.
  std::vector<FilePiece> parts;
  for (const FilePiece& p : pieces) {
    for (std::size_t done = 0; done < p.bytes; done += piece_bytes) {
      parts.push_back({p.offset + done, static_cast<const char*>(p.data) + done, std::min(piece_bytes, p.bytes - done)});
    }
  }
  long long mine = static_cast<long long>(parts.size()), calls = 0;
  check(MPI_Allreduce(&mine, &calls, 1, MPI_LONG_LONG, MPI_MAX, comm_), "MPI_Allreduce");
  std::string error;
  MPI_File file = MPI_FILE_NULL;
  int code = MPI_File_open(comm_, path.c_str(), MPI_MODE_WRONLY, MPI_INFO_NULL, &file);
  // Every process learns whether every open succeeded: one that failed alone must not leave the
  // others waiting in the collective writes.
  int opened = code == MPI_SUCCESS ? 1 : 0, all_opened = 0;
  check(MPI_Allreduce(&opened, &all_opened, 1, MPI_INT, MPI_MIN, comm_), "MPI_Allreduce");
  if (!all_opened) {
    if (opened) MPI_File_close(&file);
    return opened ? fmt::format("another process could not open '{}' for MPI-IO", path)
                  : fmt::format("opening '{}' for MPI-IO: {}", path, mpi_error_text(code));
  }
  for (long long k = 0; k < calls; ++k) {
    const bool have = k < mine;
    const FilePiece p = have ? parts[static_cast<std::size_t>(k)] : FilePiece{};
    code = MPI_File_write_at_all(file, static_cast<MPI_Offset>(p.offset), p.data, static_cast<int>(p.bytes), MPI_BYTE,
                                 MPI_STATUS_IGNORE);
    if (code != MPI_SUCCESS && error.empty()) {
      error = fmt::format("writing {} bytes at {} of '{}': {}", p.bytes, p.offset, path, mpi_error_text(code));
    }
  }
  code = MPI_File_close(&file);
  if (code != MPI_SUCCESS && error.empty()) error = fmt::format("closing '{}': {}", path, mpi_error_text(code));
  return error;
}

}  // namespace batchode::mpi
