// ClusterSim: servers with their NICs, the fabric between them, jobs placed during the run,
// advanced in windows of one link latency (cluster_sim.hpp).
#include "nicsched/cluster/cluster_sim.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <set>
#include <type_traits>

#include "nicsched/host/discovery.hpp"
#include "nicsched/host/policy.hpp"
#include "nicsched/host/telemetry.hpp"
#include "nicsched/mpi/comm.hpp"
#include "nicsched/sim/error.hpp"
#include "nicsched/sim/report.hpp"

namespace nicsched::cluster {

struct ClusterSim::Part {
  std::optional<std::size_t> job;     // the job whose part this slot runs now (positions in jobs_)
  std::optional<std::size_t> edge;    // that part's outgoing ring edge
  std::optional<Path> to_host_path;   // a pinned background tenant sending through the fabric
  unsigned to_host = 0;
  bool slot = false;                  // a job slot (else a pinned tenant)
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
  std::size_t job = 0;
  unsigned src = 0;                   // servers
  unsigned dst = 0;
  Path path;
  std::uint64_t delivered = 0;        // burst payload delivered this iteration
};

struct ClusterSim::Job {
  std::size_t tenant = 0;             // position in the scenario
  JobResult result;
  bool running = false;
  std::vector<std::size_t> edges;
  std::vector<std::pair<unsigned, std::size_t>> parts;  // (position in hosts_, tenant of that server)
  std::uint64_t last_barrier = 0;
};

struct ClusterSim::InFlight {
  unsigned host = 0;                  // position in hosts_
  std::size_t local = 0;              // the sending tenant of that server
  std::optional<std::size_t> edge;
  std::uint64_t payload = 0;
  sim::Flow flow = sim::Flow::kBulkTx;
};

struct ClusterSim::Action {
  enum Kind : std::uint8_t { kResend, kBarrier, kStop, kStart };  // their order within a cycle
  std::uint64_t cycle = 0;
  unsigned host = 0;                  // position in hosts_
  std::size_t local = 0;
  Kind kind = kResend;
  std::uint64_t payload = 0;          // kResend
  std::size_t job = 0;                // kStart
};

struct ClusterSim::Event {
  enum Kind : std::uint8_t { kLeave, kArrive };  // a leaving job frees room first
  std::uint64_t cycle = 0;
  Kind kind = kArrive;
  std::size_t job = 0;
  std::uint64_t seq = 0;
  bool operator>(const Event& o) const {
    if (cycle != o.cycle) return cycle > o.cycle;
    if (kind != o.kind) return kind > o.kind;
    return seq > o.seq;
  }
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

// An idle job slot of a server: a DDP tenant that starts only when a job is placed there,
// with a VLAN and ports no pinned tenant of the server uses.
sim::TenantSpec job_slot(std::size_t k, std::set<std::uint16_t>& vlans, std::set<std::uint16_t>& ports) {
  sim::TenantSpec t;
  t.kind = sim::WorkloadKind::kDdp;
  t.name = fmt::format("slot{}", k);
  t.ring_barrier = true;
  t.start_cycle = sim::kNever;
  std::uint16_t vlan = 4094;
  while (vlans.count(vlan)) --vlan;
  std::uint16_t port = 60000;
  while (ports.count(port) || ports.count(static_cast<std::uint16_t>(port + 1))) port += 16;
  t.vlan = vlan;
  t.port = port;
  vlans.insert(vlan);
  ports.insert(port);
  return t;
}

}  // namespace

ClusterSim::ClusterSim(ClusterScenario scenario, ClusterOptions options)
    : scenario_(std::move(scenario)),
      options_(std::move(options)),
      fabric_(scenario_.fabric),
      fabric_sim_(fabric_, scenario_.link_latency_ps),
      placer_(fabric_, scenario_.placement, scenario_.base.seed) {
  if (options_.mpi) {
    const mpi::Comm& comm = mpi::Comm::world();
    rank_ = static_cast<unsigned>(comm.rank());
    ranks_ = static_cast<unsigned>(comm.size());
  }
  ps_per_cycle_ = ps_per_cycle(scenario_.base.clock_mhz);
  window_ = std::max<std::uint64_t>(1, scenario_.link_latency_ps / ps_per_cycle_);
  end_ = options_.cycles.value_or(scenario_.base.duration_cycles);
  const auto& tenants = scenario_.base.tenants;
  for (std::size_t i = 0; i < tenants.size(); ++i) {
    if (!scenario_.where[i].is_job()) continue;
    Job j;
    j.tenant = i;
    j.result.name = tenants[i].name;
    j.result.workers = tenants[i].workers;
    j.result.iterations_target = scenario_.where[i].iterations;
    j.result.arrival_cycle = tenants[i].start_cycle;
    jobs_.push_back(std::move(j));
    events_.push_back({tenants[i].start_cycle, Event::kArrive, jobs_.size() - 1, event_seq_++});
    std::push_heap(events_.begin(), events_.end(), std::greater<>{});
  }
  build_hosts();
}

ClusterSim::~ClusterSim() = default;

void ClusterSim::build_hosts() {
  const auto& tenants = scenario_.base.tenants;
  const std::uint32_t nic = scenario_.base.nic_tenants;
  std::vector<std::vector<std::size_t>> pinned(fabric_.hosts());
  for (std::size_t i = 0; i < tenants.size(); ++i)
    if (scenario_.where[i].host) pinned[*scenario_.where[i].host].push_back(i);
  std::vector<unsigned> slots(fabric_.hosts(), 0);
  host_index_.assign(fabric_.hosts(), -1);
  for (unsigned server = 0; server < fabric_.hosts(); ++server) {
    // Every server may take jobs when there are any; else only those with pinned tenants run.
    const unsigned free_slots = jobs_.empty() ? 0 : nic - static_cast<unsigned>(pinned[server].size());
    if (pinned[server].empty() && free_slots == 0) continue;
    slots[server] = free_slots;
    sim::Scenario s = scenario_.base;
    s.name = fmt::format("{}/host{}", scenario_.base.name, server);
    s.tenants.clear();
    Host h;
    h.id = server;
    std::set<std::uint16_t> vlans, ports;
    for (std::size_t i : pinned[server]) {
      sim::TenantSpec t = tenants[i];
      t.index = static_cast<std::uint32_t>(s.tenants.size());
      vlans.insert(t.vlan);
      ports.insert(t.port);
      ports.insert(static_cast<std::uint16_t>(t.port + 1));
      Part p;
      if (const auto to = scenario_.where[i].to_host) {
        Flow f;  // a background stream: its spine as ECMP hashes it
        f.src_host = server;
        f.dst_host = *to;
        f.src_port = 40000;
        f.dst_port = t.port;
        p.to_host = *to;
        p.to_host_path = route(fabric_, {f}, Routing::kEcmp).front();
      }
      s.tenants.push_back(std::move(t));
      h.parts.push_back(p);
    }
    for (unsigned k = 0; k < free_slots; ++k) {
      sim::TenantSpec t = job_slot(k, vlans, ports);
      t.index = static_cast<std::uint32_t>(s.tenants.size());
      s.tenants.push_back(std::move(t));
      Part p;
      p.slot = true;
      h.parts.push_back(p);
    }
    const bool dynamic = static_cast<bool>(options_.make_controller) || !control::is_static_baseline(options_.baseline);
    sim::SimOptions o;
    o.baseline = dynamic ? "fifo" : options_.baseline;  // a dynamic controller's first decision ends its first interval
    o.policy_name = options_.baseline;
    o.cycles = end_;
    const auto index = static_cast<unsigned>(hosts_.size());
    o.on_departure = [this, index](const sim::Departure& d) { on_departure(index, d); };
    const double link_bytes_per_cycle = s.link_bytes_per_cycle();
    host_index_[server] = static_cast<int>(index);
    if (!mine(index)) {  // another rank simulates it
      hosts_.push_back(std::move(h));
      continue;
    }
    h.sim = std::make_unique<sim::Simulation>(std::move(s), std::move(o));
    if (dynamic) {
      h.controller = options_.make_controller ? options_.make_controller() : control::make_baseline(options_.baseline);
      h.caps = host::discover(*h.sim);
      h.base = control::read_controller_base(*h.sim, h.caps);
      h.tracker.emplace(h.caps, link_bytes_per_cycle);
      h.tracker->reset(host::read_snapshot(*h.sim, h.caps));
      h.controller->reset();
      h.next_decision = h.sim->cycle() + options_.interval_cycles;
    }
    hosts_.push_back(std::move(h));
  }
  placer_.set_job_slots(std::move(slots));
}

// ------------------------------------------------------------------ placement

void ClusterSim::handle_event(const Event& e) {
  Job& job = jobs_[e.job];
  if (e.kind == Event::kArrive) {
    waiting_.push_back(e.job);
  } else if (job.running) {
    job.running = false;
    placer_.release(static_cast<unsigned>(e.job));
    for (const auto& [hi, local] : job.parts) {
      actions_.push_back({e.cycle, hi, local, Action::kStop, 0, e.job});
      hosts_[hi].parts[local].job.reset();
      hosts_[hi].parts[local].edge.reset();
    }
  }
  try_waiting(e.cycle);
}

void ClusterSim::try_waiting(std::uint64_t now) {
  const auto& tenants = scenario_.base.tenants;
  while (!waiting_.empty()) {
    const std::size_t j = waiting_.front();
    if (now >= tenants[jobs_[j].tenant].stop_cycle) {  // gone before it got room
      waiting_.pop_front();
      continue;
    }
    const auto a = placer_.place(static_cast<unsigned>(j), jobs_[j].result.workers);
    if (!a) return;
    waiting_.pop_front();
    place(j, *a, now);
  }
}

void ClusterSim::place(std::size_t j, const Allocation& a, std::uint64_t now) {
  Job& job = jobs_[j];
  const sim::TenantSpec& spec = scenario_.base.tenants[job.tenant];
  JobResult& r = job.result;
  r.placed = true;
  r.placed_cycle = now;
  r.spine = a.spine;
  r.hosts.clear();
  for (unsigned g : a.gpus) r.hosts.push_back(fabric_.host_of_gpu(g));
  r.hosts.erase(std::unique(r.hosts.begin(), r.hosts.end()), r.hosts.end());
  std::vector<unsigned> leaves;
  for (unsigned h : r.hosts) leaves.push_back(fabric_.leaf_of(h));
  r.leaves = static_cast<unsigned>(std::unique(leaves.begin(), leaves.end()) - leaves.begin());
  job.running = true;
  job.last_barrier = now;
  job.parts.clear();
  job.edges.clear();

  std::vector<Flow> flows = ring_flows(fabric_, static_cast<unsigned>(j), a.gpus, static_cast<double>(spec.burst_bytes));
  for (Flow& f : flows) f.spine = a.spine;
  std::vector<Flow> all = placed_flows_;
  all.insert(all.end(), flows.begin(), flows.end());
  const std::vector<Path> paths = route(fabric_, all, scenario_.routing);
  for (std::size_t k = 0; k < flows.size(); ++k) {
    const Path& p = paths[placed_flows_.size() + k];
    if (p.size() == 4) flows[k].spine = fabric_.link(p[1]).peer;  // leaf -> spine s
    edges_.push_back({j, flows[k].src_host, flows[k].dst_host, p, 0});
    job.edges.push_back(edges_.size() - 1);
    // The ring edge's sender: a free slot of its server.
    const auto hi = static_cast<unsigned>(host_index_.at(flows[k].src_host));
    auto& parts = hosts_[hi].parts;
    const auto slot = std::find_if(parts.begin(), parts.end(), [](const Part& x) { return x.slot && !x.job; });
    if (slot == parts.end())
      throw sim::SimError(fmt::format("server {} has no free tenant for job {}", flows[k].src_host, r.name));
    slot->job = j;
    slot->edge = edges_.size() - 1;
    const auto local = static_cast<std::size_t>(slot - parts.begin());
    job.parts.emplace_back(hi, local);
    actions_.push_back({now, hi, local, Action::kStart, 0, j});
  }
  placed_flows_.insert(placed_flows_.end(), flows.begin(), flows.end());
  if (spec.stop_cycle != sim::kNever) {
    events_.push_back({spec.stop_cycle, Event::kLeave, j, event_seq_++});
    std::push_heap(events_.begin(), events_.end(), std::greater<>{});
  }
}

// ------------------------------------------------------------------ frames

void ClusterSim::on_departure(unsigned host, const sim::Departure& d) { departed_.push_back({host, d}); }

void ClusterSim::inject_departures() {
  std::vector<Departed> all;
  if (ranks_ == 1) {
    all.swap(departed_);
  } else {
    static_assert(std::is_trivially_copyable_v<Departed>);
    std::string mine_bytes(departed_.size() * sizeof(Departed), '\0');
    std::memcpy(mine_bytes.data(), departed_.data(), mine_bytes.size());
    departed_.clear();
    for (const std::string& bytes : mpi::Comm::world().allgather(mine_bytes)) {
      const std::size_t n = bytes.size() / sizeof(Departed);
      const std::size_t at = all.size();
      all.resize(at + n);
      std::memcpy(all.data() + at, bytes.data(), n * sizeof(Departed));
    }
    // Each rank's in server order: merged by server, as one process steps them.
    std::stable_sort(all.begin(), all.end(), [](const Departed& a, const Departed& b) { return a.host < b.host; });
  }
  for (const Departed& x : all) inject(x.host, x.d);
}

void ClusterSim::inject(unsigned host, const sim::Departure& d) {
  const Host& h = hosts_[host];
  const Part& p = h.parts.at(d.tenant);
  const Path* path = p.edge ? &edges_[*p.edge].path : p.to_host_path ? &*p.to_host_path : nullptr;
  if (!path) return;  // a pinned tenant's peer is outside the fabric
  FabricFrame f;
  f.id = inflight_.size();
  f.job = p.job ? static_cast<unsigned>(*p.job) : 0;
  f.src_host = h.id;
  f.dst_host = p.edge ? edges_[*p.edge].dst : p.to_host;
  f.bytes = d.frame_len;
  f.path = *path;
  inflight_.push_back({host, d.tenant, p.edge, d.payload, d.flow});
  fabric_sim_.inject(std::move(f), d.cycle * ps_per_cycle_);
}

void ClusterSim::on_delivered(const FabricFrame& f, std::uint64_t at_ps) {
  const InFlight& in = inflight_.at(f.id);
  if (!in.edge || in.flow != sim::Flow::kBulkTx) return;
  Edge& e = edges_[*in.edge];
  Job& job = jobs_[e.job];
  if (!job.running) return;  // the job left; its last frames still arrive
  e.delivered += in.payload;
  const std::uint64_t burst = scenario_.base.tenants[job.tenant].burst_bytes;
  for (std::size_t x : job.edges)
    if (edges_[x].delivered < burst) return;
  // Every edge of the ring has delivered its burst: the barrier, at this cycle.
  const std::uint64_t at = cycle_of(at_ps);
  for (std::size_t x : job.edges) edges_[x].delivered -= burst;
  job.result.iteration_cycles.push_back(at - job.last_barrier);
  job.last_barrier = at;
  const bool complete = job.result.iterations_target != 0 &&
                        job.result.iteration_cycles.size() >= job.result.iterations_target;
  if (complete) {
    job.result.completion_cycle = at;
    events_.push_back({at, Event::kLeave, e.job, event_seq_++});
    std::push_heap(events_.begin(), events_.end(), std::greater<>{});
    return;  // its parts stop when the event is handled
  }
  for (const auto& [hi, local] : job.parts) actions_.push_back({at, hi, local, Action::kBarrier, 0, e.job});
}

// ------------------------------------------------------------------ the run

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

void ClusterSim::run_window(std::uint64_t end) {
  // The fabric first: what is delivered or dropped before `end` was injected before this
  // window began (a frame takes at least two link latencies; the window is one).
  fabric_sim_.run_until(
      end * ps_per_cycle_, [&](const FabricFrame& f, std::uint64_t at) { on_delivered(f, at); },
      [&](const FabricFrame& f, LinkId, std::uint64_t at) {
        const InFlight& in = inflight_.at(f.id);
        if (in.flow == sim::Flow::kBulkTx && in.payload > 0)
          actions_.push_back({cycle_of(at), in.host, in.local, Action::kResend, in.payload, 0});
      });
  // Then placement: arrivals, and jobs leaving (at their stop, or completed above).
  while (!events_.empty() && events_.front().cycle < end) {
    std::pop_heap(events_.begin(), events_.end(), std::greater<>{});
    const Event e = events_.back();
    events_.pop_back();
    handle_event(e);
  }
  std::stable_sort(actions_.begin(), actions_.end(), [](const Action& a, const Action& b) {
    if (a.cycle != b.cycle) return a.cycle < b.cycle;
    if (a.host != b.host) return a.host < b.host;
    return a.kind < b.kind;
  });
  std::vector<Action> later;
  for (unsigned hi = 0; hi < hosts_.size(); ++hi) {
    if (!mine(hi)) continue;  // another rank applies its actions; the bookkeeping above is every rank's
    Host& h = hosts_[hi];
    sim::Simulation& s = *h.sim;
    for (const Action& a : actions_) {
      if (a.host != hi) continue;
      if (a.cycle >= end) {
        later.push_back(a);
        continue;
      }
      advance(h, a.cycle);
      switch (a.kind) {
        case Action::kResend: s.resend(a.local, a.payload); break;
        case Action::kBarrier:
          if (s.tenant(a.local).progress().phase == sim::Phase::kCommunicate) s.barrier(a.local);
          break;
        case Action::kStop: s.stop_tenant(a.local); break;
        case Action::kStart: {
          const Job& job = jobs_[a.job];
          sim::TenantSpec spec = scenario_.base.tenants[job.tenant];
          spec.ring_barrier = true;
          s.start_tenant(a.local, spec, scenario_.base.seed * 0x9E3779B97F4A7C15ULL + job.tenant + 1);
          break;
        }
      }
    }
    advance(h, end);
  }
  actions_ = std::move(later);
  inject_departures();
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
  for (const Job& j : jobs_) r.jobs.push_back(j.result);
  std::vector<Path> paths;
  for (const Flow& f : placed_flows_) paths.push_back(fabric_.path(f.src_host, f.dst_host, f.spine.value_or(0)));
  const FabricUse use = tally(fabric_, placed_flows_, paths);
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
  std::string mine_json;  // "HOST LENGTH\nJSON" per server of this rank
  for (Host& h : hosts_) {
    if (!h.sim) continue;
    r.hosts.emplace_back(h.id, h.sim->metrics());
    const std::string json = sim::to_json(r.hosts.back().second);
    mine_json += fmt::format("{} {}\n", h.id, json.size()) + json;
  }
  const std::vector<std::string> gathered = ranks_ == 1 ? std::vector<std::string>{mine_json}
                                                        : mpi::Comm::world().allgather(mine_json);
  for (const std::string& bytes : gathered) {
    std::size_t at = 0;
    while (at < bytes.size()) {
      const std::size_t nl = bytes.find('\n', at);
      unsigned id = 0;
      std::size_t len = 0;
      if (nl == std::string::npos || std::sscanf(bytes.c_str() + at, "%u %zu", &id, &len) != 2)
        throw sim::SimError("cluster: a rank sent malformed NIC metrics");
      r.host_json.push_back({id, bytes.substr(nl + 1, len)});
      at = nl + 1 + len;
    }
  }
  std::sort(r.host_json.begin(), r.host_json.end(), [](const HostMetrics& a, const HostMetrics& b) { return a.host < b.host; });
  return r;
}

}  // namespace nicsched::cluster
