// nicctl: operate a nicsched NIC (a card's PCIe BAR / XDMA device, or nicsim over a socket):
// hardware info, live telemetry, policy files, per-tenant settings, the classifier table,
// a register dump. Usage and exit codes: docs/nicctl.md and commands.hpp. One file per
// subcommand (*_cmd.cpp); this file holds the command line and the only catch.
#include <CLI/CLI.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <iostream>

#include "commands.hpp"
#include "nicsched/cli/parse.hpp"
#include "nicsched/drivers/open_bus.hpp"
#include "nicsched/host/errors.hpp"
#include "nicsched/version.hpp"

int main(int argc, char** argv) {
  using namespace nicsched;
  using namespace nicsched::nicctl;
  spdlog::set_default_logger(spdlog::stderr_color_mt("nicctl"));
  spdlog::set_level(spdlog::level::warn);

  CLI::App app{"nicctl: operate a nicsched NIC (card or simulator): telemetry, policies, classifier"};
  app.set_version_flag("--version", std::string(nicsched::kVersion));
  app.require_subcommand(1);
  Global g;
  app.add_option("-t,--target", g.target,
                 "sim://HOST:PORT, unix:///PATH, pcie://DDDD:BB:DD.F/barN or xdma:///dev/xdmaN_user")
      ->envname("NICSCHED_TARGET");
  app.add_option("--timeout-ms", g.timeout_ms, "Socket transports: time limit per request")
      ->check(CLI::Range(1, 3600000))
      ->capture_default_str();
  app.add_option("--clock-mhz", g.clock_mhz, "NIC clock, for Gbit/s and ms figures")
      ->check(CLI::Range(1.0, 10000.0))
      ->capture_default_str();
  app.add_flag("-v,--verbose", g.verbose, "More log output on stderr (-vv: debug)");

  bool info_json = false;
  auto* info = app.add_subcommand("info", "Hardware identity, capabilities, commit count and clock");
  info->add_flag("--json", info_json, "JSON output");

  StatsOptions so;
  auto* stats = app.add_subcommand("stats", "Per-tenant telemetry from one consistent snapshot, with rates");
  stats->add_flag("--json", so.json, "JSON output (with --watch: one object per line)");
  stats->add_flag("-w,--watch", so.watch, "Refresh in place every interval until Ctrl-C");
  stats->add_option("-i,--interval", so.interval_s, "Seconds between the two snapshots (0: counters only, no rates)")
      ->check(CLI::Range(0.0, 86400.0))
      ->capture_default_str();
  stats->add_option("--step", so.step_cycles,
                    "Lock-step simulator: advance the clock by this many cycles between snapshots instead of waiting");
  stats->add_option("-n,--count", so.count, "With --watch: stop after this many refreshes (0: until Ctrl-C)")
      ->check(CLI::NonNegativeNumber);

  std::string policy_file;
  bool dry_run = false;
  auto* load = app.add_subcommand("load-policy", "Validate a policy file in full, then write and COMMIT it at once");
  load->add_option("FILE", policy_file, "Policy YAML (docs/policy.md)")->required();
  load->add_flag("--dry-run", dry_run, "Validate against the NIC's capabilities only; write nothing");

  std::string policy_out;
  auto* get = app.add_subcommand("get-policy", "Print the NIC's configuration as a policy file load-policy accepts");
  get->add_option("-o,--output", policy_out, "Write to this file instead of stdout");

  SetOptions set_o;
  auto* set = app.add_subcommand("set", "Change one tenant's settings (read, modify, validate, COMMIT)");
  set->add_option("TENANT", set_o.tenant, "Tenant index")->required();
  set->add_option("--priority", set_o.priority, "Strict-priority level, 0 highest");
  set->add_option("--weight", set_o.weight, "DWRR quantum in bytes");
  set->add_option("--rate", set_o.rate, "Rate limit, e.g. 25Gbps, 800Mbit/s, or off");
  set->add_option("--burst", set_o.burst, "Token-bucket depth, e.g. 64KiB");
  set->add_option("--crypto-quota", set_o.crypto_quota, "Crypto slots the tenant may hold at once");
  set->add_option("--qlimit-control", set_o.qlimit_control, "Control-queue byte limit, e.g. 16KiB");
  set->add_option("--qlimit-bulk", set_o.qlimit_bulk, "Bulk-queue byte limit, e.g. 256KiB");
  set->add_option("--control-rate", set_o.control_rate,
                  "Control-bucket fill rate: what the control class may send above every level, e.g. 1Gbps");
  set->add_option("--control-burst", set_o.control_burst, "Control-bucket depth, e.g. 4KiB");
  set->add_flag("--enable", set_o.enable, "Serve the tenant's queues");
  set->add_flag("--disable", set_o.disable, "Stop serving the tenant's queues (frames queue, then tail-drop)");

  auto* cls = app.add_subcommand("classifier", "The classifier match table");
  cls->require_subcommand(1);
  bool cls_json = false;
  auto* cls_list = cls->add_subcommand("list", "Show the valid entries in match order and the default action");
  cls_list->add_flag("--json", cls_json, "JSON output");
  ClsAddOptions ca;
  auto* cls_add = cls->add_subcommand("add", "Add an entry (fields not given match anything)");
  cls_add->add_option("--vlan", ca.vlan, "VLAN ID (0: untagged)");
  cls_add->add_option("--vlan-mask", ca.vlan_mask, "VLAN bits that must match (default: all when --vlan is given)");
  cls_add->add_option("--dscp", ca.dscp, "DSCP");
  cls_add->add_option("--dscp-mask", ca.dscp_mask, "DSCP mask");
  cls_add->add_option("--proto", ca.proto, "IP protocol: tcp, udp or a number");
  cls_add->add_option("--proto-mask", ca.proto_mask, "Protocol mask");
  cls_add->add_option("--port", ca.port, "L4 destination port");
  cls_add->add_option("--port-mask", ca.port_mask, "Port mask");
  cls_add->add_option("--tenant", ca.tenant, "Tenant the frames go to")->required();
  cls_add->add_option("--class", ca.cls, "control or bulk")->check(CLI::IsMember({"control", "bulk"}))->capture_default_str();
  cls_add->add_option("--crypto", ca.crypto, "none, encrypt or decrypt")
      ->check(CLI::IsMember(host::spellings<host::CryptoOp>()))
      ->capture_default_str();
  cls_add->add_option("--at", ca.at, "Insert at this index (default: append; earlier entries win)");
  std::size_t del_index = 0;
  auto* cls_del = cls->add_subcommand("del", "Delete an entry (by the index `classifier list` shows)");
  cls_del->add_option("INDEX", del_index, "Entry index")->required();

  bool dump_snapshot = false;
  auto* dump = app.add_subcommand("dump-regs", "Every readable register of the map, with address and value");
  dump->add_flag("--snapshot", dump_snapshot, "Write SNAPSHOT first, so counters are current");

  auto* reset = app.add_subcommand("reset-counters", "Zero every telemetry counter (COUNTER_CLEAR)");

  if (const auto rc = cli::parse_or_exit(app, argc, argv)) return *rc == 0 ? kOk : kUsage;
  if (g.verbose == 1) spdlog::set_level(spdlog::level::info);
  if (g.verbose >= 2) spdlog::set_level(spdlog::level::debug);

  try {
    if (info->parsed()) return cmd_info(g, info_json);
    if (stats->parsed()) return cmd_stats(g, so);
    if (load->parsed()) return cmd_load_policy(g, policy_file, dry_run);
    if (get->parsed()) return cmd_get_policy(g, policy_out);
    if (set->parsed()) return cmd_set(g, set_o);
    if (cls_list->parsed()) return cmd_classifier_list(g, cls_json);
    if (cls_add->parsed()) return cmd_classifier_add(g, ca);
    if (cls_del->parsed()) return cmd_classifier_del(g, del_index);
    if (dump->parsed()) return cmd_dump_regs(g, dump_snapshot);
    if (reset->parsed()) return cmd_reset_counters(g);
  } catch (const UsageError& e) {
    std::cerr << "nicctl: " << e.what() << "\n";
    return kUsage;
  } catch (const drivers::UriError& e) {
    std::cerr << "nicctl: bad target: " << e.what() << "\n";
    return kUsage;
  } catch (const host::PolicyError& e) {
    std::cerr << "nicctl: invalid policy (nothing written): " << e.what() << "\n";
    return kInvalidInput;
  } catch (const host::ReadBackMismatch& e) {
    std::cerr << "nicctl: " << e.what() << "\n";
    return kReadBack;
  } catch (const host::IncompatibleHardware& e) {
    std::cerr << "nicctl: " << e.what() << "\n";
    return kRefused;
  } catch (const drivers::BusResponseError& e) {
    std::cerr << "nicctl: the NIC refused an access: " << e.what() << "\n";
    return kRefused;
  } catch (const drivers::BusError& e) {
    std::cerr << "nicctl: " << e.what() << "\n";
    return kUnreachable;
  } catch (const host::HostError& e) {
    std::cerr << "nicctl: " << e.what() << "\n";
    return kInvalidInput;
  } catch (const std::exception& e) {
    std::cerr << "nicctl: internal error: " << e.what() << "\n";
    return kInternal;
  }
  return kUsage;
}
