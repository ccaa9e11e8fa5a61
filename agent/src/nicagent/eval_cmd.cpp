// nicagent eval: whole-scenario evaluation. Every baseline, the policy, the oracle (best
// static configuration found by search), with --lookahead the lookahead oracle (dynamic
// control by forking the run, lookahead.hpp), and the solo runs on each scenario (files, or
// scenarios drawn from a family) and seed, through the same control loop; each run lasts
// until every training tenant has finished --min-iterations iterations / rounds or the
// scenario ends. Markdown tables (per family, per scenario), a per-run CSV and gnuplot PNGs.
#include <spdlog/spdlog.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <limits>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include "commands.hpp"
#include "nicsched/control/lookahead.hpp"
#include "nicsched/control/oracle.hpp"
#include "nicsched/control/sim_env.hpp"
#include "nicsched/control/vec_env.hpp"
#include "nicsched/ppo/ppo_controller.hpp"
#include "nicsched/ppo/trainer.hpp"
#include "nicsched/sim/family.hpp"
#include "nicsched/sim/scenario_policy.hpp"

namespace nicsched::agent_cli {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr const char* kOracle = "oracle";
constexpr const char* kSolo = "solo";
constexpr const char* kLookahead = "lookahead";
constexpr const char* kPolicyRow = "ppo";

double or_nan(const std::optional<double>& v) { return v.value_or(kNaN); }

// A CSV field: quoted (RFC 4180) when it holds a comma or a quote, as a selector's
// candidate list does (select:A,B,...).
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// Mean of the values that are not NaN; NaN when there are none.
double avg(const std::vector<double>& v) {
  std::vector<double> ok;
  std::copy_if(v.begin(), v.end(), std::back_inserter(ok), [](double x) { return !std::isnan(x); });
  return or_nan(sim::mean(ok));
}

// One controller's runs of one scenario, summarised over seeds.
struct Row {
  std::string controller;
  bool ran = true;                 // false: the controller cannot run this scenario (see notes)
  std::vector<double> norm_times;  // per seed (control::score_run)
  double norm_mean = kNaN, norm_ci = kNaN, speed = kNaN;
  double ddp_mean = kNaN, ddp_p99 = kNaN, fl_mean = kNaN, fl_comm = kNaN, fl_crypto_wait = kNaN;
  double control_p99 = kNaN, drops = kNaN, jain = kNaN, crypto = kNaN, link_tx = kNaN, sim_ms = kNaN;
};

// The figures of a Row that are each seed's figure averaged over the seeds.
constexpr double Row::*kSeedAverages[] = {
    &Row::speed,       &Row::ddp_mean, &Row::ddp_p99, &Row::fl_mean, &Row::fl_comm, &Row::fl_crypto_wait,
    &Row::control_p99, &Row::drops,    &Row::jain,    &Row::crypto,  &Row::link_tx, &Row::sim_ms};

Row summarise(const std::string& name, const std::vector<control::RunResult>& runs, const sim::Scenario& s) {
  Row row;
  row.controller = name;
  std::vector<Row> seeds;  // each run's figures
  const double us = 1.0 / s.clock_mhz;
  for (const auto& r : runs) {
    const auto sc = control::score_run(r, s);
    row.norm_times.push_back(sc.norm_time);
    Row& seed = seeds.emplace_back();
    seed.speed = sc.speed;
    std::vector<double> dm, dp, fm, fc, fw, cp;
    double d = 0;
    for (std::size_t i = 0; i < r.metrics.tenants.size() && i < s.tenants.size(); ++i) {
      const auto& t = r.metrics.tenants[i];
      const auto& spec = s.tenants[i];
      if (spec.kind == sim::WorkloadKind::kDdp) {
        dm.push_back(or_nan(t.iter_mean_us));
        dp.push_back(or_nan(t.iter_p99_us));
      } else if (spec.kind == sim::WorkloadKind::kFl && t.iter_mean_us && t.completed > 0) {
        // Round = download + training + upload: the communication part is the round less
        // its measured training time (jitter included); of it, the crypto part is the time
        // its packets waited for an engine slot at the head of the queue (CRYPTO_STATS *_WAIT).
        fm.push_back(*t.iter_mean_us);
        fc.push_back(or_nan(t.comm_mean_us));
        fw.push_back(static_cast<double>(t.crypto_wait_cycles) * us / static_cast<double>(t.completed));
      }
      if (t.control_p99_us) cp.push_back(*t.control_p99_us);
      d += static_cast<double>(t.nic_drops);
    }
    seed.ddp_mean = avg(dm);
    seed.ddp_p99 = avg(dp);
    seed.fl_mean = avg(fm);
    seed.fl_comm = avg(fc);
    seed.fl_crypto_wait = avg(fw);
    seed.control_p99 = cp.empty() ? kNaN : *std::max_element(cp.begin(), cp.end());
    seed.drops = d;
    seed.jain = or_nan(r.metrics.jain);
    seed.crypto = r.metrics.crypto_utilisation;
    seed.link_tx = r.metrics.link_utilisation_tx;
    seed.sim_ms = r.metrics.simulated_ms;
  }
  row.norm_mean = avg(row.norm_times);
  row.norm_ci = or_nan(sim::ci95_half_width(row.norm_times));
  for (double Row::*figure : kSeedAverages) {
    std::vector<double> per_seed;
    for (const Row& seed : seeds) per_seed.push_back(seed.*figure);
    row.*figure = avg(per_seed);
  }
  return row;
}

// The solo row: every tenant alone on the NIC (normalised time 1 by definition).
Row solo_row(const control::ScenarioEntry& e) {
  Row row;
  row.controller = kSolo;
  row.norm_mean = 1.0;
  row.speed = 1.0;
  std::vector<double> ddp, fl;
  for (std::size_t i = 0; i < e.scenario.tenants.size() && i < e.solo.size(); ++i) {
    if (!e.solo[i] || !e.solo[i]->iter_mean_cycles) continue;
    const double us = *e.solo[i]->iter_mean_cycles / e.scenario.clock_mhz;
    if (e.scenario.tenants[i].kind == sim::WorkloadKind::kDdp) ddp.push_back(us);
    if (e.scenario.tenants[i].kind == sim::WorkloadKind::kFl) fl.push_back(us);
  }
  row.ddp_mean = avg(ddp);
  row.fl_mean = avg(fl);
  return row;
}

// (controller - FIFO) / (oracle - FIFO) on normalised iteration time: the share of what the
// best static configuration gains over FIFO that this controller gains. NaN when the oracle
// found nothing measurably better than FIFO (under 1 %).
double headroom(double controller, double fifo, double oracle) {
  if (std::isnan(controller) || std::isnan(fifo) || std::isnan(oracle) || fifo - oracle < 0.01 * fifo) return kNaN;
  return (controller - fifo) / (oracle - fifo);
}

std::string fmt_num(double v, int prec = 1) {
  if (std::isnan(v)) return "-";
  std::ostringstream o;
  o << std::fixed << std::setprecision(prec) << v;
  return o.str();
}

std::string fmt_ci(double mean, double ci) {
  if (std::isnan(mean)) return "-";
  return fmt_num(mean, 3) + (std::isnan(ci) ? "" : " ± " + fmt_num(ci, 3));
}

// % of FIFO's normalised iteration time saved (positive: faster than FIFO).
std::string fmt_vs_fifo(double v, double fifo) {
  if (std::isnan(v) || std::isnan(fifo) || fifo <= 0) return "-";
  std::ostringstream o;
  o << std::fixed << std::showpos << std::setprecision(1) << (1.0 - v / fifo) * 100.0 << " %";
  return o.str();
}

std::string fmt_pct(double v) {
  if (std::isnan(v)) return "-";
  return fmt_num(std::abs(v) < 0.005 ? 0.0 : 100.0 * v, 0) + " %";  // no "-0 %"
}

std::string safe_name(std::string s) {
  for (char& c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') c = '_';
  }
  return s;
}

// Per-tenant bandwidth (left) and share of the crypto slots (right) over simulated time, one
// row of the figure per run shown (seed 1 of each controller), to OUT/timeline-SCENARIO.png:
// a window of 400 control intervals in the middle of each run.
void write_timeline_plot(const std::filesystem::path& out, const std::string& scenario,
                         const std::vector<const control::RunResult*>& runs) {
  const auto base = out / ("timeline-" + safe_name(scenario));
  std::ostringstream gp;
  gp << "set terminal pngcairo size 1600," << 340 * runs.size() << "\n";
  gp << "set output '" << base.string() << ".png'\n";
  gp << "set multiplot layout " << runs.size() << ",2\n";
  gp << "set key outside right\nset xlabel 'simulated time (us)'\nset autoscale xfix\n";
  // One panel: each named tenant's column of the run's .dat file (column 1 is the time).
  auto panel = [&](const control::RunResult& r, const std::string& dat, const std::string& title,
                   const std::string& ylabel, const std::string& yrange) {
    gp << "set title '" << scenario << ": " << title << ", " << r.controller << "'\nset ylabel '" << ylabel
       << "'\nset yrange " << yrange << "\nplot ";
    bool first = true;
    for (std::size_t t = 0; t < r.tenant_names.size(); ++t) {
      if (r.tenant_names[t].empty()) continue;
      gp << (first ? "" : ", ") << "'" << dat << "' using 1:" << t + 2 << " with lines title '" << r.tenant_names[t]
         << "'";
      first = false;
    }
    gp << "\n";
  };
  // series[i][t]: interval i, tenant t, written as "time v0 v1 ..." rows, scaled: the
  // kWindow intervals in the middle of the run, each as measured (a whole scenario has
  // thousands; averaging them into fewer points beats against the jobs' periods and hides
  // which burst went first, which is what the figure is for).
  constexpr std::size_t kWindow = 400;
  auto write_dat = [](const std::string& path, const control::RunResult& r,
                      const std::vector<std::vector<double>>& series, double scale) {
    std::ofstream d(path);
    d << "# time_us";
    for (const auto& n : r.tenant_names) d << ' ' << (n.empty() ? "-" : n);
    d << "\n";
    const std::size_t n = std::min(series.size(), r.time_us.size());
    const std::size_t first = n > kWindow ? (n - kWindow) / 2 : 0;
    for (std::size_t i = first; i < std::min(n, first + kWindow); ++i) {
      d << r.time_us[i];
      for (double v : series[i]) d << ' ' << v * scale;
      d << "\n";
    }
  };
  for (const auto* r : runs) {
    const auto stem = base.string() + "-" + safe_name(r->controller);
    write_dat(stem + "-bandwidth.dat", *r, r->bandwidth_gbps, 1.0);
    write_dat(stem + "-crypto.dat", *r, r->crypto_share, 100.0);
    panel(*r, stem + "-bandwidth.dat", "per-tenant bandwidth", "Gbit/s", "[0:*]");
    panel(*r, stem + "-crypto.dat", "share of the crypto slots", "% of slot cycles", "[0:100]");
  }
  gp << "unset multiplot\n";
  const auto script = base.string() + ".gp";
  std::ofstream(script) << gp.str();
  if (std::system(("gnuplot '" + script + "' 2>/dev/null").c_str()) != 0) {
    spdlog::warn("gnuplot failed on {}", script);
  }
}

// training.png from a trainer's train.csv; with the validation.csv the trainer writes beside
// it (family training with model selection), the second panel is the validation curve (the
// greedy policy's mean normalised iteration time on the validation draws) instead of the
// episode return, which family training does not log.
void write_training_plot(const std::filesystem::path& out, const std::filesystem::path& csv) {
  const auto script = out / "training.gp";
  const auto validation = csv.parent_path() / "validation.csv";
  std::ofstream gp(script);
  gp << "set terminal pngcairo size 1200,800\nset output '" << (out / "training.png").string() << "'\n"
     << "set datafile separator ','\nset key autotitle columnhead\nset multiplot layout 2,2\n"
     << "set xlabel 'environment steps'\n"
     << "set title 'mean reward per step'\nplot '" << csv.string() << "' using 2:4 with lines notitle\n";
  if (std::filesystem::exists(validation)) {
    gp << "set title 'validation: mean normalised iteration time (lower is better)'\nplot '" << validation.string()
       << "' using 2:3 with linespoints title 'greedy policy', '' using 2:4 with lines title 'best so far'\n";
  } else {
    gp << "set title 'episode return'\nplot '" << csv.string() << "' using 2:5 with linespoints notitle\n";
  }
  gp << "set title 'losses'\nplot '" << csv.string() << "' using 2:7 with lines title 'policy', '' using 2:8 "
     << "with lines title 'value'\n"
     << "set title 'entropy, approx-KL x100, explained variance'\nplot '" << csv.string()
     << "' using 2:9 with lines title 'entropy', '' using 2:($10*100) with lines title 'approx-KL x100', '' "
     << "using 2:13 with lines title 'explained var'\nunset multiplot\n";
  gp.close();
  if (std::system(("gnuplot '" + script.string() + "' 2>/dev/null").c_str()) != 0) {
    spdlog::warn("gnuplot failed on {}", script.string());
  }
}

// A scenario to evaluate and where it came from.
struct Item {
  std::string label;  // file name, or "family seed N"
  control::ScenarioEntry entry;
};

// Everything measured on one scenario.
struct ScenarioResult {
  std::string name;
  std::string label;
  std::vector<Row> rows;      // controllers in order, then oracle (if searched), then solo
  std::string oracle_config;  // describe() of the oracle's configuration
  std::vector<std::string> notes;
  std::uint32_t oracle_evaluations = 0;
};

const Row* find_row(const ScenarioResult& r, const std::string& name) {
  for (const auto& row : r.rows) {
    if (row.controller == name) return &row;
  }
  return nullptr;
}

std::string display_name(const std::string& controller) {
  if (controller == kLookahead) return "lookahead (offline, forks)";
  return controller == kOracle ? "oracle (offline search)" : controller;
}

// The search space of a scenario's NIC: the tenants it uses, the FL ones with crypto.
control::OracleSpace oracle_space(const sim::Scenario& s) {
  control::OracleSpace space;
  space.tenants = s.nic_tenants;
  space.prio_levels = nic::kPrioLevels;
  space.crypto_slots = s.crypto_slots;
  space.work.assign(s.nic_tenants, 0.0);
  space.sp_priority = sim::scenario_priorities(s, s.nic_tenants);
  for (const auto& t : s.tenants) {
    if (t.index >= s.nic_tenants) continue;
    space.active.push_back(t.index);
    if (t.kind == sim::WorkloadKind::kFl) space.crypto.push_back(t.index);
    if (t.kind == sim::WorkloadKind::kDdp) space.work[t.index] = static_cast<double>(t.burst_bytes);
    if (t.kind == sim::WorkloadKind::kFl) space.work[t.index] = static_cast<double>(t.download_bytes + t.upload_bytes);
  }
  return space;
}

void write_scenario_table(std::ostream& md, const ScenarioResult& r) {
  const Row* fifo = find_row(r, "fifo");
  const Row* oracle = find_row(r, kOracle);
  md << "| controller | norm. iter time (95 % CI) | vs FIFO | headroom captured | speed vs solo | DDP iter mean "
        "(us) | DDP iter p99 (us) | FL round (us) | FL comm / crypto wait per round (us) | control p99 (us) | "
        "drops | Jain | crypto util | link util TX | simulated ms |\n"
     << "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& row : r.rows) {
    if (!row.ran) continue;
    const bool solo = row.controller == kSolo;
    const double h = oracle && fifo ? headroom(row.norm_mean, fifo->norm_mean, oracle->norm_mean) : kNaN;
    md << "| " << display_name(row.controller) << " | " << fmt_ci(row.norm_mean, row.norm_ci) << " | "
       << (fifo ? fmt_vs_fifo(row.norm_mean, fifo->norm_mean) : "-") << " | " << (solo ? "-" : fmt_pct(h)) << " | "
       << fmt_num(row.speed, 3) << " | " << fmt_num(row.ddp_mean) << " | " << fmt_num(row.ddp_p99) << " | "
       << fmt_num(row.fl_mean) << " | "
       << (std::isnan(row.fl_comm) ? "-" : fmt_num(row.fl_comm) + " / " + fmt_num(row.fl_crypto_wait)) << " | "
       << fmt_num(row.control_p99, 2) << " | " << fmt_num(row.drops, 0) << " | " << fmt_num(row.jain, 3) << " | "
       << fmt_num(row.crypto, 3) << " | " << fmt_num(row.link_tx, 3) << " | " << fmt_num(row.sim_ms, 2) << " |\n";
  }
  for (const auto& n : r.notes) md << "\n" << n << "\n";
  if (!r.oracle_config.empty()) {
    md << "\nOracle: `" << r.oracle_config << "` (best of " << r.oracle_evaluations
       << " static configurations judged on these seeds).\n";
  }
  md << "\n";
}

