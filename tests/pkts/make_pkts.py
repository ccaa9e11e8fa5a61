#!/usr/bin/env python3
"""Writes the real-packet vectors of the parser/ingress bench with Scapy.

Output: a pcap (Ethernet link type) and a JSON list with, per packet, its name, the drop
reason the NIC must give (from how the packet was made: runt, truncated, bad_ihl,
unknown_ethertype or none) and the fields Scapy reports when it dissects the packet's
bytes (VLAN ID, DSCP, IP protocol / IPv6 next header, L4 ports; ports 0 where Scapy finds no
UDP/TCP header, as for non-first fragments). The C++ bench (test_rtl_pkts) feeds the pcap
through the RTL and compares with the JSON.

Usage: make_pkts.py OUT.pcap OUT.json
"""
import json
import sys

from scapy.all import (ARP, Dot1AD, Dot1Q, Ether, ICMP, IP, IPOption_NOP, IPOption_RR,
                       IPOption_Router_Alert, IPv6, IPv6ExtHdrFragment, IPv6ExtHdrHopByHop,
                       ICMPv6EchoRequest, Padding, Raw, TCP, UDP, fragment, raw, wrpcap)

DST = "02:00:00:00:00:01"
SRC = "02:00:00:00:00:02"


def eth(**kw):
    return Ether(dst=DST, src=SRC, **kw)


def pad(p, size=60):
    """Ethernet padding up to `size` bytes, as a MAC would add it."""
    n = len(raw(p))
    return p / Padding(b"\x00" * (size - n)) if n < size else p


