// Scenario families: loading (the fileio YAML reader: file, line and field in every error)
// and drawing concrete scenarios by seed (docs/simulation.md, "Scenario families").
#include "nicsched/sim/family.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <numeric>

#include "nicsched/fileio/file.hpp"
#include "nicsched/fileio/yaml.hpp"
#include "nicsched/sim/error.hpp"
#include "yaml_file.hpp"

namespace nicsched::sim {

namespace {

using fileio::MapReader;

// A double in [0, 1) from 53 random bits (the standard fixes mt19937_64's output; this
// arithmetic fixes the rest).
double unit(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

std::size_t pick(const std::vector<double>& weights, std::size_t n, std::mt19937_64& rng) {
  const double u = unit(rng);
  if (weights.empty()) return std::min(n - 1, static_cast<std::size_t>(u * static_cast<double>(n)));
  const double total = std::accumulate(weights.begin(), weights.end(), 0.0);
  double acc = 0;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    acc += weights[i];
    if (u * total < acc) return i;
  }
  return weights.size() - 1;
}

// FNV-1a of the family's name: draws of one seed differ between families.
std::uint64_t name_hash(const std::string& s) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (const char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return h;
}

// x with four significant digits, printed in the shortest form that reads back exactly
// (fmt's formatting is exact, so this is the same on every machine).
std::string num(double x) {
  const std::string rounded = fmt::format("{:.4g}", x);
  double v = 0;
  std::from_chars(rounded.data(), rounded.data() + rounded.size(), v);
  return fmt::format("{}", v);
}

// ------------------------------------------------------------------ reading distributions

struct NumberSpec {
  double lo;
  double hi;
  std::string what;     // "a link rate in Gbit/s"
  bool integer = false;
};

double read_number(const fileio::YamlDoc& doc, const YAML::Node& n, const std::string& field, const NumberSpec& spec) {
  const double x = doc.number(n, field);
  if (x < spec.lo || x > spec.hi) {
    doc.fail(n, field, fmt::format("expected {} in [{}, {}], got {}", spec.what, spec.lo, spec.hi, n.Scalar()));
  }
  if (spec.integer && x != std::floor(x)) doc.fail(n, field, "expected " + spec.what + " (an integer), got " + n.Scalar());
  return x;
}

std::vector<double> read_weights(MapReader& d, std::size_t count) {
  std::vector<double> w;
  if (!d.has("weights")) return w;
  const YAML::Node list = d.node("weights");
  const std::string field = d.full("weights");
  if (!list.IsSequence() || list.size() != count) {
    d.fail(list, field, fmt::format("expected a list of {} weights, one per choice, got {}", count, fileio::describe(list)));
  }
  for (std::size_t i = 0; i < list.size(); ++i) {
    w.push_back(read_number(d.doc(), list[i], field + "[" + std::to_string(i) + "]",
                            {0.0, 1e9, "a non-negative weight"}));
  }
  if (std::accumulate(w.begin(), w.end(), 0.0) <= 0) d.fail(list, field, "expected at least one positive weight");
  return w;
}

const char* kDistForms = "a number, {uniform: [lo, hi]} or {choice: [a, b, ...], weights: [...]}";

NumberDist read_dist(MapReader& r, const std::string& key, const std::optional<NumberDist>& def, const NumberSpec& spec) {
  const YAML::Node v = r.node(key);
  const std::string field = r.full(key);
  const fileio::YamlDoc& doc = r.doc();
  if (!v) {
    if (def) return *def;
    r.fail(r.yaml(), field, "required key is missing (expected " + spec.what + ": " + kDistForms + ")");
  }
  if (v.IsScalar()) return NumberDist::fixed(read_number(doc, v, field, spec));
  if (!v.IsMap()) r.fail(v, field, std::string("expected ") + kDistForms + ", got " + fileio::describe(v));
  MapReader d(doc, v, field);
  NumberDist out;
  const bool uniform = d.has("uniform");
  const bool choice = d.has("choice");
  if (uniform == choice) d.fail(v, field, std::string("expected exactly one of uniform or choice (") + kDistForms + ")");
  if (uniform) {
    const YAML::Node b = d.node("uniform");
    const std::string bf = d.full("uniform");
    if (spec.integer) d.fail(b, bf, "expected {choice: [...]} for " + spec.what + " (an integer)");
    if (!b.IsSequence() || b.size() != 2) d.fail(b, bf, "expected [lo, hi], got " + fileio::describe(b));
    out.kind = NumberDist::Kind::kUniform;
    out.lo = read_number(doc, b[0], bf + "[0]", spec);
    out.hi = read_number(doc, b[1], bf + "[1]", spec);
    if (out.hi < out.lo) d.fail(b, bf, "expected lo <= hi");
    d.finish("uniform");
    return out;
  }
  const YAML::Node list = d.node("choice");
  const std::string lf = d.full("choice");
  if (!list.IsSequence() || list.size() == 0) d.fail(list, lf, "expected a non-empty list of values, got " + fileio::describe(list));
  out.kind = NumberDist::Kind::kChoice;
  for (std::size_t i = 0; i < list.size(); ++i) {
    out.values.push_back(read_number(doc, list[i], lf + "[" + std::to_string(i) + "]", spec));
  }
  out.weights = read_weights(d, list.size());
  out.lo = *std::min_element(out.values.begin(), out.values.end());
  out.hi = *std::max_element(out.values.begin(), out.values.end());
  d.finish("choice, weights");
  return out;
}

NameDist read_names(MapReader& r, const std::string& key, const std::vector<std::string>& allowed,
                    const std::optional<std::string>& def, const std::string& what) {
  const YAML::Node v = r.node(key);
  const std::string field = r.full(key);
  std::string list_text;
  for (const auto& a : allowed) list_text += (list_text.empty() ? "" : ", ") + a;
  auto check = [&](const YAML::Node& n, const std::string& f) {
    if (!n.IsScalar() || std::find(allowed.begin(), allowed.end(), n.Scalar()) == allowed.end()) {
      r.fail(n, f, "expected " + what + " (one of: " + list_text + "); got " + fileio::describe(n));
    }
    return n.Scalar();
  };
  NameDist out;
  if (!v) {
    if (def) return NameDist{{*def}, {}};
    r.fail(r.yaml(), field, "required key is missing (expected " + what + " or {choice: [...]}: " + list_text + ")");
  }
  if (v.IsScalar()) return NameDist{{check(v, field)}, {}};
  if (!v.IsMap()) r.fail(v, field, "expected " + what + " or {choice: [...], weights: [...]}, got " + fileio::describe(v));
  MapReader d(r.doc(), v, field);
  const YAML::Node list = d.node("choice");
  const std::string lf = d.full("choice");
  if (!list) d.fail(v, lf, "required key is missing (expected a list of " + what + ")");
  if (!list.IsSequence() || list.size() == 0) d.fail(list, lf, "expected a non-empty list, got " + fileio::describe(list));
  for (std::size_t i = 0; i < list.size(); ++i) out.values.push_back(check(list[i], lf + "[" + std::to_string(i) + "]"));
  out.weights = read_weights(d, list.size());
  d.finish("choice, weights");
  return out;
}

double read_probability(MapReader& r, const std::string& key) {
  return r.num(key, 0.0, 0.0, 1.0, "a probability");
}

constexpr double kMaxMs = 1e9;

std::vector<std::string> ddp_preset_names() {
  std::vector<std::string> v;
  for (const auto& p : model_presets()) v.emplace_back(p.name);
  return v;
}

std::vector<std::string> crypto_preset_names() {
  std::vector<std::string> v;
  for (const auto& p : crypto_presets()) v.emplace_back(p.name);
  return v;
}

Family read_family(const fileio::YamlDoc& doc, const std::string& file_name) {
  Family f;
  f.file = file_name;
  MapReader r(doc, doc.root(), "");
  f.name = r.str("name");
  f.description = r.str("description", std::string{});
  {
    const YAML::Node sn = r.node("seeds");
    if (!sn) r.fail(doc.root(), "seeds", "required key is missing (expected {first: N, last: M})");
    MapReader s(doc, sn, "seeds");
    f.seed_first = s.integer("first", std::nullopt, 0, ~0ULL >> 1, "the family's first seed");
    f.seed_last = s.integer("last", std::nullopt, 0, ~0ULL >> 1, "the family's last seed");
    if (f.seed_last < f.seed_first) s.fail_key("last", "expected a last seed not below first");
    s.finish("first, last");
  }
  f.scale = r.num("scale", 1000.0, 1.0, 1e6, "a time-scale factor (real time / simulated time)");
  f.duration_s = r.num("duration_s", std::nullopt, 1e-3, 1e6, "a real-time duration in s");
  f.backend = r.choice("backend", {"rtl", "model"}, std::string{});
  f.tenants = read_dist(r, "tenants", std::nullopt, {1, 64, "a tenant count", true});
  // Every draw runs at the shell's clock, so a link rate is capped by what 64 bytes a clock
  // carry there: no scenario runs at a clock that no synthesised core reaches.
  f.link_gbps = read_dist(r, "link_gbps", NumberDist::fixed(100),
                          {0.1, kMaxLinkGbps, "a link rate in Gbit/s the datapath carries at 250 MHz"});
  f.crypto_engine = read_names(r, "crypto_engine", crypto_preset_names(), std::string("cast-gcm-x"), "a crypto engine preset");
  f.crypto_slots = read_dist(r, "crypto_slots", NumberDist::fixed(4), {1, 255, "a crypto slot count", true});
  f.start_ms = read_dist(r, "start_ms", NumberDist::fixed(0), {0, kMaxMs, "a real start offset in ms"});

  if (r.has("mix")) {
    MapReader m(doc, r.node("mix"), "mix");
    f.mix_ddp = m.num("ddp", 0.0, 0.0, 1e6, "a relative weight");
    f.mix_fl = m.num("fl", 0.0, 0.0, 1e6, "a relative weight");
    f.mix_background = m.num("background", 0.0, 0.0, 1e6, "a relative weight");
    if (f.mix_ddp + f.mix_fl + f.mix_background <= 0) m.fail(m.yaml(), "mix", "expected at least one positive weight");
    m.finish("ddp, fl, background");
  }
  if (r.has("at_least")) {
    MapReader m(doc, r.node("at_least"), "at_least");
    const auto most = static_cast<std::uint64_t>(f.tenants.min());
    const std::string what = fmt::format("a tenant count (at most the family's smallest tenant count, {})", most);
    f.min_ddp = static_cast<std::uint32_t>(m.integer("ddp", 0, 0, most, what));
    f.min_fl = static_cast<std::uint32_t>(m.integer("fl", 0, 0, most, what));
    f.min_background = static_cast<std::uint32_t>(m.integer("background", 0, 0, most, what));
    if (f.min_ddp + f.min_fl + f.min_background > most) {
      m.fail(m.yaml(), "at_least", "expected at most the family's smallest tenant count (" + std::to_string(most) +
                                       ") tenants in all");
    }
    m.finish("ddp, fl, background");
  }

  if (r.has("ddp")) {
    MapReader d(doc, r.node("ddp"), "ddp");
    f.ddp.model = read_names(d, "model", ddp_preset_names(), std::nullopt, "a DDP model preset");
    f.ddp.compute_factor = read_dist(d, "compute_factor", NumberDist::fixed(1.0), {0.01, 100, "a factor on the preset's compute time"});
    f.ddp.workers = read_dist(d, "workers", NumberDist::fixed(8), {2, 65536, "ring all-reduce workers", true});
    f.ddp.jitter = read_dist(d, "jitter", NumberDist::fixed(0.0), {0, 1, "a relative standard deviation"});
    if (d.has("control")) {
      MapReader c(doc, d.node("control"), d.full("control"));
      f.ddp.control_probability = read_probability(c, "probability");
      f.ddp.control_period_us = c.num("period_us", 20.0, 0.01, 1e6, "a control-packet period in us");
      f.ddp.control_deadline_us = c.num("deadline_us", 5.0, 0.001, 1e6, "a deadline in us");
      f.ddp.control_bytes = static_cast<std::uint32_t>(c.integer("bytes", 128, 78, 1518, "a control frame length in bytes"));
      c.finish("probability, period_us, deadline_us, bytes");
    }
    d.finish("model, compute_factor, workers, jitter, control");
  } else if (f.mix_ddp > 0 || f.min_ddp > 0) {
    r.fail(doc.root(), "ddp", "required key is missing (mix.ddp > 0 needs a ddp section with its model)");
  }

  if (r.has("fl")) {
    MapReader d(doc, r.node("fl"), "fl");
    f.fl.update_mb = read_dist(d, "update_mb", std::nullopt, {0.001, 1e6, "a real update size in MB"});
    f.fl.train_ms = read_dist(d, "train_ms", std::nullopt, {0, kMaxMs, "a real local training time in ms"});
    f.fl.expansion = read_dist(d, "expansion", NumberDist::fixed(1.0), {1, 16, "a secure-aggregation expansion factor"});
    f.fl.jitter = read_dist(d, "jitter", NumberDist::fixed(0.0), {0, 1, "a relative standard deviation"});
    d.finish("update_mb, train_ms, expansion, jitter");
  } else if (f.mix_fl > 0 || f.min_fl > 0) {
    r.fail(doc.root(), "fl", "required key is missing (mix.fl > 0 needs an fl section)");
  }

  if (r.has("background")) {
    MapReader d(doc, r.node("background"), "background");
    f.background.pattern = read_names(d, "pattern", {"constant", "poisson", "onoff"}, std::string("poisson"), "a traffic pattern");
    f.background.load = read_dist(d, "load", std::nullopt, {0.001, 4, "an offered rate as a fraction of the link rate"});
    f.background.on_ms = read_dist(d, "on_ms", NumberDist::fixed(50), {0.001, kMaxMs, "a real on-period in ms"});
    f.background.off_ms = read_dist(d, "off_ms", NumberDist::fixed(50), {0, kMaxMs, "a real off-period in ms"});
    f.background.packet_bytes = read_dist(d, "packet_bytes", NumberDist::fixed(1518), {78, 9018, "a frame length in bytes", true});
    f.background.direction = read_names(d, "direction", {"tx", "rx"}, std::string("tx"), "a direction");
    d.finish("pattern, load, on_ms, off_ms, packet_bytes, direction");
  } else if (f.mix_background > 0 || f.min_background > 0) {
    r.fail(doc.root(), "background", "required key is missing (mix.background > 0 needs a background section with its load)");
  }

  if (r.has("arrivals")) {
    MapReader a(doc, r.node("arrivals"), "arrivals");
    f.arrivals.probability = read_probability(a, "probability");
    f.arrivals.at_s = read_dist(a, "at_s", std::nullopt, {0, 1e6, "a real arrival time in s"});
    if (f.arrivals.at_s.max() >= f.duration_s) {
      a.fail_key("at_s", fmt::format("expected arrival times before the end of the scenario (duration_s {})", f.duration_s));
    }
    if (a.has("stay_s")) f.arrivals.stay_s = read_dist(a, "stay_s", std::nullopt, {0.001, 1e6, "a real stay in s"});
    a.finish("probability, at_s, stay_s");
  }
  r.finish("name, description, seeds, scale, duration_s, backend, tenants, link_gbps, crypto_engine, crypto_slots, "
           "start_ms, mix, at_least, ddp, fl, background, arrivals");
  return f;
}

// ------------------------------------------------------------------ drawing

struct TenantDraw {
  WorkloadKind kind;
  std::string line;  // the tenant's YAML flow mapping, without the leading "  - "
};

std::string ddp_tenant(const Family& f, std::size_t i, double start_ms, std::mt19937_64& rng) {
  const std::string& model = f.ddp.model.draw(rng);
  const ModelPreset* preset = find_model_preset(model);
  if (preset == nullptr) throw SimError("family " + f.name + ": unknown DDP preset " + model);  // checked at load
  const double compute_ms = preset->compute_ms * f.ddp.compute_factor.draw(rng);
  const auto workers = static_cast<std::uint32_t>(f.ddp.workers.draw(rng));
  const double jitter = f.ddp.jitter.draw(rng);
  const bool control = unit(rng) < f.ddp.control_probability;
  std::string s = fmt::format("{{name: t{:02}-{}, type: ddp, model: {}, compute_ms: {}, workers: {}, jitter: {}", i, model,
                              model, num(compute_ms), workers, num(jitter));
  if (start_ms > 0) s += ", start_ms: " + num(start_ms);
  if (control) {
    s += fmt::format(", control: {{period_us: {}, bytes: {}, deadline_us: {}}}", num(f.ddp.control_period_us),
                     f.ddp.control_bytes, num(f.ddp.control_deadline_us));
  }
  return s;
}

std::string fl_tenant(const Family& f, std::size_t i, double start_ms, std::mt19937_64& rng) {
  const double update = f.fl.update_mb.draw(rng);
  const double train = f.fl.train_ms.draw(rng);
  const double expansion = f.fl.expansion.draw(rng);
  const double jitter = f.fl.jitter.draw(rng);
  std::string s = fmt::format("{{name: t{:02}-fl, type: fl, update_mb: {}, train_ms: {}, expansion: {}, jitter: {}", i,
                              num(update), num(train), num(expansion), num(jitter));
  if (start_ms > 0) s += ", start_ms: " + num(start_ms);
  return s;
}

std::string background_tenant(const Family& f, std::size_t i, double start_ms, double link_gbps, std::mt19937_64& rng) {
  const std::string& pattern = f.background.pattern.draw(rng);
  const double rate = f.background.load.draw(rng) * link_gbps;
  const auto bytes = static_cast<std::uint32_t>(f.background.packet_bytes.draw(rng));
  const std::string& dir = f.background.direction.draw(rng);
  std::string s = fmt::format("{{name: t{:02}-bg-{}, type: background, pattern: {}, rate_gbps: {}, packet_bytes: {}, direction: {}",
                              i, pattern, pattern, num(rate), bytes, dir);
  if (pattern == "onoff") {
    s += fmt::format(", on_ms: {}, off_ms: {}", num(f.background.on_ms.draw(rng)), num(f.background.off_ms.draw(rng)));
  }
  if (start_ms > 0) s += ", start_ms: " + num(start_ms);
  return s;
}

}  // namespace

double NumberDist::draw(std::mt19937_64& rng) const {
  switch (kind) {
    case Kind::kFixed: return lo;
    case Kind::kUniform: return lo + (hi - lo) * unit(rng);
    case Kind::kChoice: return values[pick(weights, values.size(), rng)];
  }
  return lo;
}

bool NumberDist::can_produce(double x) const {
  switch (kind) {
    case Kind::kFixed: return x == lo;
    case Kind::kUniform: return x >= lo && x <= hi;
    case Kind::kChoice:
      for (std::size_t i = 0; i < values.size(); ++i) {
        if (values[i] == x && (weights.empty() || weights[i] > 0)) return true;
      }
      return false;
  }
  return false;
}

double NumberDist::min() const { return lo; }
double NumberDist::max() const { return hi; }

const std::string& NameDist::draw(std::mt19937_64& rng) const { return values[pick(weights, values.size(), rng)]; }

bool NameDist::can_produce(const std::string& v) const {
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (values[i] == v && (weights.empty() || weights[i] > 0)) return true;
  }
  return false;
}

