// The process's MPI world as the nicagent commands see it (world.hpp), on nicsched::mpi's Comm.
#include "nicsched/ppo/world.hpp"

#include <cstdint>

#include "nicsched/mpi/comm.hpp"

namespace nicsched::ppo {

int world_rank() { return mpi::Comm::world().rank(); }
int world_size() { return mpi::Comm::world().size(); }

bool world_any(bool flag) {
  double v = flag ? 1.0 : 0.0;
  mpi::Comm::world().allreduce_sum(&v, 1);
  return v > 0.0;
}

std::string world_from_root(const std::string& text) {
  const auto& comm = mpi::Comm::world();
  if (comm.size() == 1) return text;
  std::uint64_t n = text.size();
  comm.broadcast(&n, sizeof n, 0);
  std::string out = comm.rank() == 0 ? text : std::string(static_cast<std::size_t>(n), '\0');
  if (n > 0) comm.broadcast(out.data(), out.size(), 0);
  return out;
}

}  // namespace nicsched::ppo