// The policy against every other controller, paired by scenario (each side's mean over
// seeds; sim::paired_gain): what issue 15's goal asks, "better than the best heuristic, with
// the 95 % CI excluding zero". The best heuristic is the baseline with the lowest mean over
// the scenarios the policy ran on; the oracle is listed but is not a heuristic.
template <typename Collect>
void write_paired_table(std::ostream& md, const std::vector<ScenarioResult>& results, const Collect& collect) {
  if (find_row(results.front(), kPolicyRow) == nullptr) return;
  const auto policy = collect(kPolicyRow, &Row::norm_mean);
  std::string best;
  double best_mean = kNaN;
  for (const auto& row : results.front().rows) {
    const auto& name = row.controller;
    if (name == kPolicyRow || name == kOracle || name == kLookahead || name == kSolo) continue;
    const auto v = collect(name, &Row::norm_mean);
    std::vector<double> on;  // the scenarios the policy ran on
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (!std::isnan(policy[i])) on.push_back(v[i]);
    }
    const double m = avg(on);
    if (!std::isnan(m) && (best.empty() || m < best_mean)) best = name, best_mean = m;
  }
  md << "The policy paired with each controller over the scenarios (per scenario: % lower mean normalised "
        "iteration time than the other's, positive = the policy faster; mean over scenarios with a 95 % "
        "Student-t CI):\n\n"
     << "| policy against | policy faster by | CI excludes 0 | scenarios faster / slower |\n|---|---|---|---|\n";
  for (const auto& row : results.front().rows) {
    const auto& name = row.controller;
    if (name == kPolicyRow || name == kSolo) continue;
    const auto g = sim::paired_gain(policy, collect(name, &Row::norm_mean));
    const double ci = or_nan(g.ci);
    const bool excludes = !std::isnan(ci) && std::abs(g.mean) > ci;
    md << "| " << display_name(name) << (name == best ? " (best heuristic)" : "") << " | "
       << (g.mean > 0 ? "+" : "") << fmt_num(g.mean, 2) << " % ± " << fmt_num(ci, 2) << " % | "
       << (std::isnan(ci) ? "-" : excludes ? (g.mean > 0 ? "yes: faster" : "yes: slower") : "no") << " | "
       << g.faster << " / " << g.slower << " of " << g.n << " |\n";
  }
  md << "\n";
}

