#include "nicsched/drivers/sim_server.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <boost/asio.hpp>
#include <boost/asio/generic/stream_protocol.hpp>
#include <boost/asio/steady_timer.hpp>
#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>
#include <random>
#include <unordered_set>
#include <vector>

#include "nicsched/regmap.hpp"

namespace nicsched::drivers {

namespace asio = boost::asio;
namespace rm = nicsched::regmap;
using GenericStream = asio::generic::stream_protocol;
using Acceptor = asio::basic_socket_acceptor<GenericStream>;
using Clock = std::chrono::steady_clock;
using proto::ErrorCode;
using proto::FrameWriter;
using proto::Mode;
using proto::MsgType;

namespace {

bool is_request(MsgType t) {
  const auto v = static_cast<std::uint8_t>(t);
  return v >= static_cast<std::uint8_t>(MsgType::kHello) && v <= static_cast<std::uint8_t>(MsgType::kAuth);
}

// A shadow write or COMMIT refused, with the ERROR code it is answered with: kHeld (another
// client holds the shadow registers) or kDiscarded (this client's uncommitted shadow writes
// were put back).
class ShadowRefusal : public std::runtime_error {
 public:
  ShadowRefusal(ErrorCode code, const std::string& what) : std::runtime_error(what), code_(code) {}
  [[nodiscard]] ErrorCode code() const { return code_; }

