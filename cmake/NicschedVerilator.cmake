# Verilator settings shared by every model: one thread per model, -O3 (see shared/TOOLCHAIN.md);
# the repository root on the include path: RTL includes are written from it (`include "rtl/nicsched_assert.svh").
set(NICSCHED_VERILATOR_ARGS -O3 --x-assign fast --x-initial fast -I${PROJECT_SOURCE_DIR})
