// Runs the nicctl binary (NICCTL_EXE) the way an operator would, capturing stdout,
// stderr and the exit code; under timeout(1), so a hang fails the test instead of
// blocking it.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <sstream>
#include <string>

namespace nicsched::test {

struct Result {
  int rc = -1;
  std::string out;
  std::string err;
};

// Runs nicctl with `args` under `timeout` (a hang fails the test instead of blocking it).
inline Result nicctl(const std::string& target, const std::string& args) {
  static int n = 0;  // distinct stderr files
  const std::filesystem::path err_file = std::filesystem::temp_directory_path() / fmt::format("nicctl-test-{}-{}.err", ::getpid(), n++);
  const std::string cmd = fmt::format("timeout 120 {} --target '{}' {} 2>'{}'", NICCTL_EXE, target, args, err_file.string());
  Result r;
  FILE* p = ::popen(cmd.c_str(), "r");
  REQUIRE(p);
  char buf[4096];
  std::size_t got = 0;
  while ((got = std::fread(buf, 1, sizeof(buf), p)) > 0) r.out.append(buf, got);
  const int status = ::pclose(p);
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream in(err_file);
  std::stringstream ss;
  ss << in.rdbuf();
  r.err = ss.str();
  std::filesystem::remove(err_file);
  INFO("nicctl " << args << "\nstdout: " << r.out << "\nstderr: " << r.err);
  CHECK(r.rc != 124);  // timeout(1) killed it: nicctl hung
  return r;
}

}  // namespace nicsched::test
