// The process's MPI world, for the programs that spread work over processes and machines:
// data-parallel training (mpirun -np N nicagent train: the learner's collectives) and
// cluster simulation (mpirun -np N nicsim cluster: servers spread over ranks). Without MPI
// (not built with it, or not started by mpirun/srun) the world is one rank and every call
// is a no-op. Only comm.cpp sees MPI's C API.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace nicsched::mpi {

class Comm {
 public:
  [[nodiscard]] int rank() const { return rank_; }
  [[nodiscard]] int size() const { return size_; }
  // In place, every rank ends with the element-wise sum over ranks.
  void allreduce_sum(float* data, std::size_t n) const;
  void allreduce_sum(double* data, std::size_t n) const;
  // Rank `root`'s bytes to every rank.
  void broadcast(void* data, std::size_t bytes, int root) const;
  void barrier() const;
  // Every rank's `bytes`, in rank order, on every rank (a collective).
  [[nodiscard]] std::vector<std::string> allgather(const std::string& bytes) const;
  // "MPI: rank r of n (library)" or why there is no MPI, for the log.
  [[nodiscard]] const std::string& description() const { return description_; }

  // The process's world: initialises MPI on first use when the process was started by
  // mpirun/srun (Open MPI's or PMIx's environment variables are set) and finalises it at exit.
  static const Comm& world();

 private:
  Comm();
  int rank_ = 0;
  int size_ = 1;
  std::string description_;
};

}  // namespace nicsched::mpi
