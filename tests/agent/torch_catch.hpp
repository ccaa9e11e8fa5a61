// Catch2 for a test that uses torch: include this instead of <catch2/catch.hpp>, before
// anything else. Torch's logging header defines a glog-style CHECK (it aborts, and Catch
// does not count it) that would silently replace Catch's; torch is included first, its
// CHECK undefined, then Catch defines its own (torch's include guards keep it out after).
#pragma once

#include <torch/script.h>
#undef CHECK
#include <catch2/catch.hpp>
