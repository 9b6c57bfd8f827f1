// cli/: what the MPI launcher that started this process says, read from the environment (no MPI
// call): whether one did (mpirun, mpiexec, srun set these variables for OpenMPI, MPICH's PMI and
// PMIx) and this process's rank, so that a command run under `mpirun -np K` solves one batch over
// the K processes and only rank 0 prints.
#pragma once

#include <ostream>

namespace batchode::cli {

/// True when an MPI launcher started this process.
bool launched_by_mpi();

/// This process's rank as the launcher set it; 0 when no launcher did.
int launcher_rank();

/// A stream that drops what it is given: the printing of processes other than rank 0.
std::ostream& null_stream();

}  // namespace batchode::cli
