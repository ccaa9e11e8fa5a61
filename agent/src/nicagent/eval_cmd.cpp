// nicagent eval: every baseline and the policy on each scenario and seed through the
// same control loop; a Markdown table and gnuplot PNGs.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include "commands.hpp"
#include "nicsched/control/sim_env.hpp"
#include "nicsched/control/vec_env.hpp"
#include "nicsched/ppo/ppo_controller.hpp"

namespace nicsched::agent_cli {
namespace {

struct Summary {
  std::string controller;
  double ddp_mean = NAN, ddp_p99 = NAN, fl_mean = NAN, fl_p99 = NAN;
  double ratio_fifo = NAN, ratio_best = NAN;  // iteration time / reference's, mean over tenants
  double progress = NAN, jain = NAN, control_p99 = NAN, crypto = NAN, drops = 0, decide_p99_us = NAN;
};

double avg(const std::vector<double>& v) {
  std::vector<double> ok;
  for (double x : v) {
    if (!std::isnan(x)) ok.push_back(x);
  }
  if (ok.empty()) return NAN;
  double s = 0;
  for (double x : ok) s += x;
  return s / static_cast<double>(ok.size());
}

double p99(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const auto rank = static_cast<std::size_t>(std::ceil(0.99 * static_cast<double>(v.size())));
  return v[std::max<std::size_t>(rank, 1) - 1];
}

bool training(const sim::TenantMetrics& t) { return t.kind == "ddp" || t.kind == "fl"; }

// Mean over seeds and training tenants of iter_mean(run) / iter_mean(ref).
double ratio(const std::vector<control::RunResult>& runs, const std::vector<control::RunResult>& ref) {
  std::vector<double> r;
  for (std::size_t s = 0; s < runs.size() && s < ref.size(); ++s) {
    for (std::size_t t = 0; t < runs[s].metrics.tenants.size(); ++t) {
      const auto& a = runs[s].metrics.tenants[t];
      const auto& b = ref[s].metrics.tenants[t];
      if (training(a) && a.iter_mean_us && b.iter_mean_us && *b.iter_mean_us > 0) {
        r.push_back(*a.iter_mean_us / *b.iter_mean_us);
      }
    }
  }
  return avg(r);
}

Summary summarise(const std::string& name, const std::vector<control::RunResult>& runs) {
  Summary s;
  s.controller = name;
  std::vector<double> ddp_m, ddp_p, fl_m, fl_p, prog, jain, ctl, crypto, decide;
  for (const auto& r : runs) {
    std::vector<double> dm, dp, fm, fp, cp;
    for (const auto& t : r.metrics.tenants) {
      if (t.kind == "ddp") {
        dm.push_back(t.iter_mean_us.value_or(NAN));
        dp.push_back(t.iter_p99_us.value_or(NAN));
      } else if (t.kind == "fl") {
        fm.push_back(t.iter_mean_us.value_or(NAN));
        fp.push_back(t.iter_p99_us.value_or(NAN));
      }
      if (training(t) && t.normalised_progress) prog.push_back(*t.normalised_progress);
      if (t.control_p99_us) cp.push_back(*t.control_p99_us);
      s.drops += static_cast<double>(t.nic_drops) / static_cast<double>(runs.size());
    }
    ddp_m.push_back(avg(dm));
    ddp_p.push_back(avg(dp));
    fl_m.push_back(avg(fm));
    fl_p.push_back(avg(fp));
    if (!cp.empty()) ctl.push_back(*std::max_element(cp.begin(), cp.end()));
    jain.push_back(r.metrics.jain.value_or(NAN));
    crypto.push_back(r.metrics.crypto_utilisation);
    decide.insert(decide.end(), r.decide_us.begin(), r.decide_us.end());
  }
  s.ddp_mean = avg(ddp_m);
  s.ddp_p99 = avg(ddp_p);
  s.fl_mean = avg(fl_m);
  s.fl_p99 = avg(fl_p);
  s.progress = avg(prog);
  s.jain = avg(jain);
  s.control_p99 = avg(ctl);
  s.crypto = avg(crypto);
  s.decide_p99_us = p99(decide);
  return s;
}

std::string fmt_num(double v, int prec = 1) {
  if (std::isnan(v)) return "-";
  std::ostringstream o;
  o << std::fixed << std::setprecision(prec) << v;
  return o.str();
}

std::string fmt_speedup(double ratio_value) {
  if (std::isnan(ratio_value) || ratio_value <= 0) return "-";
  std::ostringstream o;
  o << std::fixed << std::setprecision(2) << 1.0 / ratio_value << "x (" << std::showpos << std::setprecision(1)
    << (1.0 - ratio_value) * 100.0 << "%)";
  return o.str();
}

std::string safe_name(std::string s) {
  for (char& c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') c = '_';
  }
  return s;
}

void write_bandwidth_plot(const std::filesystem::path& out, const std::string& scenario,
                          const std::vector<const control::RunResult*>& runs) {
  const auto base = out / ("bandwidth-" + safe_name(scenario));
  std::ostringstream gp;
  gp << "set terminal pngcairo size 1200," << 380 * runs.size() << "\n";
  gp << "set output '" << base.string() << ".png'\n";
  gp << "set multiplot layout " << runs.size() << ",1\n";
  gp << "set key outside right\nset xlabel 'simulated time (us)'\nset ylabel 'Gbit/s'\nset yrange [0:*]\n";
  for (const auto* r : runs) {
    const auto dat = base.string() + "-" + safe_name(r->controller) + ".dat";
    std::ofstream d(dat);
    d << "# time_us";
    for (const auto& n : r->tenant_names) d << ' ' << (n.empty() ? "-" : n);
    d << "\n";
    for (std::size_t i = 0; i < r->bandwidth_gbps.size(); ++i) {
      d << r->time_us[i];
      for (double v : r->bandwidth_gbps[i]) d << ' ' << v;
      d << "\n";
    }
    gp << "set title '" << scenario << ": per-tenant bandwidth, " << r->controller << "'\nplot ";
    bool first = true;
    for (std::size_t t = 0; t < r->tenant_names.size(); ++t) {
      if (r->tenant_names[t].empty()) continue;
      gp << (first ? "" : ", ") << "'" << dat << "' using 1:" << t + 2 << " with lines title '"
         << r->tenant_names[t] << "'";
      first = false;
    }
    gp << "\n";
  }
  gp << "unset multiplot\n";
  const auto script = base.string() + ".gp";
  std::ofstream(script) << gp.str();
  if (std::system(("gnuplot '" + script + "' 2>/dev/null").c_str()) != 0) {
    spdlog::warn("gnuplot failed on {}", script);
  }
}

void write_training_plot(const std::filesystem::path& out, const std::filesystem::path& csv) {
  const auto script = out / "training.gp";
  std::ofstream gp(script);
  gp << "set terminal pngcairo size 1200,800\nset output '" << (out / "training.png").string() << "'\n"
     << "set datafile separator ','\nset key autotitle columnhead\nset multiplot layout 2,2\n"
     << "set xlabel 'environment steps'\n"
     << "set title 'mean reward per step'\nplot '" << csv.string() << "' using 2:4 with lines notitle\n"
     << "set title 'episode return'\nplot '" << csv.string() << "' using 2:5 with linespoints notitle\n"
     << "set title 'losses'\nplot '" << csv.string() << "' using 2:7 with lines title 'policy', '' using 2:8 "
     << "with lines title 'value'\n"
     << "set title 'entropy, approx-KL x100, explained variance'\nplot '" << csv.string()
     << "' using 2:9 with lines title 'entropy', '' using 2:($10*100) with lines title 'approx-KL x100', '' "
     << "using 2:13 with lines title 'explained var'\nunset multiplot\n";
  gp.close();
  if (std::system(("gnuplot '" + script.string() + "' 2>/dev/null").c_str()) != 0) {
    spdlog::warn("gnuplot failed on {}", script.string());
  }
}

}  // namespace

int eval(const EvalOptions& o) {
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
    controllers.insert(controllers.begin(), "fifo");  // every speedup is against it
  }
  for (const auto& c : controllers) (void)control::make_baseline(c);  // unknown names fail here
  if (policy) controllers.emplace_back("ppo");

