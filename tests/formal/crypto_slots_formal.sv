// crypto_slots_formal: formal wrapper of nicsched_crypto_slots (small parameters) stating
// the slot-accounting properties; proven by k-induction (constraints/yosys/formal.sh,
// proof "crypto_slots").
// Environment: a direction claims only when can_claim_o allowed its tenant in the clock
// before (the contract of the port: the paths execute a registered grant); quotas are constant after reset (a COMMIT that lowers a quota below what
// a tenant holds is allowed to leave it above until it releases); everything else free.
// Properties:
//   - a tenant never holds more slots than its quota
//   - slots are never lost or created: claims - releases (counted here, outside the
//     block) == slots held == sum of the per-tenant counts, <= CryptoSlots
//   - busy (in hold) slots of a tenant <= the slots it holds
//   - a completion is only offered while a slot is held in that direction
`default_nettype none

module crypto_slots_formal #(
  parameter int NumTenants  = 2,
  parameter int CryptoSlots = 3,
  parameter int LenW        = 4,
  parameter int TagW        = 2,
  parameter int TenantW     = (NumTenants > 1) ? $clog2(NumTenants) : 1,
  parameter int BusyW       = $clog2(CryptoSlots + 1)
) (
  input wire logic                    clk_i,
  input wire logic                    rst_ni,
  input wire logic [7:0]              bpc_i,
  input wire logic [15:0]             latency_i,
  input wire logic [NumTenants*8-1:0] quota_i,
  input wire logic [2*NumTenants-1:0] want_i,   // free: the turn may pass at any clock
  input wire logic [1:0]              claim_i,
  input wire logic [2*TenantW-1:0]    claim_tenant_i,
  input wire logic [2*LenW-1:0]       claim_len_i,
  input wire logic [2*TagW-1:0]       claim_tag_i,
  input wire logic [1:0]              done_ready_i
);
  logic [2*NumTenants-1:0]     can_claim;
  logic [1:0]                  done_valid;
  logic [2*TagW-1:0]           done_tag;
  logic [NumTenants*BusyW-1:0] busy_tx, busy_rx;
  logic [NumTenants*8-1:0]     held;
  logic [7:0]                  held_total;

  nicsched_crypto_slots #(
    .NumTenants(NumTenants), .CryptoSlots(CryptoSlots), .LenW(LenW), .TagW(TagW)
  ) u_dut (
    .clk_i, .rst_ni, .bpc_i, .latency_i, .quota_i,
    .can_claim_o(can_claim), .want_i, .claim_i, .claim_tenant_i, .claim_len_i, .claim_tag_i,
    .done_valid_o(done_valid), .done_tag_o(done_tag), .done_ready_i,
    .busy_tx_o(busy_tx), .busy_rx_o(busy_rx), .held_o(held), .held_total_o(held_total)
  );

  // Quotas: captured in the first clock after reset, constant afterwards.
  logic                    started_q;
  logic [2*NumTenants-1:0] can_claim_q;  // the permission of the clock before
  logic [NumTenants*8-1:0] quota_q;
  // Slots claimed and not yet released, counted from the ports alone.
  logic [7:0]              outstanding_q, outstanding_d;
  logic [1:0]              released;
  always_comb begin
    released      = done_valid & done_ready_i;
    outstanding_d = outstanding_q + {7'd0, claim_i[0]} + {7'd0, claim_i[1]}
                    - {7'd0, released[0]} - {7'd0, released[1]};
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      started_q     <= 1'b0;
      can_claim_q   <= '0;
      quota_q       <= '0;
      outstanding_q <= '0;
    end else begin
      started_q     <= 1'b1;
      can_claim_q   <= can_claim;
      quota_q       <= quota_i;
      outstanding_q <= outstanding_d;
    end
  end

  logic [7:0] held_sum;
  always_comb begin
    for (int d = 0; d < 2; d++) begin
      if (claim_i[d]) begin
        assume (can_claim_q[d*NumTenants + {{(32-TenantW){1'b0}}, claim_tenant_i[d*TenantW +: TenantW]}]);
      end
    end
    if (started_q) assume (quota_i == quota_q);
    held_sum = '0;
    for (int t = 0; t < NumTenants; t++) begin
      held_sum = held_sum + held[t*8 +: 8];
    end
    if (rst_ni) begin
      assert (outstanding_q == held_total);
      assert (held_sum == held_total);
      assert (held_total <= CryptoSlots);
      for (int t = 0; t < NumTenants; t++) begin
        if (started_q) assert (held[t*8 +: 8] <= quota_i[t*8 +: 8]);
        assert ({{(8-BusyW){1'b0}}, busy_tx[t*BusyW +: BusyW]} +
                {{(8-BusyW){1'b0}}, busy_rx[t*BusyW +: BusyW]} <= held[t*8 +: 8]);
      end
      if (done_valid != 2'b00) assert (held_total != 8'd0);
    end
  end
endmodule

`default_nettype wire
