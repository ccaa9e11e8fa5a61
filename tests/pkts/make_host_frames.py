#!/usr/bin/env python3
"""Writes the held-out host-frame corpus of rtl.top.scapy_tx_rx with Scapy.

The frames a host hands its NIC and a NIC must carry (issue 18): ARP requests and replies
(42 bytes, unpadded), minimal UDP/TCP/ICMP (42..54 bytes), LLDP, PTP on its own ethertype
(0x88F7) and over UDP 319/320 (IPv4 and IPv6), QinQ (802.1ad outer + 802.1Q inner) and
802.1Q-tagged frames. Each frame shorter than 60 bytes also appears padded to 60, as a MAC
puts it on the wire; two frames shorter than an Ethernet header close the corpus.

Output: a pcap (Ethernet link type) and a JSON list with, per frame, what follows from how
it was made:
  name, length             the frame as the host hands it over
  ip                       the ethertype after at most one 802.1Q tag is IPv4 or IPv6 (what
                           the parser classifies; anything else takes DEFAULT_ACTION)
  vlan, dscp, proto,       the fields Scapy dissects from the frame's bytes (VLAN ID of an
  sport, dport             802.1Q tag right after the MAC addresses; the rest 0 unless ip)
  tx_drop, tx_wire_length  on TX (from the host): "runt" under 14 bytes, else kept and
                           leaving at the length Scapy pads it to (pad(): at least 60)
  rx_drop                  on RX (from the MAC): "runt" under 60 bytes, else kept
The C++ bench (tests/rtl_top/test_top_scapy.cpp) sends every frame on both paths of
nicsched_top and compares what leaves with this table and the classifier table it writes.

Usage: make_host_frames.py OUT.pcap OUT.json
"""
import json
import os
import sys

from scapy.all import (ARP, Dot1AD, Dot1Q, Ether, ICMP, IP, IPv6, ICMPv6EchoRequest, Packet, Raw, TCP,
                       UDP, BitField, ByteField, IntField, LongField, ShortField, StrFixedLenField,
                       bind_layers, raw, wrpcap)
from scapy.contrib.lldp import (LLDPDUChassisID, LLDPDUEndOfLLDPDU, LLDPDUPortID, LLDPDUSystemName,
                                LLDPDUTimeToLive)

sys.dont_write_bytecode = True  # the build runs this: leave no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_pkts import DST, SRC, eth, pad  # noqa: E402  (the Scapy vectors' shared helpers)

MIN_HOST_FRAME = 14  # an Ethernet header: the TX runt threshold (docs/ingress.md)
MIN_WIRE_FRAME = 60  # the Ethernet minimum without FCS: the RX runt threshold
BROADCAST = "ff:ff:ff:ff:ff:ff"
LLDP_MULTICAST = "01:80:c2:00:00:0e"
PTP_MULTICAST = "01:1b:19:00:00:00"


class PTPv2(Packet):
    """IEEE 1588-2008 common header (34 bytes) and a 10-byte timestamp body (Sync,
    Delay_Req, Follow_Up). Scapy 2.5 has no PTP layer."""
    name = "PTPv2"
    fields_desc = [
        BitField("transportSpecific", 0, 4), BitField("messageType", 0, 4),
        BitField("reserved0", 0, 4), BitField("versionPTP", 2, 4),
        ShortField("messageLength", 44), ByteField("domainNumber", 0), ByteField("reserved1", 0),
        ShortField("flags", 0x0200), LongField("correctionField", 0), IntField("reserved2", 0),
        StrFixedLenField("clockIdentity", b"\x02\x00\x00\xff\xfe\x00\x00\x02", 8),
        ShortField("sourcePortNumber", 1), ShortField("sequenceId", 0), ByteField("controlField", 0),
        ByteField("logMessageInterval", 0),
        StrFixedLenField("originTimestamp", b"\x00\x00\x65\x00\x00\x00\x00\x00\x10\x00", 10),
    ]


bind_layers(Ether, PTPv2, type=0x88F7)
bind_layers(UDP, PTPv2, dport=319)
bind_layers(UDP, PTPv2, dport=320)


def parser_fields(frame):
    """`ip` and the fields Scapy dissects from the frame's bytes (see the module doc)."""
    p = Ether(frame)
    f = {"ip": False, "vlan": 0, "dscp": 0, "proto": 0, "sport": 0, "dport": 0}
    l3 = p.payload
    if type(l3) is Dot1Q:  # an 802.1Q tag right after the MAC addresses (not 802.1ad)
        f["vlan"] = l3.vlan
        l3 = l3.payload
    if isinstance(l3, IP):
        f.update(ip=True, dscp=l3.tos >> 2, proto=l3.proto)
    elif isinstance(l3, IPv6):
        f.update(ip=True, dscp=l3.tc >> 2, proto=l3.nh)
    if f["ip"] and isinstance(l3.payload, (UDP, TCP)):
        f["sport"] = l3.payload.sport
        f["dport"] = l3.payload.dport
    return f


