// Tagged frames: what the classifier reads is where the packet builder puts it; tags
// round-trip; any changed byte is caught.
#include <catch2/catch.hpp>

#include <vector>

#include "nicsched/sim/frame.hpp"
#include "nicsched/refmodel/parser.hpp"
#include "nicsched/sim/packet.hpp"

using namespace nicsched::sim;

TEST_CASE("a tagged frame parses as the flow it was built for", "[frames]") {
  FrameBuilder fb;
  const FlowId flow{101, kDscpControl, 40000, 5016};
  const Tag tag{123456789, 777, 200, 3, 0};
  std::vector<std::uint8_t> f(200);
  fb.build(f.data(), 200, flow, tag);
  const nicsched::refmodel::ParsedFrame p = nicsched::refmodel::parse_frame(f);
  CHECK(p.drop == nicsched::refmodel::ParseDrop::kNone);
  CHECK(p.vlan_id == 101);
  CHECK(p.dscp == kDscpControl);
  CHECK(p.protocol == kProtoUdp);
  CHECK(p.dst_port == 5016);
  CHECK(p.length == 200);
  const auto back = parse_tag(f.data(), 200);
  REQUIRE(back.has_value());
  CHECK(back->id == tag.id);
  CHECK(back->created == 777);
  CHECK(back->frame_len == 200);
  CHECK(back->tenant == 3);
  CHECK(fb.intact(f.data(), 200, flow, *back));
}

TEST_CASE("a changed byte anywhere fails the integrity check", "[frames]") {
  FrameBuilder fb;
  const FlowId flow{200, 0, 40000, 6000};
  const Tag tag{42, 1, 1518, 1, 1};
  std::vector<std::uint8_t> f(1518);
  fb.build(f.data(), 1518, flow, tag);
  for (std::uint32_t at : {0U, 15U, 47U, 100U, 1517U}) {
    auto g = f;
    g[at] ^= 0x10;
    const auto t = parse_tag(g.data(), 1518);
    CHECK(!(t && fb.intact(g.data(), 1518, flow, *t)));
  }
  CHECK_FALSE(fb.intact(f.data(), 1517, flow, tag));  // truncated
}

TEST_CASE("a foreign frame has no tag", "[frames]") {
  PacketSpec s;
  s.payload_bytes = 100;
  const auto f = build_packet(s);
  CHECK_FALSE(parse_tag(f.data(), static_cast<std::uint32_t>(f.size())).has_value());
}
