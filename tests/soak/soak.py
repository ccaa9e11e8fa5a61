#!/usr/bin/env python3
"""nicsched soak and fuzz suite (docs/reliability.md).

Runs, each within its share of --duration seconds and every loop bounded in count and time:
  server   many concurrent clients against one `nicsim serve` (loopback TCP and a Unix
           socket): random and mutated protocol frames, slow senders, idle connections,
           disconnects mid-frame and mid-commit, peers that stop reading, slot exhaustion;
           one controller commits complete policies throughout.
  kill     `kill -9` of `nicsim serve` (restart on the same socket path), of
           `nicagent serve` in the middle of its control loop, and (phases of 90 s and
           more) of `nicagent train` after its first checkpoint.
  loaders  mutated scenario and policy YAML against the loaders (soak_loaders).
  parser   random and mutated frames through the parser RTL against the reference parser,
           and through parser + classifier (nicsched_ingress, in its RX and its TX
           configuration) under random classifier tables against the reference parser and
           classifier (tests/fuzz_parser, --dut parser / ingress / ingress_tx); seeds and
           batches scaled to the time share.

Invariants checked (any violation fails the run, exit 1):
  - no crash and no hang: the server process stays up and a fresh client's HELLO + STATUS
    is answered within 5 s throughout;
  - memory bounded: the server's resident set grows by less than --rss-slack-mib;
  - registers change only by complete commits: whenever the controller holds the NIC, every
    shadow register it did not write still has its committed value, and CONFIG_GEN moves by
    exactly one per controller COMMIT; after `kill -9` of a client mid-policy, the shadows
    equal its last committed decision;
  - nothing half-written: after `kill -9` of training, train.csv holds only whole rows and
    the checkpoint resumes;
  - every ERROR reply carries a message; every rejected YAML names its file.
Figures (frames, clients, connections, iterations, seconds) are printed as one JSON object
and, with --report FILE, written there for docs/reliability.md.

Usage: soak.py --build BUILD_DIR [--duration 30] [--seed 1] [--only server,kill,...]
Exit: 0 all invariants held, 1 a violation (printed), 2 bad arguments or missing binaries.
"""

import argparse
import json
import os
import random
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# ---------------------------------------------------------------------------------------
# The register map, from the generated header (the one source of addresses).


def load_regmap():
    text = open(os.path.join(REPO, "include/nicsched/regmap.hpp")).read()
    regs = {}
    row = re.compile(r'\{"(\w+)", (0x[0-9A-Fa-f]+), (0x[0-9A-Fa-f]+), (\d+), "(\w*)", (\d+), "([\w/]+)", (true|false), (true|false),')
    for m in row.finditer(text):
        regs[m.group(1)] = {
            "offset": int(m.group(2), 16), "stride": int(m.group(3), 16), "count": int(m.group(4)),
            "width": int(m.group(6)), "shadowed": m.group(8) == "true",
        }
    def field(reg, name):
        m = re.search(r"namespace %s \{.*?Field %s\{(\d+), (\d+)\}" % (reg, name), text, re.S)
        return int(m.group(1)), int(m.group(2))

    regs["_tenants_field"] = field("CAPS0", "TENANTS")
    regs["_priority_field"] = field("T_CTRL", "PRIORITY")
    regs["_quota_field"] = field("T_CTRL", "CRYPTO_QUOTA")
    return regs


def get_field(word, f):
    lsb, width = f
    return (word >> lsb) & ((1 << width) - 1)


REGS = load_regmap()


def addr(name, i=0):
    r = REGS[name]
    return r["offset"] + i * r["stride"]


