#!/usr/bin/env python3
"""Checks packets written by nicsched::sim::build_packet against Scapy's dissection.

For every packet of the pcap, the JSON entry holds the PacketSpec it was built from; Scapy
must find the same tag, addresses-independent header fields, lengths, a valid IPv4 header
checksum, the L4 header where one belongs, the payload pattern and the padding.
Usage: check_builder.py PCAP JSON     (exit 0: all agree, 1: a mismatch, listed on stderr)
"""
import json
import sys

from scapy.all import IP, TCP, UDP, Dot1Q, Ether, IPv6, Raw, raw, rdpcap

TCP_PROTO, UDP_PROTO = 6, 17


def check(i, frame, spec):
    errors = []

    def want(what, got, expected):
        if got == expected:
            return
        if isinstance(got, bytes):
            at = next((k for k in range(min(len(got), len(expected))) if got[k] != expected[k]),
                      min(len(got), len(expected)))
            errors.append(f"packet {i}: {what} differs at byte {at} ({len(got)} vs {len(expected)} bytes)")
        else:
            errors.append(f"packet {i}: {what} is {got!r}, spec says {expected!r}")

    p = Ether(frame)
    want("frame length", len(frame), spec["length"])
    layer = p.payload
    if spec["vlan"] is not None:
        if type(layer) is not Dot1Q:
            return [f"packet {i}: no 802.1Q tag, spec has VLAN {spec['vlan']}"]
        want("VLAN ID", layer.vlan, spec["vlan"])
        want("VLAN PCP", layer.prio, spec["pcp"])
        layer = layer.payload
    l4_expected = spec["protocol"] in (TCP_PROTO, UDP_PROTO)
    if spec["l3"] == "ipv4":
        if not isinstance(layer, IP):
            return errors + [f"packet {i}: no IPv4 header"]
        ihl = 5 + spec["option_words"]
        want("IHL", layer.ihl, ihl)
        want("DSCP", layer.tos >> 2, spec["dscp"])
        want("TTL", layer.ttl, spec["ttl"])
        want("protocol", layer.proto, spec["protocol"])
        want("fragment offset", layer.frag, spec["frag_offset"])
        want("MF flag", bool(layer.flags.MF), spec["mf"])
        l4_expected = l4_expected and spec["frag_offset"] == 0
        l4_len = (8 if spec["protocol"] == UDP_PROTO else 20) if l4_expected else 0
        want("IPv4 total length", layer.len, 4 * ihl + l4_len + spec["payload"])
        hdr = raw(layer)[: 4 * ihl]
        total = sum((hdr[k] << 8) | hdr[k + 1] for k in range(0, len(hdr), 2))
        while total >> 16:
            total = (total & 0xFFFF) + (total >> 16)
        want("IPv4 header checksum (ones' complement sum)", total, 0xFFFF)
    elif spec["l3"] == "ipv6":
        if not isinstance(layer, IPv6):
            return errors + [f"packet {i}: no IPv6 header"]
        want("DSCP", layer.tc >> 2, spec["dscp"])
        want("hop limit", layer.hlim, spec["ttl"])
        want("next header", layer.nh, spec["protocol"])
        l4_len = (8 if spec["protocol"] == UDP_PROTO else 20) if l4_expected else 0
        want("IPv6 payload length", layer.plen, l4_len + spec["payload"])
    else:
        at = 16 if spec["vlan"] is not None else 12
        want("ethertype", (frame[at] << 8) | frame[at + 1], spec["ethertype"])
        pattern = bytes(k & 0xFF for k in range(spec["payload"]))
        want("payload", frame[at + 2 : at + 2 + spec["payload"]], pattern)
        return errors
    l4 = layer.payload
    if l4_expected:
        cls = UDP if spec["protocol"] == UDP_PROTO else TCP
        if not isinstance(l4, cls):
            return errors + [f"packet {i}: no {cls.__name__} header"]
        want("source port", l4.sport, spec["sport"])
        want("destination port", l4.dport, spec["dport"])
        if cls is UDP:
            want("UDP length", l4.len, 8 + spec["payload"])
        else:
            want("TCP data offset", l4.dataofs, 5)
        data = bytes(l4.payload)
    else:
        data = bytes(l4)
    pattern = bytes(k & 0xFF for k in range(spec["payload"]))
    want("payload", data[: spec["payload"]], pattern)
    want("padding is zero", set(data[spec["payload"]:]) <= {0}, True)
    return errors


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: check_builder.py PCAP JSON")
    frames = [raw(p) for p in rdpcap(sys.argv[1])]
    with open(sys.argv[2], encoding="utf-8") as f:
        specs = json.load(f)
    if len(frames) != len(specs):
        sys.exit(f"{sys.argv[2]}: {len(specs)} specs for {len(frames)} packets in {sys.argv[1]}")
    errors = []
    for i, (frame, spec) in enumerate(zip(frames, specs)):
        errors += check(i, frame, spec)
    for e in errors[:20]:
        print(e, file=sys.stderr)
    print(f"check_builder: {len(frames)} packets, {len(errors)} mismatches")
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
