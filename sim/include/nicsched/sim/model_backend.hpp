// The model backend of NicModel (NicBackend::kModel): the reference model
// nicsched::refmodel::RefModel behind the same RegisterBus / SimControl / FrameSource /
// FrameSink interface as the Verilated nicsched_top. What it keeps and what it does not
// (docs/simulation.md, "Backends"):
//   - the real register map (nicsched/regmap.hpp): shadow registers applied at COMMIT,
//     snapshot registers latched at SNAPSHOT, 64-bit counters as LO/HI, CONFIG_GEN,
//     ID/VERSION/CAPS, STATUS w1c, DECERR/SLVERR where the RTL's CSR block answers them;
//   - register accesses take no simulated time (on the RTL backend each takes the few
//     clocks the AXI4-Lite slave needs, with the streams running);
//   - frames move as the reference model decides (transaction level: which frame leaves
//     when, not the RTL's pipeline latencies); the MAC model is the RTL backend's.
// Registers and the model's data are translated by the one register codec
// (nicsched/nic/codec.hpp).
#pragma once

#include <cstdint>

#include "nicsched/refmodel/types.hpp"
#include "nicsched/sim/nic_model.hpp"

namespace nicsched::sim {

// The reference model's parameters for a NicConfig: the same instance the Verilated
// variants elaborate (NumClsEntries 2 x NumTenants up to 64, 512-bit data, one 64-byte
// cell per beat with one reserved, head valid the clock after tlast), CryptoSlots from
// cfg.crypto_slots.
[[nodiscard]] refmodel::Params model_params(const NicConfig& cfg);

// CYCLE of the RTL counts from the release of reset; NicModel::cycle() counts from the
// end of the queue managers' free-list build, buffer_bytes / 64 + 16 cycles later. The
// model backend adds this to its cycle so that CYCLE reads alike on both backends.
[[nodiscard]] std::uint64_t cycle_register_offset(const NicConfig& cfg);

}  // namespace nicsched::sim