std::uint32_t nic_tenants_for(std::uint32_t tenants) { return tenants <= 8 ? 8 : tenants <= 16 ? 16 : tenants; }

std::string Family::scenario_name(std::uint64_t seed) const { return name + "-" + std::to_string(seed); }

std::string Family::draw_yaml(std::uint64_t seed) const {
  if (seed < seed_first || seed > seed_last) {
    throw SimError(fmt::format("family {} ({}): seed {} is outside the family's seeds [{}, {}]", name, file.string(), seed,
                               seed_first, seed_last));
  }
  std::mt19937_64 rng(seed ^ name_hash(name));
  const auto n = static_cast<std::uint32_t>(tenants.draw(rng));
  const double link = link_gbps.draw(rng);
  const std::string& engine = crypto_engine.draw(rng);
  const auto slots = static_cast<std::uint32_t>(crypto_slots.draw(rng));
  const std::uint32_t nic_tenants = nic_tenants_for(n);

  // Only the file's name, so that the text does not depend on where the family was read.
  std::string out = fmt::format(
      "# generated from the scenario family {} by `nicsim gen --family {} --seed {}`: do not edit\n", name,
      file.filename().string(), seed);
  out += fmt::format("name: {}\nseed: {}\nscale: {}\nduration_s: {}\nclock_mhz: {}\nlink_gbps: {}\n", scenario_name(seed), seed,
                     num(scale), num(duration_s), num(kShellClockMhz), num(link));
  out += fmt::format("nic: {{tenants: {}, crypto_slots: {}, crypto_engine: {}{}}}\n", nic_tenants, slots, engine,
                     backend.empty() ? std::string{} : ", backend: " + backend);
  out += "tenants:\n";
  for (std::uint32_t i = 0; i < n; ++i) {
    std::size_t k = 0;
    if (i < min_ddp) {
      k = 0;
    } else if (i < min_ddp + min_fl) {
      k = 1;
    } else if (i < min_ddp + min_fl + min_background) {
      k = 2;
    } else {
      k = pick({mix_ddp, mix_fl, mix_background}, 3, rng);
    }
    double start = start_ms.draw(rng);
    std::optional<double> stop;
    if (i > 0 && arrivals.probability > 0 && unit(rng) < arrivals.probability) {
      start = arrivals.at_s.draw(rng) * 1e3;
      if (arrivals.stay_s) stop = start + arrivals.stay_s->draw(rng) * 1e3;
    }
    std::string t = k == 0   ? ddp_tenant(*this, i, start, rng)
                    : k == 1 ? fl_tenant(*this, i, start, rng)
                             : background_tenant(*this, i, start, link, rng);
    if (stop) t += ", stop_ms: " + num(*stop);
    // Sixteen 32 KiB windows would not fit the NIC's 256 KiB buffer (docs/simulation.md).
    if (n > 8) t += ", window_bytes: 16384";
    out += "  - " + t + "}\n";
  }
  return out;
}

