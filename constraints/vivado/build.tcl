# Vivado non-project flow for one board: create the IP, read RTL and XDC, synthesise,
# place, route, report, write the bitstream. Exits non-zero on any error and when timing
# is not met (setup WNS < 0 or hold WHS < 0).
#
# vivado -mode batch -source build.tcl -tclargs BOARD OUT_DIR SOURCES_FILE NUM_TENANTS JOBS
#   SOURCES_FILE: the RTL in compile order, one path a line (written by build.sh from
#   the same rules as rtl/CMakeLists.txt)

set script_dir [file dirname [file normalize [info script]]]
set root [file normalize "$script_dir/../.."]
lassign $argv board out_dir sources_file num_tenants jobs
if {$jobs eq ""} {
  puts "usage: vivado -mode batch -source build.tcl -tclargs BOARD OUT_DIR SOURCES_FILE NUM_TENANTS JOBS"
  exit 2
}
set max_frame 9600

source "$script_dir/boards.tcl"
source "$script_dir/ip.tcl"

proc fail {msg} {
  puts "nicsched: ERROR: $msg"
  exit 1
}

if {[catch {
  set settings [nicsched_board $board]
  set part [dict get $settings part]
  set top nicsched_board
  file mkdir $out_dir
  set_param general.maxThreads $jobs
  create_project -in_memory -part $part
  set_property target_language Verilog [current_project]

  # IP first (out-of-context synthesis of each core).
  nicsched_create_ip $settings "$out_dir/ip" $max_frame

  # RTL: the core, the board shell, the board top (its pins and clocking chosen by the
  # NICSCHED_BOARD_<BOARD> define).
  set fh [open $sources_file r]
  set rtl [split [string trim [read $fh]] "\n"]
  close $fh
  read_verilog -sv $rtl
  set_property include_dirs [list "$root"] [current_fileset]
  read_xdc "$root/constraints/$board/$board.xdc"

  synth_design -top $top -part $part -generic NumTenants=$num_tenants \
    -verilog_define NICSCHED_BOARD_[string toupper $board]
  source "$script_dir/cdc.tcl"
  write_checkpoint -force "$out_dir/post_synth.dcp"
  report_utilization -file "$out_dir/utilization_synth.rpt"

  opt_design
  place_design
  phys_opt_design
  route_design
  write_checkpoint -force "$out_dir/post_route.dcp"

  report_timing_summary -max_paths 20 -report_unconstrained -file "$out_dir/timing_summary.rpt"
  report_utilization -file "$out_dir/utilization.rpt"
  report_utilization -hierarchical -file "$out_dir/utilization_hier.rpt"
  report_clock_interaction -file "$out_dir/clock_interaction.rpt"
  report_cdc -file "$out_dir/cdc.rpt"
  report_drc -file "$out_dir/drc.rpt"
} err]} {
  fail $err
}

set wns [get_property SLACK [get_timing_paths -max_paths 1 -nworst 1 -setup]]
set whs [get_property SLACK [get_timing_paths -max_paths 1 -nworst 1 -hold]]
puts "nicsched: $board timing: WNS $wns ns, WHS $whs ns (reports in $out_dir)"
if {$wns eq "" || $whs eq ""} {
  fail "no timing paths found: is the design constrained? (see $out_dir/timing_summary.rpt)"
}
if {$wns < 0 || $whs < 0} {
  fail "timing not met on $board: WNS $wns ns, WHS $whs ns; see $out_dir/timing_summary.rpt"
}

if {[catch {
  write_bitstream -force "$out_dir/nicsched_$board.bit"
} err]} {
  fail $err
}
puts "nicsched: bitstream $out_dir/nicsched_$board.bit"
exit 0