 private:
  ErrorCode code_;
};

double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }
double seconds(std::chrono::milliseconds d) { return static_cast<double>(d.count()) / 1000.0; }

// Which word addresses are shadowed registers, from the register map.
std::vector<bool> shadow_words() {
  std::vector<bool> words(static_cast<std::size_t>(1) << (rm::kAddrWidth - 2), false);
  for (const rm::RegisterInfo& r : rm::kRegisters) {
    if (!r.shadowed) continue;
    for (std::uint32_t i = 0; i < r.max_count; ++i) {
      for (std::uint32_t w = 0; w < r.width / 32; ++w) words.at((r.address(i) + 4 * w) / 4) = true;
    }
  }
  return words;
}

bool is_commit(std::uint32_t addr, std::uint32_t value) {
  return addr == rm::COMMIT::kOffset && rm::COMMIT::GO.get(value) != 0;
}

std::string peer_name(GenericStream::socket& s, const std::string& kind) {
  boost::system::error_code ec;
  const auto ep = s.remote_endpoint(ec);
  if (kind == "tcp" && !ec) {
    char text[INET6_ADDRSTRLEN] = "?";
    unsigned port = 0;
    if (ep.data()->sa_family == AF_INET) {
      const auto* sa = reinterpret_cast<const sockaddr_in*>(ep.data());
      ::inet_ntop(AF_INET, &sa->sin_addr, text, sizeof(text));
      port = ntohs(sa->sin_port);
    } else if (ep.data()->sa_family == AF_INET6) {
      const auto* sa = reinterpret_cast<const sockaddr_in6*>(ep.data());
      ::inet_ntop(AF_INET6, &sa->sin6_addr, text, sizeof(text));
      port = ntohs(sa->sin6_port);
    }
    return fmt::format("tcp {}:{}", text, port);
  }
  if (kind == "unix") {
    ucred cred{};
    socklen_t len = sizeof(cred);
    if (::getsockopt(s.native_handle(), SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0) {
      return fmt::format("unix pid {} uid {}", cred.pid, cred.uid);
    }
  }
  return kind;
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

  // Register writes of a client, with the ownership rule for shadow registers and COMMIT.
  void write(Session& s, std::uint32_t addr, std::uint32_t value);
  // Throws ShadowRefusal (kHeld / kDiscarded) if `s` may not write shadow registers or COMMIT now.
  void check_may_write_shadows(Session& s);
  [[nodiscard]] bool touches_shadows(std::uint32_t addr, std::uint32_t value) const {
    return is_commit(addr, value) || (addr / 4 < shadow_.size() && shadow_[addr / 4]);
  }
  // Uncommitted shadow writes are visible to their writer only: in words read by `s` from
  // `ranges`, registers another client holds read as they were before its hold.
  void hide_uncommitted(const Session& s, std::span<const BlockRange> ranges, std::span<std::uint32_t> words) const;
  // Puts back the shadow registers `s` wrote without committing (disconnect, timeout).
  void discard_hold(Session& s, const std::string& why);

  template <class F>
  void count(F&& f) {
    std::lock_guard<std::mutex> lock(stats_mu_);
    f(stats_);
  }

  // Everything a Session touches is declared before io_, so it outlives the sessions
  // that io_'s pending handlers still own when it is destroyed.
  SimTarget& target_;
  const ServerOptions opts_;
  const std::vector<bool> shadow_;
  std::unordered_set<Session*> sessions_;
  std::uint16_t tcp_port_ = 0;
  Mode mode_;
  bool free_run_scheduled_ = false;
  bool ran_ = false;
  std::mt19937_64 nonce_rng_{std::random_device{}()};
  mutable std::mutex stats_mu_;
  ServerStats stats_;

  // The hold: the client whose shadow writes are not committed yet, and the values the
  // registers had before its first write.
  Session* holder_ = nullptr;
  std::map<std::uint32_t, std::uint32_t> undo_;
  Clock::time_point hold_since_{};
  std::uint64_t hold_writes_ = 0;

  asio::io_context io_;
  std::optional<Acceptor> tcp_acceptor_;
  std::optional<Acceptor> unix_acceptor_;
  asio::signal_set signals_{io_};

 private:
  void accept(Acceptor& acceptor, std::string kind);
  void free_run_tick();
  Session* eviction_candidate(const Session* newcomer);
};

// One client connection. Reads a frame, answers it, reads the next: at most one request
// of a client is in flight, so replies never interleave and a client's buffers hold one
// request and one reply. One timer bounds whatever the connection waits for.
class Session : public std::enable_shared_from_this<Session> {
 public:
  enum class Phase { kIdle, kReading, kBusy, kWriting, kClosed };

  Session(SimServer::Impl& server, GenericStream::socket socket, std::string peer)
      : srv_(server), sock_(std::move(socket)), timer_(sock_.get_executor()), peer_(std::move(peer)),
        authed_(server.opts_.secret.empty()), connected_at_(Clock::now()), last_activity_(connected_at_) {
    srv_.sessions_.insert(this);
    srv_.count([&](ServerStats& s) {
      ++s.accepted;
      s.connections_now = srv_.sessions_.size();
      s.max_connections = std::max(s.max_connections, s.connections_now);
    });
  }
  ~Session() {
    release();
    srv_.sessions_.erase(this);
    srv_.count([&](ServerStats& s) { s.connections_now = srv_.sessions_.size(); });
  }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  void start() { wait_for_request(); }
  void close() {
    if (phase_ == Phase::kClosed) return;
    phase_ = Phase::kClosed;
    release();
    boost::system::error_code ignored;
    timer_.cancel();
    sock_.shutdown(asio::socket_base::shutdown_both, ignored);
    sock_.close(ignored);
  }
  void refuse_busy() {
    srv_.count([](ServerStats& s) { ++s.refused_busy; });
    send_error(0,
               {ErrorCode::kBusy, 0, 0,
                fmt::format("server busy: {} clients connected already, none idle for {} s",
                            srv_.opts_.max_clients, seconds(srv_.opts_.evict_idle_after))},
               true);
  }
  // Closes the connection with an ERROR kTimeout saying why (idle, evicted, ...).
  void time_out(const std::string& why) {
    if (phase_ == Phase::kClosed || closing_) return;
    spdlog::info("nicsim server: {}: {}", who(), why);
    srv_.count([](ServerStats& s) { ++s.timed_out; });
    closing_ = true;
    if (phase_ == Phase::kBusy) {  // mid-STEP: continue_step sees closing_ and stops
      close();
      return;
    }
    boost::system::error_code ignored;
    sock_.cancel(ignored);
    release();
    send_error(0, {ErrorCode::kTimeout, 0, 0, why}, true);
  }

  [[nodiscard]] Phase phase() const { return phase_; }
  [[nodiscard]] Clock::time_point last_activity() const { return last_activity_; }
  [[nodiscard]] std::string who() const {
    return hello_done_ ? fmt::format("client '{}' ({})", name_, peer_) : fmt::format("{} (before HELLO)", peer_);
  }
  bool discarded_ = false;     // its hold was broken: the next shadow write / COMMIT says so
  std::uint64_t discarded_writes_ = 0;

 private:
  // Drops this client's hold on the shadow registers, putting them back.
  void release() {
    if (srv_.holder_ == this) srv_.discard_hold(*this, "disconnected before COMMIT");
  }

  // Arms the one timer; a firing that belongs to an earlier arming is ignored.
  void arm(Clock::time_point deadline, std::string why) {
    const std::uint64_t gen = ++timer_gen_;
    timer_.expires_at(deadline);
    timer_.async_wait([self = shared_from_this(), gen, why = std::move(why)](boost::system::error_code ec) {
      if (ec || gen != self->timer_gen_ || self->phase_ == Phase::kClosed) return;
      if (self->phase_ == Phase::kWriting) {
        spdlog::info("nicsim server: {}: {}; closing", self->who(), why);
        self->srv_.count([](ServerStats& s) { ++s.timed_out; });
        self->close();
        return;
      }
      self->time_out(why);
    });
  }
  void disarm() {
    ++timer_gen_;
    timer_.cancel();
  }
  [[nodiscard]] Clock::time_point handshake_deadline() const { return connected_at_ + srv_.opts_.request_timeout; }

  void wait_for_request() {
    phase_ = Phase::kIdle;
    last_activity_ = Clock::now();
    if (authed_ && hello_done_) {
      arm(Clock::now() + srv_.opts_.idle_timeout,
          fmt::format("closing after {} s without a request", seconds(srv_.opts_.idle_timeout)));
    } else {
      arm(handshake_deadline(), fmt::format("closing: HELLO{} not done {} s after connecting",
                                            srv_.opts_.secret.empty() ? "" : " and AUTH",
                                            seconds(srv_.opts_.request_timeout)));
    }
    asio::async_read(sock_, asio::buffer(header_.data(), 1),
                     [self = shared_from_this()](boost::system::error_code ec, std::size_t) {
                       if (!self->read_ok(ec)) return;
                       self->phase_ = Phase::kReading;
                       if (self->authed_ && self->hello_done_) {
                         self->arm(Clock::now() + self->srv_.opts_.request_timeout,
                                   fmt::format("closing: a frame not complete {} s after its first byte",
                                               seconds(self->srv_.opts_.request_timeout)));
                       }
                       self->read_rest_of_header();
                     });
  }

  // False (and the connection closed) when a read failed.
  bool read_ok(const boost::system::error_code& ec) {
    if (!ec) return true;
    if (closing_ || phase_ == Phase::kClosed) return false;  // a timeout is replying
    if (ec != asio::error::eof && ec != asio::error::operation_aborted) {
      spdlog::debug("nicsim server: {}: read: {}", who(), ec.message());
    }
    close();
    return false;
  }

  void read_rest_of_header() {
    asio::async_read(sock_, asio::buffer(header_.data() + 1, header_.size() - 1),
                     [self = shared_from_this()](boost::system::error_code ec, std::size_t) {
                       if (!self->read_ok(ec)) return;
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
    if (current_.body_len > srv_.opts_.max_request_body) {
      send_error(current_.tag,
                 {ErrorCode::kTooLarge, 0, 0,
                  fmt::format("{} body of {} bytes exceeds the limit of {} bytes; closing",
                              proto::to_string(current_.type), current_.body_len, srv_.opts_.max_request_body)},
                 true);
      return;
    }
    body_.resize(current_.body_len);
    body_.shrink_to_fit();
    asio::async_read(sock_, asio::buffer(body_),
                     [self = shared_from_this()](boost::system::error_code ec, std::size_t) {
                       if (!self->read_ok(ec)) return;
                       self->phase_ = Phase::kBusy;
                       self->disarm();
                       self->srv_.count([](ServerStats& s) { ++s.requests; });
                       self->handle();
                     });
  }

  void send(std::vector<std::uint8_t> frame, bool close_after) {
    if (phase_ == Phase::kClosed) return;
    phase_ = Phase::kWriting;
    out_ = std::move(frame);
    arm(Clock::now() + srv_.opts_.write_timeout,
        fmt::format("peer did not read a {}-byte reply within {} s", out_.size(), seconds(srv_.opts_.write_timeout)));
    asio::async_write(sock_, asio::buffer(out_),
                      [self = shared_from_this(), close_after](boost::system::error_code ec, std::size_t) {
                        self->out_.clear();
                        self->out_.shrink_to_fit();
                        if (ec || close_after) {
                          self->close();
                          return;
                        }
                        self->wait_for_request();
                      });
  }

  void send_error(std::uint16_t tag, const proto::ErrorReply& e, bool close_after) {
    spdlog::debug("nicsim server: {}: error reply: {}", who(), e.message);
    srv_.count([](ServerStats& s) { ++s.error_replies; });
    send(proto::encode_error(tag, e), close_after);
  }

  // Nothing is read while a request is served: whether the peer has hung up (EOF or an
  // error on the socket; pipelined bytes do not count).
  bool peer_gone() {
    pollfd p{};
    p.fd = sock_.native_handle();
    p.events = POLLIN;
    if (::poll(&p, 1, 0) <= 0) return false;
    if ((p.revents & (POLLHUP | POLLERR)) != 0) return true;
    std::uint8_t byte = 0;
    return ::recv(p.fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
  }

  void handle();
  bool handshake(proto::BodyReader& r);
  void serve(proto::BodyReader& r, std::uint32_t& addr);
  void continue_step(std::uint64_t remaining);

  SimServer::Impl& srv_;
  GenericStream::socket sock_;
  asio::steady_timer timer_;
  std::uint64_t timer_gen_ = 0;
  std::string peer_;
  std::string name_;
  std::array<std::uint8_t, proto::kHeaderBytes> header_{};
  proto::Header current_;
  std::vector<std::uint8_t> body_;
  std::vector<std::uint8_t> out_;
  bool hello_done_ = false;
  bool authed_;
  bool closing_ = false;
  proto::Nonce nonce_{};
  Phase phase_ = Phase::kIdle;
  Clock::time_point connected_at_;
  Clock::time_point last_activity_;
};

void Session::handle() {
  const std::uint16_t tag = current_.tag;
  std::uint32_t addr = 0;  // the address the request concerns, for error replies
  try {
    proto::BodyReader r(current_.type, body_);
    if (current_.type == MsgType::kHello || current_.type == MsgType::kAuth) {
      if (handshake(r)) return;
    }
    if (!is_request(current_.type)) {
      send_error(tag,
                 {ErrorCode::kUnknownType, 0, 0,
                  fmt::format("message type 0x{:02x} is not a request", static_cast<unsigned>(current_.type))},
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
    if (!authed_) {
      srv_.count([](ServerStats& s) { ++s.auth_failures; });
      send_error(tag,
                 {ErrorCode::kAuth, 0, 0,
                  fmt::format("{} before AUTH: this server requires the shared secret; closing",
                              proto::to_string(current_.type))},
                 true);
      return;
    }
    serve(r, addr);
  } catch (const proto::ProtocolError& e) {
    send_error(tag, {ErrorCode::kMalformed, 0, addr, e.what()}, false);
  } catch (const ShadowRefusal& e) {
    if (e.code() == ErrorCode::kHeld) srv_.count([](ServerStats& s) { ++s.held_refusals; });
    send_error(tag, {e.code(), 0, addr, e.what()}, false);
  } catch (const BusResponseError& e) {
    send_error(tag, {ErrorCode::kBusResponse, static_cast<std::uint8_t>(e.resp()), e.addr(), e.what()}, false);
  } catch (const BusError& e) {
    send_error(tag, {ErrorCode::kBusError, 0, addr, e.what()}, false);
  } catch (const std::exception& e) {
    send_error(tag, {ErrorCode::kTarget, 0, addr, e.what()}, false);
  }
}

// HELLO and AUTH. Returns true when it has answered.
bool Session::handshake(proto::BodyReader& r) {
  const std::uint16_t tag = current_.tag;
  const bool need_auth = !srv_.opts_.secret.empty();
  if (current_.type == MsgType::kAuth) {
    if (!hello_done_) return false;  // answered kNoHello by the caller
    if (authed_) {
      throw proto::ProtocolError(need_auth ? "AUTH: already authenticated"
                                           : "AUTH: this server has no shared secret; nothing to prove");
    }
    proto::Mac mac{};
    for (auto& b : mac) b = r.u8("mac");
    r.expect_end();
    if (!proto::mac_equal(mac, proto::auth_mac(srv_.opts_.secret, nonce_, name_))) {
      srv_.count([](ServerStats& s) { ++s.auth_failures; });
      spdlog::warn("nicsim server: {}: AUTH with a wrong shared secret; closing", who());
      send_error(tag, {ErrorCode::kAuth, 0, 0, "AUTH: wrong shared secret; closing"}, true);
      return true;
    }
    authed_ = true;
    spdlog::info("nicsim server: {} authenticated", who());
    send(FrameWriter(MsgType::kAuthOk, tag).finish(), false);
    return true;
  }
  const std::uint16_t major = r.u16("major");
  const std::uint16_t minor = r.u16("minor");
  const std::string client = r.str16("client");
  r.expect_end();
  if (hello_done_) throw proto::ProtocolError("HELLO: this connection has said HELLO already");
  if (major != proto::kVersionMajor) {
    send_error(tag,
               {ErrorCode::kVersion, 0, 0,
                fmt::format("server speaks protocol {}.{}, client '{}' speaks {}.{}; closing", proto::kVersionMajor,
                            proto::kVersionMinor, client, major, minor)},
               true);
    return true;
  }
  name_ = client;
  hello_done_ = true;
  if (need_auth && minor < 1) {
    srv_.count([](ServerStats& s) { ++s.auth_failures; });
    send_error(tag,
               {ErrorCode::kAuth, 0, 0,
                fmt::format("this server requires the shared-secret handshake of protocol {}.1; client '{}' "
                            "speaks {}.{}; closing",
                            proto::kVersionMajor, client, major, minor)},
               true);
    return true;
  }
  spdlog::info("nicsim server: {} connected, protocol {}.{}", who(), major, minor);
  FrameWriter w(MsgType::kHelloOk, tag);
  w.u16(proto::kVersionMajor)
      .u16(proto::kVersionMinor)
      .u8(static_cast<std::uint8_t>(srv_.mode()))
      .u32(proto::kMaxBurstWords)
      .str16(srv_.opts_.description);
  if (minor >= 1) {
    if (need_auth) {
      for (std::size_t i = 0; i < nonce_.size(); i += 8) {
        const std::uint64_t v = srv_.nonce_rng_();
        for (std::size_t b = 0; b < 8; ++b) nonce_[i + b] = static_cast<std::uint8_t>(v >> (8 * b));
      }
    }
    w.u8(need_auth ? 1 : 0);
    for (std::uint8_t b : nonce_) w.u8(b);
  }
  send(std::move(w).finish(), false);
  return true;
}

void Session::serve(proto::BodyReader& r, std::uint32_t& addr) {
  const std::uint16_t tag = current_.tag;
  SimTarget& target = srv_.target_;
  switch (current_.type) {
    case MsgType::kRead32: {
      addr = r.u32("addr");
      r.expect_end();
      std::uint32_t v = target.read32(addr);
      const BlockRange one{addr, 1};
      srv_.hide_uncommitted(*this, {&one, 1}, {&v, 1});
      send(FrameWriter(MsgType::kRead32Ok, tag).u32(v).finish(), false);
      return;
    }
    case MsgType::kWrite32: {
      addr = r.u32("addr");
      const std::uint32_t value = r.u32("value");
      r.expect_end();
      srv_.write(*this, addr, value);
      send(FrameWriter(MsgType::kWrite32Ok, tag).finish(), false);
      return;
    }
    case MsgType::kReadBlock: {
      addr = r.u32("addr");
      const std::uint32_t count = r.u32("count");
      r.expect_end();
      if (count > proto::kMaxBurstWords) {
        throw proto::ProtocolError(
            fmt::format("READ_BLOCK of {} words exceeds the limit of {}", count, proto::kMaxBurstWords));
      }
      std::vector<std::uint32_t> words(count);
      target.read_block(addr, words);
      const BlockRange block{addr, count};
      srv_.hide_uncommitted(*this, {&block, 1}, words);
      FrameWriter w(MsgType::kReadBlockOk, tag);
      w.u32(count);
      for (std::uint32_t v : words) w.u32(v);
      send(std::move(w).finish(), false);
      return;
    }
    case MsgType::kWriteBatch: {
      const std::uint32_t n = r.u32("n");
      if (r.remaining() != static_cast<std::size_t>(n) * 8) {
        throw proto::ProtocolError(fmt::format("WRITE_BATCH announces {} writes ({} bytes) but carries {} bytes",
                                               n, static_cast<std::size_t>(n) * 8, r.remaining()));
      }
      std::vector<RegWrite> writes(n);
      bool shadows = false;
      for (RegWrite& w : writes) {
        w.addr = r.u32("addr");
        w.value = r.u32("value");
        shadows = shadows || srv_.touches_shadows(w.addr, w.value);
      }
      // Refused as a whole before anything is written, rather than half-applied.
      if (shadows) srv_.check_may_write_shadows(*this);
      for (const RegWrite& w : writes) {
        addr = w.addr;
        srv_.write(*this, w.addr, w.value);
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
        if (srv_.touches_shadows(trigger_addr, trigger_value)) {
          // The trigger is an ordinary write: the ownership rule applies to it too.
          srv_.write(*this, trigger_addr, trigger_value);
          target.read_ranges(ranges, words);
        } else {
          target.write_then_read(trigger_addr, trigger_value, ranges, words);
        }
      } else {
        target.read_ranges(ranges, words);
      }
      srv_.hide_uncommitted(*this, ranges, words);
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
        throw proto::ProtocolError(fmt::format("SET_MODE mode {} unknown (0 lock-step, 1 free-running)", m));
      }
      srv_.set_mode(static_cast<Mode>(m));
      send(FrameWriter(MsgType::kSetModeOk, tag).u8(m).u64(target.cycle()).finish(), false);
      return;
    }
    case MsgType::kStatus: {
      r.expect_end();
      send(FrameWriter(MsgType::kStatusOk, tag).u8(static_cast<std::uint8_t>(srv_.mode())).u64(target.cycle()).finish(),
           false);
      return;
    }
    case MsgType::kMetrics: {
      r.expect_end();
      send(FrameWriter(MsgType::kMetricsOk, tag).str32(target.metrics_json()).finish(), false);
      return;
    }
    default:
      throw proto::ProtocolError(fmt::format("message type {} is not a request", proto::to_string(current_.type)));
  }
}

// Steps in chunks so that other clients (and the free-running loop's peers) are served
// between chunks of a long STEP. Stops when the client has gone.
void Session::continue_step(std::uint64_t remaining) {
  if (phase_ == Phase::kClosed || closing_) return;
  if (peer_gone()) {
    spdlog::info("nicsim server: {} went away during a STEP; {} cycles not stepped", who(), remaining);
    close();
    return;
  }
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
  asio::post(sock_.get_executor(), [self = shared_from_this(), remaining] { self->continue_step(remaining); });
}

void SimServer::Impl::check_may_write_shadows(Session& s) {
  if (s.discarded_) {
    s.discarded_ = false;
    throw ShadowRefusal(ErrorCode::kDiscarded, fmt::format(
        "your {} uncommitted shadow write(s) were discarded after {} s without COMMIT (another client needed the "
        "NIC); nothing of them was applied: write the whole policy again",
        s.discarded_writes_, seconds(opts_.hold_timeout)));
  }
  if (holder_ == nullptr || holder_ == &s) return;
  const auto held_for = Clock::now() - hold_since_;
  if (held_for >= opts_.hold_timeout) {
    discard_hold(*holder_, fmt::format("held the shadow registers {:.1f} s without COMMIT; {} needs them",
                                       seconds(held_for), s.who()));
    return;
  }
  throw ShadowRefusal(ErrorCode::kHeld, fmt::format(
      "NIC held by {}: {} uncommitted shadow write(s) since {:.1f} s ago; retry after it commits or disconnects "
      "(it yields after {} s)",
      holder_->who(), hold_writes_, seconds(held_for), seconds(opts_.hold_timeout)));
}

void SimServer::Impl::write(Session& s, std::uint32_t addr, std::uint32_t value) {
  if (!touches_shadows(addr, value)) {
    target_.write32(addr, value);
    return;
  }
  check_may_write_shadows(s);
  if (is_commit(addr, value)) {
    target_.write32(addr, value);
    count([](ServerStats& st) { ++st.commits; });
    if (holder_ == &s) {
      spdlog::debug("nicsim server: {} committed {} shadow write(s)", s.who(), hold_writes_);
      holder_ = nullptr;
      undo_.clear();
      hold_writes_ = 0;
    }
    return;
  }
  const bool first = !undo_.contains(addr);
  const std::uint32_t before = first ? target_.read32(addr) : 0;
  target_.write32(addr, value);
  if (first) undo_.emplace(addr, before);
  if (holder_ == nullptr) {
    holder_ = &s;
    hold_since_ = Clock::now();
  }
  ++hold_writes_;
}

void SimServer::Impl::hide_uncommitted(const Session& s, std::span<const BlockRange> ranges,
                                       std::span<std::uint32_t> words) const {
  if (holder_ == nullptr || holder_ == &s || undo_.empty()) return;
  std::size_t at = 0;
  for (const BlockRange& r : ranges) {
    const std::uint64_t end = static_cast<std::uint64_t>(r.addr) + 4ULL * r.count;
    for (auto it = undo_.lower_bound(r.addr); it != undo_.end() && it->first < end; ++it) {
      if ((it->first - r.addr) % 4 == 0) words[at + (it->first - r.addr) / 4] = it->second;
    }
    at += r.count;
  }
}

void SimServer::Impl::discard_hold(Session& s, const std::string& why) {
  if (holder_ != &s) return;
  std::size_t restored = 0;
  for (const auto& [addr, value] : undo_) {
    try {
      target_.write32(addr, value);
      ++restored;
    } catch (const std::exception& e) {
      spdlog::error("nicsim server: putting back shadow register 0x{:04x} failed: {}", addr, e.what());
    }
  }
  spdlog::warn("nicsim server: {} {}: its {} uncommitted shadow write(s) discarded ({} register(s) put back)",
               s.who(), why, hold_writes_, restored);
  count([&](ServerStats& st) {
    ++st.discarded_holds;
    st.discarded_writes += restored;
  });
  s.discarded_ = true;
  s.discarded_writes_ = hold_writes_;
  holder_ = nullptr;
  undo_.clear();
  hold_writes_ = 0;
}

SimServer::Impl::Impl(SimTarget& target, ServerOptions options)
    : target_(target), opts_(std::move(options)), shadow_(shadow_words()), mode_(opts_.initial_mode) {
  if (opts_.step_chunk_cycles == 0) throw ServerError("nicsim server: step_chunk_cycles must be > 0");
  if (opts_.max_clients == 0) throw ServerError("nicsim server: max_clients must be > 0");
  if (opts_.max_request_body < 64 || opts_.max_request_body > proto::kMaxRequestBody) {
    throw ServerError(fmt::format("nicsim server: max_request_body {} outside 64..{}", opts_.max_request_body,
                                  proto::kMaxRequestBody));
  }
  for (const auto& [name, v] : {std::pair{"idle_timeout", opts_.idle_timeout},
                                {"request_timeout", opts_.request_timeout},
                                {"write_timeout", opts_.write_timeout},
                                {"hold_timeout", opts_.hold_timeout}}) {
    if (v.count() <= 0) throw ServerError(fmt::format("nicsim server: {} must be > 0 ms", name));
  }
  if (opts_.evict_idle_after.count() < 0) throw ServerError("nicsim server: evict_idle_after must be >= 0 ms");
  if (!opts_.tcp_address && opts_.unix_path.empty()) {
    throw ServerError("nicsim server: neither a TCP address nor a Unix socket path to listen on");
  }
  if (opts_.tcp_address) {
    boost::system::error_code ec;
    const auto ip = asio::ip::make_address(*opts_.tcp_address, ec);
    if (ec) {
      throw ServerError(
          fmt::format("nicsim server: '{}' is not an IP address: {}", *opts_.tcp_address, ec.message()));
    }
    if (!ip.is_loopback() && !opts_.allow_remote) {
      throw ServerError(fmt::format(
          "nicsim server: {} is not a loopback address: anyone who reaches it could change the NIC's policy; "
          "pass --allow-remote to mean it (and --secret-file to require a shared secret)",
          *opts_.tcp_address));
    }
    if (!ip.is_loopback() && opts_.secret.empty()) {
      spdlog::warn("nicsim server: listening on {} without a shared secret: any host that reaches the port can "
                   "write the NIC's registers",
                   *opts_.tcp_address);
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
        throw ServerError(
            fmt::format("nicsim server: {} exists and is not a socket; not replacing it", opts_.unix_path));
      }
      ::unlink(opts_.unix_path.c_str());
    }
    try {
      unix_acceptor_.emplace(io_, GenericStream::endpoint(asio::local::stream_protocol::endpoint(opts_.unix_path)),
                             false);
    } catch (const boost::system::system_error& e) {
      throw ServerError(
          fmt::format("nicsim server: cannot listen on unix://{}: {}", opts_.unix_path, e.code().message()));
    }
    if (::chmod(opts_.unix_path.c_str(), S_IRUSR | S_IWUSR) != 0) {
      throw ServerError(fmt::format("nicsim server: cannot make unix://{} owner-only: {}", opts_.unix_path,
                                    std::strerror(errno)));
    }
  }
}

Session* SimServer::Impl::eviction_candidate(const Session* newcomer) {
  const auto now = Clock::now();
  Session* best = nullptr;
  for (Session* s : sessions_) {
    if (s == newcomer || s->phase() != Session::Phase::kIdle || now - s->last_activity() < opts_.evict_idle_after) continue;
    // A holder goes last: evicting it discards its writes.
    const bool better = best == nullptr || (best == holder_ && s != holder_) ||
                        ((s == holder_) == (best == holder_) && s->last_activity() < best->last_activity());
    if (better) best = s;
  }
  return best;
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
      std::string peer = peer_name(s, kind);
      auto session = std::make_shared<Session>(*this, std::move(s), std::move(peer));
      std::size_t open = 0;
      for (Session* other : sessions_) {
        if (other->phase() != Session::Phase::kClosed) ++open;
      }
      if (open > opts_.max_clients) {
        if (Session* victim = eviction_candidate(session.get())) {
          count([](ServerStats& st) { ++st.evicted; });
          victim->time_out(fmt::format("closed after {:.1f} s idle to make room for a new client ({} connected)",
                                       seconds(Clock::now() - victim->last_activity()), opts_.max_clients));
          session->start();
        } else {
          session->refuse_busy();
        }
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
  const std::vector<Session*> open(sessions_.begin(), sessions_.end());
  for (Session* s : open) s->close();
  spdlog::info("nicsim server: stopped");
}

SimServer::SimServer(SimTarget& target, ServerOptions options)
    : impl_(std::make_unique<Impl>(target, std::move(options))) {}
SimServer::~SimServer() = default;
void SimServer::run() { impl_->run(); }
void SimServer::stop() { impl_->stop(); }
std::uint16_t SimServer::tcp_port() const { return impl_->tcp_port_; }
const std::string& SimServer::unix_path() const { return impl_->opts_.unix_path; }
ServerStats SimServer::stats() const {
  std::lock_guard<std::mutex> lock(impl_->stats_mu_);
  return impl_->stats_;
}

}  // namespace nicsched::drivers
