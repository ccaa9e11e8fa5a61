// Keeps a test's FST trace when the test fails (and says where it is), removes it when
// the test passes.
#include <filesystem>
#include <iostream>
#include <vector>

#define CATCH_CONFIG_EXTERNAL_INTERFACES
#include <catch2/catch.hpp>

namespace nicsched::test {

namespace {
std::vector<std::filesystem::path>& traces() {
  static std::vector<std::filesystem::path> t;
  return t;
}
}  // namespace

void register_trace(const std::filesystem::path& path) { traces().push_back(path); }

class TraceListener : public Catch::TestEventListenerBase {
 public:
  using Catch::TestEventListenerBase::TestEventListenerBase;
  void testCaseEnded(const Catch::TestCaseStats& stats) override {
    const bool failed = stats.totals.assertions.failed > 0;
    for (const auto& p : traces()) {
      if (failed) {
        std::cerr << "waveform of the failing test: " << std::filesystem::absolute(p).string() << "\n";
      } else {
        std::error_code ec;
        std::filesystem::remove(p, ec);
      }
    }
    traces().clear();
  }
};

}  // namespace nicsched::test

using nicsched::test::TraceListener;
CATCH_REGISTER_LISTENER(TraceListener)
