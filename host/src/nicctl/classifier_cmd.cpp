// nicctl classifier list / add / del: the classifier match table.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <iostream>

#include "nicsched/regmap.hpp"

#include "commands.hpp"

namespace nicsched::nicctl {

namespace rm = nicsched::regmap;
using json = nlohmann::json;

std::string match_text(const host::ClassifierEntry& e) {
  std::string m;
  auto add = [&](const char* name, std::uint32_t v, std::uint32_t mask, std::uint32_t full) {
    if (mask == 0) return;
    m += fmt::format("{}{}={}", m.empty() ? "" : " ", name, v);
    if (mask != full) m += fmt::format("/0x{:x}", mask);
  };
  add("vlan", e.vlan, e.vlan_mask, rm::CLS_VLAN::MASK.max());
  add("dscp", e.dscp, e.dscp_mask, rm::CLS_DSCP_PROTO::DSCP_MASK.max());
  add("proto", e.proto, e.proto_mask, rm::CLS_DSCP_PROTO::PROTO_MASK.max());
  add("port", e.port, e.port_mask, rm::CLS_PORT::MASK.max());
  return m.empty() ? "(any)" : m;
}

int cmd_classifier_list(const Global& g, bool as_json) {
  Session s = connect(g);
  const host::Policy p = host::read_policy(*s.bus, s.caps);
  if (as_json) {
    json entries = json::array();
    for (const auto& e : *p.classifier) {
      entries.push_back({{"vlan", e.vlan}, {"vlan_mask", e.vlan_mask}, {"dscp", e.dscp}, {"dscp_mask", e.dscp_mask},
                         {"proto", e.proto}, {"proto_mask", e.proto_mask}, {"port", e.port}, {"port_mask", e.port_mask},
                         {"tenant", e.action.tenant}, {"class", e.action.cls == 0 ? "control" : "bulk"},
                         {"crypto", crypto_name(e.action.crypto_op)}});
    }
    const auto& d = *p.default_action;
    std::cout << json{{"entries", entries},
                      {"capacity", s.caps.cls_entries},
                      {"default_action",
                       {{"tenant", d.tenant}, {"class", d.cls == 0 ? "control" : "bulk"}, {"crypto", crypto_name(d.crypto_op)}}}}
                     .dump(2)
              << "\n";
    return kOk;
  }
  std::cout << fmt::format("{:>5}  {:<40} {:>6} {:>8} {:>8}\n", "index", "match", "tenant", "class", "crypto");
  for (std::size_t i = 0; i < p.classifier->size(); ++i) {
    const auto& e = (*p.classifier)[i];
    std::cout << fmt::format("{:>5}  {:<40} {:>6} {:>8} {:>8}\n", i, match_text(e), e.action.tenant,
                             e.action.cls == 0 ? "control" : "bulk", crypto_name(e.action.crypto_op));
  }
  const auto& d = *p.default_action;
  std::cout << fmt::format("{:>5}  {:<40} {:>6} {:>8} {:>8}\n", "miss", "(no entry matches)", d.tenant,
                           d.cls == 0 ? "control" : "bulk", crypto_name(d.crypto_op));
  std::cout << fmt::format("{} of {} entries used\n", p.classifier->size(), s.caps.cls_entries);
  return kOk;
}

int cmd_classifier_add(const Global& g, const ClsAddOptions& o) {
  host::ClassifierEntry e;
  auto field = [](const std::optional<std::uint32_t>& v, const std::optional<std::uint32_t>& m, std::uint32_t& value,
                  std::uint32_t& mask, std::uint32_t full) {
    if (v) {
      value = *v;
      mask = full;
    }
    if (m) mask = *m;
  };
  field(o.vlan, o.vlan_mask, e.vlan, e.vlan_mask, rm::CLS_VLAN::MASK.max());
  field(o.dscp, o.dscp_mask, e.dscp, e.dscp_mask, rm::CLS_DSCP_PROTO::DSCP_MASK.max());
  field(o.port, o.port_mask, e.port, e.port_mask, rm::CLS_PORT::MASK.max());
  std::optional<std::uint32_t> proto;
  if (o.proto) {
    if (*o.proto == "tcp") proto = 6;
    else if (*o.proto == "udp") proto = 17;
    else {
      try {
        std::size_t used = 0;
        proto = static_cast<std::uint32_t>(std::stoul(*o.proto, &used, 0));
        if (used != o.proto->size()) throw std::invalid_argument("trailing");
      } catch (const std::exception&) {
        throw host::PolicyError(fmt::format("--proto: '{}' is not tcp, udp or an IP protocol number", *o.proto),
                                "command line", 0, "--proto");
      }
    }
  }
  field(proto, o.proto_mask, e.proto, e.proto_mask, rm::CLS_DSCP_PROTO::PROTO_MASK.max());
  e.action.tenant = o.tenant;
  e.action.cls = o.cls == "control" ? 0 : 1;
  e.action.crypto_op = host::parse_spelling<host::CryptoOp>(o.crypto).value_or(host::CryptoOp::kNone);
  Session s = connect(g);
  host::Policy p = host::read_policy(*s.bus, s.caps);
  p.default_action.reset();
  auto& entries = *p.classifier;
  const std::size_t at = o.at.value_or(entries.size());
  if (at > entries.size()) {
    throw host::PolicyError(fmt::format("--at {}: the table has {} entries (allowed: 0..{})", at, entries.size(),
                                        entries.size()),
                            "command line", 0, "--at");
  }
  entries.insert(entries.begin() + static_cast<std::ptrdiff_t>(at), e);
  const host::ApplyResult r = host::apply_policy(*s.bus, s.caps, p);
  std::cout << fmt::format("classifier entry {} added: {} -> tenant {} {} {} (config generation {})\n", at,
                           match_text(e), e.action.tenant, o.cls, o.crypto, r.config_gen);
  return kOk;
}

int cmd_classifier_del(const Global& g, std::size_t index) {
  Session s = connect(g);
  host::Policy p = host::read_policy(*s.bus, s.caps);
  p.default_action.reset();
  auto& entries = *p.classifier;
  if (index >= entries.size()) {
    throw host::PolicyError(fmt::format("classifier del {}: no such entry (the table has {} entries)", index, entries.size()),
                            "command line", 0, "INDEX");
  }
  entries.erase(entries.begin() + static_cast<std::ptrdiff_t>(index));
  const host::ApplyResult r = host::apply_policy(*s.bus, s.caps, p);
  std::cout << fmt::format("classifier entry {} deleted (config generation {})\n", index, r.config_gen);
  return kOk;
}

}  // namespace nicsched::nicctl
