// Simulation, the running stage: the NIC configured for the scenario, the workloads, the
// simulated host between them and the NIC, and the event loop (simulation.hpp lists the
// other stages).
#include "nicsched/sim/simulation.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>

#include "nicsched/host/discovery.hpp"
#include "nicsched/host/policy.hpp"
#include "nicsched/regmap.hpp"
#include "nicsched/sim/error.hpp"
#include "nicsched/sim/scenario_policy.hpp"

namespace nicsched::sim {

namespace {

std::uint64_t now_ns() {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

constexpr std::size_t kHostQueueLimit = 4096;  // open-loop frames a tenant may have waiting

}  // namespace

Simulation::Simulation(Scenario scenario, SimOptions options)
    : scenario_(std::move(scenario)), options_(std::move(options)) {
  const auto variants = NicModel::variants();
  if (!NicModel::supports(scenario_.backend, scenario_.nic_tenants)) {
    std::string list;
    for (auto v : variants) list += (list.empty() ? "" : ", ") + std::to_string(v);
    throw SimError(scenario_.file.string() + ": nic.tenants " + std::to_string(scenario_.nic_tenants) +
                   " has no model in this build (built: " + list + ")");
  }
  NicConfig nc;
  nc.backend = scenario_.backend;
  nc.crypto_slots = scenario_.crypto_slots;  // model backend; the RTL's is elaborated (checked in configure_nic)
  nc.tenants = scenario_.nic_tenants;
  nc.link_bytes_per_cycle = scenario_.link_bytes_per_cycle();
  nc.pauses = scenario_.pauses;
  nc.trace = options_.trace;
  nc.model_stepping = options_.model_stepping;
  nic_ = std::make_unique<NicModel>(nc);
  end_cycle_ = options_.cycles.value_or(scenario_.duration_cycles);
  sample_interval_ = options_.sample_interval_cycles != 0 ? options_.sample_interval_cycles
                                                          : std::max<std::uint64_t>(1000, end_cycle_ / 200);
  if (options_.policy_name.empty()) {
    options_.policy_name = !options_.policy_file.empty() ? options_.policy_file.filename().string()
                           : options_.policy           ? std::string("policy")
                                                       : options_.baseline;
  }

  slot_by_nic_tenant_.assign(scenario_.nic_tenants, -1);
  host_.resize(scenario_.tenants.size());
  for (std::size_t i = 0; i < scenario_.tenants.size(); ++i) {
    const TenantSpec& spec = scenario_.tenants[i];
    tenants_.push_back({spec, make_workload(spec, scenario_.seed, scenario_.clock_mhz)});
    slot_by_nic_tenant_[spec.index] = static_cast<int>(i);
    Host& h = host_[i];
    h.flow[static_cast<int>(Flow::kControl)] = {spec.vlan, kDscpControl, 40000, spec.port};
    h.flow[static_cast<int>(Flow::kBulkTx)] = {spec.vlan, spec.bulk_dscp, 40000, spec.port};
    if (spec.spoofs) {  // claims the victim's identity: its VLAN, DSCP EF and bulk port
      h.flow[static_cast<int>(Flow::kBulkTx)] = {spec.spoof_vlan, kDscpControl, 40000, spec.spoof_port};
    }
    h.flow[static_cast<int>(Flow::kBulkRx)] = {spec.vlan, kDscpBulk, 40000, static_cast<std::uint16_t>(spec.port + 1)};
  }
  configure_nic();
  nic_->attach(this, this);
  if (!options_.pcap_out.empty()) pcap_ = std::make_unique<PcapWriter>(options_.pcap_out, scenario_.clock_mhz);
  next_sweep_ = nic_->cycle() + std::max<std::uint64_t>(1, scenario_.rto_cycles / 4);
  next_sample_ = nic_->cycle();
}

Simulation::~Simulation() = default;

std::unique_ptr<Simulation> Simulation::fork() const {
  std::unique_ptr<Simulation> copy(new Simulation(*this));  // the copy constructor is private
  copy->nic_->attach(copy.get(), copy.get());
  return copy;
}

void Simulation::configure_nic() {
  caps_ = host::discover(*nic_);
  if (scenario_.classifier_entries_needed() > caps_.cls_entries) {
    throw SimError(fmt::format("{}: the scenario needs {} classifier entries, the NIC has {}",
                               scenario_.file.string(), scenario_.classifier_entries_needed(), caps_.cls_entries));
  }
  if (caps_.crypto_slots != scenario_.crypto_slots) {
    throw SimError(fmt::format("{}: nic.crypto_slots is {}, the model has {} (CryptoSlots is an elaboration "
                               "parameter)",
                               scenario_.file.string(), scenario_.crypto_slots, caps_.crypto_slots));
  }
  // Board bring-up: the scenario's crypto engine (nic.crypto_engine / nic.crypto_*) into the
  // CRYPTO_ENGINE shadow; the policy's COMMIT below makes it active. No policy writes it.
  namespace rm = nicsched::regmap;
  nic_->write32(rm::CRYPTO_ENGINE::kOffset,
                rm::CRYPTO_ENGINE::LATENCY.set(rm::CRYPTO_ENGINE::BYTES_PER_CYCLE.set(0, scenario_.crypto_bytes_per_cycle),
                                               scenario_.crypto_latency));
  host::Policy p = !options_.policy_file.empty() ? host::load_policy(options_.policy_file.string(), caps_)
                  : options_.policy               ? *options_.policy
                                                  : baseline_policy(options_.baseline, scenario_, caps_);
  if (p.classifier && (options_.policy || !options_.policy_file.empty())) {
    spdlog::warn("policy's classifier table replaced by the scenario's (tenant identity comes from the scenario)");
  }
  p = with_scenario_classifier(std::move(p), scenario_);
  if (options_.control_level) p.control_level = *options_.control_level;
  if (p.tenants.size() != caps_.tenants) p.tenants.resize(caps_.tenants);
  configure_tx_identity();
  host::apply_policy(*nic_, caps_, p);
}

// Each tenant sends from its own source (host queue), numbered as the tenant; with
// nic.tx_identity: source each source is bound to its tenant (docs/trust.md) by the policy
// the simulation applies (TX_IDENTITY, SRC_BIND), on either backend.
void Simulation::configure_tx_identity() {
  if (scenario_.tx_identity == TxIdentity::kHeaders) {
    if (!scenario_.tx_identity_set) {
      // At debug level: every run's report says "TX identity: headers only", and training
      // builds thousands of simulations (one line each would drown its log).
      spdlog::debug("{}: no nic.tx_identity: TX frames are classified by their headers alone (header-only mode, "
                   "source binding off)",
                   scenario_.name);
    }
    return;
  }
  for (const Tenant& t : tenants_) {
    if (t.spec.index >= caps_.sources) {
      throw SimError(fmt::format("{}: nic.tx_identity: source: tenant {} (index {}) has no TX source to bind: the "
                                 "NIC has {} (CAPS1.SOURCES)",
                                 scenario_.file.string(), t.spec.name, t.spec.index, caps_.sources));
    }
  }
}

// ------------------------------------------------------------------ SimTarget

// A register access takes simulated time on the RTL backend (an AXI4-Lite transaction clocks
// the Verilated NIC for a few cycles; the model backend's take none). The hosts keep running
// meanwhile, as on a card: workloads due during the access wake right after it, so a
// controller's few hundred accesses per decision do not hold back the traffic (a control
// message due then would otherwise be sent only when the next step starts, its latency
// inflated by the rest of the decision).
std::uint32_t Simulation::read32(std::uint32_t addr) {
  const std::uint32_t value = nic_->read32(addr);
  process_due(nic_->cycle());
  return value;
}
void Simulation::write32(std::uint32_t addr, std::uint32_t value) {
  nic_->write32(addr, value);
  process_due(nic_->cycle());
}
std::string Simulation::describe() const {
  return "nicsim:" + scenario_.name + " (" + nic_->describe() + ")";
}
std::uint64_t Simulation::cycle() { return nic_->cycle(); }

void Simulation::step(std::uint64_t cycles) { advance_to(nic_->cycle() + cycles, {}); }

void Simulation::run_to_end(const std::function<void(double)>& on_progress) {
  const std::uint64_t chunk = std::max<std::uint64_t>(10000, end_cycle_ / 100);
  while (nic_->cycle() < end_cycle_) {
    advance_to(std::min(end_cycle_, nic_->cycle() + chunk), {});
    if (on_progress) on_progress(static_cast<double>(nic_->cycle()) / static_cast<double>(end_cycle_));
  }
}

void Simulation::run_until(const std::function<bool()>& done) { advance_to(end_cycle_, done); }

void Simulation::barrier(std::size_t i) {
  const std::uint64_t now = nic_->cycle();
  tenants_.at(i).workload->barrier(now, *this);
  process_due(now);
}

void Simulation::resend(std::size_t i, std::uint64_t payload) {
  send_again(i, {Flow::kBulkTx, payload, tenants_.at(i).spec.mtu_frame_bytes, nic_->cycle()});
}

void Simulation::send_again(std::size_t slot, const Pending& p) {
  if (tenants_[slot].progress().phase == Phase::kLeft) return;
  Host& h = host_[slot];
  ++h.retransmits;
  h.bulk[static_cast<int>(dir_of(p.flow))].push_front(p);
  nic_->notify_pending(dir_of(p.flow));
}

void Simulation::start_tenant(std::size_t i, TenantSpec spec, std::uint64_t seed) {
  Tenant& t = tenants_.at(i);
  const Phase phase = t.progress().phase;
  if (phase != Phase::kNotArrived && phase != Phase::kLeft)
    throw SimError(fmt::format("start_tenant: tenant {} ({}) is running", i, t.spec.name));
  const std::uint64_t now = nic_->cycle();
  spec.index = t.spec.index;
  spec.vlan = t.spec.vlan;
  spec.port = t.spec.port;
  spec.start_cycle = now;
  Host& h = host_[i];
  cancel(spec.index);
  h.inflight_bytes[0] = h.inflight_bytes[1] = 0;
  ++h.generation;
  t.spec = spec;
  t.workload = make_workload(spec, seed, scenario_.clock_mhz);
  process_due(now);
}

void Simulation::stop_tenant(std::size_t i) {
  Tenant& t = tenants_.at(i);
  t.spec.stop_cycle = nic_->cycle();
  t.workload->stop(nic_->cycle(), *this);
}

// ------------------------------------------------------------------ event loop

std::uint64_t Simulation::next_event() const {
  std::uint64_t t = std::min(next_sweep_, next_sample_);
  for (const auto& ten : tenants_) t = std::min(t, ten.workload->next_wakeup());
  return t;
}

void Simulation::process_due(std::uint64_t now) {
  for (auto& t : tenants_) {
    if (t.workload->next_wakeup() <= now) t.workload->wake(now, *this);
  }
  if (now >= next_sweep_) {
    expire_lost(now);
    next_sweep_ = now + std::max<std::uint64_t>(1, scenario_.rto_cycles / 4);
  }
  if (now >= next_sample_) {
    const std::uint64_t wire = nic_->mac_stats().wire_bytes_out_tx;
    for (const auto& t : tenants_) {
      const Progress& p = t.progress();
      samples_.push_back({now, t.spec.index, p.phase, p.completed, p.units(), p.delivered_bytes, wire});
    }
    next_sample_ = now + sample_interval_;
  }
}

void Simulation::advance_to(std::uint64_t target, const std::function<bool()>& done) {
  const std::uint64_t t0 = now_ns();
  std::uint64_t now = nic_->cycle();
  while (now < target) {
    process_due(now);
    if (done && done()) break;
    planned_end_ = std::min(target, std::max(now + 1, next_event()));
    nic_->run(planned_end_ - now);
    now = nic_->cycle();
  }
  process_due(now);
  wall_ns_ += now_ns() - t0;
}

void Simulation::expire_lost(std::uint64_t now) {
  // A frame not delivered within rto_cycles was dropped (tail drop, buffer full) or is
  // starved; like a transport's timeout, the sender gives it up and sends its payload again.
  std::vector<std::uint64_t> lost;
  for (const auto& [id, f] : inflight_) {
    if (now - f.injected > scenario_.rto_cycles) lost.push_back(id);
  }
  for (auto id : lost) {
    const InFlight f = inflight_.at(id);
    inflight_.erase(id);
    expired_.insert(id);
    const std::size_t slot = slot_of(f.tenant);
    Host& h = host_[slot];
    if (f.generation != h.generation) continue;  // of the tenant's earlier workload (start_tenant)
    const int d = static_cast<int>(f.dir);
    if (f.flow != Flow::kRaw && f.flow != Flow::kControl) h.inflight_bytes[d] -= f.frame_len;
    const bool closed_loop = tenants_[slot].spec.window_bytes != 0;
    if ((f.flow == Flow::kBulkTx || f.flow == Flow::kBulkRx) && closed_loop) {
      send_again(slot, {f.flow, f.payload, f.frame_len, f.created});
    }
    nic_->notify_pending(f.dir);
  }
}

std::size_t Simulation::slot_of(std::uint32_t nic_tenant) const {
  if (nic_tenant >= slot_by_nic_tenant_.size() || slot_by_nic_tenant_[nic_tenant] < 0) {
    throw SimError("no scenario tenant at NIC tenant " + std::to_string(nic_tenant));
  }
  return static_cast<std::size_t>(slot_by_nic_tenant_[nic_tenant]);
}

// ------------------------------------------------------------------ the simulated host

void Simulation::send(std::uint32_t tenant, Flow flow, std::uint64_t payload_bytes, std::uint32_t frame_bytes,
                      std::uint64_t created) {
  const std::size_t slot = slot_of(tenant);
  Host& h = host_[slot];
  const Direction dir = dir_of(flow);
  if (flow == Flow::kControl) {
    h.control.push_back({flow, 0, frame_bytes, created});
    ++h.control_sent;
  } else {
    auto& q = h.bulk[static_cast<int>(dir)];
    if (tenants_[slot].spec.window_bytes == 0 && q.size() >= kHostQueueLimit) {
      ++h.host_drops;
      return;
    }
    q.push_back({flow, payload_bytes, frame_bytes, created});
  }
  nic_->notify_pending(dir);
}

void Simulation::send_raw(std::uint32_t tenant, Direction dir, const std::vector<std::uint8_t>& frame,
                          std::uint64_t created) {
  Host& h = host_[slot_of(tenant)];
  auto& q = h.raw[static_cast<int>(dir)];
  if (q.size() >= kHostQueueLimit) {
    ++h.host_drops;
    return;
  }
  q.push_back({frame, created});
  nic_->notify_pending(dir);
}

void Simulation::cancel(std::uint32_t tenant) {
  Host& h = host_[slot_of(tenant)];
  h.control.clear();
  for (int d = 0; d < 2; ++d) {
    h.bulk[d].clear();
    h.raw[d].clear();
  }
}

bool Simulation::next_frame(Direction dir, std::uint64_t cycle, std::vector<std::uint8_t>& frame) {
  const int d = static_cast<int>(dir);
  const std::size_t n = host_.size();
  for (std::size_t k = 1; k <= n; ++k) {
    const std::size_t slot = (rr_[d] + k) % n;
    Host& h = host_[slot];
    const TenantSpec& spec = tenants_[slot].spec;
    Flow flow;
    std::uint32_t frame_len = 0;
    std::uint64_t payload = 0;
    std::uint64_t created = 0;
    if (dir == Direction::kTx && !h.control.empty()) {
      const Pending p = h.control.front();
      h.control.pop_front();
      flow = Flow::kControl;
      frame_len = p.frame_bytes;
      created = p.created;
    } else if (!h.raw[d].empty()) {
      Raw& r = h.raw[d].front();
      // Untagged: attributed on the way out by the NIC's tuser.
      frame.assign(r.bytes.begin(), r.bytes.end());
      h.raw[d].pop_front();
      rr_[d] = slot;
      tx_source_ = spec.index;
      return true;
    } else if (!h.bulk[d].empty()) {
      Pending& p = h.bulk[d].front();
      const std::uint64_t max_payload = p.frame_bytes - kHeaderBytes;
      payload = std::min<std::uint64_t>(p.payload_left, max_payload);
      frame_len = std::max<std::uint32_t>(static_cast<std::uint32_t>(payload + kHeaderBytes), kMinTaggedFrame);
      if (spec.window_bytes != 0 && h.inflight_bytes[d] + frame_len > spec.window_bytes) continue;
      flow = p.flow;
      created = p.created;
      p.payload_left -= payload;
      if (p.payload_left == 0) h.bulk[d].pop_front();
      h.inflight_bytes[d] += frame_len;
    } else {
      continue;
    }
    const std::uint64_t id = next_id_++;
    const Tag tag{id, created, frame_len, static_cast<std::uint8_t>(spec.index), static_cast<std::uint8_t>(flow)};
    frame.resize(frame_len);
    builder_.build(frame.data(), frame_len, h.flow[static_cast<int>(flow)], tag);
    inflight_.emplace(id, InFlight{spec.index, flow, dir, frame_len, payload, created, cycle, h.generation});
    rr_[d] = slot;
    tx_source_ = spec.index;
    return true;
  }
  return false;
}

void Simulation::frame_out(const OutFrame& f) {
  if (f.dir == Direction::kTx && pcap_) pcap_->write(f.cycle, f.data, f.len);
  const auto tag = parse_tag(f.data, f.len);
  if (!tag) {
    // A captured (pcap) frame: attributed by the NIC's own tuser.
    ++foreign_frames_;
    if (f.tenant < slot_by_nic_tenant_.size() && slot_by_nic_tenant_[f.tenant] >= 0) {
      auto& w = *tenants_[static_cast<std::size_t>(slot_by_nic_tenant_[f.tenant])].workload;
      w.on_delivered(Flow::kRaw, f.len, f.cycle, *this);
    }
    return;
  }
  const auto it = inflight_.find(tag->id);
  if (it == inflight_.end()) {
    if (expired_.erase(tag->id) != 0) {
      ++host_[slot_of(tag->tenant)].late;
      return;
    }
    ++integrity_errors_;
    spdlog::error("cycle {}: frame with unknown packet id {} left on {}", f.cycle, tag->id, to_string(f.dir));
    return;
  }
  const InFlight in = it->second;
  inflight_.erase(it);
  const std::size_t slot = slot_of(in.tenant);
  Host& h = host_[slot];
  ++frames_checked_;
  if (in.generation != h.generation) return;  // of the tenant's earlier workload (start_tenant)
  if (!builder_.intact(f.data, f.len, h.flow[static_cast<int>(in.flow)], *tag) || in.dir != f.dir) {
    ++integrity_errors_;
    if (integrity_errors_ <= 5) {
      spdlog::error("cycle {}: packet {} of tenant {} left {} bytes, not as it went in", f.cycle, tag->id, in.tenant,
                    f.len);
    }
  }
  // A spoofing tenant's frames leave as the tenant they claim when the NIC believes headers:
  // the attack working, not a simulator fault (docs/trust.md).
  const bool believed_spoof = tenants_[slot].spec.spoofs && scenario_.tx_identity == TxIdentity::kHeaders;
  if (f.tenant != in.tenant && !believed_spoof) {
    ++misattributed_;
    if (misattributed_ <= 5) {
      spdlog::error("cycle {}: packet {} of tenant {} left with tuser tenant {}", f.cycle, tag->id, in.tenant,
                    f.tenant);
    }
  }
  const int d = static_cast<int>(in.dir);
  if (in.flow == Flow::kControl) {
    ++h.control_delivered;
    const std::uint64_t lat = f.cycle - in.created;
    h.control_latency.push_back(static_cast<double>(lat));
    if (lat > tenants_[slot].spec.control.deadline_cycles) ++h.deadline_misses;
  } else {
    h.inflight_bytes[d] -= in.frame_len;
    nic_->notify_pending(in.dir);
  }
  if (options_.on_departure && in.dir == Direction::kTx) {
    options_.on_departure({slot, in.flow, in.frame_len, in.payload, f.cycle});
  }
  Workload& w = *tenants_[slot].workload;
  w.on_delivered(in.flow, in.payload, f.cycle, *this);
  if (w.next_wakeup() < planned_end_) nic_->request_break();
}

}  // namespace nicsched::sim
