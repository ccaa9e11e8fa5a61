#include "nicsched/drivers/sim_server.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <boost/asio.hpp>
#include <boost/asio/generic/stream_protocol.hpp>
#include <cerrno>
#include <cstring>
#include <unordered_set>
#include <vector>

namespace nicsched::drivers {

namespace asio = boost::asio;
using GenericStream = asio::generic::stream_protocol;
using Acceptor = asio::basic_socket_acceptor<GenericStream>;
using proto::ErrorCode;
using proto::FrameWriter;
using proto::Mode;
using proto::MsgType;

namespace {

bool is_request(MsgType t) {
  const auto v = static_cast<std::uint8_t>(t);
  return v >= static_cast<std::uint8_t>(MsgType::kHello) &&
         v <= static_cast<std::uint8_t>(MsgType::kReadRanges);
}

}  // namespace

class Session;

class SimServer::Impl {
 public:
  Impl(SimTarget& target, ServerOptions options);

  void run();
  void stop() { io_.stop(); }
  void set_mode(Mode m);
  [[nodiscard]] Mode mode() const { return mode_; }

  SimTarget& target_;
  const ServerOptions opts_;
  std::unordered_set<Session*> sessions_;  // destroyed after io_ (declared before it)
  asio::io_context io_;
  std::optional<Acceptor> tcp_acceptor_;
  std::optional<Acceptor> unix_acceptor_;
  asio::signal_set signals_{io_};
  std::uint16_t tcp_port_ = 0;
  Mode mode_;
  bool free_run_scheduled_ = false;
  bool ran_ = false;

 private:
  void accept(Acceptor& acceptor, std::string kind);
  void free_run_tick();
};

// One client connection. Reads a frame, answers it, reads the next: at most one request
// of a client is in flight, so replies never interleave.
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(SimServer::Impl& server, GenericStream::socket socket, std::string peer)
      : srv_(server), sock_(std::move(socket)), peer_(std::move(peer)) {
    srv_.sessions_.insert(this);
  }
  ~Session() { srv_.sessions_.erase(this); }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  void start() { read_header(); }
  void close() {
    boost::system::error_code ignored;
    sock_.shutdown(asio::socket_base::shutdown_both, ignored);
    sock_.close(ignored);
  }
  void refuse_busy() {
    send_error(0, {ErrorCode::kBusy, 0, 0,
                   fmt::format("server busy: {} clients connected already", srv_.opts_.max_clients)},
               true);
  }

 private:
  void read_header() {
    asio::async_read(sock_, asio::buffer(header_),
                     [self = shared_from_this()](boost::system::error_code ec, std::size_t) {
                       if (ec) {
                         if (ec != asio::error::eof && ec != asio::error::operation_aborted) {
                           spdlog::debug("nicsim server: {}: read: {}", self->peer_, ec.message());
                         }
                         self->close();
                         return;
                       }
                       self->on_header();
                     });
  }

  void on_header() {
    try {
      current_ = proto::decode_header(header_);
    } catch (const proto::ProtocolError& e) {
      send_error(0, {ErrorCode::kMalformed, 0, 0, e.what()}, true);
      return;
    }
    if (current_.body_len > proto::kMaxRequestBody) {
      send_error(current_.tag,
                 {ErrorCode::kTooLarge, 0, 0,
                  fmt::format("{} body of {} bytes exceeds the limit of {} bytes; closing",
                              proto::to_string(current_.type), current_.body_len,
                              proto::kMaxRequestBody)},
                 true);
      return;
    }
    body_.resize(current_.body_len);
    asio::async_read(sock_, asio::buffer(body_),
                     [self = shared_from_this()](boost::system::error_code ec, std::size_t) {
                       if (ec) {
                         self->close();
                         return;
                       }
                       self->handle();
                     });
  }

  void send(std::vector<std::uint8_t> frame, bool close_after) {
    out_ = std::move(frame);
    asio::async_write(sock_, asio::buffer(out_),
                      [self = shared_from_this(), close_after](boost::system::error_code ec,
                                                                 std::size_t) {
                        if (ec || close_after) {
                          self->close();
                          return;
                        }
                        self->read_header();
                      });
  }

  void send_error(std::uint16_t tag, const proto::ErrorReply& e, bool close_after) {
    spdlog::debug("nicsim server: {}: error reply: {}", peer_, e.message);
    send(proto::encode_error(tag, e), close_after);
  }

  void handle();
  void serve(proto::BodyReader& r, std::uint32_t& addr);
  void continue_step(std::uint64_t remaining);

  SimServer::Impl& srv_;
  GenericStream::socket sock_;
  std::string peer_;
  std::array<std::uint8_t, proto::kHeaderBytes> header_{};
  proto::Header current_;
  std::vector<std::uint8_t> body_;
  std::vector<std::uint8_t> out_;
  bool hello_done_ = false;
};