def corpus():
    """(name, frame bytes) as a host hands them to its NIC."""
    ptp_sync = PTPv2(messageType=0, sequenceId=7)
    ptp_follow_up = PTPv2(messageType=8, sequenceId=7, controlField=2)
    ptp_delay_req = PTPv2(messageType=1, sequenceId=8, controlField=1)
    frames = [
        ("arp request", Ether(dst=BROADCAST, src=SRC) / ARP(op=1, hwsrc=SRC, psrc="10.0.0.2", pdst="10.0.0.1")),
        ("arp reply", eth() / ARP(op=2, hwsrc=SRC, psrc="10.0.0.2", hwdst=DST, pdst="10.0.0.1")),
        ("vlan 100 arp request", Ether(dst=BROADCAST, src=SRC) / Dot1Q(vlan=100) / ARP(psrc="10.0.1.2", pdst="10.0.1.1")),
        ("ipv4 udp minimal (dns port)", eth() / IP(src="10.0.0.2", dst="10.0.0.1") / UDP(sport=5353, dport=53)),
        ("ipv4 udp 10-byte payload", eth() / IP(tos=0x28) / UDP(sport=40000, dport=9999) / Raw(b"0123456789")),
        ("ipv4 tcp syn", eth() / IP(tos=0x10) / TCP(sport=40001, dport=443, flags="S")),
        ("ipv4 tcp ack", eth() / IP() / TCP(sport=40001, dport=443, flags="A", seq=1, ack=1)),
        ("ipv4 icmp echo", eth() / IP(dst="10.0.0.1") / ICMP()),
        ("ipv4 gre (no entry)", eth() / IP(proto=47) / Raw(b"\x00\x00\x08\x00")),
        ("vlan 7 ipv4 udp minimal", eth() / Dot1Q(vlan=7, prio=3) / IP() / UDP(sport=1000, dport=2000)),
        ("ipv6 udp minimal", eth() / IPv6(src="fd00::2", dst="fd00::1") / UDP(sport=5000, dport=6000)),
        ("ipv6 icmpv6 echo (no entry)", eth() / IPv6() / ICMPv6EchoRequest()),
        ("lldp", Ether(dst=LLDP_MULTICAST, src=SRC) / LLDPDUChassisID(subtype=4, id=SRC) /
         LLDPDUPortID(subtype=5, id="eth0") / LLDPDUTimeToLive(ttl=120) / LLDPDUEndOfLLDPDU()),
        ("lldp system name", Ether(dst=LLDP_MULTICAST, src=SRC) / LLDPDUChassisID(subtype=4, id=SRC) /
         LLDPDUPortID(subtype=5, id="eth0") / LLDPDUTimeToLive(ttl=120) /
         LLDPDUSystemName(system_name="host-under-test.rack7.example.net") / LLDPDUEndOfLLDPDU()),
        ("ptp l2 sync", Ether(dst=PTP_MULTICAST, src=SRC) / ptp_sync),
        ("ptp l2 follow_up", Ether(dst=PTP_MULTICAST, src=SRC) / ptp_follow_up),
        ("ptp l2 delay_req", Ether(dst=PTP_MULTICAST, src=SRC) / ptp_delay_req),
        ("ptp udp 319 sync", eth() / IP(tos=0xB8, dst="224.0.1.129") / UDP(sport=319, dport=319) / ptp_sync),
        ("ptp udp 320 follow_up", eth() / IP(dst="224.0.1.129") / UDP(sport=320, dport=320) / ptp_follow_up),
        ("ptp ipv6 udp 319 delay_req", eth() / IPv6(dst="ff0e::181") / UDP(sport=319, dport=319) / ptp_delay_req),
        ("qinq ipv4 udp minimal", eth() / Dot1AD(vlan=10) / Dot1Q(vlan=20) / IP() / UDP(sport=1, dport=53)),
        ("qinq arp", Ether(dst=BROADCAST, src=SRC) / Dot1AD(vlan=10) / Dot1Q(vlan=20) / ARP()),
        ("qinq ipv4 tcp", eth() / Dot1AD(vlan=11) / Dot1Q(vlan=7) / IP() / TCP(sport=2, dport=443) / Raw(b"q" * 40)),
    ]
    out = []
    for name, pkt in frames:
        b = raw(pkt)
        out.append((name, b))
        if len(b) < MIN_WIRE_FRAME:
            out.append((name + " padded", raw(pad(pkt))))
    # shorter than an Ethernet header: runts on both paths
    arp = raw(frames[0][1])
    out.append(("13 bytes of an arp request", arp[:13]))
    out.append(("1 byte", arp[:1]))
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: make_host_frames.py OUT.pcap OUT.json")
    table, frames = [], []
    for name, b in corpus():
        entry = {"name": name, "length": len(b)}
        entry.update(parser_fields(b) if len(b) >= MIN_HOST_FRAME else
                     {"ip": False, "vlan": 0, "dscp": 0, "proto": 0, "sport": 0, "dport": 0})
        entry["tx_drop"] = "runt" if len(b) < MIN_HOST_FRAME else "none"
        entry["tx_wire_length"] = len(raw(pad(Ether(b)))) if len(b) >= MIN_HOST_FRAME else 0
        entry["rx_drop"] = "runt" if len(b) < MIN_WIRE_FRAME else "none"
        table.append(entry)
        frames.append(b)
    wrpcap(sys.argv[1], frames, linktype=1)  # Ethernet
    with open(sys.argv[2], "w", encoding="utf-8") as f:
        json.dump(table, f, indent=1)


if __name__ == "__main__":
    main()
