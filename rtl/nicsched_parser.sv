// nicsched_parser: streaming Ethernet/VLAN/IPv4/IPv6/UDP/TCP header parser; frames pass unchanged.
//
// Behaviour
//   Every beat that enters leaves unchanged (tdata, tkeep, tlast), in order, two clocks
//   later when the output is ready. With the tlast beat of each frame the parser presents
//   the frame's parsed fields and its verdict (m_prs_*), valid only on that beat and zero
//   on every other beat. Frames are never dropped here: a frame with a drop reason still
//   leaves in full, so that the queue manager, which stores beats as they arrive, can free
//   it at tlast. s_axis_tuser (UserW bits, e.g. the ingress's TX source binding) travels
//   with its beat and leaves on m_axis_tuser unchanged. m_axis_tcount gives each beat's
//   byte count (its tkeep lanes), counted here once at the input and carried beside the
//   beat so that the blocks after (classifier, padder, queues) take a beat's length from a
//   flop rather than count tkeep again.
//
//   Parsed: Ethernet II, at most one 802.1Q tag (TPID 0x8100), then IPv4 (0x0800, any IHL
//   5..15) or IPv6 (0x86DD, fixed header only). L4 ports are read for UDP (17) and TCP (6)
//   directly after the IP header; IPv4 non-first fragments (offset != 0) and every other
//   protocol / next header report ports 0. The frame length is the number of bytes with
//   tkeep set (saturating at 65535).
//
//   Verdict, first rule that applies:
//     1. length < MinFrameBytes (60 from a MAC, 14 from a host)     -> DROP_RUNT
//     2. 802.1Q TPID at bytes 12-13 but length < 18 (tag cut)       -> DROP_TRUNCATED
//     3. ethertype (after the tag) neither IPv4 nor IPv6            -> DROP_UNKNOWN_ETYPE,
//        or, when bad_to_default_i, no drop and m_prs_default_o = 1 (use the default action)
//     4. length < L2 header + 20 (IPv4) / + 40 (IPv6): the fixed IP header is cut
//                                                                   -> DROP_TRUNCATED
//     5. IP version nibble wrong (4 / 6) or IPv4 IHL < 5            -> DROP_BAD_IHL
//     6. IPv4: total length < IHL*4, or L2 header + total length > frame length, or
//        (first fragment of UDP/TCP) total length < IHL*4 + L4 minimum (UDP 8, TCP 20);
//        IPv6: L2 header + 40 + payload length > frame length, or (UDP/TCP) payload
//        length < L4 minimum                                        -> DROP_TRUNCATED
//   Rules 2 and 4 never fire at MinFrameBytes = 60 (every frame holds the tag and the fixed
//   IP header then); with a smaller minimum they keep every test on bytes the frame has.
//   Bytes after the IP length (Ethernet padding) are allowed. A dropped frame reports all
//   fields zero except the length; a default-class frame reports its VLAN ID and length.
//
// Timing
//   Two register stages: stage 1 captures the beat, the frame's first 82 bytes, its running
//   length and, as their beats arrive, the tests of the ethertype, IPv4 protocol / IPv6 next
//   header and fragment-offset bytes at each of their two possible places (tag or not); stage 2 holds the beat with the raw fields
//   and the verdict computed from stage 1 (fields are zeroed at the output, by registered
//   flags, for dropped frames, keeping that off the verdict's path). Latency
//   two clocks, one beat per clock when m_axis_tready is high, no bubbles between frames.
//   s_axis_tready = !stage1 full || stage 1 moves on (combinational from m_axis_tready).
//
// Counter pulses (cnt_*_o) are one-cycle pulses when a frame's tlast beat leaves the
// parser, one per frame and reason; cnt_unknown_etype_o pulses for frames sent to the
// default class too.
`default_nettype none
`include "rtl/nicsched_assert.svh"