SHADOW_WORDS = set()
for _name, _r in REGS.items():
    if _name.startswith("_") or not _r["shadowed"]:
        continue
    for _i in range(_r["count"]):
        for _w in range(_r["width"] // 32):
            SHADOW_WORDS.add(_r["offset"] + _i * _r["stride"] + 4 * _w)

# ---------------------------------------------------------------------------------------
# The wire protocol (docs/protocol.md), just enough to speak and to break it.

HELLO, READ32, WRITE32, READ_BLOCK, WRITE_BATCH, SNAPSHOT, STEP, SET_MODE, STATUS, METRICS, READ_RANGES, AUTH = range(1, 13)
ERROR = 0xFF
E_TIMEOUT, E_HELD, E_BUSY = 10, 12, 9


def frame(t, tag, body=b""):
    return struct.pack("<IBBH", len(body), t, 0, tag) + body


def hello_frame(name="soak"):
    n = name.encode()
    return frame(HELLO, 1, struct.pack("<HHH", 1, 1, len(n)) + n)


class Conn:
    """A blocking client socket with a deadline on every receive."""

    def __init__(self, target, timeout=5.0, rcvbuf=0):
        kind, where = target
        self.s = socket.socket(socket.AF_UNIX if kind == "unix" else socket.AF_INET, socket.SOCK_STREAM)
        if rcvbuf:
            self.s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.s.settimeout(timeout)
        self.s.connect(where)

    def close(self):
        try:
            self.s.close()
        except OSError:
            pass

    def send(self, data):
        self.s.sendall(data)

    def recv_exact(self, n):
        buf = b""
        while len(buf) < n:
            chunk = self.s.recv(n - len(buf))
            if not chunk:
                return None
            buf += chunk
        return buf

    def recv_frame(self):
        """(type, tag, body), or None when the server closed. socket.timeout on a hang."""
        h = self.recv_exact(8)
        if h is None:
            return None
        length, t, _, tag = struct.unpack("<IBBH", h)
        if length > 16 * 1024 * 1024:
            raise Violation(f"server announced a {length}-byte reply")
        body = self.recv_exact(length) if length else b""
        if body is None:
            return None
        return t, tag, body

    def request(self, t, body=b"", tag=7):
        self.send(frame(t, tag, body))
        return self.recv_frame()

    def hello(self, name="soak"):
        self.send(hello_frame(name))
        r = self.recv_frame()
        if r is not None and r[0] == ERROR and error_of(r)[0] in (E_BUSY, E_TIMEOUT):
            raise Refused(error_of(r)[1])
        if r is None or r[0] != 0x81:
            raise Violation(f"HELLO not answered with HELLO_OK: {r!r}")


class Violation(Exception):
    pass


class Refused(Exception):
    """The server turned the connection away as it should under load (kBusy, or its
    handshake deadline passed): counted, not a violation."""


# Set when a phase must end early (a violation): every client loop checks it.
STOP = threading.Event()


def running(deadline):
    return not STOP.is_set() and time.monotonic() < deadline


def error_of(reply):
    """(code, message) of an ERROR reply."""
    _, _, body = reply
    code, _, _, mlen = struct.unpack_from("<HBIH", body, 0)
    return code, body[9:9 + mlen].decode(errors="replace")


# ---------------------------------------------------------------------------------------


class Figures:
    def __init__(self):
        self.lock = threading.Lock()
        self.n = {}

    def add(self, key, k=1):
        with self.lock:
            self.n[key] = self.n.get(key, 0) + k

    def set_max(self, key, v):
        with self.lock:
            self.n[key] = max(self.n.get(key, v), v)


def rss_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


class NicsimServer:
    """A `nicsim serve` process on loopback TCP (free port) and a Unix socket."""

    def __init__(self, build, sock_path, extra=()):
        self.sock_path = sock_path
        cmd = [os.path.join(build, "sim/nicsim"), "serve", os.path.join(REPO, "sim/scenarios/default.yaml"),
               "--backend", "model", "--lockstep", "--listen", "127.0.0.1:0", "--unix", sock_path, *extra]
        self.p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.err_lines = []
        line = self._first_line(60.0)
        m = re.search(r"tcp 127\.0\.0\.1:(\d+)", line or "")
        if not m:
            self.p.kill()
            raise Violation(f"nicsim serve did not start: {line!r} {self.p.stderr.read()[-2000:]!r}")
        self.port = int(m.group(1))
        threading.Thread(target=self._drain, daemon=True).start()

    def _first_line(self, limit):
        out = []
        t = threading.Thread(target=lambda: out.append(self.p.stdout.readline()), daemon=True)
        t.start()
        t.join(limit)
        return out[0] if out else None

    def _drain(self):
        for line in self.p.stderr:
            if len(self.err_lines) < 10000:
                self.err_lines.append(line)

    def targets(self):
        return [("tcp", ("127.0.0.1", self.port)), ("unix", self.sock_path)]

    def alive(self):
        return self.p.poll() is None

    def stop(self, limit=10.0):
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGTERM)
            try:
                return self.p.wait(limit)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()
                raise Violation(f"nicsim serve did not stop within {limit} s of SIGTERM")
        return self.p.returncode


def probe(target, figs, name="probe"):
    """HELLO + STATUS on a fresh connection; returns seconds, raises Violation on a hang."""
    t0 = time.monotonic()
    c = Conn(target, timeout=5.0)
    try:
        c.send(hello_frame(name))
        r = c.recv_frame()
        if r is not None and r[0] == ERROR and error_of(r)[0] == E_BUSY:
            figs.add("probe_busy")
            return None
        if r is None or r[0] != 0x81:
            raise Violation(f"probe: HELLO answered {r!r}")
        r = c.request(STATUS)
        if r is None or r[0] != 0x89:
            raise Violation(f"probe: STATUS answered {r!r}")
    except socket.timeout:
        raise Violation(f"probe: no answer within 5 s (server hung?) on {target}")
    finally:
        c.close()
    return time.monotonic() - t0