// Per-family summary: each controller's mean over scenarios of the per-scenario mean
// normalised iteration time, with a 95 % CI over scenarios (the family is a distribution
// of scenarios; the seeds' spread is in the per-scenario tables).
void write_family_table(std::ostream& md, const std::vector<ScenarioResult>& results) {
  if (results.empty()) return;
  auto collect = [&](const std::string& name, double Row::*field) {
    std::vector<double> v;
    for (const auto& r : results) {
      const Row* row = find_row(r, name);
      v.push_back(row ? row->*field : kNaN);
    }
    return v;
  };
  const auto fifo_per = collect("fifo", &Row::norm_mean);
  const bool has_oracle = find_row(results.front(), kOracle) != nullptr;
  const auto oracle_per = collect(kOracle, &Row::norm_mean);
  md << "| controller | norm. iter time (95 % CI over scenarios) | vs FIFO | headroom captured | scenarios faster "
        "than FIFO | speed vs solo | Jain | control p99 (us) | drops | crypto util | link util TX |\n"
     << "|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& first : results.front().rows) {
    const auto& name = first.controller;
    const auto v = collect(name, &Row::norm_mean);
    std::vector<double> ok;
    std::copy_if(v.begin(), v.end(), std::back_inserter(ok), [](double x) { return !std::isnan(x); });
    std::size_t faster = 0;
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (v[i] < fifo_per[i] * (1 - 1e-3)) ++faster;
    }
    const double m = avg(v);
    const bool solo = name == kSolo;
    // A controller that could not run some scenarios is compared on the others only.
    std::vector<double> fifo_on, oracle_on;
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (std::isnan(v[i])) continue;
      fifo_on.push_back(fifo_per[i]);
      oracle_on.push_back(oracle_per[i]);
    }
    const double fifo = avg(fifo_on);
    const double oracle = has_oracle ? avg(oracle_on) : kNaN;
    std::string over;
    if (ok.size() < v.size()) over = " (" + std::to_string(ok.size()) + " of " + std::to_string(v.size()) + ")";
    md << "| " << display_name(name) << over << " | "
       << (solo ? fmt_num(m, 3) : fmt_ci(m, or_nan(sim::ci95_half_width(ok)))) << " | " << fmt_vs_fifo(m, fifo)
       << " | " << (solo ? "-" : fmt_pct(headroom(m, fifo, oracle))) << " | "
       << (solo || name == "fifo" ? std::string("-") : std::to_string(faster) + " / " + std::to_string(ok.size()))
       << " | " << fmt_num(avg(collect(name, &Row::speed)), 3) << " | " << fmt_num(avg(collect(name, &Row::jain)), 3)
       << " | " << fmt_num(avg(collect(name, &Row::control_p99)), 2) << " | "
       << fmt_num(avg(collect(name, &Row::drops)), 0) << " | " << fmt_num(avg(collect(name, &Row::crypto)), 3) << " | "
       << fmt_num(avg(collect(name, &Row::link_tx)), 3) << " |\n";
  }
  md << "\n";
  write_paired_table(md, results, collect);
}

