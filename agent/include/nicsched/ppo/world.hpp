// The process's MPI world as the nicagent commands see it, before any Trainer exists:
// `nicagent train` under mpirun prepares its run folder on rank 0 while the other ranks
// wait, and every rank must agree on when to stop (docs/agent.md, "Data-parallel
// training across processes and machines (MPI)").
// Without MPI, or when not started by mpirun/srun, the world is rank 0 of 1 and these
// are trivial.
#pragma once

#include <string>

namespace nicsched::ppo {

[[nodiscard]] int world_rank();
[[nodiscard]] int world_size();
// True on every rank when `flag` is true on any rank (a collective: every rank calls it).
[[nodiscard]] bool world_any(bool flag);
// Rank 0's `text` on every rank (a collective); rank 0 gets its own back.
[[nodiscard]] std::string world_from_root(const std::string& text);

}  // namespace nicsched::ppo