  std::optional<sim::NicBackend> backend;
  if (!o.backend.empty()) backend = sim::parse_backend(o.backend);
  std::ostringstream md;
  md << "NIC simulated by the " << (o.backend.empty() ? std::string("scenario's") : o.backend) << " backend. "
     << "Control interval " << interval << " cycles; " << o.seeds << " seeds per scenario; "
     << "iteration times in simulated us (mean over tenants of the class, then over seeds); speedup = "
     << "mean over training tenants of reference iteration time / this one's.\n\n";
  for (const auto& scenario_file : o.scenarios) {
    const auto entry = control::load_scenario_entry(scenario_file, o.cycles, backend);
    const auto& sc = entry.scenario;
    std::vector<std::uint32_t> sp_levels(sc.nic_tenants, sc.nic_tenants);
    for (const auto& t : sc.tenants) {
      if (t.index < sp_levels.size()) sp_levels[t.index] = t.priority;
    }
    struct Job {
      std::size_t controller;
      std::uint32_t seed;
    };
    std::vector<Job> jobs;
    for (std::size_t c = 0; c < controllers.size(); ++c) {
      for (std::uint32_t s = 1; s <= o.seeds; ++s) jobs.push_back({c, s});
    }
    std::vector<std::vector<control::RunResult>> results(controllers.size(),
                                                          std::vector<control::RunResult>(o.seeds));
    const std::size_t threads = o.threads == 0 ? std::max(1U, std::thread::hardware_concurrency()) : o.threads;
    control::ParallelFor pool(std::min(threads, jobs.size()));
    std::mutex log_mutex;
    pool.run(jobs.size(), [&](std::size_t j) {
      const auto& job = jobs[j];
      std::unique_ptr<control::Controller> ctl;
      if (controllers[job.controller] == "ppo") {
        ctl = std::make_unique<ppo::PpoController>(policy);
      } else {
        ctl = control::make_baseline(controllers[job.controller], sp_levels);
      }
      results[job.controller][job.seed - 1] = control::run_controller(entry, job.seed, *ctl, interval);
      const std::lock_guard lock(log_mutex);
      spdlog::info("{}: {} seed {} done", sc.name, controllers[job.controller], job.seed);
    });

    std::vector<Summary> rows;
    for (std::size_t c = 0; c < controllers.size(); ++c) rows.push_back(summarise(controllers[c], results[c]));
    // The best heuristic: the baseline other than FIFO with the shortest iterations.
    std::size_t best = 0;
    double best_ratio = INFINITY;
    for (std::size_t c = 0; c < controllers.size(); ++c) {
      rows[c].ratio_fifo = ratio(results[c], results[0]);
      if (controllers[c] != "fifo" && controllers[c] != "ppo" && rows[c].ratio_fifo < best_ratio) {
        best_ratio = rows[c].ratio_fifo;
        best = c;
      }
    }
    for (std::size_t c = 0; c < controllers.size(); ++c) rows[c].ratio_best = ratio(results[c], results[best]);

    md << "### " << sc.name << " (" << scenario_file.filename().string() << ")\n\n"
       << "Best heuristic: **" << controllers[best] << "**.\n\n"
       << "| controller | DDP iter mean (us) | DDP iter p99 (us) | FL round mean (us) | FL round p99 (us) | "
          "speedup vs FIFO | vs best heuristic | norm. progress | Jain | control p99 (us) | crypto util | "
          "drops | decide p99 (us) |\n"
       << "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
    for (const auto& r : rows) {
      md << "| " << r.controller << " | " << fmt_num(r.ddp_mean) << " | " << fmt_num(r.ddp_p99) << " | "
         << fmt_num(r.fl_mean) << " | " << fmt_num(r.fl_p99) << " | " << fmt_speedup(r.ratio_fifo) << " | "
         << fmt_speedup(r.ratio_best) << " | " << fmt_num(r.progress, 3) << " | " << fmt_num(r.jain, 3) << " | "
         << fmt_num(r.control_p99, 2) << " | " << fmt_num(r.crypto, 3) << " | " << fmt_num(r.drops, 0) << " | "
         << fmt_num(r.decide_p99_us, 1) << " |\n";
    }
    md << "\n";
    if (o.plots) {
      std::vector<const control::RunResult*> shown{&results[0][0]};
      shown.push_back(policy ? &results.back()[0] : &results[best][0]);
      write_bandwidth_plot(o.out, sc.name, shown);
    }
  }
  if (o.plots) {
    auto log = o.training_log;
    auto policy_dir = o.policy;
    if (!policy_dir.has_filename()) policy_dir = policy_dir.parent_path();
    if (log.empty() && !o.policy.empty() && std::filesystem::exists(policy_dir.parent_path() / "train.csv")) {
      log = policy_dir.parent_path() / "train.csv";
    }
    if (!log.empty()) write_training_plot(o.out, log);
  }
  std::cout << md.str();
  std::ofstream(o.out / "results.md") << md.str();
  spdlog::info("results in {}", (o.out / "results.md").string());
  return 0;
}

}  // namespace nicsched::agent_cli
