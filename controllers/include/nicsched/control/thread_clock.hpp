// The calling thread's CPU time, for timing controller decisions (eval, serve,
// bench_agent): a decision's wall time minus its thread CPU time is the time the thread
// was not running (preempted), which says whether a slow decision was slow work or a
// busy machine (docs/agent.md, "Figures").
#pragma once

#include <time.h>

namespace nicsched::control {

// CPU time the calling thread has used, in microseconds (CLOCK_THREAD_CPUTIME_ID).
inline double thread_cpu_us() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e6 + static_cast<double>(ts.tv_nsec) * 1e-3;
}

}  // namespace nicsched::control
