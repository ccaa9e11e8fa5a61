// The process's MPI world (comm.hpp). Built with NICSCHED_HAVE_MPI when CMake finds MPI
// (Debian: openmpi-bin libopenmpi-dev); otherwise a one-rank world.
#include "nicsched/mpi/comm.hpp"

#include <cstdint>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <type_traits>

#ifdef NICSCHED_HAVE_MPI
#include <mpi.h>
#endif

namespace nicsched::mpi {
namespace {

#ifdef NICSCHED_HAVE_MPI
// Started by a launcher: Open MPI's mpirun, or a PMI/PMIx launcher such as Slurm's srun.
bool launched_by_mpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"}) {
    if (std::getenv(v) != nullptr) return true;
  }
  return false;
}

void check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) throw std::runtime_error(std::string("MPI: ") + what + " failed (error " + std::to_string(rc) + ")");
}

int count_of(std::size_t n) {
  if (n > static_cast<std::size_t>(std::numeric_limits<int>::max())) throw std::runtime_error("MPI: message too large");
  return static_cast<int>(n);
}

void finalize_at_exit() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}
#endif

}  // namespace

Comm::Comm() {
#ifdef NICSCHED_HAVE_MPI
  if (!launched_by_mpi()) {
    description_ = "MPI: built with MPI, not started by mpirun/srun: one process";
    return;
  }
  int initialised = 0;
  MPI_Initialized(&initialised);
  if (!initialised) {
    check(MPI_Init(nullptr, nullptr), "MPI_Init");
    std::atexit(finalize_at_exit);
  }
  check(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "MPI_Comm_rank");
  check(MPI_Comm_size(MPI_COMM_WORLD, &size_), "MPI_Comm_size");
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(version, &len);
  std::string lib(version, static_cast<std::size_t>(len));
  if (const auto nl = lib.find_first_of(",\n"); nl != std::string::npos) lib.resize(nl);
  description_ = "MPI: rank " + std::to_string(rank_) + " of " + std::to_string(size_) + " (" + lib + ")";
#else
  description_ = "MPI: not built with MPI (install libopenmpi-dev and reconfigure): one process";
#endif
}

const Comm& Comm::world() {
  static const Comm comm;
  return comm;
}

namespace {

// Both allreduce_sum overloads: the sum over the `ranks` ranks, in place.
template <class T>
void sum_over_ranks(int ranks, T* data, std::size_t n) {
#ifdef NICSCHED_HAVE_MPI
  const MPI_Datatype type = std::is_same_v<T, float> ? MPI_FLOAT : MPI_DOUBLE;
  if (ranks > 1) check(MPI_Allreduce(MPI_IN_PLACE, data, count_of(n), type, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
#else
  (void)ranks;
  (void)data;
  (void)n;
#endif
}

}  // namespace

void Comm::allreduce_sum(float* data, std::size_t n) const { sum_over_ranks(size_, data, n); }

void Comm::allreduce_sum(double* data, std::size_t n) const { sum_over_ranks(size_, data, n); }

void Comm::broadcast(void* data, std::size_t bytes, int root) const {
#ifdef NICSCHED_HAVE_MPI
  if (size_ > 1) check(MPI_Bcast(data, count_of(bytes), MPI_BYTE, root, MPI_COMM_WORLD), "MPI_Bcast");
#else
  (void)data;
  (void)bytes;
  (void)root;
#endif
}

void Comm::barrier() const {
#ifdef NICSCHED_HAVE_MPI
  if (size_ > 1) check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
#endif
}

std::vector<std::string> Comm::allgather(const std::string& bytes) const {
  if (size_ == 1) return {bytes};
#ifdef NICSCHED_HAVE_MPI
  const int n = count_of(bytes.size());
  std::vector<int> counts(static_cast<std::size_t>(size_));
  check(MPI_Allgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD), "MPI_Allgather");
  std::vector<int> offsets(counts.size(), 0);
  std::size_t total = 0;
  for (std::size_t r = 0; r < counts.size(); ++r) {
    offsets[r] = count_of(total);
    total += static_cast<std::size_t>(counts[r]);
  }
  std::string all(total, '\0');
  check(MPI_Allgatherv(bytes.data(), n, MPI_BYTE, all.data(), counts.data(), offsets.data(), MPI_BYTE, MPI_COMM_WORLD),
        "MPI_Allgatherv");
  std::vector<std::string> out;
  for (std::size_t r = 0; r < counts.size(); ++r)
    out.push_back(all.substr(static_cast<std::size_t>(offsets[r]), static_cast<std::size_t>(counts[r])));
  return out;
#else
  return {bytes};
#endif
}

}  // namespace nicsched::mpi
