// nicctl info: hardware identity, capabilities, commit count and clock.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <iostream>

#include "nicsched/drivers/sim_client.hpp"
#include "nicsched/regmap.hpp"

#include "commands.hpp"

namespace nicsched::nicctl {

namespace rm = nicsched::regmap;
using json = nlohmann::json;

int cmd_info(const Global& g, bool as_json) {
  Session s = connect(g);
  const std::uint32_t gen = rm::CONFIG_GEN::COUNT.get(s.bus->read32(rm::CONFIG_GEN::kOffset));
  const std::uint32_t status = s.bus->read32(rm::STATUS::kOffset);
  // The crypto engine as the board's bring-up set it (policies never write it).
  const std::uint32_t engine = s.bus->read32(rm::CRYPTO_ENGINE::kOffset);
  const std::uint32_t engine_bpc = rm::CRYPTO_ENGINE::BYTES_PER_CYCLE.get(engine);
  const std::uint32_t engine_latency = rm::CRYPTO_ENGINE::LATENCY.get(engine);
  std::optional<std::uint64_t> cycle;
  std::string server;
  if (auto* sim = dynamic_cast<drivers::SimClient*>(s.bus.get())) {
    cycle = sim->cycle();
    const auto& i = sim->server_info();
    server = fmt::format("{} (protocol {}.{}, {})", i.description, i.version_major, i.version_minor,
                         drivers::proto::to_string(sim->mode()));
  }
  const auto& c = s.caps;
  if (as_json) {
    json j = {{"target", s.bus->describe()},
              {"id", c.id},
              {"version", fmt::format("{}.{}", c.version_major, c.version_minor)},
              {"tenants", c.tenants},
              {"classes", c.classes},
              {"queues", c.queues()},
              {"prio_levels", c.prio_levels},
              {"crypto_slots", c.crypto_slots},
              {"crypto_engine", {{"bytes_per_cycle", engine_bpc}, {"latency_cycles", engine_latency}}},
              {"cls_entries", c.cls_entries},
              {"data_bytes", c.data_bytes},
              {"buffer_kib", c.buffer_kib},
              {"config_gen", gen},
              {"status", {{"tx_buf_full", rm::STATUS::TX_BUF_FULL.get(status) != 0},
                          {"rx_buf_full", rm::STATUS::RX_BUF_FULL.get(status) != 0}}}};
    if (cycle) j["cycle"] = *cycle;
    if (!server.empty()) j["server"] = server;
    std::cout << j.dump(2) << "\n";
    return kOk;
  }
  std::cout << fmt::format("target          {}\n", s.bus->describe());
  if (!server.empty()) std::cout << fmt::format("server          {}\n", server);
  std::cout << fmt::format("id              0x{:08x} (NSCH)\n", c.id);
  std::cout << fmt::format("version         {}.{}\n", c.version_major, c.version_minor);
  std::cout << fmt::format("tenants         {} ({} queues: control + bulk each)\n", c.tenants, c.queues());
  std::cout << fmt::format("priority levels {}\n", c.prio_levels);
  std::cout << fmt::format("crypto slots    {}\n", c.crypto_slots);
  std::cout << fmt::format("crypto engine   {} bytes/cycle per slot{}, {} cycles latency (NIC setup)\n", engine_bpc,
                           engine_bpc == 0 ? " (0 is treated as 1)" : "", engine_latency);
  std::cout << fmt::format("classifier      {} entries\n", c.cls_entries);
  std::cout << fmt::format("datapath        {} bytes/beat, {} KiB buffer per direction\n", c.data_bytes, c.buffer_kib);
  std::cout << fmt::format("config gen      {} commits since reset\n", gen);
  if (cycle) {
    std::cout << fmt::format("cycle           {} ({:.3f} ms at {} MHz)\n", *cycle,
                             static_cast<double>(*cycle) / (g.clock_mhz * 1e3), g.clock_mhz);
  }
  std::string flags;
  if (rm::STATUS::TX_BUF_FULL.get(status)) flags += " TX_BUF_FULL";
  if (rm::STATUS::RX_BUF_FULL.get(status)) flags += " RX_BUF_FULL";
  std::cout << fmt::format("status          {}\n", flags.empty() ? "ok" : flags.substr(1));
  return kOk;
}

}  // namespace nicsched::nicctl