module nicsched_parser #(
  parameter int DataWidth     = 512,  // AXI4-Stream data bits; 64..512, a power of two
  parameter int MinFrameBytes = 60,   // shorter frames are runts: 60 from a MAC, 14 from a host
  parameter int UserW         = 1     // sideband bits carried with each beat, unchanged
) (
  input  logic                   clk_i,
  input  logic                   rst_ni,

  // Configuration
  input  logic                   bad_to_default_i,  // CTRL.BAD_TO_DEFAULT

  // Frames in
  input  logic [DataWidth-1:0]   s_axis_tdata,
  input  logic [DataWidth/8-1:0] s_axis_tkeep,      // contiguous from bit 0
  input  logic                   s_axis_tvalid,
  output logic                   s_axis_tready,
  input  logic                   s_axis_tlast,
  input  logic [UserW-1:0]       s_axis_tuser,

  // Frames out, unchanged
  output logic [DataWidth-1:0]   m_axis_tdata,
  output logic [DataWidth/8-1:0] m_axis_tkeep,
  output logic [$clog2(DataWidth/8+1)-1:0] m_axis_tcount,  // bytes in the beat: tkeep's count
  output logic                   m_axis_tvalid,
  input  logic                   m_axis_tready,
  output logic                   m_axis_tlast,
  output logic [UserW-1:0]       m_axis_tuser,

  // Parsed fields and verdict, valid with the tlast beat on m_axis
  output logic [15:0]            m_prs_len_o,       // frame length, bytes (saturating)
  output logic [11:0]            m_prs_vlan_o,      // VLAN ID, 0 when untagged
  output logic [5:0]             m_prs_dscp_o,      // IPv4 TOS[7:2] / IPv6 traffic class[7:2]
  output logic [7:0]             m_prs_proto_o,     // IPv4 protocol / IPv6 next header
  output logic [15:0]            m_prs_sport_o,     // L4 source port (0 when none)
  output logic [15:0]            m_prs_dport_o,     // L4 destination port (0 when none)
  output nicsched_pkg::drop_reason_e m_prs_drop_o,  // DROP_NONE: keep the frame
  output logic                   m_prs_default_o,   // unknown ethertype kept: use the default action

  // Counter pulses for telemetry (one per frame leaving the parser)
  output logic                   cnt_frames_o,
  output logic                   cnt_runt_o,
  output logic                   cnt_truncated_o,
  output logic                   cnt_bad_ihl_o,
  output logic                   cnt_unknown_etype_o
);

  localparam int BPB        = DataWidth / 8;                 // bytes per beat
  localparam int HDR_BYTES  = 82;                            // 14 + 4 (tag) + 60 (IPv4 max) + 4 (ports)
  localparam int HDR_BEATS  = (HDR_BYTES + BPB - 1) / BPB;   // beats that carry header bytes
  localparam int BEAT_W     = $clog2(HDR_BEATS + 1);         // beat index, saturating at HDR_BEATS
  localparam int L3_BYTES   = 64;                            // IP header window (60 + 4 port bytes)
  localparam int KEEP_CNT_W = $clog2(BPB + 1);
  // Header bytes whose tests are taken as their beat arrives (16-bit fields never straddle
  // beats). A frame that the verdict reads them for has them from its own bytes: the tag's
  // ethertype (16-17) only when it is 18 bytes long (rule 2), the others only when it holds
  // the fixed IP header (rule 4). Each is tested at its untagged position [0] and, for a
  // frame with an 802.1Q tag, TAG_BYTES later [1]; the verdict picks by has_vlan_q.
  localparam int TAG_BYTES = 4;
  localparam int POS_ET = 12;  // ethertype; at [0] also the TPID
  localparam int POS_FR = 20;  // IPv4 flags + fragment offset; IPv6 next header
  localparam int POS_PR = 23;  // IPv4 protocol
  localparam logic [31:0] MIN_FRAME32 = MinFrameBytes;
  localparam logic [15:0] MIN_FRAME   = MIN_FRAME32[15:0];
  localparam logic [15:0] ETYPE_VLAN  = 16'h8100;
  localparam logic [15:0] ETYPE_IPV4  = 16'h0800;
  localparam logic [15:0] ETYPE_IPV6  = 16'h86DD;
  localparam logic [7:0]  PROTO_TCP   = 8'd6;
  localparam logic [7:0]  PROTO_UDP   = 8'd17;
  // an L2 header (untagged; tagged) and the fixed IP header (IPv4; IPv6), summed: the
  // shortest lengths the verdict's "fixed header" compares test
  localparam int L2_BYTES = 14;
  localparam logic [15:0] FIXED_4    = 16'(L2_BYTES + 20);
  localparam logic [15:0] FIXED_6    = 16'(L2_BYTES + 40);
  localparam logic [15:0] FIXED_4_VL = 16'(L2_BYTES + TAG_BYTES + 20);
  localparam logic [15:0] FIXED_6_VL = 16'(L2_BYTES + TAG_BYTES + 40);

  if (DataWidth < 64 || DataWidth > 512 || (DataWidth & (DataWidth - 1)) != 0) begin : g_bad_width
    $error("nicsched_parser %m: DataWidth must be a power of two in 64..512");
  end
  if (MinFrameBytes < 14 || MinFrameBytes > 60) begin : g_bad_min
    $error("nicsched_parser %m: MinFrameBytes must be in 14..60 (an Ethernet header at least)");
  end

  // ---------------------------------------------------------------------------------
  // Stage 1: the beat, the frame's header bytes and running length
  // ---------------------------------------------------------------------------------
  logic                   s1_valid_q;
  logic [DataWidth-1:0]   s1_data_q;
  logic [BPB-1:0]         s1_keep_q;
  logic [KEEP_CNT_W-1:0]  s1_cnt_q;     // the beat's byte count (keep_cnt), carried beside it
  logic                   s1_last_q;
  logic [UserW-1:0]       s1_user_q;
  logic [HDR_BYTES*8-1:0] hdr_q;        // byte i of the frame at [i*8 +: 8]
  logic                   has_vlan_q;   // bytes 12-13 are 0x8100
  // header tests, [0] untagged, [1] tagged positions
  logic [1:0]             et_v4_q, et_v6_q;     // ethertype
  logic [1:0]             fz_q;                 // IPv4 fragment offset 0
  logic [1:0]             nh_udp_q, nh_tcp_q;   // IPv6 next header
  logic [1:0]             pr_udp_q, pr_tcp_q;   // IPv4 protocol
  logic [BEAT_W-1:0]      beat_q;       // index of the next beat in the frame (saturating)
  logic [15:0]            len_q;        // bytes so far in the frame that stage 1 last took
  logic                   s2_valid_q;
  logic                   s1_advance;   // stage 1 hands its beat to stage 2
  logic                   in_fire;

  assign s1_advance    = s1_valid_q && (!s2_valid_q || m_axis_tready);
  assign s_axis_tready = !s1_valid_q || s1_advance;
  assign in_fire       = s_axis_tvalid && s_axis_tready;

  logic [BPB-1:0]        keep_end;     // one-hot: the last lane with tkeep set
  logic [31:0]           keep_cnt32;
  logic [KEEP_CNT_W-1:0] keep_cnt;
  logic [15:0]           len_base;
  logic [16:0]           len_sum;
  logic [15:0]           len_d;
  logic [BEAT_W-1:0]     beat_d;
  always_comb begin
    // Bytes in the beat. tkeep is contiguous (asserted below), so the count is the index of
    // its last set lane plus one: a one-hot encoder, shallower than a popcount.
    keep_end   = s_axis_tkeep & ~{1'b0, s_axis_tkeep[BPB-1:1]};
    keep_cnt32 = '0;
    for (int i = 0; i < BPB; i++) begin
      if (keep_end[i]) keep_cnt32 = keep_cnt32 | (i + 1);
    end
    keep_cnt = keep_cnt32[KEEP_CNT_W-1:0];
    len_base = (beat_q == '0) ? 16'd0 : len_q;
    len_sum  = {1'b0, len_base} + {{(17 - KEEP_CNT_W){1'b0}}, keep_cnt};
    len_d    = len_sum[16] ? 16'hFFFF : len_sum[15:0];
    if (s_axis_tlast)                      beat_d = '0;
    else if (beat_q == HDR_BEATS[BEAT_W-1:0]) beat_d = beat_q;
    else                                   beat_d = beat_q + 1'b1;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      s1_valid_q <= 1'b0;
      beat_q     <= '0;
      len_q      <= '0;
    end else begin
      if (in_fire) begin
        s1_valid_q <= 1'b1;
        beat_q     <= beat_d;
        len_q      <= len_d;
      end else if (s1_advance) begin
        s1_valid_q <= 1'b0;
      end
    end
  end

  logic [31:0] beat_idx;
  logic [2*16-1:0] in_et, in_fr;  // [v*16 +: 16]: v 0 untagged, 1 tagged position
  logic [2*8-1:0]  in_pr;
  always_comb begin
    beat_idx = {{(32 - BEAT_W){1'b0}}, beat_q};
    for (int v = 0; v < 2; v++) begin
      in_et[v*16 +: 16] = {s_axis_tdata[((POS_ET + v*TAG_BYTES) % BPB)*8 +: 8],
                           s_axis_tdata[((POS_ET + v*TAG_BYTES + 1) % BPB)*8 +: 8]};
      in_fr[v*16 +: 16] = {s_axis_tdata[((POS_FR + v*TAG_BYTES) % BPB)*8 +: 8],
                           s_axis_tdata[((POS_FR + v*TAG_BYTES + 1) % BPB)*8 +: 8]};
      in_pr[v*8 +: 8]   = s_axis_tdata[((POS_PR + v*TAG_BYTES) % BPB)*8 +: 8];
    end
  end

  // Data registers without reset (qualified by the valid bits).
  always_ff @(posedge clk_i) begin
    if (in_fire) begin
      s1_data_q <= s_axis_tdata;
      s1_keep_q <= s_axis_tkeep;
      s1_cnt_q  <= keep_cnt;
      s1_last_q <= s_axis_tlast;
      s1_user_q <= s_axis_tuser;
      if (beat_idx == POS_ET / BPB) begin
        has_vlan_q <= in_et[15:0] == ETYPE_VLAN;
      end
      for (int v = 0; v < 2; v++) begin
        if (beat_idx == (POS_ET + v*TAG_BYTES) / BPB) begin
          et_v4_q[v] <= in_et[v*16 +: 16] == ETYPE_IPV4;
          et_v6_q[v] <= in_et[v*16 +: 16] == ETYPE_IPV6;
        end
        if (beat_idx == (POS_FR + v*TAG_BYTES) / BPB) begin
          fz_q[v]     <= in_fr[v*16 +: 13] == 13'd0;
          nh_udp_q[v] <= in_fr[v*16 + 8 +: 8] == PROTO_UDP;
          nh_tcp_q[v] <= in_fr[v*16 + 8 +: 8] == PROTO_TCP;
        end
        if (beat_idx == (POS_PR + v*TAG_BYTES) / BPB) begin
          pr_udp_q[v] <= in_pr[v*8 +: 8] == PROTO_UDP;
          pr_tcp_q[v] <= in_pr[v*8 +: 8] == PROTO_TCP;
        end
      end
      for (int i = 0; i < HDR_BYTES; i++) begin
        if (beat_idx == i / BPB) hdr_q[i*8 +: 8] <= s_axis_tdata[(i % BPB)*8 +: 8];
      end
    end
  end

  // The contract: tkeep is contiguous from bit 0 (the length and byte positions rely on it).
  `NICSCHED_ASSERT(TkeepContiguous_A, !in_fire || (s_axis_tkeep & (s_axis_tkeep + 1'b1)) == '0, clk_i, 1'b1)

  // ---------------------------------------------------------------------------------
  // Field extraction and verdict from stage 1 (used when stage 1 holds a tlast beat:
  // hdr_q and len_q then describe exactly that frame)
  // ---------------------------------------------------------------------------------
  logic [11:0]            vlan_id;
  logic [5:0]             l2_len;        // 14 or 18
  logic [L3_BYTES*8-1:0]  l3;            // 64 bytes from the IP header on
  logic                   is_ipv4, is_ipv6;
  logic [3:0]             ip_ver, ihl;
  logic [5:0]             ip4_hdr_len;   // IHL * 4
  logic [15:0]            ip4_total;
  logic                   l4_udp, l4_tcp;
  logic [7:0]             ip4_proto;
  logic [5:0]             ip4_dscp, ip6_dscp;
  logic [15:0]            ip6_payload;
  logic [7:0]             ip6_nh;
  logic [31:0]            l4_word;       // first four L4 bytes, byte 0 in [7:0]
  logic                   l4_ports;      // ports are present
  logic [7:0]             proto;
  logic                   l4_short;      // the IP length leaves no room for the L4 header
  logic [17:0]            ip_end;        // L2 header + IP length in bytes
  logic                   truncated;
  // the verdict's conditions, each from flops (in the order the verdict tests them)
  logic                   c_runt, c_vlan_short, c_ip, c_fixed_short, c_bad_ihl;
  logic                   vlan_ok, ip_ok;  // the verdict keeps the frame (an IP frame)
  nicsched_pkg::drop_reason_e drop;
  logic                   to_default;

  always_comb begin
    vlan_id  = has_vlan_q ? {hdr_q[14*8 +: 4], hdr_q[15*8 +: 8]} : 12'd0;
    l2_len   = has_vlan_q ? 6'(L2_BYTES + TAG_BYTES) : 6'(L2_BYTES);
    for (int k = 0; k < L3_BYTES; k++) begin
      l3[k*8 +: 8] = has_vlan_q ? hdr_q[(L2_BYTES + TAG_BYTES + k)*8 +: 8] : hdr_q[(L2_BYTES + k)*8 +: 8];
    end
    is_ipv4 = et_v4_q[has_vlan_q];
    is_ipv6 = et_v6_q[has_vlan_q];

    ip_ver       = l3[4 +: 4];
    ihl          = l3[0 +: 4];
    ip4_hdr_len  = {ihl, 2'b00};
    ip4_dscp     = l3[1*8 + 2 +: 6];                 // TOS[7:2]
    ip4_total    = {l3[2*8 +: 8], l3[3*8 +: 8]};
    ip4_proto    = l3[9*8 +: 8];
    ip6_dscp     = {l3[0 +: 4], l3[1*8 + 6 +: 2]};   // traffic class[7:2]
    ip6_payload  = {l3[4*8 +: 8], l3[5*8 +: 8]};
    ip6_nh       = l3[6*8 +: 8];

    proto = is_ipv6 ? ip6_nh : ip4_proto;
    if (is_ipv6) begin
      l4_udp = nh_udp_q[has_vlan_q];
      l4_tcp = nh_tcp_q[has_vlan_q];
    end else begin
      l4_udp = pr_udp_q[has_vlan_q];
      l4_tcp = pr_tcp_q[has_vlan_q];
    end
    l4_ports = (l4_udp || l4_tcp) && (is_ipv6 || fz_q[has_vlan_q]);

    l4_word = l3[40*8 +: 32];
    if (!is_ipv6) begin
      l4_word = '0;
      for (int h = 5; h < 16; h++) begin
        if ({28'd0, ihl} == h) l4_word = l3[h*32 +: 32];
      end
    end

    // shorter than the L2 header and the fixed IP header (20 / 40 bytes): four compares of
    // the length with constants, selected by the tag and the IP version (not the sum of the
    // selected header lengths, then a compare: a carry chain in front of the verdict)
    c_fixed_short = has_vlan_q ? (is_ipv6 ? len_q < FIXED_6_VL : len_q < FIXED_4_VL)
                               : (is_ipv6 ? len_q < FIXED_6 : len_q < FIXED_4);
    // The L4 header's minimum (UDP 8, TCP 20 bytes) against the IP length: both compares
    // made from the fields, the protocol selecting the result (a selected minimum before
    // the add was the ingress's slowest path: protocol -> minimum -> add -> compare).
    if (is_ipv6) begin
      ip_end    = {12'd0, l2_len} + 18'd40 + {2'd0, ip6_payload};
      l4_short  = l4_udp ? (ip6_payload < 16'd8) : (l4_tcp && ip6_payload < 16'd20);
      truncated = (ip_end > {2'd0, len_q}) || l4_short;
    end else begin
      ip_end    = {12'd0, l2_len} + {2'd0, ip4_total};
      l4_short  = l4_udp ? ({10'd0, ip4_hdr_len} + 16'd8 > ip4_total)
                         : ({10'd0, ip4_hdr_len} + 16'd20 > ip4_total);
      truncated = (ip4_total < {10'd0, ip4_hdr_len}) || (ip_end > {2'd0, len_q}) ||
                  (l4_ports && l4_short);
    end

    c_runt       = len_q < MIN_FRAME;
    c_vlan_short = has_vlan_q && len_q < 16'(L2_BYTES + TAG_BYTES);
    c_ip         = is_ipv4 || is_ipv6;
    c_bad_ihl    = (is_ipv4 && (ip_ver != 4'd4 || ihl < 4'd5)) || (is_ipv6 && ip_ver != 4'd6);
    to_default = 1'b0;
    if (c_runt) begin
      drop = nicsched_pkg::DROP_RUNT;
    end else if (c_vlan_short) begin
      drop = nicsched_pkg::DROP_TRUNCATED;
    end else if (!c_ip) begin
      drop       = bad_to_default_i ? nicsched_pkg::DROP_NONE : nicsched_pkg::DROP_UNKNOWN_ETYPE;
      to_default = bad_to_default_i;
    end else if (c_fixed_short) begin
      drop = nicsched_pkg::DROP_TRUNCATED;
    end else if (c_bad_ihl) begin
      drop = nicsched_pkg::DROP_BAD_IHL;
    end else if (truncated) begin
      drop = nicsched_pkg::DROP_TRUNCATED;
    end else begin
      drop = nicsched_pkg::DROP_NONE;
    end
    // "kept" and "kept, an IP frame" as one AND of the conditions, not a compare of the
    // priority chain's reason (which puts every condition's test in series)
    ip_ok   = !c_runt && !c_vlan_short && c_ip && !c_fixed_short && !c_bad_ihl && !truncated;
    vlan_ok = !c_runt && !c_vlan_short && (c_ip ? (!c_fixed_short && !c_bad_ihl && !truncated)
                                               : bad_to_default_i);
  end
  `NICSCHED_ASSERT(VlanOkIsVerdict_A, vlan_ok == (drop == nicsched_pkg::DROP_NONE), clk_i, 1'b1)
  `NICSCHED_ASSERT(IpOkIsVerdict_A, ip_ok == ((drop == nicsched_pkg::DROP_NONE) && !to_default), clk_i, 1'b1)

  // ---------------------------------------------------------------------------------
  // Stage 2: the beat and, on tlast, the fields
  // ---------------------------------------------------------------------------------
  logic [DataWidth-1:0]       s2_data_q;
  logic [BPB-1:0]             s2_keep_q;
  logic [KEEP_CNT_W-1:0]      s2_cnt_q;
  logic                       s2_last_q;
  logic [UserW-1:0]           s2_user_q;
  logic [15:0]                s2_len_q, s2_sport_q, s2_dport_q;
  logic [11:0]                s2_vlan_q;
  logic [5:0]                 s2_dscp_q;
  logic [7:0]                 s2_proto_q;
  nicsched_pkg::drop_reason_e s2_drop_q;
  logic                       s2_default_q;
  logic                       s2_vlan_ok_q;  // tlast beat of a kept frame: VLAN ID valid
  logic                       s2_ip_ok_q;    // ... and an IP frame: DSCP/protocol/ports valid
  logic                       out_fire;

  assign out_fire = s2_valid_q && m_axis_tready;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      s2_valid_q <= 1'b0;
    end else if (s1_advance) begin
      s2_valid_q <= 1'b1;
    end else if (out_fire) begin
      s2_valid_q <= 1'b0;
    end
  end

  always_ff @(posedge clk_i) begin
    if (s1_advance) begin
      s2_data_q    <= s1_data_q;
      s2_keep_q    <= s1_keep_q;
      s2_cnt_q     <= s1_cnt_q;
      s2_last_q    <= s1_last_q;
      s2_user_q    <= s1_user_q;
      s2_drop_q    <= nicsched_pkg::DROP_NONE;
      s2_default_q <= 1'b0;
      s2_vlan_ok_q <= 1'b0;
      s2_ip_ok_q   <= 1'b0;
      if (s1_last_q) begin
        // Raw fields; the output gates them with the verdict (kept off the verdict's path).
        s2_drop_q    <= drop;
        s2_default_q <= to_default;
        s2_vlan_ok_q <= vlan_ok;
        s2_ip_ok_q   <= ip_ok;
      end
      s2_len_q   <= len_q;
      s2_vlan_q  <= vlan_id;
      s2_dscp_q  <= is_ipv6 ? ip6_dscp : ip4_dscp;
      s2_proto_q <= proto;
      s2_sport_q <= l4_ports ? {l4_word[7:0], l4_word[15:8]} : 16'd0;
      s2_dport_q <= l4_ports ? {l4_word[23:16], l4_word[31:24]} : 16'd0;
    end
  end

  assign m_axis_tdata    = s2_data_q;
  assign m_axis_tkeep    = s2_keep_q;
  assign m_axis_tcount   = s2_cnt_q;
  assign m_axis_tvalid   = s2_valid_q;
  assign m_axis_tlast    = s2_last_q;
  assign m_axis_tuser    = s2_user_q;
  assign m_prs_len_o     = s2_last_q ? s2_len_q : 16'd0;
  assign m_prs_vlan_o    = s2_vlan_ok_q ? s2_vlan_q : 12'd0;
  assign m_prs_dscp_o    = s2_ip_ok_q ? s2_dscp_q : 6'd0;
  assign m_prs_proto_o   = s2_ip_ok_q ? s2_proto_q : 8'd0;
  assign m_prs_sport_o   = s2_ip_ok_q ? s2_sport_q : 16'd0;
  assign m_prs_dport_o   = s2_ip_ok_q ? s2_dport_q : 16'd0;
  assign m_prs_drop_o    = s2_drop_q;
  assign m_prs_default_o = s2_default_q;

  logic frame_out;
  assign frame_out           = out_fire && s2_last_q;
  assign cnt_frames_o        = frame_out;
  assign cnt_runt_o          = frame_out && (s2_drop_q == nicsched_pkg::DROP_RUNT);
  assign cnt_truncated_o     = frame_out && (s2_drop_q == nicsched_pkg::DROP_TRUNCATED);
  assign cnt_bad_ihl_o       = frame_out && (s2_drop_q == nicsched_pkg::DROP_BAD_IHL);
  assign cnt_unknown_etype_o = frame_out && ((s2_drop_q == nicsched_pkg::DROP_UNKNOWN_ETYPE) ||
                                             s2_default_q);

endmodule

`default_nettype wire
