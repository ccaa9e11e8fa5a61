// Test support for the nicagent end-to-end tests: a child process with its output in
// files, run to its end in a fresh folder, and polling a file's text.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace nicsched::test {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

// A child process with stdout and stderr redirected to files.
class Child {
 public:
  Child(std::vector<std::string> args, const fs::path& out, const fs::path& err) {
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    const int rc = ::posix_spawn(&pid_, args[0].c_str(), &fa, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    REQUIRE(rc == 0);
  }
  ~Child() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  void signal(int sig) const { REQUIRE(::kill(pid_, sig) == 0); }
  // Waits up to `limit` for the child to exit; its exit code, or -1 (killed by a
  // signal) / -2 (still running: then it is killed).
  int wait(std::chrono::seconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    int status = 0;
    while (std::chrono::steady_clock::now() < deadline) {
      const pid_t r = ::waitpid(pid_, &status, WNOHANG);
      if (r == pid_) {
        pid_ = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      }
      std::this_thread::sleep_for(50ms);
    }
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
    return -2;
  }

 private:
  pid_t pid_ = -1;
};

inline std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Polls `pred` on the file's text for up to `limit`.
inline bool wait_for(const fs::path& file, const std::function<bool(const std::string&)>& pred, std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (pred(slurp(file))) return true;
    std::this_thread::sleep_for(100ms);
  }
  return pred(slurp(file));
}

// A fresh, empty folder <tmp>/<prefix>-<name>-<pid>.
inline fs::path fresh_dir(const std::string& prefix, const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / (prefix + "-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// How a child ended: its exit code (as Child::wait) and what it wrote to stderr.
struct Finished {
  int rc;
  std::string log;
};

// Runs `args` to its end (killed after `limit`), stdout and stderr in dir/<tag>.out and .err.
inline Finished run_to_end(const std::vector<std::string>& args, const fs::path& dir, const std::string& tag,
                           std::chrono::seconds limit) {
  Child c(args, dir / (tag + ".out"), dir / (tag + ".err"));
  const int rc = c.wait(limit);
  return {rc, slurp(dir / (tag + ".err"))};
}

inline std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace nicsched::test