def scapy_fields(frame):
    """The fields Scapy reports for the frame's bytes."""
    p = Ether(frame)
    f = {"vlan": 0, "dscp": 0, "proto": 0, "sport": 0, "dport": 0}
    if type(p.payload) is Dot1Q:  # an 802.1Q tag right after the MAC addresses (not 802.1ad)
        f["vlan"] = p.payload.vlan
    if IP in p:
        f["dscp"] = p[IP].tos >> 2
        f["proto"] = p[IP].proto
    elif IPv6 in p:
        f["dscp"] = p[IPv6].tc >> 2
        f["proto"] = p[IPv6].nh
    l4 = None
    if IP in p and p[IP].frag == 0:
        l4 = p[IP].payload
    elif IPv6 in p:
        l4 = p[IPv6].payload
    if isinstance(l4, (UDP, TCP)):
        f["sport"] = l4.sport
        f["dport"] = l4.dport
    return f


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: make_pkts.py OUT.pcap OUT.json")
    out_pcap, out_json = sys.argv[1], sys.argv[2]
    cases = []  # (name, expected drop, frame bytes)

    def add(name, pkt, drop="none"):
        cases.append((name, drop, raw(pkt) if not isinstance(pkt, bytes) else pkt))

    payload = Raw(bytes(range(256)) * 2)
    # Well-formed: every header combination.
    for tag in (None, 7, 4095):
        l2 = eth() / Dot1Q(vlan=tag, prio=5) if tag is not None else eth()
        t = f"vlan{tag}" if tag is not None else "untagged"
        add(f"{t} ipv4 udp", pad(l2 / IP(tos=0xB8, src="10.0.0.1", dst="10.0.0.2") / UDP(sport=1234, dport=4791) / Raw(b"x" * 10)))
        add(f"{t} ipv4 tcp", l2 / IP(tos=0x28) / TCP(sport=40000, dport=29500, flags="PA") / payload)
        add(f"{t} ipv4 tcp options", l2 / IP(tos=0x04) / TCP(sport=5, dport=6, options=[("MSS", 1460), ("SAckOK", b""), ("WScale", 7)]) / Raw(b"y" * 30))
        add(f"{t} ipv4 icmp", pad(l2 / IP(tos=0x10) / ICMP()))
        add(f"{t} ipv4 options nop", l2 / IP(tos=0x20, options=[IPOption_NOP()] * 4) / UDP(sport=9, dport=10) / payload)
        add(f"{t} ipv4 options router alert", pad(l2 / IP(options=[IPOption_Router_Alert()]) / UDP(sport=11, dport=12)))
        add(f"{t} ipv4 options record route 9", l2 / IP(tos=0xFC, options=[IPOption_RR(routers=[f"10.0.0.{i}" for i in range(9)])]) / TCP(sport=13, dport=14) / Raw(b"z" * 20))
        add(f"{t} ipv6 udp", l2 / IPv6(tc=0xB8, src="fd00::1", dst="fd00::2") / UDP(sport=3000, dport=4791) / payload)
        add(f"{t} ipv6 tcp", l2 / IPv6(tc=0x11) / TCP(sport=443, dport=55555) / Raw(b"q" * 100))
        add(f"{t} ipv6 icmpv6", l2 / IPv6() / ICMPv6EchoRequest(data=b"p" * 20))
        add(f"{t} ipv6 hop-by-hop (ports not read)", l2 / IPv6() / IPv6ExtHdrHopByHop() / UDP(sport=1, dport=2) / Raw(b"h" * 20))
        # IPv4 fragments: the first carries the UDP header, the others have offset != 0.
        for i, frag in enumerate(fragment(IP(tos=0x48, src="10.1.0.1", dst="10.1.0.2") / UDP(sport=777, dport=888) / Raw(b"f" * 2500), fragsize=1024)):
            add(f"{t} ipv4 udp fragment {i}", pad(l2 / frag))
        # IPv6 fragment header: next header 44, ports not read.
        add(f"{t} ipv6 fragment header", l2 / IPv6() / IPv6ExtHdrFragment(offset=0, m=1) / UDP(sport=5, dport=6) / Raw(b"g" * 40))
        # Ethernet padding after the IP datagram is allowed.
        add(f"{t} ipv4 udp padded", l2 / IP() / UDP(sport=20, dport=21) / Raw(b"a" * 30) / Padding(b"\x00" * 40))
    add("jumbo ipv4 udp", eth() / IP() / UDP(sport=1, dport=2) / Raw(b"J" * 8972))
    add("jumbo vlan ipv6 tcp", eth() / Dot1Q(vlan=300) / IPv6() / TCP(sport=3, dport=4) / Raw(b"K" * 9000))

    # Runts (< 60 bytes).
    add("runt arp unpadded", eth() / ARP(), "runt")
    add("runt ipv4 udp unpadded", eth() / IP() / UDP(), "runt")
    add("runt 14 bytes", raw(eth(type=0x0800)), "runt")
    add("runt 59 bytes", raw(pad(eth() / IP() / UDP()))[:59], "runt")

    # Truncated: the frame ends before what the IP header says.
    add("truncated ipv4 udp", raw(eth() / IP() / UDP(sport=1, dport=2) / payload)[:300], "truncated")
    add("truncated vlan ipv4 tcp", raw(eth() / Dot1Q(vlan=5) / IP() / TCP() / payload)[:100], "truncated")
    add("truncated ipv6 udp", raw(eth() / IPv6() / UDP() / payload)[:200], "truncated")
    add("truncated ipv4 options header", raw(eth() / Dot1Q(vlan=6) / IP(options=[IPOption_RR(routers=["1.1.1.1"] * 9)]) / UDP() / payload)[:70], "truncated")
    add("ipv4 total length below header", pad(eth() / IP(len=16) / UDP(sport=1, dport=2)), "truncated")
    add("ipv4 udp header cut by total length", pad(eth() / IP(len=24, proto=17) / Raw(b"\x00\x01\x00\x02")), "truncated")
    add("ipv6 tcp header cut by payload length", pad(eth() / IPv6(plen=10, nh=6) / Raw(b"\x00\x01\x00\x02" + b"\x00" * 6)), "truncated")

    # Bad IHL / version.
    for ihl in (0, 3, 4):
        add(f"ipv4 ihl {ihl}", pad(eth() / IP(ihl=ihl) / UDP() / Raw(b"i" * 20)), "bad_ihl")
    add("ipv4 ethertype carrying ipv6", eth(type=0x0800) / IPv6() / UDP() / Raw(b"v" * 20), "bad_ihl")
    add("ipv6 ethertype carrying ipv4", eth(type=0x86DD) / IP() / UDP() / Raw(b"w" * 60), "bad_ihl")
    add("vlan ipv4 version 5", raw(eth() / Dot1Q(vlan=9) / IP(version=5) / UDP() / Raw(b"u" * 20)), "bad_ihl")

    # Unknown ethertypes.
    add("arp padded", pad(eth() / ARP()), "unknown_ethertype")
    add("vlan arp", pad(eth() / Dot1Q(vlan=42) / ARP()), "unknown_ethertype")
    add("qinq 802.1ad", eth() / Dot1AD(vlan=10) / Dot1Q(vlan=20) / IP() / UDP() / Raw(b"d" * 20), "unknown_ethertype")
    add("double 802.1q", eth() / Dot1Q(vlan=10) / Dot1Q(vlan=20) / IP() / UDP() / Raw(b"e" * 20), "unknown_ethertype")
    add("lldp ethertype", pad(eth(type=0x88CC) / Raw(b"\x02\x07\x04")), "unknown_ethertype")

    frames = []
    table = []
    for name, drop, frame in cases:
        entry = {"name": name, "length": len(frame), "drop": drop}
        entry.update(scapy_fields(frame))
        frames.append(Ether(frame))
        table.append(entry)
    wrpcap(out_pcap, frames)
    with open(out_json, "w", encoding="utf-8") as f:
        json.dump(table, f, indent=1)


if __name__ == "__main__":
    main()