void Session::handle() {
  const std::uint16_t tag = current_.tag;
  std::uint32_t addr = 0;  // the address the request concerns, for error replies
  try {
    proto::BodyReader r(current_.type, body_);
    if (current_.type == MsgType::kHello) {
      const std::uint16_t major = r.u16("major");
      const std::uint16_t minor = r.u16("minor");
      const std::string client = r.str16("client");
      r.expect_end();
      if (major != proto::kVersionMajor) {
        send_error(tag,
                   {ErrorCode::kVersion, 0, 0,
                    fmt::format("server speaks protocol {}.{}, client '{}' speaks {}.{}; closing",
                                proto::kVersionMajor, proto::kVersionMinor, client, major, minor)},
                   true);
        return;
      }
      hello_done_ = true;
      spdlog::info("nicsim server: client '{}' ({}) connected, protocol {}.{}", client, peer_, major,
                   minor);
      send(FrameWriter(MsgType::kHelloOk, tag)
               .u16(proto::kVersionMajor)
               .u16(proto::kVersionMinor)
               .u8(static_cast<std::uint8_t>(srv_.mode()))
               .u32(proto::kMaxBurstWords)
               .str16(srv_.opts_.description)
               .finish(),
           false);
      return;
    }
    if (!is_request(current_.type)) {
      send_error(tag,
                 {ErrorCode::kUnknownType, 0, 0,
                  fmt::format("message type 0x{:02x} is not a request",
                              static_cast<unsigned>(current_.type))},
                 false);
      return;
    }
    if (!hello_done_) {
      send_error(tag,
                 {ErrorCode::kNoHello, 0, 0,
                  fmt::format("{} before HELLO: send HELLO first", proto::to_string(current_.type))},
                 false);
      return;
    }
    serve(r, addr);
  } catch (const proto::ProtocolError& e) {
    send_error(tag, {ErrorCode::kMalformed, 0, addr, e.what()}, false);
  } catch (const BusResponseError& e) {
    send_error(tag,
               {ErrorCode::kBusResponse, static_cast<std::uint8_t>(e.resp()), e.addr(), e.what()},
               false);
  } catch (const BusError& e) {
    send_error(tag, {ErrorCode::kBusError, 0, addr, e.what()}, false);
  } catch (const std::exception& e) {
    send_error(tag, {ErrorCode::kTarget, 0, addr, e.what()}, false);
  }
}

