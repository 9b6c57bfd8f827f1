// timing/: the metadata keys of the solve's events, as the timing design names them, in one place so
// the CPU and GPU paths attach the same keys and the tests pin them:
//   transfers (h2d_*, d2h_*)                        nbytes, chunk_index, chunk_slice, is_chunked
//   kernel_launch                                   chunk_index, numruns, chunk_slice, gpu_time_ms
//   solve_ivp_execution, solver_solve_execution,
//   kernel_run_execution                            num_chunks, total_runs (and backend)
// gpu_time_ms is filled in by the TimeLogger once the event's GPU time is known.
#pragma once

namespace batchode::keys {

inline constexpr const char* nbytes = "nbytes";            ///< bytes moved by a transfer
inline constexpr const char* chunk_index = "chunk_index";  ///< which chunk of the run (0-based)
inline constexpr const char* chunk_slice = "chunk_slice";  ///< "first:end" runs of the batch in the chunk
inline constexpr const char* is_chunked = "is_chunked";    ///< 1 when the batch went in more than one chunk
inline constexpr const char* numruns = "numruns";          ///< runs a kernel launch integrated
inline constexpr const char* gpu_time_ms = "gpu_time_ms";  ///< the event's GPU time, from its event pair
inline constexpr const char* num_chunks = "num_chunks";    ///< chunks of an outer event (1 on the CPU)
inline constexpr const char* total_runs = "total_runs";    ///< runs of an outer event
inline constexpr const char* backend = "backend";          ///< "cpu" or "gpu:<index>"

}  // namespace batchode::keys