# ---------------------------------------------------------------------------------------
# Client behaviours. Each runs until `deadline`; every socket operation has a timeout.

SAFE_REQUESTS = [READ32, READ_BLOCK, READ_RANGES, SNAPSHOT, STATUS, METRICS, STEP, WRITE32, WRITE_BATCH]


def valid_request(rng, tenants):
    t = rng.choice(SAFE_REQUESTS)
    a = rng.choice([0, 4, 8, 0x20, 0x24, 0x30, 0x100, addr("Q_TX_PKTS"), 0x8000, 0xFFFC, rng.randrange(0, 0x10000, 4)])
    if t == READ32:
        return t, struct.pack("<I", a)
    if t == READ_BLOCK:
        return t, struct.pack("<II", a, rng.choice([0, 1, 16, 300]))
    if t in (READ_RANGES, SNAPSHOT):
        n = rng.randrange(0, 4)
        body = b"".join(struct.pack("<II", rng.randrange(0, 0x5000, 4), rng.randrange(0, 20)) for _ in range(n))
        head = struct.pack("<II", addr("SNAPSHOT"), 1) if t == SNAPSHOT else b""
        return t, head + struct.pack("<I", n) + body
    if t == STEP:
        return t, struct.pack("<Q", rng.choice([0, 1, 100, 2000]))
    if t == WRITE32:
        return t, struct.pack("<II", rng.choice([addr("SCRATCH"), addr("SNAPSHOT"), addr("COUNTER_CLEAR"), 0, 0x8000]), rng.getrandbits(32))
    if t == WRITE_BATCH:
        ws = [(addr("SCRATCH"), rng.getrandbits(32)) for _ in range(rng.randrange(0, 5))]
        return t, struct.pack("<I", len(ws)) + b"".join(struct.pack("<II", *w) for w in ws)
    return t, b""


