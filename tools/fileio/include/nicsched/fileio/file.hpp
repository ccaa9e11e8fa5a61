// Reading and writing whole files safely: the one bounded reader every file loader uses, and
// the one atomic writer every file writer uses (docs/architecture.md, "Files").
#pragma once

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

namespace nicsched::fileio {

// The largest text file (YAML scenario, policy, config, register map) a loader reads: 8 MiB.
// The biggest file of this kind in the tree is the register map (~40 KiB).
inline constexpr std::uint64_t kMaxTextFileBytes = std::uint64_t{8} << 20;

// A file that cannot be read or written. what() reads "FILE: problem".
class FileError : public std::runtime_error {
 public:
  FileError(std::string file, const std::string& problem)
      : std::runtime_error(file + ": " + problem), file_(std::move(file)), problem_(problem) {}
  [[nodiscard]] const std::string& file() const { return file_; }
  [[nodiscard]] const std::string& problem() const { return problem_; }

 private:
  std::string file_;
  std::string problem_;
};

// Throws FileError unless `file` is a regular file of at most `max_bytes` bytes. Directories,
// devices (/dev/urandom), FIFOs and sockets are refused without being opened for reading, so
// the check never blocks. `role` names the file in errors ("the policy file").
void check_readable_file(const std::filesystem::path& file, std::uint64_t max_bytes, std::string_view role);

// Opens a regular file of at most `max_bytes` bytes for reading and returns its descriptor
// (O_CLOEXEC; the caller closes it): refuses anything else as check_readable_file does, before
// opening it, and checks the open descriptor again (the path may have been replaced since).
// For readers that hand the file to a library (libpcap); read_text_file is built on it.
int open_readable_file(const std::filesystem::path& file, std::uint64_t max_bytes, std::string_view role);

// The whole content of a regular file of at most `max_bytes` bytes; refuses anything else
// (as check_readable_file) before reading a byte, and stops reading at the limit should the
// file grow while it is read.
std::string read_text_file(const std::filesystem::path& file, std::string_view role,
                           std::uint64_t max_bytes = kMaxTextFileBytes);

// Replaces `file` with `content` so that a reader (or a crash) sees either the old or the new
// file, never a part: writes a temporary file in the same directory, fsyncs it, renames it over
// `file` and fsyncs the directory. Throws FileError naming the file on any failure, leaving
// `file` as it was.
void write_file_atomically(const std::filesystem::path& file, std::string_view content);

}  // namespace nicsched::fileio
