# Verilator settings shared by every model: one thread per model, -O3 (see shared/TOOLCHAIN.md).
set(NICSCHED_VERILATOR_ARGS -O3 --x-assign fast --x-initial fast)