void Session::serve(proto::BodyReader& r, std::uint32_t& addr) {
  const std::uint16_t tag = current_.tag;
  SimTarget& target = srv_.target_;
  switch (current_.type) {
    case MsgType::kRead32: {
      addr = r.u32("addr");
      r.expect_end();
      const std::uint32_t v = target.read32(addr);
      send(FrameWriter(MsgType::kRead32Ok, tag).u32(v).finish(), false);
      return;
    }
    case MsgType::kWrite32: {
      addr = r.u32("addr");
      const std::uint32_t value = r.u32("value");
      r.expect_end();
      target.write32(addr, value);
      send(FrameWriter(MsgType::kWrite32Ok, tag).finish(), false);
      return;
    }
    case MsgType::kReadBlock: {
      addr = r.u32("addr");
      const std::uint32_t count = r.u32("count");
      r.expect_end();
      if (count > proto::kMaxBurstWords) {
        throw proto::ProtocolError(fmt::format("READ_BLOCK of {} words exceeds the limit of {}",
                                               count, proto::kMaxBurstWords));
      }
      std::vector<std::uint32_t> words(count);
      target.read_block(addr, words);
      FrameWriter w(MsgType::kReadBlockOk, tag);
      w.u32(count);
      for (std::uint32_t v : words) w.u32(v);
      send(std::move(w).finish(), false);
      return;
    }
    case MsgType::kWriteBatch: {
      const std::uint32_t n = r.u32("n");
      if (r.remaining() != static_cast<std::size_t>(n) * 8) {
        throw proto::ProtocolError(fmt::format(
            "WRITE_BATCH announces {} writes ({} bytes) but carries {} bytes", n,
            static_cast<std::size_t>(n) * 8, r.remaining()));
      }
      std::vector<RegWrite> writes(n);
      for (RegWrite& w : writes) {
        w.addr = r.u32("addr");
        w.value = r.u32("value");
      }
      for (const RegWrite& w : writes) {
        addr = w.addr;
        target.write32(w.addr, w.value);
      }
      send(FrameWriter(MsgType::kWriteBatchOk, tag).u32(n).finish(), false);
      return;
    }
    case MsgType::kSnapshot:
    case MsgType::kReadRanges: {
      const bool snapshot = current_.type == MsgType::kSnapshot;
      const char* name = proto::to_string(current_.type);
      const std::uint32_t trigger_addr = snapshot ? r.u32("trigger_addr") : 0;
      const std::uint32_t trigger_value = snapshot ? r.u32("trigger_value") : 0;
      const std::uint32_t n = r.u32("n");
      if (r.remaining() != static_cast<std::size_t>(n) * 8) {
        throw proto::ProtocolError(fmt::format("{} announces {} ranges ({} bytes) but carries {} bytes", name, n,
                                               static_cast<std::size_t>(n) * 8, r.remaining()));
      }
      std::vector<BlockRange> ranges(n);
      std::uint64_t total = 0;
      for (BlockRange& br : ranges) {
        br.addr = r.u32("addr");
        br.count = r.u32("count");
        total += br.count;
      }
      if (total > proto::kMaxBurstWords) {
        throw proto::ProtocolError(
            fmt::format("{} of {} words exceeds the limit of {}", name, total, proto::kMaxBurstWords));
      }
      addr = snapshot ? trigger_addr : (ranges.empty() ? 0 : ranges.front().addr);
      std::vector<std::uint32_t> words(total);
      if (snapshot) {
        target.write_then_read(trigger_addr, trigger_value, ranges, words);
      } else {
        target.read_ranges(ranges, words);
      }
      FrameWriter w(snapshot ? MsgType::kSnapshotOk : MsgType::kReadRangesOk, tag);
      w.u32(static_cast<std::uint32_t>(total));
      for (std::uint32_t v : words) w.u32(v);
      send(w.finish(), false);
      return;
    }
    case MsgType::kStep: {
      const std::uint64_t cycles = r.u64("cycles");
      r.expect_end();
      continue_step(cycles);
      return;
    }
    case MsgType::kSetMode: {
      const std::uint8_t m = r.u8("mode");
      r.expect_end();
      if (m > static_cast<std::uint8_t>(Mode::kFreeRunning)) {
        throw proto::ProtocolError(
            fmt::format("SET_MODE mode {} unknown (0 lock-step, 1 free-running)", m));
      }
      srv_.set_mode(static_cast<Mode>(m));
      send(FrameWriter(MsgType::kSetModeOk, tag).u8(m).u64(target.cycle()).finish(), false);
      return;
    }
    case MsgType::kStatus: {
      r.expect_end();
      send(FrameWriter(MsgType::kStatusOk, tag)
               .u8(static_cast<std::uint8_t>(srv_.mode()))
               .u64(target.cycle())
               .finish(),
           false);
      return;
    }
    case MsgType::kMetrics: {
      r.expect_end();
      send(FrameWriter(MsgType::kMetricsOk, tag).str32(target.metrics_json()).finish(), false);
      return;
    }
    default:
      throw proto::ProtocolError(
          fmt::format("message type {} is not a request", proto::to_string(current_.type)));
  }
}

// Steps in chunks so that other clients (and the free-running loop's peers) are served
// between chunks of a long STEP.
void Session::continue_step(std::uint64_t remaining) {
  const std::uint16_t tag = current_.tag;
  const std::uint64_t n = std::min(remaining, srv_.opts_.step_chunk_cycles);
  try {
    if (n > 0) srv_.target_.step(n);
    remaining -= n;
    if (remaining == 0) {
      send(FrameWriter(MsgType::kStepOk, tag).u64(srv_.target_.cycle()).finish(), false);
      return;
    }
  } catch (const std::exception& e) {
    send_error(tag, {ErrorCode::kTarget, 0, 0, fmt::format("STEP failed: {}", e.what())}, false);
    return;
  }
  asio::post(sock_.get_executor(),
             [self = shared_from_this(), remaining] { self->continue_step(remaining); });
}

