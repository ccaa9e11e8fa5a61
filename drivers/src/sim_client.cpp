#include "nicsched/drivers/sim_client.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <boost/asio.hpp>
#include <boost/asio/generic/stream_protocol.hpp>
#include <poll.h>
#include <unistd.h>

#include <fstream>
#include <functional>
#include <thread>
#include <vector>

namespace nicsched::drivers {

namespace asio = boost::asio;
using GenericStream = asio::generic::stream_protocol;
using proto::FrameWriter;
using proto::MsgType;

namespace {

// The connection failed (refused, reset, timed out, garbage): the caller decides whether
// to reconnect and retry.
class TransportFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The server answered, but refuses the connection itself (version, busy): no retry.
class Refused : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Reply {
  MsgType type = MsgType::kError;
  std::vector<std::uint8_t> body;
};

std::string hex_addr(std::uint32_t addr) { return fmt::format("0x{:04x}", addr); }

// "nicagent pid 4242": what the server shows for a client that gave no name.
std::string program_name() {
  std::ifstream comm("/proc/self/comm");
  std::string name;
  std::getline(comm, name);
  return fmt::format("{} pid {}", name.empty() ? "nicsched" : name, ::getpid());
}

}  // namespace

class SimClient::Impl {
 public:
  enum class Kind { kTcp, kUnix };

  Impl(Kind kind, std::string host, std::uint16_t port, std::string path, BusOptions opts)
      : kind_(kind), host_(std::move(host)), port_(port), path_(std::move(path)),
        opts_(std::move(opts)) {
    uri_ = kind_ == Kind::kTcp ? fmt::format("sim://{}:{}", host_, port_) : fmt::format("unix://{}", path_);
    if (opts_.connect_attempts < 1) opts_.connect_attempts = 1;
    if (opts_.client_name.empty()) opts_.client_name = program_name();
  }

  // Sends a request built by `fill`, returns the body of a reply of type `expect`.
  std::vector<std::uint8_t> transact(MsgType type, const std::function<void(FrameWriter&)>& fill,
                                     MsgType expect, bool idempotent, std::chrono::milliseconds timeout,
                                     const std::string& what) {
    for (int attempt = 0;; ++attempt) {
      if (connected_ && closed_by_server()) {
        // The server closes connections idle past its limit (sending ERROR kTimeout
        // first): that is not a failure of this request, so reconnect before sending it.
        spdlog::debug("{}: the server closed the idle connection; reconnecting", uri_);
        disconnect();
      }
      ensure_connected();
      FrameWriter w(type, next_tag_);
      fill(w);
      Reply reply;
      try {
        reply = exchange(std::move(w).finish(), timeout);
      } catch (const TransportFailure& e) {
        disconnect();
        if (idempotent && attempt == 0) {
          spdlog::warn("{}: {} failed ({}); reconnecting and retrying", uri_, what, e.what());
          continue;
        }
        throw BusError(fmt::format("{}: {} failed: {}{}", uri_, what, e.what(),
                                   idempotent ? "" : " (it may or may not have reached the target)"));
      }
      if (reply.type == MsgType::kError) {
        proto::ErrorReply err;
        try {
          err = proto::decode_error(reply.body);
        } catch (const proto::ProtocolError& e) {
          disconnect();
          throw BusError(fmt::format("{}: {}: unreadable ERROR reply: {}", uri_, what, e.what()));
        }
        if (err.code == proto::ErrorCode::kBusResponse) {
          throw BusResponseError(fmt::format("{}: {}: {}", uri_, what, err.message), err.addr,
                                 static_cast<BusResponseError::Resp>(err.axi_resp));
        }
        throw BusError(fmt::format("{}: {}: server error ({}): {}", uri_, what,
                                   proto::to_string(err.code), err.message));
      }
      if (reply.type != expect) {
        disconnect();
        throw BusError(fmt::format("{}: {}: server answered {} where {} was expected", uri_, what,
                                   proto::to_string(reply.type), proto::to_string(expect)));
      }
      return std::move(reply.body);
    }
  }

  // Parses a reply body, turning a format error into a BusError naming the URI.
  template <class F>
  auto parse(MsgType type, const std::vector<std::uint8_t>& body, const std::string& what, F&& f) {
    try {
      proto::BodyReader r(type, body);
      auto v = f(r);
      r.expect_end();
      return v;
    } catch (const proto::ProtocolError& e) {
      disconnect();
      throw BusError(fmt::format("{}: {}: bad reply: {}", uri_, what, e.what()));
    }
  }

