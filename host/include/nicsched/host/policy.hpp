// Scheduler policies: YAML files (schema in docs/policy.md), validation against the
// hardware's capabilities, and applying them atomically (shadow writes + one COMMIT).
//
//   Capabilities caps = discover(bus);
//   Policy p = load_policy("policy.yaml", caps);   // throws PolicyError: file:line: key: ...
//   apply_policy(bus, caps, p);                     // shadow writes, COMMIT, read-back
//   save_policy("now.yaml", read_policy(bus, caps), caps);
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "nicsched/drivers/register_bus.hpp"
#include "nicsched/host/errors.hpp"
#include "nicsched/host/types.hpp"

namespace nicsched::host {

// Clock assumed for Gbit/s <-> bytes-per-1024-cycles conversions when a file does not
// say `clock_mhz` (the datapath's target clock, docs/architecture.md).
inline constexpr double kDefaultClockMhz = 250.0;

// The register map's reset configuration for this hardware (crypto quota capped at the
// slots there are), with SP+DWRR arbitration.
[[nodiscard]] Policy default_policy(const Capabilities& caps);

// Parses and validates a policy file. Every problem is a PolicyError whose message is
// "FILE:LINE: KEY: problem (allowed: ...)"; nothing touches the NIC.
[[nodiscard]] Policy load_policy(const std::string& path, const Capabilities& caps);
// The text of a policy file, read as every loader reads files (fileio::read_text_file): a
// PolicyError naming the file for anything but a regular file of at most 8 MiB.
[[nodiscard]] std::string read_policy_file(const std::string& path);
// The same, from text; `source` names it in errors. `clock_mhz_out`, if given, receives the
// file's clock (or kDefaultClockMhz).
[[nodiscard]] Policy parse_policy(std::string_view yaml, const std::string& source, const Capabilities& caps,
                                  double* clock_mhz_out = nullptr);

// Checks a Policy built in code (agent, nicctl set) against the capabilities. Throws
// PolicyError naming the tenant/entry and field, and the allowed range.
void validate_policy(const Policy& policy, const Capabilities& caps);

// YAML that parse_policy accepts and that gives back the same Policy.
[[nodiscard]] std::string policy_to_yaml(const Policy& policy, const Capabilities& caps,
                                         double clock_mhz = kDefaultClockMhz, const std::string& header_comment = {});
void save_policy(const std::string& path, const Policy& policy, const Capabilities& caps,
                 double clock_mhz = kDefaultClockMhz);

// Unit conversions used by the file format and nicctl.
// "25Gbps", "25 Gbit/s", "800 Mbps", "800Mbit/s" -> tokens (bytes) per 1024 cycles.
[[nodiscard]] std::uint32_t parse_rate(std::string_view text, double clock_mhz);
[[nodiscard]] double rate_to_gbps(std::uint32_t bytes_per_kcycle, double clock_mhz);
// 65536, "64KiB", "64 KiB", "1MiB", "1500B" -> bytes.
[[nodiscard]] std::uint64_t parse_bytes(std::string_view text);

struct ApplyResult {
  std::uint32_t config_gen = 0;  // CONFIG_GEN after the COMMIT
  std::size_t writes = 0;        // shadow registers written
};

// Validates, writes every shadow register of the policy (one batch), writes COMMIT once,
// then reads the shadows back and checks CONFIG_GEN moved. Throws PolicyError before any
// write if the policy does not fit; ReadBackMismatch naming register and element if a
// register reads back differently.
ApplyResult apply_policy(drivers::RegisterBus& bus, const Capabilities& caps, const Policy& policy);

// The configuration in the shadow registers (what the last COMMIT applied, unless someone
// has written shadows since). Classifier entries come back compacted: the valid entries
// in table order.
[[nodiscard]] Policy read_policy(drivers::RegisterBus& bus, const Capabilities& caps);

}  // namespace nicsched::host