Scenario Family::draw(std::uint64_t seed) const {
  return parse_scenario(draw_yaml(seed), file.string() + "#seed=" + std::to_string(seed));
}

Family parse_family(const std::string& yaml_text, const std::string& file_name) {
  return parse_yaml(yaml_text, file_name, [&](const fileio::YamlDoc& doc) { return read_family(doc, file_name); });
}

Family load_family(const std::filesystem::path& file) {
  return parse_family(read_yaml_file(file, "the scenario family file"), file.string());
}

LoadFigures load_figures(const Scenario& s) {
  LoadFigures f;
  const double link_bytes_per_cycle = s.link_bytes_per_cycle();
  // Wire bytes per payload byte of an MTU frame: 46 bytes of headers and tag in the frame,
  // 24 of preamble, gap and FCS on the wire (docs/simulation.md).
  auto wire_cycles = [&](std::uint64_t payload, std::uint32_t frame) {
    const double per_frame = static_cast<double>(frame - 46);
    return static_cast<double>(payload) * (frame + 24) / per_frame / link_bytes_per_cycle;
  };
  double share_sum = 0;
  double crypto_bytes_per_cycle = 0;
  const auto duration = static_cast<double>(s.duration_cycles);
  for (const auto& t : s.tenants) {
    // Demands are averages over the run: a tenant counts for the part of it it is there.
    const double present =
        (std::min(static_cast<double>(t.stop_cycle), duration) - std::min(static_cast<double>(t.start_cycle), duration)) /
        duration;
    switch (t.kind) {
      case WorkloadKind::kDdp: {
        const double comm = wire_cycles(t.burst_bytes, t.mtu_frame_bytes);
        const double share = comm / (comm + static_cast<double>(t.compute_cycles));
        share_sum += share;
        f.link_demand += share * present;
        ++f.ddp_tenants;
        break;
      }
      case WorkloadKind::kFl: {
        const double transfer = wire_cycles(t.download_bytes + t.upload_bytes, t.mtu_frame_bytes);
        const double round = transfer + static_cast<double>(t.train_cycles);
        // The download arrives on RX and the upload leaves on TX: the TX share is the upload's.
        f.link_demand += wire_cycles(t.upload_bytes, t.mtu_frame_bytes) / round * present;
        crypto_bytes_per_cycle += static_cast<double>(t.download_bytes + t.upload_bytes) / round * present;
        ++f.fl_tenants;
        break;
      }
      case WorkloadKind::kBackground:
        if (t.direction == Direction::kTx) f.link_demand += t.rate_gbps / s.link_gbps * present;
        ++f.background_tenants;
        break;
      case WorkloadKind::kPcap: break;
    }
  }
  f.ddp_comm_share_line_rate = f.ddp_tenants ? share_sum / static_cast<double>(f.ddp_tenants) : 0.0;
  f.crypto_demand = crypto_bytes_per_cycle / (static_cast<double>(s.crypto_slots) * s.crypto_bytes_per_cycle);
  return f;
}

}  // namespace nicsched::sim