  void ensure_connected() {
    if (connected_) return;
    std::string last;
    for (int i = 0; i < opts_.connect_attempts; ++i) {
      if (i > 0) std::this_thread::sleep_for(opts_.reconnect_backoff);
      try {
        connect_once();
        return;
      } catch (const TransportFailure& e) {
        disconnect();
        last = e.what();
        spdlog::debug("{}: connection attempt {} failed: {}", uri_, i + 1, last);
      } catch (const Refused& e) {
        disconnect();
        throw BusError(fmt::format("{}: server refused the connection: {}", uri_, e.what()));
      }
    }
    throw BusError(fmt::format("{}: cannot connect ({} attempt{}): {}", uri_, opts_.connect_attempts,
                               opts_.connect_attempts == 1 ? "" : "s", last));
  }

  void disconnect() {
    boost::system::error_code ignored;
    sock_.close(ignored);
    connected_ = false;
  }

  // Between requests nothing may arrive: anything readable (EOF, an ERROR the server sent
  // before closing) means the server has closed the connection.
  bool closed_by_server() {
    pollfd p{};
    p.fd = sock_.native_handle();
    p.events = POLLIN;
    return ::poll(&p, 1, 0) > 0 && (p.revents & (POLLIN | POLLHUP | POLLERR)) != 0;
  }

  [[nodiscard]] const std::string& uri() const { return uri_; }
  [[nodiscard]] const BusOptions& options() const { return opts_; }
  ServerInfo info_;

 private:
  void connect_once() {
    sock_ = GenericStream::socket(io_);
    boost::system::error_code ec = asio::error::would_block;
    if (kind_ == Kind::kTcp) {
      asio::ip::tcp::resolver resolver(io_);
      boost::system::error_code rec;
      const auto results = resolver.resolve(host_, std::to_string(port_), rec);
      if (rec || results.empty()) {
        throw TransportFailure(fmt::format("cannot resolve '{}': {}", host_, rec.message()));
      }
      sock_.async_connect(GenericStream::endpoint(results.begin()->endpoint()),
                          [&ec](boost::system::error_code e) { ec = e; });
    } else {
      sock_.async_connect(GenericStream::endpoint(asio::local::stream_protocol::endpoint(path_)),
                          [&ec](boost::system::error_code e) { ec = e; });
    }
    run_io(ec, opts_.timeout, "connecting");
    if (kind_ == Kind::kTcp) {
      boost::system::error_code ignored;
      sock_.set_option(asio::ip::tcp::no_delay(true), ignored);
    }
    connected_ = true;
    FrameWriter hello(MsgType::kHello, next_tag_);
    hello.u16(proto::kVersionMajor).u16(proto::kVersionMinor).str16(opts_.client_name);
    Reply reply = exchange(std::move(hello).finish(), opts_.timeout);
    expect_handshake_reply(reply, MsgType::kHelloOk, "HELLO");
    bool auth_required = false;
    proto::Nonce nonce{};
    try {
      proto::BodyReader r(MsgType::kHelloOk, reply.body);
      info_.version_major = r.u16("major");
      info_.version_minor = r.u16("minor");
      info_.mode = static_cast<proto::Mode>(r.u8("mode"));
      info_.max_burst_words = r.u32("max_burst_words");
      info_.description = r.str16("server");
      if (info_.version_minor >= 1) {  // 1.1: auth_required, nonce
        auth_required = r.u8("auth_required") != 0;
        for (auto& b : nonce) b = r.u8("nonce");
      }
      r.expect_end();
    } catch (const proto::ProtocolError& e) {
      throw TransportFailure(fmt::format("bad HELLO_OK: {}", e.what()));
    }
    if (info_.version_major != proto::kVersionMajor) {
      throw Refused(fmt::format("server speaks protocol {}.{}, this client {}.{}", info_.version_major,
                                info_.version_minor, proto::kVersionMajor, proto::kVersionMinor));
    }
    if (auth_required) authenticate(nonce);
    if (info_.max_burst_words == 0) info_.max_burst_words = 1;
    spdlog::debug("{}: connected to '{}' (protocol {}.{}, {})", uri_, info_.description,
                  info_.version_major, info_.version_minor, proto::to_string(info_.mode));
  }

