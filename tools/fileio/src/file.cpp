// The bounded file reader and the atomic file writer (POSIX: open/fstat/fsync/rename).
#include "nicsched/fileio/file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

namespace nicsched::fileio {
namespace {

std::string errno_text(int err) { return std::strerror(err); }

std::string kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

std::string mib(std::uint64_t bytes) {
  const std::uint64_t whole = bytes >> 20;
  if ((whole << 20) == bytes) return std::to_string(whole) + " MiB";
  return std::to_string(bytes) + " bytes";
}

// Refuses what is not a regular file of at most max_bytes; `st` from stat or fstat.
void check_stat(const std::filesystem::path& file, const struct stat& st, std::uint64_t max_bytes,
                std::string_view role) {
  if (!S_ISREG(st.st_mode)) {
    throw FileError(file.string(), "cannot read " + std::string(role) + ": it is " + kind_of(st.st_mode) +
                                       ", not a regular file");
  }
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (size > max_bytes) {
    throw FileError(file.string(), std::string(role) + " is " + std::to_string(size) + " bytes, over the limit of " +
                                       mib(max_bytes) + " for this kind of file");
  }
}

// Closes a file descriptor on every path out.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  [[nodiscard]] int get() const { return fd_; }
  int release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_;
};

void write_all(int fd, std::string_view content, const std::string& name) {
  const char* p = content.data();
  std::size_t left = content.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw FileError(name, "write failed: " + errno_text(errno));
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
}

}  // namespace

void check_readable_file(const std::filesystem::path& file, std::uint64_t max_bytes, std::string_view role) {
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) {
    throw FileError(file.string(), "cannot open " + std::string(role) + ": " + errno_text(errno));
  }
  check_stat(file, st, max_bytes, role);
}

int open_readable_file(const std::filesystem::path& file, std::uint64_t max_bytes, std::string_view role) {
  // stat first: opening a FIFO or a device may block or have side effects.
  check_readable_file(file, max_bytes, role);
  Fd fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (fd.get() < 0) throw FileError(file.string(), "cannot open " + std::string(role) + ": " + errno_text(errno));
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) throw FileError(file.string(), "cannot stat " + std::string(role) + ": " + errno_text(errno));
  check_stat(file, st, max_bytes, role);  // the path may have been replaced since the stat
  return fd.release();
}

std::string read_text_file(const std::filesystem::path& file, std::string_view role, std::uint64_t max_bytes) {
  const Fd fd(open_readable_file(file, max_bytes, role));
  std::string text;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw FileError(file.string(), "cannot read " + std::string(role) + ": " + errno_text(errno));
    }
    if (n == 0) break;
    if (text.size() + static_cast<std::size_t>(n) > max_bytes) {
      throw FileError(file.string(), std::string(role) + " grew over the limit of " + mib(max_bytes) +
                                         " while it was read");
    }
    text.append(buf, static_cast<std::size_t>(n));
  }
  return text;
}

void write_file_atomically(const std::filesystem::path& file, std::string_view content) {
  static std::atomic<unsigned> counter{0};
  const std::filesystem::path dir = file.has_parent_path() ? file.parent_path() : std::filesystem::path(".");
  const std::string name = file.string();
  std::filesystem::path tmp;
  int raw = -1;
  for (int attempt = 0; raw < 0; ++attempt) {
    // Built by appending: GCC 12 warns (-Wrestrict, falsely) on "." + std::string.
    std::string tmp_name(1, '.');
    tmp_name += file.filename().string();
    tmp_name += ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter.fetch_add(1));
    tmp = dir / tmp_name;
    raw = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (raw < 0 && (errno != EEXIST || attempt > 100)) {
      throw FileError(name, "cannot create a temporary file in " + dir.string() + ": " + errno_text(errno));
    }
  }
  Fd fd(raw);
  try {
    write_all(fd.get(), content, name);
    if (::fsync(fd.get()) != 0) throw FileError(name, "fsync failed: " + errno_text(errno));
    if (::close(fd.release()) != 0) throw FileError(name, "close failed: " + errno_text(errno));
    if (::rename(tmp.c_str(), file.c_str()) != 0) {
      throw FileError(name, "cannot rename the temporary file into place: " + errno_text(errno));
    }
  } catch (...) {
    ::unlink(tmp.c_str());
    throw;
  }
  // The rename is durable once the directory is; a failure here leaves the new file in place.
  const Fd dfd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dfd.get() >= 0) (void)::fsync(dfd.get());
}

}  // namespace nicsched::fileio
