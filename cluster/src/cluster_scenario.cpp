#include "nicsched/cluster/cluster_scenario.hpp"

#include <fmt/format.h>

#include <functional>
#include <map>
#include <string>
#include <tuple>

#include "nicsched/fileio/yaml.hpp"
#include "nicsched/sim/error.hpp"

namespace nicsched::cluster {

namespace {

using fileio::MapReader;

// The fabric of `c`, read against the scenario `s` (its link rate and clock).
void read_fabric(MapReader& r, const sim::Scenario& s, ClusterScenario& c) {
  if (!r.has("fabric")) r.fail_key("fabric", "required key is missing (expected the leaf-spine fabric)");
  MapReader f(r.doc(), r.node("fabric"), "fabric");
  FabricSpec& spec = c.fabric;
  spec.leaves = static_cast<unsigned>(f.integer("leaves", std::nullopt, 1, 256, "a number of leaf switches"));
  spec.spines = static_cast<unsigned>(f.integer("spines", std::nullopt, 1, 256, "a number of spine switches"));
  spec.hosts_per_leaf = static_cast<unsigned>(f.integer("hosts_per_leaf", std::nullopt, 1, 256, "servers per leaf"));
  spec.gpus_per_host = static_cast<unsigned>(f.integer("gpus_per_host", 8, 1, 64, "GPUs per server"));
  spec.host_gbps = s.link_gbps;
  spec.uplink_gbps = f.num("uplink_gbps", s.link_gbps, 0.1, 10000.0, "a leaf-spine link rate in Gbit/s");
  spec.port_buffer_bytes =
      1024 * f.integer("port_buffer_kb", 1024, 2, 1u << 20, "a switch output port's buffer in KiB (at least a 2 KiB frame)");
  c.link_latency_ps = 1000 * f.integer("link_latency_ns", 1000, 1, 1'000'000, "a per-link latency in ns");
  // The servers and the fabric advance in windows of one link latency (cluster_sim.hpp): at
  // least one NIC clock cycle.
  if (static_cast<double>(c.link_latency_ps) < 1e6 / s.clock_mhz)
    f.fail_key("link_latency_ns", fmt::format("expected at least one NIC clock cycle ({} ns at {} MHz)",
                                              1e3 / s.clock_mhz, s.clock_mhz));
  f.finish("leaves, spines, hosts_per_leaf, gpus_per_host, uplink_gbps, port_buffer_kb, link_latency_ns");
}

// Reads the scenario through `read_base` with the cluster's keys added.
ClusterScenario read_cluster(const std::string& file_name,
                             const std::function<sim::Scenario(const sim::ScenarioExtension&)>& read_base) {
  ClusterScenario c;
  // Tenant keys are read before the fabric (the scenario reader reads tenants first), so
  // hosts are checked against the fabric afterwards, at the lines remembered here.
  struct Pending {
    std::size_t host_line = 0;
    std::size_t to_host_line = 0;
  };
  std::vector<Pending> lines;
  sim::ScenarioExtension ext;
  ext.tenant_keys = "host, to_host, iterations";
  ext.read_tenant = [&](MapReader& t, const sim::TenantSpec& spec) {
    TenantPlacement w;
    Pending p;
    if (t.has("host")) {
      p.host_line = fileio::line_of(t.node("host"));
      w.host = static_cast<unsigned>(t.integer("host", std::nullopt, 0, 1u << 20, "a host number"));
    } else if (spec.kind != sim::WorkloadKind::kDdp) {
      t.fail_key("host", fmt::format("required for a {} tenant (only DDP jobs are placed on GPUs)", sim::to_string(spec.kind)));
    }
    if (t.has("to_host")) {
      p.to_host_line = fileio::line_of(t.node("to_host"));
      if (spec.kind != sim::WorkloadKind::kBackground || !w.host)
        t.fail_key("to_host", "only allowed for a background tenant with host");
      w.to_host = static_cast<unsigned>(t.integer("to_host", std::nullopt, 0, 1u << 20, "a host number"));
      if (*w.to_host == *w.host) t.fail_key("to_host", "expected a host other than the tenant's own");
    }
    if (t.has("iterations")) {
      if (w.host) t.fail_key("iterations", "only allowed for a job (a DDP tenant without host)");
      w.iterations = t.integer("iterations", std::nullopt, 1, 1u << 30, "ring iterations after which the job completes");
    }
    c.where.push_back(w);
    lines.push_back(p);
  };
  ext.top_keys = "fabric, placement, routing";
  ext.read_top = [&](MapReader& r, sim::Scenario& s) {
    read_fabric(r, s, c);
    c.placement = *placement_from(r.choice("placement", {"random", "packed", "vclos"}, std::string("vclos")));
    c.routing = *routing_from(r.choice("routing", {"ecmp", "balanced"}, std::string("ecmp")));
    const Fabric fabric(c.fabric);
    std::map<unsigned, unsigned> pinned;  // per host
    for (std::size_t i = 0; i < s.tenants.size(); ++i) {
      const sim::TenantSpec& t = s.tenants[i];
      const TenantPlacement& w = c.where[i];
      const std::string at = fmt::format("tenants[{}]", i);
      auto fail = [&](std::size_t line, const std::string& key, const std::string& what) {
        throw sim::ScenarioError(file_name, line ? line : t.line, at + "." + key, what);
      };
      for (const auto& [key, host, line] : {std::tuple{"host", w.host, lines[i].host_line},
                                           std::tuple{"to_host", w.to_host, lines[i].to_host_line}}) {
        if (host && *host >= fabric.hosts())
          fail(line, key, fmt::format("expected a host of the fabric (0..{}), got {}", fabric.hosts() - 1, *host));
      }
      if (w.is_job() && t.workers > fabric.gpus())
        fail(t.line, "workers", fmt::format("expected at most the fabric's {} GPUs, got {}", fabric.gpus(), t.workers));
      if (w.host && ++pinned[*w.host] > s.nic_tenants)
        fail(lines[i].host_line, "host",
             fmt::format("expected at most nic.tenants ({}) tenants pinned to host {}", s.nic_tenants, *w.host));
    }
  };
  c.base = read_base(ext);
  return c;
}

}  // namespace

ClusterScenario parse_cluster_scenario(const std::string& yaml_text, const std::string& file_name) {
  return read_cluster(file_name, [&](const sim::ScenarioExtension& ext) { return sim::parse_extended_scenario(yaml_text, file_name, ext); });
}

ClusterScenario load_cluster_scenario(const std::filesystem::path& file) {
  return read_cluster(file.string(), [&](const sim::ScenarioExtension& ext) { return sim::load_extended_scenario(file, ext); });
}

}  // namespace nicsched::cluster
