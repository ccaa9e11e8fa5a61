// ClusterSim: a cluster scenario running. Each server is a sim::Simulation of its own (its
// NIC cycle-exact, under the controller of ClusterOptions); the fabric is a FabricSim
// between them.
//
// A server's NIC has its pinned tenants and, when the scenario has jobs, one tenant slot per
// job it may hold beside them (nic.tenants in all): an idle tenant until a job is placed
// there (Simulation::start_tenant), its own NIC identity, the job's figures.
//
// Placement happens during the run, at the cycle of each event: jobs are placed in order of
// arrival (start_ms); a job that finds no room (free GPUs, and a free tenant slot on each
// chosen server) waits, first come first served, until a job leaves: at its stop_ms, or when
// it completes its `iterations`. A placed job's ring flows are routed then (balanced routing
// sees the flows of the jobs placed before it).
//
// The servers and the fabric advance in windows of one link latency; a frame takes at least
// two from one NIC to another, so nothing a server does in a window reaches another server
// within it (conservative synchronisation). In each window the fabric goes first: deliveries
// and drops due in the window come from frames injected earlier; a ring whose every edge has
// delivered its burst passes its barrier at the cycle of the last delivery (its last one
// completes the job), and a dropped frame's payload is sent again by its sender at the cycle
// of the drop. Then the window's placement events, in time order. Then each server runs
// through the window, applying what falls on it at its cycle (resends, barriers, jobs
// stopping, then starting); its departures enter the fabric. A server's dynamic controller
// decides at the end of each of its intervals, as in nicagent eval: the interval's telemetry
// folded into its tracker, its policy committed.
#pragma once

#include <cstdint>
#include <deque>
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
  // Spread the servers over the process's MPI ranks (mpirun -np N nicsim cluster): server s
  // is simulated by rank s mod N; every rank runs the fabric and placement, fed every
  // rank's departures each window, so all ranks hold the same fabric, jobs and links, and
  // result() gathers every server's NIC metrics. The same results as one process.
  bool mpi = false;
};

// A job's placement and what it achieved.
struct JobResult {
  std::string name;
  unsigned workers = 0;
  std::uint64_t iterations_target = 0;         // 0: runs to its stop or the end
  bool placed = false;
  std::uint64_t arrival_cycle = 0;
  std::uint64_t placed_cycle = 0;              // == arrival when it did not wait
  std::optional<std::uint64_t> completion_cycle;  // when its last iteration ended
  std::vector<unsigned> hosts;                 // ascending
  unsigned leaves = 0;                         // leaves its hosts sit under
  std::optional<unsigned> spine;               // vClos
  std::vector<std::uint64_t> iteration_cycles; // ring iterations (placement or barrier to barrier)
  // Job completion time, arrival to completion (its wait for room included).
  [[nodiscard]] std::optional<std::uint64_t> jct_cycles() const {
    if (!completion_cycle) return std::nullopt;
    return *completion_cycle - arrival_cycle;
  }
};

struct LinkResult {
  std::string name;
  double gbps = 0;
  PortStats stats;
  double utilisation = 0;                      // bytes x 8 / (rate x run time)
  unsigned jobs = 0;                           // jobs routed over it (leaf <-> spine)
};

// A server's NIC metrics as sim::to_json writes them (the servers of every rank).
struct HostMetrics {
  unsigned host = 0;
  std::string json;
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
  std::vector<std::pair<unsigned, sim::RunMetrics>> hosts;  // the NIC metrics of the servers this process simulated
  std::vector<HostMetrics> host_json;                      // every simulated server's, ascending
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
  struct Part;      // a tenant of a server: a pinned tenant, or a slot a job's part takes
  struct Host;
  struct Edge;
  struct Job;
  struct InFlight;
  struct Action;
  struct Event;

  void build_hosts();
  void on_departure(unsigned host, const sim::Departure& d);
  // Every rank's departures of this window into the fabric, in server order.
  void inject_departures();
  void inject(unsigned host, const sim::Departure& d);
  [[nodiscard]] bool mine(unsigned host_index) const { return host_index % ranks_ == rank_; }
  void on_delivered(const FabricFrame& f, std::uint64_t at_ps);
  void run_window(std::uint64_t end);
  void handle_event(const Event& e);
  void try_waiting(std::uint64_t now);
  void place(std::size_t job, const Allocation& a, std::uint64_t now);  // job: position in jobs_
  // Steps server `h` to cycle `to`, its controller deciding at each interval's end on the way.
  void advance(Host& h, std::uint64_t to);
  [[nodiscard]] std::uint64_t cycle_of(std::uint64_t ps) const { return (ps + ps_per_cycle_ - 1) / ps_per_cycle_; }

  ClusterScenario scenario_;
  ClusterOptions options_;
  Fabric fabric_;
  FabricSim fabric_sim_;
  Placer placer_;
  std::uint64_t ps_per_cycle_ = 0;
  std::uint64_t window_ = 0;
  std::uint64_t end_ = 0;
  std::uint64_t now_ = 0;
  std::vector<Job> jobs_;
  std::vector<Host> hosts_;
  std::vector<int> host_index_;                  // server -> position in hosts_, -1 none
  std::vector<Edge> edges_;
  std::vector<Flow> placed_flows_;               // every placed job's ring flows, spines pinned
  std::vector<InFlight> inflight_;               // by fabric frame id (ids count from 0)
  std::vector<Action> actions_;                  // on the servers, not yet applied
  std::vector<Event> events_;                    // placement events, a min-heap by cycle
  std::deque<std::size_t> waiting_;              // jobs (positions in jobs_) waiting for room
  std::uint64_t event_seq_ = 0;
  struct Departed {
    unsigned host;                               // position in hosts_
    sim::Departure d;
  };
  std::vector<Departed> departed_;               // this window's, of this rank's servers
  unsigned rank_ = 0;
  unsigned ranks_ = 1;
};

}  // namespace nicsched::cluster