  // Proves knowledge of the shared secret (protocol 1.1 AUTH).
  void authenticate(const proto::Nonce& nonce) {
    if (opts_.secret.empty()) {
      throw Refused("the server requires a shared secret: set NICSCHED_SECRET_FILE to a file holding it");
    }
    FrameWriter w(MsgType::kAuth, next_tag_);
    for (std::uint8_t b : proto::auth_mac(opts_.secret, nonce, opts_.client_name)) w.u8(b);
    expect_handshake_reply(exchange(std::move(w).finish(), opts_.timeout), MsgType::kAuthOk, "AUTH");
  }

  // The server's answer to the handshake's `request` (HELLO, AUTH) must be `ok`: an ERROR
  // refuses the connection (Refused: no retry); anything else is a TransportFailure.
  static void expect_handshake_reply(const Reply& reply, MsgType ok, const char* request) {
    if (reply.type == MsgType::kError) {
      proto::ErrorReply err;
      try {
        err = proto::decode_error(reply.body);
      } catch (const proto::ProtocolError& e) {
        throw TransportFailure(fmt::format("unreadable ERROR reply to {}: {}", request, e.what()));
      }
      throw Refused(err.message);
    }
    if (reply.type != ok) {
      throw TransportFailure(fmt::format("server answered {} with {}", request, proto::to_string(reply.type)));
    }
  }

  // Runs the io_context until the pending operation completes or the timeout passes.
  void run_io(boost::system::error_code& ec, std::chrono::milliseconds timeout, const char* stage) {
    io_.restart();
    io_.run_for(timeout);
    if (ec == asio::error::would_block) {
      boost::system::error_code ignored;
      sock_.close(ignored);
      io_.restart();
      io_.run();
      throw TransportFailure(fmt::format("timed out after {} ms {}", timeout.count(), stage));
    }
    if (ec == asio::error::eof) throw TransportFailure(fmt::format("server closed the connection {}", stage));
    if (ec) throw TransportFailure(fmt::format("{} {}", ec.message(), stage));
  }

  Reply exchange(std::vector<std::uint8_t> frame, std::chrono::milliseconds timeout) {
    const std::uint16_t tag = next_tag_++;
    if (next_tag_ == 0) next_tag_ = 1;  // tag 0 is reserved for errors without a request
    boost::system::error_code ec = asio::error::would_block;
    asio::async_write(sock_, asio::buffer(frame),
                      [&ec](boost::system::error_code e, std::size_t) { ec = e; });
    run_io(ec, timeout, "sending the request");

    std::array<std::uint8_t, proto::kHeaderBytes> header{};
    ec = asio::error::would_block;
    asio::async_read(sock_, asio::buffer(header),
                     [&ec](boost::system::error_code e, std::size_t) { ec = e; });
    run_io(ec, timeout, "waiting for the reply");
    proto::Header h;
    try {
      h = proto::decode_header(header);
    } catch (const proto::ProtocolError& e) {
      throw TransportFailure(e.what());
    }
    if (h.body_len > proto::kMaxResponseBody) {
      throw TransportFailure(fmt::format("reply body of {} bytes exceeds the limit of {}", h.body_len,
                                         proto::kMaxResponseBody));
    }
    // Tag 0 marks errors the server sends before it could read the request's tag.
    if (h.tag != tag && !(h.type == MsgType::kError && h.tag == 0)) {
      throw TransportFailure(fmt::format("reply tag {} does not match request tag {}", h.tag, tag));
    }
    Reply reply;
    reply.type = h.type;
    reply.body.resize(h.body_len);
    ec = asio::error::would_block;
    asio::async_read(sock_, asio::buffer(reply.body),
                     [&ec](boost::system::error_code e, std::size_t) { ec = e; });
    run_io(ec, timeout, "reading the reply");
    return reply;
  }