SimServer::Impl::Impl(SimTarget& target, ServerOptions options)
    : target_(target), opts_(std::move(options)), mode_(opts_.initial_mode) {
  if (opts_.step_chunk_cycles == 0) throw ServerError("nicsim server: step_chunk_cycles must be > 0");
  if (!opts_.tcp_address && opts_.unix_path.empty()) {
    throw ServerError("nicsim server: neither a TCP address nor a Unix socket path to listen on");
  }
  if (opts_.tcp_address) {
    boost::system::error_code ec;
    const auto ip = asio::ip::make_address(*opts_.tcp_address, ec);
    if (ec) {
      throw ServerError(fmt::format("nicsim server: '{}' is not an IP address: {}",
                                    *opts_.tcp_address, ec.message()));
    }
    const asio::ip::tcp::endpoint ep(ip, opts_.tcp_port);
    try {
      tcp_acceptor_.emplace(io_, GenericStream::endpoint(ep), true);
    } catch (const boost::system::system_error& e) {
      throw ServerError(fmt::format("nicsim server: cannot listen on {}:{}: {}", *opts_.tcp_address,
                                    opts_.tcp_port, e.code().message()));
    }
    const auto local = tcp_acceptor_->local_endpoint();
    if (local.data()->sa_family == AF_INET) {
      tcp_port_ = ntohs(reinterpret_cast<const sockaddr_in*>(local.data())->sin_port);
    } else {
      tcp_port_ = ntohs(reinterpret_cast<const sockaddr_in6*>(local.data())->sin6_port);
    }
  }
  if (!opts_.unix_path.empty()) {
    struct stat st {};
    if (::lstat(opts_.unix_path.c_str(), &st) == 0) {
      if (!S_ISSOCK(st.st_mode)) {
        throw ServerError(fmt::format("nicsim server: {} exists and is not a socket; not replacing it",
                                      opts_.unix_path));
      }
      ::unlink(opts_.unix_path.c_str());
    }
    try {
      unix_acceptor_.emplace(io_, GenericStream::endpoint(asio::local::stream_protocol::endpoint(opts_.unix_path)),
                             false);
    } catch (const boost::system::system_error& e) {
      throw ServerError(fmt::format("nicsim server: cannot listen on unix://{}: {}", opts_.unix_path,
                                    e.code().message()));
    }
  }
}

void SimServer::Impl::accept(Acceptor& acceptor, std::string kind) {
  acceptor.async_accept([this, &acceptor, kind](boost::system::error_code ec, GenericStream::socket s) {
    if (ec == asio::error::operation_aborted) return;
    if (ec) {
      spdlog::warn("nicsim server: accept on {}: {}", kind, ec.message());
    } else {
      if (kind == "tcp") {
        boost::system::error_code ignored;
        s.set_option(asio::ip::tcp::no_delay(true), ignored);
      }
      auto session = std::make_shared<Session>(*this, std::move(s), kind);
      if (sessions_.size() > opts_.max_clients) {
        session->refuse_busy();
      } else {
        session->start();
      }
    }
    accept(acceptor, kind);
  });
}

void SimServer::Impl::set_mode(Mode m) {
  if (m != mode_) spdlog::info("nicsim server: {} mode", proto::to_string(m));
  mode_ = m;
  if (mode_ == Mode::kFreeRunning && !free_run_scheduled_) {
    free_run_scheduled_ = true;
    asio::post(io_, [this] { free_run_tick(); });
  }
}

void SimServer::Impl::free_run_tick() {
  if (mode_ != Mode::kFreeRunning) {
    free_run_scheduled_ = false;
    return;
  }
  try {
    target_.step(opts_.step_chunk_cycles);
  } catch (const std::exception& e) {
    spdlog::error("nicsim server: free-running step failed: {}; switching to lock-step", e.what());
    mode_ = Mode::kLockStep;
    free_run_scheduled_ = false;
    return;
  }
  asio::post(io_, [this] { free_run_tick(); });
}

void SimServer::Impl::run() {
  if (ran_) throw ServerError("nicsim server: run() called twice");
  ran_ = true;
  if (tcp_acceptor_) {
    spdlog::info("nicsim server: listening on tcp {}:{}", *opts_.tcp_address, tcp_port_);
    accept(*tcp_acceptor_, "tcp");
  }
  if (unix_acceptor_) {
    spdlog::info("nicsim server: listening on unix://{}", opts_.unix_path);
    accept(*unix_acceptor_, "unix");
  }
  if (opts_.handle_signals) {
    signals_.add(SIGINT);
    signals_.add(SIGTERM);
    signals_.async_wait([this](boost::system::error_code ec, int sig) {
      if (!ec) {
        spdlog::info("nicsim server: signal {}, stopping", sig);
        io_.stop();
      }
    });
  }
  if (mode_ == Mode::kFreeRunning) {
    free_run_scheduled_ = true;
    asio::post(io_, [this] { free_run_tick(); });
  }
  io_.run();
  boost::system::error_code ignored;
  if (tcp_acceptor_) tcp_acceptor_->close(ignored);
  if (unix_acceptor_) {
    unix_acceptor_->close(ignored);
    ::unlink(opts_.unix_path.c_str());
  }
  for (Session* s : sessions_) s->close();
  spdlog::info("nicsim server: stopped");
}

SimServer::SimServer(SimTarget& target, ServerOptions options)
    : impl_(std::make_unique<Impl>(target, std::move(options))) {}
SimServer::~SimServer() = default;
void SimServer::run() { impl_->run(); }
void SimServer::stop() { impl_->stop(); }
std::uint16_t SimServer::tcp_port() const { return impl_->tcp_port_; }
const std::string& SimServer::unix_path() const { return impl_->opts_.unix_path; }

}  // namespace nicsched::drivers
