// Data-parallel PPO over MPI, run by CTest as `mpirun -np 2 agent_mpi_test DIR`: each rank
// trains on its own CartPole envs for a few updates; the ranks must see different
// episodes yet end with bit-identical parameters, and the checkpoint rank 0 writes must
// load back (on every rank) to those parameters and export a loadable policy.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "cartpole.hpp"
#include "nicsched/ppo/policy.hpp"
#include "nicsched/ppo/trainer.hpp"
#include "small_ppo_config.hpp"

namespace {

int failures = 0;
int rank_id = 0;

void expect(bool ok, const std::string& what) {
  if (!ok) {
    std::fprintf(stderr, "rank %d: FAILED: %s\n", rank_id, what.c_str());
    ++failures;
  }
}

nicsched::ppo::PpoConfig config() {
  auto cfg = nicsched::testing::small_ppo_config(7, 2, 32, 3, /*ranks=*/2);
  cfg.use_target_kl = true;  // the early stop must be taken alike on every rank
  cfg.target_kl = 0.005;
  return cfg;
}

std::vector<std::unique_ptr<nicsched::control::Env>> envs() {
  std::vector<std::unique_ptr<nicsched::control::Env>> out;
  for (int i = 0; i < 2; ++i) out.push_back(std::make_unique<nicsched::testing::CartPole>());
  return out;
}

// Whether v is the same on every rank, bit for bit (element-wise max == min).
bool same_on_all_ranks(const std::vector<float>& v) {
  std::vector<float> hi(v), lo(v);
  MPI_Allreduce(MPI_IN_PLACE, hi.data(), static_cast<int>(hi.size()), MPI_FLOAT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, lo.data(), static_cast<int>(lo.size()), MPI_FLOAT, MPI_MIN, MPI_COMM_WORLD);
  return hi == lo;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: mpirun -np 2 agent_mpi_test DIR\n");
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  nicsched::ppo::Trainer trainer(config(), envs());  // initialises MPI
  rank_id = trainer.rank();
  std::fprintf(stderr, "%s\n", trainer.world_description().c_str());
  expect(trainer.world_size() == 2, "expected 2 ranks, got " + std::to_string(trainer.world_size()));
  if (trainer.world_size() != 2) return 1;
  expect(same_on_all_ranks(trainer.parameters()), "initial parameters differ across ranks");

  while (!trainer.finished()) (void)trainer.update();
  expect(trainer.updates_done() == 3, "expected 3 updates, ran " + std::to_string(trainer.updates_done()));
  expect(trainer.global_step() == 384, "global_step counts all ranks: expected 384, got " +
                                           std::to_string(trainer.global_step()));
  const auto obs = trainer.envs().observations();
  expect(!same_on_all_ranks(std::vector<float>(obs.begin(), obs.end())),
         "the ranks' environments are in the same state: they did not collect their own episodes");
  const auto params = trainer.parameters();
  expect(same_on_all_ranks(params), "parameters differ across ranks after training");

  if (trainer.rank() == 0) {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    trainer.save_checkpoint(dir / "checkpoint.pt");
    trainer.export_policy(dir / "policy", "");
  }
  MPI_Barrier(MPI_COMM_WORLD);
  nicsched::ppo::Trainer resumed(config(), envs());
  resumed.load_checkpoint(dir / "checkpoint.pt");
  expect(resumed.parameters() == params, "the checkpoint does not hold the trained parameters");
  expect(resumed.updates_done() == 3, "the checkpoint does not hold the update count");
  const nicsched::ppo::TrainedPolicy policy(dir / "policy");
  const std::vector<float> o(policy.observation_size(), 0.0F);
  const std::vector<std::uint8_t> mask(2, 1);
  const auto a = policy.act(o, mask);
  expect(a.size() == 1 && (a[0] == 0 || a[0] == 1), "the exported policy does not act");

  int total = failures;
  MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank_id == 0) std::fprintf(stderr, total == 0 ? "mpi: all checks passed\n" : "mpi: %d check(s) failed\n", total);
  return total == 0 ? 0 : 1;
}
