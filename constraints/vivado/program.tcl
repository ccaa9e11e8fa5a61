# Programs a bitstream over JTAG with the Vivado hardware manager.
# vivado -mode batch -source program.tcl -tclargs BITFILE PART_PREFIX [HW_SERVER_URL]
lassign $argv bitfile part_prefix server
if {$part_prefix eq ""} {
  puts "usage: vivado -mode batch -source program.tcl -tclargs BITFILE PART_PREFIX \[HW_SERVER_URL\]"
  exit 2
}
if {$server eq ""} {
  set server localhost:3121
}
if {[catch {
  open_hw_manager
  connect_hw_server -url $server
  set device ""
  foreach target [get_hw_targets] {
    current_hw_target $target
    open_hw_target
    set found [get_hw_devices -quiet ${part_prefix}*]
    if {[llength $found] > 0} {
      set device [lindex $found 0]
      break
    }
    close_hw_target
  }
  if {$device eq ""} {
    error "no $part_prefix device on any JTAG target of $server"
  }
  current_hw_device $device
  set_property PROGRAM.FILE $bitfile $device
  set ltx [file rootname $bitfile].ltx
  if {[file exists $ltx]} {
    set_property PROBES.FILE $ltx $device
  }
  program_hw_devices $device
  refresh_hw_device $device
} err]} {
  puts "nicsched: ERROR: programming failed: $err"
  exit 1
}
puts "nicsched: programmed $device with $bitfile"
exit 0
