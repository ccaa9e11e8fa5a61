// Solo baselines (solo.hpp): every tenant alone on the NIC under fifo, cached by scenario.
#include "nicsched/sim/solo.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "nicsched/fileio/file.hpp"
#include "nicsched/sim/simulation.hpp"

namespace nicsched::sim {

std::filesystem::path default_cache_dir() {
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x != nullptr && *x != '\0') {
    return std::filesystem::path(x) / "nicsched";
  }
  if (const char* h = std::getenv("HOME"); h != nullptr && *h != '\0') {
    return std::filesystem::path(h) / ".cache" / "nicsched";
  }
  return {};
}

namespace {

// The solo baselines of `tenants` tenants cached in `cache_file`, or nullopt (the caller
// recomputes them) when there is no cache yet, when it holds another tenant count, or when it
// cannot be used: not a regular file, over fileio::kMaxTextFileBytes, unreadable or broken
// JSON, each warned about naming the file.
std::optional<std::vector<std::optional<SoloResult>>> read_baseline_cache(const std::filesystem::path& cache_file,
                                                                          std::size_t tenants) {
  std::error_code ec;
  if (!std::filesystem::exists(cache_file, ec)) return std::nullopt;
  try {
    const auto j = nlohmann::json::parse(fileio::read_text_file(cache_file, "the solo-baseline cache"));
    std::vector<std::optional<SoloResult>> out;
    for (const auto& e : j.at("tenants")) {
      if (e.is_null()) {
        out.emplace_back();
        continue;
      }
      SoloResult r;
      if (!e.at("iter_mean_cycles").is_null()) r.iter_mean_cycles = e.at("iter_mean_cycles").get<double>();
      r.progress_rate = e.at("progress_rate").get<double>();
      out.emplace_back(r);
    }
    if (out.size() == tenants) {
      spdlog::debug("solo baselines from {}", cache_file.string());
      return out;
    }
  } catch (const nlohmann::json::exception& e) {
    spdlog::warn("{}: ignoring a broken baseline cache ({})", cache_file.string(), e.what());
  } catch (const fileio::FileError& e) {
    spdlog::warn("ignoring the baseline cache: {}", e.what());
  }
  return std::nullopt;
}

// Writes the results through the project's one atomic writer (a cache another process
// reads at the same time sees the old file or the new one); a failure is warned about.
void write_baseline_cache(const std::filesystem::path& cache_file, const std::string& key,
                          const std::vector<std::optional<SoloResult>>& results) {
  nlohmann::json j;
  j["key"] = key;
  nlohmann::json ts = nlohmann::json::array();
  for (const auto& r : results) {
    nlohmann::json e;
    e["iter_mean_cycles"] = r && r->iter_mean_cycles ? nlohmann::json(*r->iter_mean_cycles) : nlohmann::json(nullptr);
    e["progress_rate"] = r ? r->progress_rate : 0.0;
    ts.push_back(e);
  }
  j["tenants"] = ts;
  std::error_code ec;
  std::filesystem::create_directories(cache_file.parent_path(), ec);
  try {
    fileio::write_file_atomically(cache_file, j.dump(1));
  } catch (const fileio::FileError& e) {
    spdlog::warn("cannot cache solo baselines: {}", e.what());
  }
}

// Tenant `index` alone under fifo until `iterations` iterations (ddp, fl) or `end`.
SoloResult run_alone(const Scenario& s, std::uint32_t index, bool iterative, std::uint64_t end,
                     std::uint64_t iterations) {
  SimOptions o;
  o.baseline = "fifo";
  o.cycles = end;
  Simulation sim(solo_scenario(s, index), o);
  sim.run_until([&] { return iterative && sim.tenant(0).progress().completed >= iterations; });
  SoloResult r;
  const auto& its = sim.tenant(0).workload->iteration_cycles();
  if (!its.empty()) {
    double sum = 0;
    for (auto c : its) sum += static_cast<double>(c);
    r.iter_mean_cycles = sum / static_cast<double>(its.size());
  }
  r.progress_rate = sim.progress_rate(0);
  return r;
}

}  // namespace

std::vector<std::optional<SoloResult>> solo_baselines(const Scenario& s, const std::filesystem::path& cache_dir,
                                                      std::optional<std::uint64_t> cycles, std::uint64_t iterations) {
  const std::uint64_t end = cycles.value_or(s.duration_cycles);
  const std::string key = fmt::format("{}-{}-{}-{}{}-v1", s.name, s.text_digest, end, iterations,
                                      s.backend == NicBackend::kModel ? "-model" : "");
  std::filesystem::path cache_file;
  if (!cache_dir.empty()) {
    std::string safe = key;
    for (char& c : safe) {
      if (c == '/' || c == ' ') c = '_';
    }
    cache_file = cache_dir / ("solo-" + safe + ".json");
    if (auto cached = read_baseline_cache(cache_file, s.tenants.size())) return std::move(*cached);
  }
  std::vector<std::optional<SoloResult>> out;
  for (const auto& t : s.tenants) {
    const bool iterative = t.kind == WorkloadKind::kDdp || t.kind == WorkloadKind::kFl;
    out.emplace_back(run_alone(s, t.index, iterative, end, iterations));
  }
  if (!cache_file.empty()) write_baseline_cache(cache_file, key, out);
  return out;
}

}  // namespace nicsched::sim
