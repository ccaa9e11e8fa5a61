// nicsched_pkg: hand-written types shared by the datapath blocks (register types are
// generated into nicsched_regs_pkg from rtl/regmap/nicsched.yaml).
`default_nettype none

package nicsched_pkg;
  /* verilator lint_off UNUSEDPARAM */  // not every user of the package needs every constant

  // Traffic classes; queue q = tenant * NUM_CLASSES + class.
  localparam int NUM_CLASSES = 2;
  localparam logic CLASS_CONTROL = 1'b0;
  localparam logic CLASS_BULK    = 1'b1;

  // Strict-priority levels (T_CTRL.PRIORITY is 2 bits; 0 is highest).
  localparam int PRIO_LEVELS = 4;

  // Widest tenant index the register map can carry (6 bits: up to 64 tenants).
  localparam int TENANT_W = 6;

  // Frame lengths (bytes, without FCS). From the MAC (RX) a frame shorter than the Ethernet
  // minimum is a runt; from the host (TX) any frame holding an Ethernet header is taken and
  // padded with zeros to the minimum before it is queued, as a MAC would pad it.
  localparam int MIN_WIRE_FRAME = 60;  // Ethernet minimum on the wire; RX runt threshold
  localparam int MIN_HOST_FRAME = 14;  // TX runt threshold: an Ethernet header

  typedef enum logic [1:0] {
    CRYPTO_NONE    = 2'd0,
    CRYPTO_ENCRYPT = 2'd1,
    CRYPTO_DECRYPT = 2'd2
  } crypto_op_e;

  // Drop reasons reported by the parser/ingress with the tlast beat.
  typedef enum logic [2:0] {
    DROP_NONE          = 3'd0,
    DROP_RUNT          = 3'd1,
    DROP_TRUNCATED     = 3'd2,
    DROP_BAD_IHL       = 3'd3,
    DROP_UNKNOWN_ETYPE = 3'd4,
    DROP_SPOOF         = 3'd5   // TX, bound source: headers named another tenant, SRC_BIND.DROP_SPOOF
  } drop_reason_e;

  // TX source (s_axis_tx_tuser): a host queue, H2C channel or VF, named by the trusted host
  // side (docs/trust.md). 6 bits: the register map's NumSources max (64).
  localparam int SOURCE_W = 6;

  // A TX frame's source and its binding, looked up when the frame's tlast beat enters the
  // ingress and carried with it to the classifier.
  typedef struct packed {
    logic [SOURCE_W-1:0]  source;      // the source number, for its spoof counter
    logic                 bound;       // TX_IDENTITY.MODE = SOURCE and SRC_BIND.BOUND
    logic [TENANT_W-1:0]  tenant;      // SRC_BIND.TENANT
    logic                 drop_spoof;  // SRC_BIND.DROP_SPOOF
  } src_bind_t;

  // Classification result. The ingress block (parser + classifier) carries it on tuser
  // and it is valid on the tlast beat of each frame (the frame's length is only known
  // then). The queue manager stores beats as they arrive and links or frees the frame
  // at tlast according to this word.
  typedef struct packed {
    drop_reason_e         drop;      // != DROP_NONE: free the frame, count the reason
    crypto_op_e           crypto_op; // what the crypto stage must do to it
    logic                 cls;       // CLASS_CONTROL / CLASS_BULK
    logic [TENANT_W-1:0]  tenant;    // tenant index
  } ingress_meta_t;

  // tuser on m_axis_tx / m_axis_rx (valid on every beat of a frame): who it belonged to.
  typedef struct packed {
    crypto_op_e           crypto_op;
    logic                 cls;
    logic [TENANT_W-1:0]  tenant;
  } egress_user_t;

  // Widths of the two structs, for flattened ports ($bits of a package type is not
  // accepted by every tool).
  localparam int INGRESS_META_W = 3 + 2 + 1 + TENANT_W;
  localparam int EGRESS_USER_W  = 2 + 1 + TENANT_W;
  localparam int SRC_BIND_W     = SOURCE_W + 1 + TENANT_W + 1;
  /* verilator lint_on UNUSEDPARAM */
endpackage

`default_nettype wire
