// ClusterSim: placement on the scenario's timeline, one Simulation per server, the fabric
// between them, advanced in windows of one link latency (cluster_sim.hpp).
#include "nicsched/cluster/cluster_sim.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <queue>
#include <unordered_map>

#include "nicsched/host/discovery.hpp"
#include "nicsched/host/policy.hpp"
#include "nicsched/host/telemetry.hpp"
#include "nicsched/sim/error.hpp"

namespace nicsched::cluster {

struct ClusterSim::Part {
  std::size_t tenant = 0;             // position in the cluster scenario
  std::optional<std::size_t> edge;    // a job's part: its outgoing ring edge
  std::optional<Path> to_host_path;   // a pinned background tenant sending through the fabric
  unsigned to_host = 0;
};

struct ClusterSim::Host {
  unsigned id = 0;
  std::vector<Part> parts;            // by position in the server's own scenario
  std::unique_ptr<sim::Simulation> sim;
  // A dynamic controller's loop (none for a static baseline).
  std::unique_ptr<control::Controller> controller;
  std::optional<control::TelemetryTracker> tracker;
  host::Capabilities caps;
  host::Policy base;
  std::uint64_t next_decision = sim::kNever;
};

struct ClusterSim::Edge {
  std::size_t job = 0;                // tenant position of the job
  unsigned src = 0;
  unsigned dst = 0;
  Path path;
  std::uint64_t delivered = 0;        // burst payload delivered this iteration
};

struct ClusterSim::InFlight {
  unsigned host = 0;
  std::size_t local = 0;              // the sending part
  std::optional<std::size_t> edge;
  std::uint64_t payload = 0;
  sim::Flow flow = sim::Flow::kBulkTx;
};

struct ClusterSim::Action {
  std::uint64_t cycle = 0;
  unsigned host = 0;
  std::size_t local = 0;
  bool barrier = false;               // else a resend of `payload`
  std::uint64_t payload = 0;
};

namespace {

std::uint64_t ps_per_cycle(double clock_mhz) {
  const double ps = 1e6 / clock_mhz;
  const double whole = std::round(ps);
  if (std::abs(ps - whole) > 1e-6)
    throw sim::SimError(fmt::format("clock_mhz {}: cluster mode needs a whole number of picoseconds per cycle (it is {})",
                                    clock_mhz, ps));
  return static_cast<std::uint64_t>(whole);
}

bool is_static_baseline(const std::string& name) {
  const auto& names = control::static_baseline_names();
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

ClusterSim::ClusterSim(ClusterScenario scenario, ClusterOptions options)
    : scenario_(std::move(scenario)),
      options_(std::move(options)),
      fabric_(scenario_.fabric),
      fabric_sim_(fabric_, scenario_.link_latency_ps) {
  ps_per_cycle_ = ps_per_cycle(scenario_.base.clock_mhz);
  window_ = std::max<std::uint64_t>(1, scenario_.link_latency_ps / ps_per_cycle_);
  end_ = options_.cycles.value_or(scenario_.base.duration_cycles);
  jobs_.resize(scenario_.base.tenants.size());
  job_flows_.resize(scenario_.base.tenants.size());
  place_jobs();
  build_hosts();
}

ClusterSim::~ClusterSim() = default;

// Jobs in order of arrival; one that finds no room waits (first come, first served) until a
// job leaves. Its flows are routed when it is placed.
void ClusterSim::place_jobs() {
  const auto& tenants = scenario_.base.tenants;
  Placer placer(fabric_, scenario_.placement, scenario_.base.seed);
  // Each job on a server is one tenant of its NIC, beside the tenants pinned there.
  std::vector<unsigned> slots(fabric_.hosts(), scenario_.base.nic_tenants);
  for (const TenantPlacement& w : scenario_.where)
    if (w.host) --slots[*w.host];  // the reader holds pinned tenants to nic.tenants per server
  placer.set_job_slots(std::move(slots));
  std::vector<std::size_t> arrivals;
  for (std::size_t i = 0; i < tenants.size(); ++i) {
    if (!scenario_.where[i].is_job()) continue;
    jobs_[i].name = tenants[i].name;
    jobs_[i].workers = tenants[i].workers;
    jobs_[i].arrival_cycle = tenants[i].start_cycle;
    arrivals.push_back(i);
  }
  std::stable_sort(arrivals.begin(), arrivals.end(),
                   [&](std::size_t a, std::size_t b) { return tenants[a].start_cycle < tenants[b].start_cycle; });
  using Leave = std::pair<std::uint64_t, std::size_t>;
  std::priority_queue<Leave, std::vector<Leave>, std::greater<>> leaving;
  std::deque<std::size_t> waiting;
  std::vector<Flow> placed_flows;  // of every job placed so far, spines pinned

  auto try_waiting = [&](std::uint64_t now) {
    while (!waiting.empty()) {
      const std::size_t j = waiting.front();
      if (now >= tenants[j].stop_cycle || now >= end_) {  // gone before it got room
        waiting.pop_front();
        continue;
      }
      const auto a = placer.place(static_cast<unsigned>(j), tenants[j].workers);
      if (!a) return;
      waiting.pop_front();
      JobResult& r = jobs_[j];
      r.placed = true;
      r.placed_cycle = now;
      r.spine = a->spine;
      for (unsigned g : a->gpus) r.hosts.push_back(fabric_.host_of_gpu(g));
      r.hosts.erase(std::unique(r.hosts.begin(), r.hosts.end()), r.hosts.end());
      std::vector<unsigned> leaves;
      for (unsigned h : r.hosts) leaves.push_back(fabric_.leaf_of(h));
      r.leaves = static_cast<unsigned>(std::unique(leaves.begin(), leaves.end()) - leaves.begin());
      std::vector<Flow> flows = ring_flows(fabric_, static_cast<unsigned>(j), a->gpus,
                                           static_cast<double>(tenants[j].burst_bytes));
      for (Flow& f : flows) f.spine = a->spine;
      std::vector<Flow> all = placed_flows;
      all.insert(all.end(), flows.begin(), flows.end());
      const std::vector<Path> paths = route(fabric_, all, scenario_.routing);
      for (std::size_t k = 0; k < flows.size(); ++k) {
        const Path& p = paths[placed_flows.size() + k];
        if (p.size() == 4) flows[k].spine = fabric_.link(p[1]).peer;  // leaf -> spine s
      }
      placed_flows.insert(placed_flows.end(), flows.begin(), flows.end());
      job_flows_[j] = std::move(flows);
      if (tenants[j].stop_cycle != sim::kNever) leaving.push({tenants[j].stop_cycle, j});
    }
  };
  std::size_t next = 0;
  while (next < arrivals.size() || (!leaving.empty() && !waiting.empty())) {
    const std::uint64_t t_arrive = next < arrivals.size() ? tenants[arrivals[next]].start_cycle : sim::kNever;
    const std::uint64_t t_leave = leaving.empty() ? sim::kNever : leaving.top().first;
    const std::uint64_t now = std::min(t_arrive, t_leave);
    if (now >= end_) break;
    if (t_leave <= t_arrive) {
      placer.release(static_cast<unsigned>(leaving.top().second));
      leaving.pop();
    } else {
      waiting.push_back(arrivals[next++]);
    }
    try_waiting(now);
  }
}

void ClusterSim::build_hosts() {
  const auto& tenants = scenario_.base.tenants;
  std::map<unsigned, std::vector<Part>> parts;  // by host, in scenario order
  for (std::size_t i = 0; i < tenants.size(); ++i) {
    const TenantPlacement& w = scenario_.where[i];
    if (!w.is_job()) {
      Part p;
      p.tenant = i;
      if (w.to_host) {
        p.to_host = *w.to_host;
        p.to_host_path = fabric_.path(*w.host, *w.to_host, 0);
        if (p.to_host_path->size() == 4) {  // across leaves: the spine ECMP gives it
          Flow f;
          f.src_host = *w.host;
          f.dst_host = *w.to_host;
          f.src_port = 40000;
          f.dst_port = tenants[i].port;
          p.to_host_path = route(fabric_, {f}, Routing::kEcmp).front();
        }
      }
      parts[*w.host].push_back(p);
      continue;
    }
    for (const Flow& f : job_flows_[i]) {
      Edge e;
      e.job = i;
      e.src = f.src_host;
      e.dst = f.dst_host;
      e.path = fabric_.path(f.src_host, f.dst_host, f.spine.value_or(0));
      edges_.push_back(e);
      Part p;
      p.tenant = i;
      p.edge = edges_.size() - 1;
      parts[f.src_host].push_back(p);
    }
  }
  for (auto& [host, list] : parts) {
    if (list.size() > scenario_.base.nic_tenants)
      throw sim::SimError(fmt::format("{}: server {} would run {} tenants; its NIC has nic.tenants {}",
                                      scenario_.base.file.string(), host, list.size(), scenario_.base.nic_tenants));
    sim::Scenario s = scenario_.base;
    s.name = fmt::format("{}/host{}", scenario_.base.name, host);
    s.tenants.clear();
    for (std::size_t k = 0; k < list.size(); ++k) {
      sim::TenantSpec t = tenants[list[k].tenant];
      t.index = static_cast<std::uint32_t>(k);
      if (list[k].edge) {
        const JobResult& r = jobs_[list[k].tenant];
        t.start_cycle = r.placed_cycle;
        t.ring_barrier = true;
      }
      s.tenants.push_back(std::move(t));
    }
    const bool dynamic = static_cast<bool>(options_.make_controller) || !is_static_baseline(options_.baseline);
    sim::SimOptions o;
    o.baseline = dynamic ? "fifo" : options_.baseline;  // a dynamic controller's first decision ends its first interval
    o.policy_name = options_.baseline;
    o.cycles = end_;
    const unsigned id = host;
    o.on_departure = [this, id](const sim::Departure& d) { on_departure(id, d); };
    const double link_bytes_per_cycle = s.link_bytes_per_cycle();
    Host h;
    h.id = host;
    h.parts = std::move(list);
    h.sim = std::make_unique<sim::Simulation>(std::move(s), std::move(o));
    if (dynamic) {
      h.controller = options_.make_controller ? options_.make_controller() : control::make_baseline(options_.baseline);
      h.caps = host::discover(*h.sim);
      h.base = host::read_policy(*h.sim, h.caps);
      h.base.classifier.reset();
      h.base.default_action.reset();
      h.tracker.emplace(h.caps, link_bytes_per_cycle);
      h.tracker->reset(host::read_snapshot(*h.sim, h.caps));
      h.controller->reset();
      h.next_decision = h.sim->cycle() + options_.interval_cycles;
    }
    hosts_.push_back(std::move(h));
  }
}

void ClusterSim::advance(Host& h, std::uint64_t to) {
  sim::Simulation& s = *h.sim;
  while (h.next_decision <= to && h.next_decision < end_) {
    if (h.next_decision > s.cycle()) s.step(h.next_decision - s.cycle());
    h.tracker->update(host::read_snapshot(s, h.caps));
    host::apply_policy(s, h.caps, h.controller->decide(*h.tracker, h.base));
    h.next_decision += options_.interval_cycles;
  }
  if (to > s.cycle()) s.step(to - s.cycle());
}

void ClusterSim::on_departure(unsigned host, const sim::Departure& d) {
  const Host& h = *std::find_if(hosts_.begin(), hosts_.end(), [&](const Host& x) { return x.id == host; });
  const Part& p = h.parts.at(d.tenant);
  const Path* path = p.edge ? &edges_[*p.edge].path : p.to_host_path ? &*p.to_host_path : nullptr;
  if (!path) return;  // a pinned tenant's peer is outside the fabric
  const std::uint64_t id = next_frame_id_++;
  FabricFrame f;
  f.id = id;
  f.job = static_cast<unsigned>(p.tenant);
  f.src_host = host;
  f.dst_host = p.edge ? edges_[*p.edge].dst : p.to_host;
  f.bytes = d.frame_len;
  f.path = *path;
  inflight_.push_back({host, d.tenant, p.edge, d.payload, d.flow});
  fabric_sim_.inject(std::move(f), d.cycle * ps_per_cycle_);
}

void ClusterSim::run_window(std::uint64_t end) {
  // The fabric first: what is delivered or dropped before `end` was injected before this
  // window began (a frame takes at least two link latencies; the window is one).
  const auto cycle_of = [&](std::uint64_t ps) { return (ps + ps_per_cycle_ - 1) / ps_per_cycle_; };
  const auto host_index = [&](unsigned id) {
    return static_cast<unsigned>(std::find_if(hosts_.begin(), hosts_.end(), [&](const Host& x) { return x.id == id; }) -
                                 hosts_.begin());
  };
  fabric_sim_.run_until(
      end * ps_per_cycle_,
      [&](const FabricFrame& f, std::uint64_t at) {
        const InFlight& in = inflight_.at(f.id);
        if (!in.edge || in.flow != sim::Flow::kBulkTx) return;
        Edge& e = edges_[*in.edge];
        e.delivered += in.payload;
        const std::uint64_t burst = scenario_.base.tenants[e.job].burst_bytes;
        for (const Edge& other : edges_)
          if (other.job == e.job && other.delivered < burst) return;
        // Every edge of the ring has delivered its burst: the barrier, on every part.
        for (Edge& x : edges_) {
          if (x.job != e.job) continue;
          x.delivered -= burst;
          const Host& src = hosts_[host_index(x.src)];
          for (std::size_t k = 0; k < src.parts.size(); ++k)
            if (src.parts[k].edge && edges_[*src.parts[k].edge].job == e.job)
              actions_.push_back({cycle_of(at), host_index(x.src), k, true, 0});
        }
      },
      [&](const FabricFrame& f, LinkId, std::uint64_t at) {
        const InFlight& in = inflight_.at(f.id);
        if (in.flow == sim::Flow::kBulkTx && in.payload > 0)
          actions_.push_back({cycle_of(at), host_index(in.host), in.local, false, in.payload});
      });
  std::stable_sort(actions_.begin(), actions_.end(), [](const Action& a, const Action& b) {
    return a.cycle != b.cycle ? a.cycle < b.cycle : a.host < b.host;
  });
  std::vector<Action> later;
  for (unsigned hi = 0; hi < hosts_.size(); ++hi) {
    Host& h = hosts_[hi];
    sim::Simulation& s = *h.sim;
    for (const Action& a : actions_) {
      if (a.host != hi) continue;
      if (a.cycle >= end) {
        later.push_back(a);
        continue;
      }
      advance(h, a.cycle);
      if (!a.barrier) {
        s.resend(a.local, a.payload);
      } else if (s.tenant(a.local).progress().phase == sim::Phase::kCommunicate) {
        s.barrier(a.local);
      }
    }
    advance(h, end);
  }
  actions_ = std::move(later);
}

void ClusterSim::run() {
  while (now_ < end_) {
    const std::uint64_t next = std::min(end_, now_ + window_);
    run_window(next);
    now_ = next;
  }
}

ClusterResult ClusterSim::result() {
  ClusterResult r;
  r.scenario = scenario_.base.name;
  r.placement = std::string(to_string(scenario_.placement));
  r.routing = std::string(to_string(scenario_.routing));
  r.baseline = options_.baseline;
  r.cycles = now_;
  r.clock_mhz = scenario_.base.clock_mhz;
  r.scale = scenario_.base.scale;
  std::vector<Flow> flows;
  for (std::size_t i = 0; i < jobs_.size(); ++i) {
    if (!scenario_.where[i].is_job()) continue;
    JobResult j = jobs_[i];
    for (const Host& h : hosts_) {
      for (std::size_t k = 0; k < h.parts.size(); ++k) {
        if (h.parts[k].tenant != i || !h.parts[k].edge) continue;
        j.iteration_cycles = h.sim->tenant(k).workload->iteration_cycles();
        break;
      }
      if (!j.iteration_cycles.empty()) break;
    }
    r.jobs.push_back(std::move(j));
    flows.insert(flows.end(), job_flows_[i].begin(), job_flows_[i].end());
  }
  std::vector<Path> paths;
  for (const Flow& f : flows) paths.push_back(fabric_.path(f.src_host, f.dst_host, f.spine.value_or(0)));
  const FabricUse use = tally(fabric_, flows, paths);
  r.collisions = use.collisions(fabric_);
  const double seconds = static_cast<double>(now_) / (scenario_.base.clock_mhz * 1e6);
  for (LinkId id = 0; id < fabric_.links(); ++id) {
    LinkResult l;
    l.name = fabric_.name(id);
    l.gbps = fabric_.link(id).gbps;
    l.stats = fabric_sim_.port(id);
    l.utilisation = seconds > 0 ? static_cast<double>(l.stats.bytes) * 8.0 / (l.gbps * 1e9 * seconds) : 0.0;
    l.jobs = static_cast<unsigned>(use.links[id].jobs.size());
    r.links.push_back(std::move(l));
  }
  for (Host& h : hosts_) r.hosts.emplace_back(h.id, h.sim->metrics());
  return r;
}

}  // namespace nicsched::cluster
