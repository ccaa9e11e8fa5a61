// The NIC's vocabulary as the host library names it: the types are defined once in
// nicsched/nic/types.hpp (shared with the reference model, simulator and agent); this
// header only makes them part of the nicsched::host API.
#pragma once

#include "nicsched/nic/types.hpp"

namespace nicsched::host {

using nic::ArbMode;
using nic::Capabilities;
using nic::ClassifierAction;
using nic::ClassifierEntry;
using nic::CryptoCounters;
using nic::CryptoOp;
using nic::ParserCounters;
using nic::Policy;
using nic::QueueCounters;
using nic::SourceBinding;
using nic::Telemetry;
using nic::TxIdentityConfig;
using TenantPolicy = nic::TenantConfig;

}  // namespace nicsched::host
