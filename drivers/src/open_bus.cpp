#include "nicsched/drivers/open_bus.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cstdlib>
#include <regex>

#include "local_buses.hpp"
#include "nicsched/drivers/sim_client.hpp"

namespace nicsched::drivers {

namespace detail {

void check_access(const std::string& uri, const char* op, std::uint32_t addr, std::size_t count,
                  std::uint64_t window) {
  if (addr % 4 != 0) {
    throw BusError(fmt::format("{}: {} at 0x{:04x}: address is not 4-byte aligned", uri, op, addr));
  }
  const std::uint64_t end = static_cast<std::uint64_t>(addr) + 4 * static_cast<std::uint64_t>(count);
  if (end > window || (count == 0 && addr >= window)) {
    throw BusError(fmt::format("{}: {} at 0x{:04x}{}: outside the register window 0x0000..0x{:04x}", uri, op,
                               addr, count > 1 ? fmt::format(" ({} words)", count) : "", window - 1));
  }
}

}  // namespace detail

namespace {

// The socket transports' options, with the secret from NICSCHED_SECRET_FILE when none is given.
BusOptions with_secret(const std::string& uri, const BusOptions& given) {
  BusOptions options = given;
  if (options.secret.empty()) {
    if (const char* file = std::getenv("NICSCHED_SECRET_FILE"); file != nullptr && *file != '\0') {
      try {
        options.secret = proto::load_secret_file(file);
      } catch (const proto::ProtocolError& e) {
        throw BusError(fmt::format("{}: NICSCHED_SECRET_FILE: {}", uri, e.what()));
      }
    }
  }
  return options;
}

constexpr const char* kUsage =
    "expected sim://HOST:PORT, unix:///PATH, pcie://DDDD:BB:DD.F/barN or xdma:///dev/xdmaN_user";

std::unique_ptr<RegisterBus> open_sim(const std::string& uri, const std::string& rest, const BusOptions& options) {
  // HOST:PORT, HOST may be [IPv6]
  std::string host;
  std::string port_text;
  if (!rest.empty() && rest.front() == '[') {
    const auto close = rest.find(']');
    if (close == std::string::npos || close + 1 >= rest.size() || rest[close + 1] != ':') {
      throw UriError(fmt::format("'{}': bad address: expected sim://[IPV6]:PORT", uri));
    }
    host = rest.substr(1, close - 1);
    port_text = rest.substr(close + 2);
  } else {
    const auto colon = rest.rfind(':');
    if (colon == std::string::npos || colon == 0) {
      throw UriError(fmt::format("'{}': missing host or port: expected sim://HOST:PORT", uri));
    }
    host = rest.substr(0, colon);
    port_text = rest.substr(colon + 1);
  }
  unsigned port = 0;
  const auto [p, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (ec != std::errc() || p != port_text.data() + port_text.size() || port == 0 || port > 65535) {
    throw UriError(fmt::format("'{}': port '{}' is not a number in 1..65535", uri, port_text));
  }
  return SimClient::connect_tcp(host, static_cast<std::uint16_t>(port), with_secret(uri, options));
}

}  // namespace

std::unique_ptr<RegisterBus> open_bus(const std::string& uri, const BusOptions& options) {
  const auto sep = uri.find("://");
  if (sep == std::string::npos) throw UriError(fmt::format("'{}' is not a target URI: {}", uri, kUsage));
  const std::string scheme = uri.substr(0, sep);
  const std::string rest = uri.substr(sep + 3);
  if (scheme == "sim") return open_sim(uri, rest, options);
  if (scheme == "unix") {
    if (rest.empty() || rest.front() != '/') {
      throw UriError(fmt::format("'{}': a Unix socket needs an absolute path, e.g. unix:///tmp/nicsim.sock", uri));
    }
    return SimClient::connect_unix(rest, with_secret(uri, options));
  }
  if (scheme == "pcie") {
    static const std::regex re(R"(^([0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])/bar([0-5])$)");
    std::smatch m;
    if (!std::regex_match(rest, m, re)) {
      throw UriError(fmt::format("'{}': expected pcie://DDDD:BB:DD.F/barN (domain:bus:device.function as "
                                 "lspci -D prints it, N in 0..5)", uri));
    }
    std::string bdf = m[1].str();
    for (char& c : bdf) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return detail::open_pcie(uri, bdf, static_cast<unsigned>(std::stoul(m[2].str())), options);
  }
  if (scheme == "xdma") {
    if (rest.empty() || rest.front() != '/') {
      throw UriError(fmt::format("'{}': expected xdma:///dev/xdmaN_user (an absolute device path)", uri));
    }
    return detail::open_xdma(uri, rest, options);
  }
  throw UriError(fmt::format("'{}': unknown scheme '{}': {}", uri, scheme, kUsage));
}

}  // namespace nicsched::drivers