// Every decision's wall and thread CPU time (us), per controller: how long a control loop
// waits for each controller (decision latency; docs/agent.md, "Figures").
struct DecisionTimes {
  std::vector<double> wall_us, cpu_us;
};

void write_decision_table(std::ostream& md, const std::vector<std::string>& order,
                          const std::map<std::string, DecisionTimes>& times, std::size_t threads) {
  md << "Decision latency (each `decide()`, telemetry in, policy out, on the thread that runs the simulation, with "
     << threads << " run(s) in parallel: wall time includes waiting for a core):\n\n"
     << "| controller | decisions | wall p50 / p99 (us) | thread CPU p50 / p99 (us) |\n|---|---|---|---|\n";
  auto pct = [](const std::vector<double>& v, double p) { return fmt_num(or_nan(sim::percentile(v, p))); };
  for (const auto& name : order) {
    const auto it = times.find(name);
    if (it == times.end() || it->second.wall_us.empty()) continue;
    const auto& t = it->second;
    md << "| " << display_name(name) << " | " << t.wall_us.size() << " | " << pct(t.wall_us, 50) << " / "
       << pct(t.wall_us, 99) << " | " << pct(t.cpu_us, 50) << " / " << pct(t.cpu_us, 99) << " |\n";
  }
  md << "\n";
}

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

}  // namespace