  Kind kind_;
  std::string host_;
  std::uint16_t port_;
  std::string path_;
  BusOptions opts_;
  std::string uri_;
  asio::io_context io_;
  GenericStream::socket sock_{io_};
  bool connected_ = false;
  std::uint16_t next_tag_ = 1;
};

SimClient::SimClient(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) { impl_->ensure_connected(); }
SimClient::~SimClient() = default;

std::unique_ptr<SimClient> SimClient::connect_tcp(const std::string& host, std::uint16_t port,
                                                  const BusOptions& options) {
  return std::unique_ptr<SimClient>(
      new SimClient(std::make_unique<Impl>(Impl::Kind::kTcp, host, port, "", options)));
}

std::unique_ptr<SimClient> SimClient::connect_unix(const std::string& path, const BusOptions& options) {
  return std::unique_ptr<SimClient>(
      new SimClient(std::make_unique<Impl>(Impl::Kind::kUnix, "", 0, path, options)));
}

std::uint32_t SimClient::read32(std::uint32_t addr) {
  const std::string what = "read32 " + hex_addr(addr);
  const auto body = impl_->transact(
      MsgType::kRead32, [&](FrameWriter& w) { w.u32(addr); }, MsgType::kRead32Ok, true,
      impl_->options().timeout, what);
  return impl_->parse(MsgType::kRead32Ok, body, what, [](proto::BodyReader& r) { return r.u32("value"); });
}

void SimClient::write32(std::uint32_t addr, std::uint32_t value) {
  const std::string what = fmt::format("write32 {} <- 0x{:08x}", hex_addr(addr), value);
  const auto body = impl_->transact(
      MsgType::kWrite32, [&](FrameWriter& w) { w.u32(addr).u32(value); }, MsgType::kWrite32Ok, false,
      impl_->options().timeout, what);
  impl_->parse(MsgType::kWrite32Ok, body, what, [](proto::BodyReader&) { return 0; });
}

namespace {
// Reads "u32 count, count x u32" into out; returns the count.
std::size_t read_words(proto::BodyReader& r, std::span<std::uint32_t> out) {
  const std::uint32_t n = r.u32("count");
  if (n != out.size()) {
    throw proto::ProtocolError(fmt::format("reply carries {} words, {} were asked for", n, out.size()));
  }
  for (auto& v : out) v = r.u32("word");
  return n;
}
// Writes "u32 count, count x (u32 addr, u32 words)": the ranges of READ_RANGES and SNAPSHOT.
void write_ranges(FrameWriter& w, std::span<const BlockRange> ranges) {
  w.u32(static_cast<std::uint32_t>(ranges.size()));
  for (const BlockRange& r : ranges) w.u32(r.addr).u32(r.count);
}
}  // namespace

void SimClient::read_block(std::uint32_t addr, std::span<std::uint32_t> out) {
  const std::size_t chunk = impl_->info_.max_burst_words;
  for (std::size_t at = 0; at < out.size(); at += chunk) {
    const auto part = out.subspan(at, std::min(chunk, out.size() - at));
    const auto a = static_cast<std::uint32_t>(addr + 4 * at);
    const std::string what = fmt::format("read_block {} x {}", hex_addr(a), part.size());
    const auto body = impl_->transact(
        MsgType::kReadBlock,
        [&](FrameWriter& w) { w.u32(a).u32(static_cast<std::uint32_t>(part.size())); },
        MsgType::kReadBlockOk, true, impl_->options().timeout, what);
    impl_->parse(MsgType::kReadBlockOk, body, what, [&](proto::BodyReader& r) { return read_words(r, part); });
  }
}

void SimClient::write_then_read(std::uint32_t trigger_addr, std::uint32_t trigger_value,
                                std::span<const BlockRange> ranges, std::span<std::uint32_t> out) {
  std::size_t total = 0;
  for (const BlockRange& r : ranges) total += r.count;
  const std::size_t max_ranges = (proto::kMaxRequestBody - 12) / 8;
  if (total > impl_->info_.max_burst_words || ranges.size() > max_ranges) {
    RegisterBus::write_then_read(trigger_addr, trigger_value, ranges, out);
    return;
  }
  if (total != out.size()) {
    throw BusError(fmt::format("{}: snapshot: output holds {} words, ranges ask for {}", impl_->uri(),
                               out.size(), total));
  }
  const std::string what = fmt::format("snapshot (trigger {}, {} ranges, {} words)",
                                       hex_addr(trigger_addr), ranges.size(), total);
  // Not idempotent: the trigger is a write (a repeated SNAPSHOT would latch a later edge).
  const auto body = impl_->transact(
      MsgType::kSnapshot,
      [&](FrameWriter& w) { write_ranges(w.u32(trigger_addr).u32(trigger_value), ranges); },
      MsgType::kSnapshotOk, false, impl_->options().timeout, what);
  impl_->parse(MsgType::kSnapshotOk, body, what, [&](proto::BodyReader& r) { return read_words(r, out); });
}

void SimClient::read_ranges(std::span<const BlockRange> ranges, std::span<std::uint32_t> out) {
  std::size_t total = 0;
  for (const BlockRange& r : ranges) total += r.count;
  const std::size_t max_ranges = (proto::kMaxRequestBody - 4) / 8;
  if (total > impl_->info_.max_burst_words || ranges.size() > max_ranges) {
    RegisterBus::read_ranges(ranges, out);
    return;
  }
  if (total != out.size()) {
    throw BusError(fmt::format("{}: read_ranges: output holds {} words, ranges ask for {}", impl_->uri(),
                               out.size(), total));
  }
  const std::string what = fmt::format("read_ranges ({} ranges from {}, {} words)", ranges.size(),
                                       ranges.empty() ? std::string("-") : hex_addr(ranges.front().addr), total);
  const auto body = impl_->transact(
      MsgType::kReadRanges, [&](FrameWriter& w) { write_ranges(w, ranges); }, MsgType::kReadRangesOk, true,
      impl_->options().timeout, what);
  impl_->parse(MsgType::kReadRangesOk, body, what, [&](proto::BodyReader& r) { return read_words(r, out); });
}

void SimClient::write_batch(std::span<const RegWrite> writes) {
  const std::size_t max_writes = (proto::kMaxRequestBody - 4) / 8;
  for (std::size_t at = 0; at < writes.size(); at += max_writes) {
    const auto part = writes.subspan(at, std::min(max_writes, writes.size() - at));
    const std::string what = fmt::format("write_batch of {} writes from {}", part.size(),
                                         hex_addr(part.front().addr));
    const auto body = impl_->transact(
        MsgType::kWriteBatch,
        [&](FrameWriter& w) {
          w.u32(static_cast<std::uint32_t>(part.size()));
          for (const RegWrite& rw : part) w.u32(rw.addr).u32(rw.value);
        },
        MsgType::kWriteBatchOk, false, impl_->options().timeout, what);
    impl_->parse(MsgType::kWriteBatchOk, body, what, [](proto::BodyReader& r) { return r.u32("n"); });
  }
}

std::string SimClient::describe() const { return impl_->uri(); }

void SimClient::step(std::uint64_t cycles) {
  const std::string what = fmt::format("step {} cycles", cycles);
  const auto body = impl_->transact(
      MsgType::kStep, [&](FrameWriter& w) { w.u64(cycles); }, MsgType::kStepOk, false,
      impl_->options().step_timeout, what);
  impl_->parse(MsgType::kStepOk, body, what, [](proto::BodyReader& r) { return r.u64("cycle"); });
}

std::uint64_t SimClient::cycle() {
  const std::string what = "status";
  const auto body = impl_->transact(
      MsgType::kStatus, [](FrameWriter&) {}, MsgType::kStatusOk, true, impl_->options().timeout, what);
  return impl_->parse(MsgType::kStatusOk, body, what, [this](proto::BodyReader& r) {
    impl_->info_.mode = static_cast<proto::Mode>(r.u8("mode"));
    return r.u64("cycle");
  });
}

proto::Mode SimClient::mode() {
  (void)cycle();
  return impl_->info_.mode;
}

std::string SimClient::metrics_json() {
  const std::string what = "metrics";
  const auto body = impl_->transact(
      MsgType::kMetrics, [](FrameWriter&) {}, MsgType::kMetricsOk, true, impl_->options().timeout, what);
  return impl_->parse(MsgType::kMetricsOk, body, what, [](proto::BodyReader& r) { return r.str32("json"); });
}

void SimClient::set_mode(proto::Mode mode) {
  const std::string what = fmt::format("set mode {}", proto::to_string(mode));
  const auto body = impl_->transact(
      MsgType::kSetMode, [&](FrameWriter& w) { w.u8(static_cast<std::uint8_t>(mode)); },
      MsgType::kSetModeOk, true, impl_->options().timeout, what);
  impl_->info_.mode = impl_->parse(MsgType::kSetModeOk, body, what, [](proto::BodyReader& r) {
    const auto m = static_cast<proto::Mode>(r.u8("mode"));
    (void)r.u64("cycle");
    return m;
  });
}

const ServerInfo& SimClient::server_info() const { return impl_->info_; }

}  // namespace nicsched::drivers
