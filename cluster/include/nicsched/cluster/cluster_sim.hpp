// ClusterSim: a cluster scenario running. Each server with tenants is a sim::Simulation (its
// NIC cycle-exact, its controller a static baseline); the fabric is a FabricSim between them.
//
// Placement happens on the scenario's timeline before the run: jobs are placed in order of
// arrival (start_ms), a job that finds no room (free GPUs, and a free tenant on each chosen
// server's NIC) waits, first come first served, until a job leaves (stop_ms), and its
// servers' parts start when it is placed. Each placed job's ring flows are routed then
// (balanced routing sees the flows already placed).
//
// The servers and the fabric advance in windows no longer than the shortest time a frame
// takes from one NIC to another (two link latencies and a minimum frame's serialisation),
// so nothing a server does in a window can reach another server within it (conservative
// synchronisation). In each window the fabric goes first: deliveries and drops due in the
// window come from frames injected earlier; a ring whose every edge has delivered its burst
// passes its barrier at the cycle of the last delivery, and a dropped frame's payload is
// sent again by its sender at the cycle of the drop. Then each server runs through the
// window, applying those at their cycles; its departures enter the fabric. A server's
// dynamic controller decides at the end of each of its intervals, as in nicagent eval: the
// interval's telemetry folded into its tracker, its policy committed.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "nicsched/cluster/cluster_scenario.hpp"
#include "nicsched/cluster/fabric_sim.hpp"
#include "nicsched/control/controller.hpp"
#include "nicsched/sim/simulation.hpp"

namespace nicsched::cluster {

struct ClusterOptions {
  // Every server's NIC controller: a baseline by name (control::baseline_names(): the static
  // ones are written once before the first cycle, the others decide every interval), or
  // `make_controller` when set (one fresh controller per server; `baseline` names it then).
  std::string baseline = "fifo";
  std::function<std::unique_ptr<control::Controller>()> make_controller;
  std::uint64_t interval_cycles = 2000;       // between a dynamic controller's decisions
  std::optional<std::uint64_t> cycles;        // run length instead of the scenario's duration
};

// A job's placement and what it achieved.
struct JobResult {
  std::string name;
  unsigned workers = 0;
  bool placed = false;
  std::uint64_t arrival_cycle = 0;
  std::uint64_t placed_cycle = 0;              // == arrival when it did not wait
  std::vector<unsigned> hosts;                 // ascending
  unsigned leaves = 0;                         // leaves its hosts sit under
  std::optional<unsigned> spine;               // vClos
  std::vector<std::uint64_t> iteration_cycles; // ring iterations (barrier to barrier)
};

struct LinkResult {
  std::string name;
  double gbps = 0;
  PortStats stats;
  double utilisation = 0;                      // bytes x 8 / (rate x run time)
  unsigned jobs = 0;                           // jobs routed over it (leaf <-> spine)
};

struct ClusterResult {
  std::string scenario;
  std::string placement;
  std::string routing;
  std::string baseline;
  std::uint64_t cycles = 0;
  double clock_mhz = 0;
  double scale = 0;
  std::vector<JobResult> jobs;
  std::vector<LinkResult> links;
  unsigned collisions = 0;                     // leaf <-> spine links shared by two or more jobs
  std::vector<std::pair<unsigned, sim::RunMetrics>> hosts;  // each simulated server's NIC metrics
};

class ClusterSim {
 public:
  ClusterSim(ClusterScenario scenario, ClusterOptions options);
  ~ClusterSim();
  ClusterSim(const ClusterSim&) = delete;
  ClusterSim& operator=(const ClusterSim&) = delete;

  void run();
  [[nodiscard]] ClusterResult result();
  [[nodiscard]] std::uint64_t window_cycles() const { return window_; }

 private:
  struct Part;      // one tenant of one server: a pinned tenant or a job's part
  struct Host;
  struct Edge;
  struct InFlight;
  struct Action;

  void place_jobs();
  void build_hosts();
  void on_departure(unsigned host, const sim::Departure& d);
  void run_window(std::uint64_t end);
  // Steps server `h` to cycle `to`, its controller deciding at each interval's end on the way.
  void advance(Host& h, std::uint64_t to);

  ClusterScenario scenario_;
  ClusterOptions options_;
  Fabric fabric_;
  FabricSim fabric_sim_;
  std::uint64_t ps_per_cycle_ = 0;
  std::uint64_t window_ = 0;
  std::uint64_t end_ = 0;
  std::uint64_t now_ = 0;
  std::vector<JobResult> jobs_;                  // by tenant position (pinned tenants: unused)
  std::vector<std::vector<Flow>> job_flows_;     // by tenant position, routed spines pinned
  std::vector<Host> hosts_;
  std::vector<Edge> edges_;
  std::vector<InFlight> inflight_;               // by fabric frame id (ids count from 0)
  std::uint64_t next_frame_id_ = 0;
  std::vector<Action> actions_;                  // barriers and resends not yet applied
};

}  // namespace nicsched::cluster
