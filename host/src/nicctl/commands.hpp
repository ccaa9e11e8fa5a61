// nicctl subcommands: the shared session and option types, and one entry point per
// subcommand (one file each). Entry points return an exit code or throw; only main()
// catches, prints one line and maps the exception to the documented exit code
// (docs/nicctl.md):
//   0 success; 1 internal error; 2 usage error (bad option, no or malformed target URI);
//   3 the target cannot be reached (connect, timeout, lost connection, open or map
//   failure); 4 the NIC refused (AXI error response, not a nicsched NIC, unknown version);
//   5 invalid policy file or setting (nothing was written); 6 a committed policy read back
//   differently.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "nicsched/drivers/register_bus.hpp"
#include "nicsched/host/policy.hpp"
#include "nicsched/host/spelling.hpp"

namespace nicsched::nicctl {

enum Exit : int {
  kOk = 0,
  kInternal = 1,
  kUsage = 2,
  kUnreachable = 3,
  kRefused = 4,
  kInvalidInput = 5,
  kReadBack = 6,
};

// A command line that names no valid action; main() exits 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Set by SIGINT while a command that waits (stats --watch) runs.
extern std::atomic<bool> g_interrupted;
extern "C" void on_sigint(int);

// Options every subcommand shares.
struct Global {
  std::string target;
  int timeout_ms = 5000;
  double clock_mhz = host::kDefaultClockMhz;
  int verbose = 0;
};

// An open register bus and the NIC's discovered capabilities.
struct Session {
  std::unique_ptr<drivers::RegisterBus> bus;
  host::Capabilities caps;
};
Session connect(const Global& g);

// The action's crypto op as policy files spell it; "none" also for the value 3 the map does not name.
std::string crypto_name(host::CryptoOp c);

int cmd_info(const Global& g, bool as_json);

struct StatsOptions {
  bool json = false;
  bool watch = false;
  double interval_s = 1.0;
  std::uint64_t step_cycles = 0;
  int count = 0;
};
int cmd_stats(const Global& g, const StatsOptions& o);

int cmd_load_policy(const Global& g, const std::string& file, bool dry_run);
int cmd_get_policy(const Global& g, const std::string& out_file);

struct SetOptions {
  std::uint32_t tenant = 0;
  std::optional<std::uint32_t> priority, weight, crypto_quota;
  std::optional<std::string> rate, burst, qlimit_control, qlimit_bulk, control_rate, control_burst;
  bool enable = false, disable = false;
};
int cmd_set(const Global& g, const SetOptions& o);

// classifier list / add / del
std::string match_text(const host::ClassifierEntry& e);
int cmd_classifier_list(const Global& g, bool as_json);
struct ClsAddOptions {
  std::optional<std::uint32_t> vlan, vlan_mask, dscp, dscp_mask, proto_mask, port, port_mask;
  std::optional<std::string> proto;
  std::uint32_t tenant = 0;
  std::string cls = "bulk";
  std::string crypto = "none";
  std::optional<std::size_t> at;
};
int cmd_classifier_add(const Global& g, const ClsAddOptions& o);
int cmd_classifier_del(const Global& g, std::size_t index);

int cmd_dump_regs(const Global& g, bool snapshot_first);
int cmd_reset_counters(const Global& g);

}  // namespace nicsched::nicctl