int eval(const EvalOptions& o) {
  if (o.scenarios.empty() == o.family.empty()) throw std::runtime_error("eval: give --scenarios or --family");
  const auto wall0 = std::chrono::steady_clock::now();
  const double cpu0 = cpu_seconds();
  std::filesystem::create_directories(o.out);
  std::shared_ptr<const ppo::TrainedPolicy> policy;
  std::uint64_t interval = control::NicEnvConfig{}.interval_cycles;
  if (!o.policy.empty()) {
    policy = std::make_shared<const ppo::TrainedPolicy>(o.policy);
    interval = control::parse_env_config(policy->env_yaml(), (o.policy / "policy.yaml").string()).interval_cycles;
  }
  if (o.interval) interval = *o.interval;
  std::vector<std::string> controllers = o.baselines.empty() ? control::baseline_names() : o.baselines;
  if (std::find(controllers.begin(), controllers.end(), "fifo") == controllers.end()) {
    controllers.insert(controllers.begin(), "fifo");  // every comparison is against it
  }
  for (const auto& c : controllers) (void)control::make_baseline(c);  // unknown names fail here
  if (policy) controllers.emplace_back(kPolicyRow);

  std::optional<sim::NicBackend> backend;
  if (!o.backend.empty()) backend = sim::parse_backend(o.backend);
  spdlog::info("NIC simulator: {} backend", o.backend.empty() ? std::string("each scenario's") : o.backend);
  std::vector<Item> items;
  std::string family_name;
  if (!o.family.empty()) {
    const auto family = sim::load_family(o.family);
    family_name = family.name;
    const std::uint64_t first = o.first_seed.value_or(family.seed_first);
    auto entries = control::family_entries(family, first, o.count, o.cycles, backend);
    for (std::uint32_t k = 0; k < o.count; ++k) {
      items.push_back({"family seed " + std::to_string(first + k), std::move(entries[k])});
    }
  }
  for (const auto& file : o.scenarios) {
    items.push_back(
        {file.filename().string(), control::make_scenario_entry(sim::load_scenario(file), o.cycles, backend)});
  }

  const std::size_t threads = o.threads == 0 ? std::max(1U, std::thread::hardware_concurrency()) : o.threads;
  control::ParallelFor pool(threads);
  // --reward-config: each run's return under that reward (RunResult::episode_return), in
  // more columns of runs.csv (docs/agent.md, "Reward").
  std::optional<control::NicEnvConfig> reward;
  if (!o.reward_config.empty()) reward = control::load_env_config(o.reward_config);
  std::ofstream csv(o.out / "runs.csv");
  csv << "scenario,controller,seed,norm_iter_time,speed_vs_solo,simulated_ms,cycles";
  if (reward) csv << ",reward,return,return_progress,return_fairness,return_drops,return_deadline,return_starvation,reward_steps";
  csv << '\n';
  // Each scored tenant of each run (control::score_run's terms): who starves, and by how much.
  std::ofstream tenants_csv(o.out / "tenants.csv");
  tenants_csv << "scenario,controller,seed,tenant,kind,norm_iter_time,finished\n";
  std::size_t total_runs = 0;
  double total_ms = 0;
  std::map<std::string, DecisionTimes> decision_times;
  // Each run of `entry` (seeds 1, 2, ...) into runs.csv, tenants.csv and the decision times.
  auto record = [&](const control::ScenarioEntry& entry, const std::vector<control::RunResult>& runs) {
    for (std::size_t s = 0; s < runs.size(); ++s) {
      const auto sc = control::score_run(runs[s], entry.scenario);
      csv << entry.scenario.name << ',' << csv_field(runs[s].controller) << ',' << s + 1 << ',' << sc.norm_time << ','
          << sc.speed << ',' << runs[s].metrics.simulated_ms << ',' << runs[s].metrics.cycles;
      if (const auto& ret = runs[s].episode_return) {
        csv << ',' << control::reward_kind_name(reward->reward) << ',' << ret->total << ',' << ret->progress << ','
            << ret->fairness << ',' << ret->drops << ',' << ret->deadline << ',' << ret->starvation << ','
            << runs[s].reward_steps;
      }
      csv << '\n';
      for (const auto& t : sc.tenants) {
        tenants_csv << entry.scenario.name << ',' << csv_field(runs[s].controller) << ',' << s + 1 << ','
                    << entry.scenario.tenants[t.tenant].name << ','
                    << sim::to_string(entry.scenario.tenants[t.tenant].kind) << ',' << t.norm_time << ','
                    << (t.finished ? 1 : 0) << '\n';
      }
      ++total_runs;
      total_ms += runs[s].metrics.simulated_ms;
      auto& t = decision_times[runs[s].controller];
      t.wall_us.insert(t.wall_us.end(), runs[s].decide_us.begin(), runs[s].decide_us.end());
      t.cpu_us.insert(t.cpu_us.end(), runs[s].decide_cpu_us.begin(), runs[s].decide_cpu_us.end());
    }
  };
  // `make` (a fresh controller per run) on every seed of `entry`, the seeds in parallel.
  auto run_seeds = [&](const control::ScenarioEntry& entry,
                       const std::function<std::unique_ptr<control::Controller>()>& make) {
    auto runs = control::run_seeds(entry, o.seeds, make, interval, o.min_iterations, pool, reward);
    record(entry, runs);
    return runs;
  };
  control::LookaheadConfig lookahead;
  lookahead.every = o.lookahead_every;
  lookahead.horizon = o.lookahead_horizon;
  lookahead.continuation = o.lookahead_continuation;
  lookahead.per_run = o.lookahead_per_run;
  lookahead.horizon_k = o.lookahead_horizon_k;

  std::vector<ScenarioResult> results;
  for (const auto& item : items) {
    const auto& sc = item.entry.scenario;
    ScenarioResult res;
    res.name = sc.name;
    res.label = item.label;
    std::vector<std::vector<control::RunResult>> runs;
    for (const auto& name : controllers) {
      try {
        runs.push_back(run_seeds(item.entry, [&]() -> std::unique_ptr<control::Controller> {
          if (name == kPolicyRow) return std::make_unique<ppo::PpoController>(policy);
          return control::make_scenario_baseline(name, sc);
        }));
      } catch (const ppo::CheckpointError& e) {
        // A policy trained for another NIC (e.g. 8 tenants on a 16-tenant scenario).
        spdlog::warn("{}: {} not run: {}", sc.name, name, e.what());
        res.notes.push_back("`" + name + "` not run on this scenario: " + e.what());
        res.rows.push_back(Row{});
        res.rows.back().controller = name;
        res.rows.back().ran = false;
        continue;
      }
      res.rows.push_back(summarise(name, runs.back(), sc));
    }
    std::optional<control::StaticConfig> oracle_best;
    if (o.oracle_evaluations > 0) {
      const auto space = oracle_space(sc);
      const auto fifo = control::fifo_config(space);
      // FIFO's configuration is what the fifo baseline writes: its runs are reused.
      std::vector<control::RunResult> best_runs = runs.front();
      double best = res.rows.front().norm_mean;
      const control::Judge judge = [&](const control::StaticConfig& c) {
        if (c == fifo) return res.rows.front().norm_mean;
        auto r = run_seeds(item.entry, [&] { return std::make_unique<control::StaticController>(c, kOracle); });
        std::vector<double> scores;
        for (const auto& run : r) scores.push_back(control::score_run(run, sc).norm_time);
        const double score = avg(scores);
        if (score < best) {  // the search keeps the first of equals too
          best = score;
          best_runs = std::move(r);
        }
        return score;
      };
      control::OracleBudget budget;
      budget.evaluations = o.oracle_evaluations;
      const auto found = control::search_oracle(space, judge, budget);
      res.rows.push_back(summarise(kOracle, best_runs, sc));
      res.oracle_config = control::describe(found.best, space);
      oracle_best = found.best;
      res.oracle_evaluations = found.evaluations;
    }
    if (o.lookahead) {
      // Its arms: the baselines run above (the policy is not a candidate) and the static
      // oracle's configuration when it was searched; the seeds in parallel.
      std::vector<control::LookaheadResult> found(o.seeds);
      std::vector<double> wall(o.seeds);
      pool.run(o.seeds, [&](std::size_t s) {
        std::vector<std::unique_ptr<control::Controller>> arms;
        for (const auto& name : controllers) {
          if (name != kPolicyRow) arms.push_back(control::make_scenario_baseline(name, sc));
        }
        if (oracle_best) arms.push_back(std::make_unique<control::StaticController>(*oracle_best, kOracle));
        const auto t0 = std::chrono::steady_clock::now();
        found[s] = control::run_lookahead(item.entry, s + 1, std::move(arms), interval, o.min_iterations, lookahead);
        wall[s] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      });
      std::vector<control::RunResult> runs_la;
      std::ostringstream note;
      note << "Lookahead oracle ("
           << (lookahead.per_run > 0 ? "about " + std::to_string(lookahead.per_run) + " decisions per run, H = " +
                                           std::to_string(lookahead.horizon_k) + " k"
                                     : "k = " + std::to_string(lookahead.every) + ", H = " + std::to_string(lookahead.horizon))
           << ", continuation "
           << (lookahead.continuation == 0 ? std::string("to the end") : std::to_string(lookahead.continuation))
           << ", " << found.front().arms.size() << " arms):";
      for (std::size_t s = 0; s < found.size(); ++s) {
        auto& f = found[s];
        std::size_t switches = 0;
        for (std::size_t d = 1; d < f.decisions.size(); ++d) {
          if (f.decisions[d].chosen) ++switches;
        }
        note << " seed " << s + 1 << ": default `" << f.arms[f.default_arm] << "` (" << fmt_num(f.decisions.front().best_score, 3)
             << (lookahead.per_run > 0 ? ", k = " + std::to_string(f.every) : std::string()) << "), final "
             << fmt_num(f.score, 3) << ", " << switches << " changes in " << f.decisions.size() - 1
             << " decisions, " << f.forks << " copies, " << fmt_num(wall[s], 1) << " s;";
        f.run.controller = kLookahead;
        runs_la.push_back(std::move(f.run));
      }
      spdlog::info("{}: {}", sc.name, note.str());
      res.notes.push_back(note.str());
      record(item.entry, runs_la);
      res.rows.push_back(summarise(kLookahead, runs_la, sc));
    }
    res.rows.push_back(solo_row(item.entry));
    spdlog::info("{} ({}): done, {:.0f} s wall so far", sc.name, item.label,
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count());
    // Timelines: every scenario given as a file, and the first of a family (its first seed:
    // not picked by any result). FIFO, the best baseline on this scenario, the policy.
    if (o.plots && (o.family.empty() || &item == &items.front())) {
      std::vector<const control::RunResult*> shown;
      const control::RunResult* best = nullptr;
      double best_norm = kNaN;
      const control::RunResult* learned = nullptr;
      for (std::size_t k = 0, r = 0; k < controllers.size(); ++k) {
        if (!res.rows[k].ran) continue;
        const auto* run = &runs[r++].front();
        if (controllers[k] == "fifo") {
          shown.push_back(run);
        } else if (controllers[k] == kPolicyRow) {
          learned = run;
        } else if (!std::isnan(res.rows[k].norm_mean) && (best == nullptr || res.rows[k].norm_mean < best_norm)) {
          best = run;  // the first of equals
          best_norm = res.rows[k].norm_mean;
        }
      }
      if (best != nullptr) shown.push_back(best);
      if (learned != nullptr) shown.push_back(learned);
      write_timeline_plot(o.out, sc.name, shown);
    }
    results.push_back(std::move(res));
  }

  std::ostringstream md;
  md << "NIC simulated by the " << (o.backend.empty() ? std::string("scenario's") : o.backend) << " backend; control "
     << "interval " << interval << " cycles; seeds 1-" << o.seeds << " per scenario; each run until every training "
     << "tenant has finished " << o.min_iterations << " iterations / rounds (or left) or the scenario ends. "
     << "Norm. iter time: per run, the mean over training tenants of iteration (round) time / the tenant's solo "
     << "iteration time (the mean of its first 6 iterations alone on the NIC under FIFO; 1 = solo speed, lower is "
     << "better); mean over seeds with a 95 % Student-t CI. Headroom captured = (controller - FIFO) / (oracle - "
     << "FIFO). The oracle is the best static configuration found by an offline search (" << o.oracle_evaluations
     << " configurations per scenario, judged on the same seeds): it uses knowledge no online controller has.\n\n";
  if (!family_name.empty()) {
    md << "### Family " << family_name << ": " << o.count << " scenarios\n\n";
    write_family_table(md, results);
  }
  for (const auto& r : results) {
    md << "#### " << r.name << " (" << r.label << ")\n\n";
    write_scenario_table(md, r);
  }
  auto order = controllers;
  order.emplace_back(kOracle);
  write_decision_table(md, order, decision_times, threads);
  // What the evaluation cost: in results.md and the log, not on stdout (which ends with the tables).
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  std::ostringstream cost;
  cost << "Runs: " << total_runs << " (" << fmt_num(total_ms, 1) << " simulated ms); wall " << fmt_num(wall, 0)
       << " s, CPU " << fmt_num(cpu_seconds() - cpu0, 0) << " s (user + system, solo baselines included unless "
       << "cached), " << threads << " threads.";
  if (o.plots && (o.family.empty() || !o.training_log.empty())) {  // a family's folder: only if asked
    auto log = o.training_log;
    auto policy_dir = o.policy;
    if (!policy_dir.has_filename()) policy_dir = policy_dir.parent_path();
    // the training log inside the policy's folder, or (older layout) beside it
    for (const auto& at : {policy_dir / "train.csv", policy_dir.parent_path() / "train.csv"}) {
      if (log.empty() && !o.policy.empty() && std::filesystem::exists(at)) log = at;
    }
    if (!log.empty()) write_training_plot(o.out, log);
  }
  std::cout << md.str();
  std::ofstream(o.out / "results.md") << md.str() << cost.str() << "\n";
  spdlog::info("{}", cost.str());
  spdlog::info("results in {}", (o.out / "results.md").string());
  return 0;
}

}  // namespace nicsched::agent_cli