def touches_policy(t, body):
    """Whether a (possibly mutated) frame would write a shadow register, COMMIT or the mode:
    the fuzzers leave those to the controller so that its invariant stays checkable."""
    if t == SET_MODE:
        return True
    words = []
    if t == WRITE32 and len(body) >= 8:
        words = [struct.unpack_from("<II", body, 0)]
    elif t == WRITE_BATCH and len(body) >= 4:
        words = [struct.unpack_from("<II", body, 4 + 8 * i) for i in range((len(body) - 4) // 8)]
    elif t == SNAPSHOT and len(body) >= 8:
        words = [struct.unpack_from("<II", body, 0)]
    for a, v in words:
        if a in SHADOW_WORDS or (a == addr("COMMIT") and v & 1):
            return True
    return False


def mutate(rng, data):
    data = bytearray(data)
    for _ in range(rng.randrange(1, 4)):
        op = rng.randrange(6)
        if op == 0 and data:  # flip a bit
            i = rng.randrange(len(data))
            data[i] ^= 1 << rng.randrange(8)
        elif op == 1:  # body_len
            struct.pack_into("<I", data, 0, rng.choice([0, 1, len(data), len(data) - 7, 65536, 65537, 0xFFFFFFFF, rng.getrandbits(32)]) & 0xFFFFFFFF)
        elif op == 2:  # type
            data[4] = rng.randrange(256)
        elif op == 3 and len(data) > 8:  # truncate the body
            del data[rng.randrange(8, len(data)):]
        elif op == 4:  # extend
            data += bytes(rng.getrandbits(8) for _ in range(rng.randrange(1, 64)))
        elif op == 5:  # reserved byte
            data[5] = rng.randrange(256)
    return bytes(data)


def check_reply(reply, figs):
    if reply is None:
        figs.add("closed_by_server")
        return
    figs.add("replies")
    if reply[0] == ERROR:
        code, msg = error_of(reply)
        figs.add(f"error_code_{code}")
        if not msg.strip():
            raise Violation(f"ERROR code {code} without a message")


def fuzz_client(rng, targets, deadline, figs, tenants, mode):
    while running(deadline):
        target = rng.choice(targets)
        try:
            c = Conn(target, timeout=3.0)
        except OSError:
            figs.add("connect_failed")
            time.sleep(0.05)
            continue
        figs.add("connections")
        try:
            if mode == "random":
                if rng.random() < 0.5:
                    c.hello()
                junk = bytes(rng.getrandbits(8) for _ in range(rng.randrange(1, 300)))
                c.send(junk)
                figs.add("frames")
                figs.add("bytes_sent", len(junk))
                try:
                    check_reply(c.recv_frame(), figs)
                except socket.timeout:
                    figs.add("no_reply_to_junk")  # an incomplete frame: the server waits for the rest
            elif mode == "mutated":
                c.hello()
                for _ in range(rng.randrange(1, 20)):
                    t, body = valid_request(rng, tenants)
                    data = frame(t, rng.randrange(1, 65535), body)
                    if rng.random() < 0.7:
                        data = mutate(rng, data)
                    length, mt = struct.unpack_from("<I", data, 0)[0], data[4]
                    if touches_policy(mt, data[8:]):
                        continue
                    c.send(data)
                    figs.add("frames")
                    figs.add("bytes_sent", len(data))
                    if len(data) - 8 != length:
                        break  # the server waits for a body that will not come, or reads on into the next
                    reply = c.recv_frame()
                    check_reply(reply, figs)
                    if reply is None:
                        break
            elif mode == "slow":
                c.hello()
                t, body = valid_request(rng, tenants)
                if touches_policy(t, body):
                    continue
                gap = rng.choice([0.01, 0.05, 0.2, 0.5])
                data = frame(t, 9, body)
                for b in data:
                    if not running(deadline):
                        break
                    c.send(bytes([b]))
                    time.sleep(gap)
                figs.add("slow_frames")
                try:
                    check_reply(c.recv_frame(), figs)
                except (socket.timeout, ConnectionResetError):
                    figs.add("slow_cut")
            elif mode == "idle":
                c.hello()
                figs.add("idle_connections")
                end = min(deadline, time.monotonic() + rng.uniform(0.5, 4.0))
                c.s.settimeout(max(0.05, end - time.monotonic()))
                try:
                    r = c.recv_frame()
                    if r is not None and r[0] == ERROR and error_of(r)[0] == E_TIMEOUT:
                        figs.add("idle_closed_by_server")
                except socket.timeout:
                    pass
            elif mode == "midframe":
                c.hello()
                t, body = valid_request(rng, tenants)
                data = frame(t, 3, body)
                c.send(data[:rng.randrange(1, len(data))])
                figs.add("cut_mid_frame")
            elif mode == "midcommit":
                c.hello()
                n = rng.randrange(1, 6)
                ws = []
                for _ in range(n):
                    reg = rng.choice(["T_CTRL", "T_RATE", "T_BURST", "T_QLIMIT_CTRL", "T_QLIMIT_BULK"])
                    ws.append((addr(reg, rng.randrange(tenants)), rng.getrandbits(16) | 1))
                body = struct.pack("<I", len(ws)) + b"".join(struct.pack("<II", *w) for w in ws)
                data = frame(WRITE_BATCH, 5, body)
                if rng.random() < 0.3:
                    c.send(data[:rng.randrange(9, len(data))])  # cut inside the batch
                    figs.add("cut_mid_batch")
                else:
                    c.send(data)
                    r = c.recv_frame()
                    check_reply(r, figs)
                    if r is not None and r[0] == 0x85:
                        figs.add("uncommitted_batches")
                        time.sleep(rng.uniform(0, 0.3))
            elif mode == "nonreader":
                c.close()
                c = Conn(target, timeout=3.0, rcvbuf=4096)
                c.hello()
                c.s.setblocking(False)
                req = frame(READ_BLOCK, 4, struct.pack("<II", 0x4000, 4096))
                sent = 0
                for _ in range(400):
                    try:
                        c.s.send(req)
                        sent += 1
                    except (BlockingIOError, OSError):
                        break
                figs.add("nonreader_requests", sent)
                time.sleep(rng.uniform(0.2, 2.0))
        except Refused:
            figs.add("refused_at_hello")
            time.sleep(0.05)
        except (ConnectionResetError, BrokenPipeError):
            figs.add("reset_by_server")
        except socket.timeout:
            figs.add("client_timeouts")
        finally:
            c.close()


class Controller:
    """Commits complete policies (every tenant's T_WEIGHT) in a loop and checks that, while it
    holds the NIC, no other client's shadow write is left in the registers it did not write,
    and that CONFIG_GEN moves by exactly one per COMMIT of its own."""

    OTHER = ["T_CTRL", "T_RATE", "T_BURST", "T_QLIMIT_CTRL", "T_QLIMIT_BULK"]

    def __init__(self, target, tenants, figs):
        self.target, self.tenants, self.figs = target, tenants, figs
        self.c = None
        self.baseline = None
        self.gen = None

    def connect(self):
        for _ in range(200):  # a full server turns it away now and then, as anyone
            self.c = Conn(self.target, timeout=5.0)
            try:
                self.c.hello("soak controller")
                return
            except Refused:
                self.figs.add("controller_refused")
                self.c.close()
                time.sleep(0.05)
        raise Violation("the controller was refused 200 times in a row")

    def read_others(self):
        ranges = [(addr(r, t), 1) for t in range(self.tenants) for r in self.OTHER]
        body = struct.pack("<I", len(ranges)) + b"".join(struct.pack("<II", *x) for x in ranges)
        r = self.c.request(READ_RANGES, body)
        if r is None or r[0] != 0x8B:
            raise Violation(f"controller: READ_RANGES answered {r!r}")
        n = struct.unpack_from("<I", r[2], 0)[0]
        return list(struct.unpack_from(f"<{n}I", r[2], 4))

    def read_gen(self):
        r = self.c.request(READ32, struct.pack("<I", addr("CONFIG_GEN")))
        return struct.unpack_from("<I", r[2], 0)[0]

    def run(self, deadline):
        self.connect()
        k = 0
        while running(deadline):
            k += 1
            ws = [(addr("T_WEIGHT", t), 1000 + (k * 7 + t) % 5000) for t in range(self.tenants)]
            body = struct.pack("<I", len(ws)) + b"".join(struct.pack("<II", *w) for w in ws)
            try:
                r = self.c.request(WRITE_BATCH, body)
                if r is None:
                    self.figs.add("controller_reconnects")
                    self.connect()
                    continue
                if r[0] == ERROR:
                    code, msg = error_of(r)
                    if code == E_HELD:
                        if "NIC held by" not in msg:
                            raise Violation(f"kHeld error does not name the holder: {msg}")
                        self.figs.add("controller_held")
                        time.sleep(0.02)
                        continue
                    raise Violation(f"controller: WRITE_BATCH refused: {code} {msg}")
                # Holding the NIC: nobody else's uncommitted writes may be in the shadows.
                others = self.read_others()
                if self.baseline is None:
                    self.baseline = others
                elif others != self.baseline:
                    bad = [i for i, (a, b) in enumerate(zip(others, self.baseline)) if a != b]
                    raise Violation(f"another client's uncommitted shadow writes are in the registers "
                                    f"the controller is about to COMMIT ({len(bad)} words differ)")
                gen = self.read_gen()
                if self.gen is not None and gen != self.gen:
                    raise Violation(f"CONFIG_GEN moved from {self.gen} to {gen} without a controller COMMIT")
                r = self.c.request(WRITE32, struct.pack("<II", addr("COMMIT"), 1))
                if r is None or r[0] != 0x83:
                    raise Violation(f"controller: COMMIT answered {r!r}")
                self.gen = self.read_gen()
                if self.gen != gen + 1:
                    raise Violation(f"CONFIG_GEN {gen} -> {self.gen} after one COMMIT")
                self.figs.add("controller_commits")
                time.sleep(0.01)
            except (socket.timeout, ConnectionResetError, BrokenPipeError) as e:
                raise Violation(f"controller: the server stopped answering: {e!r}")


def read_tenants(target):
    c = Conn(target)
    c.hello()
    r = c.request(READ32, struct.pack("<I", addr("CAPS0")))
    c.close()
    return get_field(struct.unpack_from("<I", r[2], 0)[0], REGS["_tenants_field"])


def phase_server(args, seconds, figs):
    tmp = tempfile.mkdtemp(prefix="nicsched-soak-")
    sock = os.path.join(tmp, "nicsim.sock")
    srv = NicsimServer(args.build, sock, ["--idle-timeout", "2", "--request-timeout", "1", "--write-timeout", "1",
                                          "--hold-timeout", "3", "--max-clients", str(args.max_clients)])
    violations = []
    try:
        targets = srv.targets()
        tenants = read_tenants(targets[0])
        figs.n["server_tenants"] = tenants
        rss0 = rss_kib(srv.p.pid)
        figs.n["server_rss_start_kib"] = rss0
        t_start = time.monotonic()
        deadline = t_start + seconds

        # Slot exhaustion: every slot idle, then a newcomer must still get in.
        hogs = []
        for _ in range(args.max_clients + 8):
            try:
                c = Conn(targets[0], timeout=3.0)
                c.send(hello_frame("hog"))
                hogs.append(c)
            except OSError:
                break
        time.sleep(1.3)
        if probe(targets[0], figs, "after-hogs") is None:
            violations.append(f"all {args.max_clients} slots idle for 1.3 s and a newcomer was refused")
        figs.add("hog_connections", len(hogs))
        for c in hogs:
            c.close()

        rng = random.Random(args.seed)
        controller = Controller(targets[1], tenants, figs)
        modes = ["random", "mutated", "mutated", "mutated", "slow", "idle", "midframe", "midcommit", "midcommit", "nonreader"]
        threads = []

        def guarded(fn, *a):
            try:
                fn(*a)
            except Violation as e:
                violations.append(str(e))
            except Exception as e:  # a client bug must not pass silently
                violations.append(f"soak client crashed: {e!r}")

        STOP.clear()
        threads.append(threading.Thread(target=guarded, args=(controller.run, deadline)))
        for i in range(args.clients):
            mode = modes[i % len(modes)]
            threads.append(threading.Thread(target=guarded, args=(fuzz_client, random.Random(rng.getrandbits(64)),
                                                                  targets, deadline, figs, tenants, mode)))
        figs.n["concurrent_clients"] = len(threads)
        for t in threads:
            t.start()
        probes = []
        while time.monotonic() < deadline and not violations:
            if not srv.alive():
                violations.append(f"nicsim serve died (exit {srv.p.returncode})")
                break
            try:
                p = probe(rng.choice(targets), figs)
                if p is not None:
                    probes.append(p)
            except Violation as e:
                violations.append(str(e))
            rss = rss_kib(srv.p.pid)
            if rss:
                figs.set_max("server_rss_max_kib", rss)
            time.sleep(0.5)
        STOP.set()
        for t in threads:
            t.join(30)
            if t.is_alive():
                violations.append("a soak client did not finish within 30 s of the deadline")
        figs.n["probes"] = len(probes)
        figs.n["probe_max_s"] = round(max(probes), 3) if probes else None
        figs.n["server_seconds"] = round(time.monotonic() - t_start, 1)
        growth = (figs.n.get("server_rss_max_kib", rss0) - rss0) / 1024
        figs.n["server_rss_growth_mib"] = round(growth, 1)
        if growth > args.rss_slack_mib:
            violations.append(f"server resident set grew by {growth:.1f} MiB (limit {args.rss_slack_mib})")
        if figs.n.get("controller_commits", 0) == 0 and seconds >= 10:
            violations.append("the controller never committed: the NIC was held by others the whole run")
    finally:
        rc = srv.stop() if srv.alive() else srv.p.returncode
        if rc != 0:
            violations.append(f"nicsim serve exited {rc} after SIGTERM; stderr tail: {''.join(srv.err_lines[-5:])}")
        figs.n["server_log_lines"] = len(srv.err_lines)
        shutil.rmtree(tmp, ignore_errors=True)
    return violations


# ---------------------------------------------------------------------------------------


def phase_kill(args, seconds, figs):
    violations = []
    rng = random.Random(args.seed + 1)
    tmp = tempfile.mkdtemp(prefix="nicsched-kill-")
    sock = os.path.join(tmp, "nicsim.sock")
    deadline = time.monotonic() + seconds
    # 1. kill -9 of nicsim serve while clients write, then a restart on the same path.
    half = time.monotonic() + seconds / 2
    while time.monotonic() < half and not violations:
        srv = NicsimServer(args.build, sock)
        tenants = read_tenants(srv.targets()[0])
        stop_at = time.monotonic() + rng.uniform(0.2, 1.0)
        def doomed_client(r, targets, stop, mode):
            try:
                fuzz_client(r, targets, stop, figs, tenants, mode)
            except (Violation, OSError):
                pass  # the server is killed under it: any failure of this client is expected

        ts = [threading.Thread(target=doomed_client, args=(random.Random(rng.getrandbits(64)), srv.targets(), stop_at, m))
              for m in ("midcommit", "mutated")]
        for t in ts:
            t.start()
        time.sleep(rng.uniform(0.05, 0.9))
        srv.p.kill()
        srv.p.wait(10)
        figs.add("nicsim_kill9")
        for t in ts:
            t.join(10)
        try:
            again = NicsimServer(args.build, sock)  # the stale socket file must not stop it
            if probe(again.targets()[1], figs, "after-kill") is None:
                violations.append("restarted nicsim serve refused a client")
            again.stop()
            figs.add("nicsim_restarts")
        except Violation as e:
            violations.append(f"after kill -9: {e}")
    # 2. kill -9 of nicagent serve mid control loop: what it half-wrote must not stay.
    agent = os.path.join(args.build, "agent/nicagent")
    if not os.path.exists(agent):
        violations.append(f"{agent} missing")
        return violations
    # 3. (runs of 90 s and more: a checkpoint takes tens of seconds) kill -9 of training.
    train_seconds = seconds / 3 if seconds >= 90 else 0
    agent_deadline = deadline - train_seconds
    while time.monotonic() < agent_deadline and not violations:
        srv = NicsimServer(args.build, sock)
        # "las" changes priorities and weights from decision to decision, so a half-applied
        # decision left behind would show.
        a = subprocess.Popen([agent, "serve", "--baseline", "las", "--target", "unix://" + sock,
                              "--step-cycles", "2000"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        log = []
        reader = threading.Thread(target=lambda: log.extend(a.stderr), daemon=True)
        reader.start()
        ready = time.monotonic() + 30  # torch takes a while to load on a busy machine
        while time.monotonic() < ready and a.poll() is None and not any("decision" in ln for ln in log):
            time.sleep(0.05)
        time.sleep(rng.uniform(0.0, 1.0))  # then a random point of its control loop
        a.kill()
        a.wait(10)
        reader.join(5)
        figs.add("nicagent_kill9")
        try:
            c = Conn(srv.targets()[1])
            c.hello("kill checker")
            gen = struct.unpack_from("<I", c.request(READ32, struct.pack("<I", addr("CONFIG_GEN")))[2], 0)[0]
            decisions = [ln for ln in log if "decision" in ln and "(gen " in ln]
            if decisions:
                figs.add("nicagent_decisions", len(decisions))
                m = re.search(r"\(gen (\d+),.*\): (.*)$", decisions[-1].strip())
                logged_gen = int(m.group(1))
                if gen == logged_gen:
                    # The shadows must hold exactly the last committed decision.
                    for tm in re.finditer(r"t(\d+):p(\d+)/w(\d+)/q(\d+)", m.group(2)):
                        t, prio, weight, quota = map(int, tm.groups())
                        w = struct.unpack_from("<I", c.request(READ32, struct.pack("<I", addr("T_WEIGHT", t)))[2], 0)[0]
                        ctrl = struct.unpack_from("<I", c.request(READ32, struct.pack("<I", addr("T_CTRL", t)))[2], 0)[0]
                        got = (get_field(ctrl, REGS["_priority_field"]), w, get_field(ctrl, REGS["_quota_field"]))
                        if got != (prio, weight, quota):
                            violations.append(f"after kill -9 of nicagent: tenant {t} shadows (priority, weight, quota) "
                                              f"{got}, its last committed decision {(prio, weight, quota)}")
                    figs.add("nicagent_kill_checked")
                elif gen == logged_gen + 1:
                    figs.add("nicagent_kill_after_commit")  # killed between its COMMIT and its log line
                else:
                    violations.append(f"CONFIG_GEN {gen} vs the agent's last logged commit {logged_gen}")
                figs.add("nicagent_distinct_decisions", len({d.split("): ", 1)[-1] for d in decisions}))
            # Its hold (if any) was released: a new writer gets in at once.
            ws = struct.pack("<III", 1, addr("T_WEIGHT", 0), 1500)
            r = c.request(WRITE_BATCH, ws)
            if r is None or r[0] != 0x85:
                violations.append(f"after kill -9 of nicagent a new writer was refused: {error_of(r) if r else r}")
            c.close()
        except (socket.timeout, OSError) as e:
            violations.append(f"nicsim serve unusable after kill -9 of nicagent: {e!r}")
        srv.stop()
    while train_seconds and time.monotonic() < deadline - 20 and not violations:
        violations += kill_training(agent, rng, deadline, figs)
    shutil.rmtree(tmp, ignore_errors=True)
    return violations


def kill_training(agent, rng, deadline, figs):
    """kill -9 of `nicagent train` after its first checkpoint, at a random point; then its
    train.csv must hold only whole rows and its checkpoint must resume."""
    out = tempfile.mkdtemp(prefix="nicsched-train-kill-")
    common = ["--scenario", os.path.join(REPO, "sim/scenarios/default.yaml"), "--backend", "model",
              "--cycles", "400000", "--envs", "2", "--quiet"]
    t = subprocess.Popen([agent, "--log-level", "warn", "train", *common, "--steps", "10000000", "--out", out],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ckpt = os.path.join(out, "checkpoint.pt")
    while time.monotonic() < deadline - 15 and t.poll() is None and not os.path.exists(ckpt):
        time.sleep(0.2)
    time.sleep(rng.uniform(0.0, max(0.0, min(10.0, deadline - 15 - time.monotonic()))))
    t.kill()
    t.wait(10)
    figs.add("train_kill9")
    violations = []
    csv = os.path.join(out, "train.csv")
    if os.path.exists(csv):
        data = open(csv, "rb").read()
        lines = data.split(b"\n")
        if data and not data.endswith(b"\n"):
            violations.append(f"{csv}: last row half-written after kill -9: {lines[-1][:80]!r}")
        fields = lines[0].count(b",")
        bad = [i for i, ln in enumerate(lines[1:-1], 2) if ln.count(b",") != fields]
        if bad:
            violations.append(f"{csv}: rows {bad[:5]} do not have the header's {fields + 1} fields")
        figs.add("train_rows_checked", max(0, len(lines) - 2))
    if os.path.exists(ckpt):
        again = os.path.join(out, "resumed")
        r = subprocess.run([agent, "train", *common, "--resume", out, "--out", again, "--steps", "256"],
                           capture_output=True, text=True, timeout=max(30, deadline - time.monotonic() + 60))
        if r.returncode != 0 or "resumed from" not in r.stderr:
            violations.append(f"checkpoint after kill -9 did not resume (exit {r.returncode}): {r.stderr[-1500:]}")
        else:
            figs.add("train_checkpoint_resumed")
    if not violations:
        shutil.rmtree(out, ignore_errors=True)
    return violations


def phase_loaders(args, seconds, figs):
    exe = os.path.join(args.build, "tests/soak/soak_loaders")
    r = subprocess.run([exe, "--seconds", str(max(1, int(seconds))), "--seed", str(args.seed),
                        "--repo", REPO], capture_output=True, text=True, timeout=seconds + 120)
    try:
        figs.n["loaders"] = json.loads(r.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        pass
    if r.returncode != 0:
        return [f"soak_loaders exit {r.returncode}: {(r.stdout + r.stderr)[-3000:]}"]
    return []


def phase_parser(args, seconds, figs):
    exe = os.path.join(args.build, "tests/fuzz_parser/fuzz_parser")
    deadline = time.monotonic() + seconds
    violations = []
    seed = args.seed * 1000
    runs = 0
    frames = {"parser": 0, "ingress": 0, "ingress_tx": 0}
    tables = by_entry = by_default = 0
    while time.monotonic() < deadline and runs < 1000 and not violations:
        width = "512" if runs % 2 == 0 else "64"
        for dut in frames:
            cmd = [exe, "--dut", dut, "--width", width, "--seed", str(seed + runs), "--batches", "2", "--frames", "300"]
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
            if r.returncode != 0:
                violations.append(f"{' '.join(cmd[1:])}: exit {r.returncode}: {(r.stdout + r.stderr)[-2000:]}")
                break
            frames[dut] += 600
            m = re.search(r"(\d+) random tables; kept frames classified by a table entry (\d+), by DEFAULT_ACTION (\d+)",
                          r.stdout)
            if m:
                tables += int(m.group(1))
                by_entry += int(m.group(2))
                by_default += int(m.group(3))
        runs += 1
    figs.n["parser_runs"] = runs
    figs.n["parser_frames"] = frames["parser"]
    figs.n["classifier_frames"] = frames["ingress"]
    figs.n["classifier_tx_frames"] = frames["ingress_tx"]
    figs.n["classifier_tables"] = tables
    figs.n["classifier_by_entry"] = by_entry
    figs.n["classifier_by_default"] = by_default
    return violations


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(REPO, "build"))
    ap.add_argument("--duration", type=float, default=30.0, help="seconds for the whole run")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--clients", type=int, default=24, help="concurrent fuzz clients in the server phase")
    ap.add_argument("--max-clients", type=int, default=32, help="nicsim serve --max-clients")
    ap.add_argument("--rss-slack-mib", type=float, default=64.0)
    ap.add_argument("--only", default="server,kill,loaders,parser")
    ap.add_argument("--report", help="write the figures (JSON) here")
    args = ap.parse_args()
    if args.duration <= 0 or args.clients < 1:
        ap.error("--duration and --clients must be positive")
    if not os.path.exists(os.path.join(args.build, "sim/nicsim")):
        print(f"soak: {args.build}/sim/nicsim missing: build first", file=sys.stderr)
        return 2
    share = {"server": 0.5, "kill": 0.25, "loaders": 0.15, "parser": 0.10}
    phases = [p for p in args.only.split(",") if p]
    for p in phases:
        if p not in share:
            ap.error(f"--only: unknown phase '{p}' (server, kill, loaders, parser)")
    total = sum(share[p] for p in phases)
    figs = Figures()
    t0 = time.monotonic()
    violations = []
    for p in phases:
        seconds = args.duration * share[p] / total
        t = time.monotonic()
        STOP.clear()
        try:
            v = globals()["phase_" + p](args, seconds, figs)
        except Violation as e:
            v = [str(e)]
        figs.n[f"{p}_wall_s"] = round(time.monotonic() - t, 1)
        violations += [f"{p}: {x}" for x in v]
        if v:
            break
    figs.n["wall_s"] = round(time.monotonic() - t0, 1)
    figs.n["seed"] = args.seed
    out = json.dumps(figs.n, sort_keys=True)
    print(out)
    if args.report:
        with open(args.report, "w") as f:
            f.write(out + "\n")
    for v in violations:
        print("VIOLATION:", v, file=sys.stderr)
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main())
