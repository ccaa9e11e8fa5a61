// fileio.*: every loader's file reader refuses what is not a small regular file before reading
// it, and the atomic writer leaves the old or the new file, never a part.
#include <catch2/catch.hpp>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "nicsched/fileio/file.hpp"

namespace fs = std::filesystem;
using nicsched::fileio::FileError;
using nicsched::fileio::read_text_file;
using nicsched::fileio::write_file_atomically;
using Catch::Contains;

namespace {

// A fresh, empty folder under the temp directory, removed at the end of the test.
struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() /
           ("nicsched_fileio_" + std::to_string(::getpid()) + "_" +
            std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string error_of(const fs::path& p, std::uint64_t limit = nicsched::fileio::kMaxTextFileBytes) {
  try {
    (void)read_text_file(p, "the test file", limit);
  } catch (const FileError& e) {
    CHECK(e.file() == p.string());
    return e.what();
  }
  FAIL("read_text_file accepted " << p);
  return {};
}

}  // namespace

TEST_CASE("a regular file within the limit is read whole") {
  TempDir d;
  const std::string text = "a: 1\nb: [2, 3]\n";
  std::ofstream(d.path / "x.yaml") << text;
  CHECK(read_text_file(d.path / "x.yaml", "the test file") == text);
  CHECK(read_text_file(d.path / "x.yaml", "the test file", text.size()) == text);
}

TEST_CASE("a device is refused without reading it (nicctl load-policy /dev/urandom returns at once)") {
  const std::string e = error_of("/dev/urandom");
  CHECK_THAT(e, Contains("/dev/urandom") && Contains("character device") && Contains("not a regular file"));
}

TEST_CASE("a FIFO with no writer is refused instead of blocking") {
  TempDir d;
  const fs::path fifo = d.path / "pipe.yaml";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK_THAT(error_of(fifo), Contains("a FIFO"));
}

TEST_CASE("a directory and a socket are refused") {
  TempDir d;
  CHECK_THAT(error_of(d.path), Contains("a directory"));
  const fs::path sock = d.path / "s";
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", sock.c_str());
  REQUIRE(::bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0);
  CHECK_THAT(error_of(sock), Contains("a socket"));
  ::close(fd);
}

TEST_CASE("a file over the limit is refused by its size before it is read") {
  TempDir d;
  const fs::path big = d.path / "big.yaml";
  std::ofstream(big).put('x');
  // 300 MB, sparse: the refusal must come from the size alone (reading it would take seconds).
  fs::resize_file(big, 300'000'000);
  const std::string e = error_of(big);
  CHECK_THAT(e, Contains("300000000 bytes") && Contains("over the limit of 8 MiB"));
  CHECK_THAT(error_of(big, 1000), Contains("over the limit of 1000 bytes"));
}

TEST_CASE("open_readable_file opens a regular file within the limit and refuses the rest the same way") {
  TempDir d;
  std::ofstream(d.path / "x.pcap") << "abc";
  const int fd = nicsched::fileio::open_readable_file(d.path / "x.pcap", 3, "the capture file");
  REQUIRE(fd >= 0);
  char buf[8] = {};
  CHECK(::read(fd, buf, sizeof buf) == 3);
  ::close(fd);
  const fs::path fifo = d.path / "pipe.pcap";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK_THROWS_WITH(nicsched::fileio::open_readable_file(fifo, 3, "the capture file"),
                    Contains(fifo.string()) && Contains("cannot read the capture file: it is a FIFO"));
  CHECK_THROWS_WITH(nicsched::fileio::open_readable_file(d.path / "x.pcap", 2, "the capture file"),
                    Contains("the capture file is 3 bytes, over the limit of 2 bytes"));
}

TEST_CASE("a missing file is named with the reason") {
  CHECK_THAT(error_of("/nonexistent/nicsched.yaml"), Contains("/nonexistent/nicsched.yaml") &&
                                                         Contains("cannot open the test file") &&
                                                         Contains("No such file"));
}

TEST_CASE("the atomic writer replaces a file and leaves no temporary file behind") {
  TempDir d;
  const fs::path f = d.path / "checkpoint.pt";
  write_file_atomically(f, "first");
  CHECK(read_all(f) == "first");
  write_file_atomically(f, std::string(100000, 'y'));
  CHECK(read_all(f) == std::string(100000, 'y'));
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(d.path)) ++entries;
  CHECK(entries == 1);
}

TEST_CASE("the atomic writer fails naming the file and leaves the old content") {
  TempDir d;
  CHECK_THROWS_WITH(write_file_atomically(d.path / "no_such_dir" / "x.yaml", "x"),
                    Contains("no_such_dir/x.yaml") && Contains("cannot create a temporary file"));
  // Renaming over a directory fails after the temporary file was written: it is removed again.
  const fs::path dir_target = d.path / "target";
  fs::create_directories(dir_target / "inside");
  CHECK_THROWS_AS(write_file_atomically(dir_target, "x"), FileError);
  CHECK(fs::is_directory(dir_target / "inside"));
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(d.path)) ++entries;
  CHECK(entries == 1);
}
