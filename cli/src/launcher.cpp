// cli/: launched_by_mpi and launcher_rank (launcher.hpp).
#include "launcher.hpp"

#include <cstdlib>
#include <ostream>
#include <string>

namespace batchode::cli {

namespace {
// Slurm's own variables are not among them: SLURM_NTASKS is set in a whole job's shell, not only in
// the tasks srun starts (those get PMI_* or PMIX_* from srun --mpi=pmi2|pmix).
constexpr const char* size_variables[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"};
constexpr const char* rank_variables[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"};
}  // namespace

bool launched_by_mpi() {
  for (const char* name : size_variables) {
    if (std::getenv(name) != nullptr) return true;
  }
  return std::getenv("PMIX_RANK") != nullptr;
}

std::ostream& null_stream() {
  static std::ostream dropped(nullptr);  // no buffer: every write fails quietly
  return dropped;
}

int launcher_rank() {
  for (const char* name : rank_variables) {
    if (const char* value = std::getenv(name)) {
      try {
        return std::stoi(value);
      } catch (...) {
        return 0;
      }
    }
  }
  return 0;
}

}  // namespace batchode::cli
