// Mutated YAML against the file loaders (part of tests/soak/soak.py; docs/reliability.md).
//
// Seeds: every scenario in sim/scenarios/ (sim::load_scenario), every scenario family in
// sim/families/ (sim::load_family, then one draw) and every policy file in host/policies/
// and tests/nicctl/ (host::load_policy, against an 8-tenant NIC's capabilities). Each
// mutant is written to a file and loaded. It must either load, or be refused with the
// loader's own error type (sim::ScenarioError / SimError, host::PolicyError) whose
// message names the file. Any other exception, or an error that does not name the file,
// is a defect: the mutant is kept in --keep DIR and the run fails. A crash or hang ends the
// process (soak.py reports it). Mutations: bit and byte flips, truncation, deleted,
// duplicated and swapped lines, scalars replaced with hostile values (huge, negative,
// fractional, empty, null, sequences, maps, aliases), indentation changes, anchors and
// alias chains.
//
// Usage: soak_loaders --repo DIR [--seconds 5] [--seed 1] [--max-mutants N] [--keep DIR]
// Prints one JSON line of figures. Exit: 0 no defect, 1 a defect, 2 bad arguments.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <cstdio>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "nic_params.hpp"
#include "nicsched/host/errors.hpp"
#include "nicsched/host/policy.hpp"
#include "nicsched/sim/error.hpp"
#include "nicsched/sim/family.hpp"
#include "nicsched/sim/scenario.hpp"

namespace fs = std::filesystem;
using namespace nicsched;

namespace {

enum class Kind { kScenario, kFamily, kPolicy };

struct Seed {
  fs::path file;
  std::string text;
  Kind kind = Kind::kPolicy;
};

const char* to_string(Kind k) {
  return k == Kind::kScenario ? "scenario" : k == Kind::kFamily ? "family" : "policy";
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

std::string join_lines(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += l + "\n";
  return s;
}

const std::vector<std::string> kHostile = {
    "0", "-1", "1e309", "99999999999999999999", "4294967296", "0.5", "-0.0", "nan", ".inf", "\"\"", "~",
    "[]", "{}", "[1, 2, 3]", "{a: 1}", "yes", "\"\\u0000\"", "*undefined_alias", "&a 1", "!!binary aGk=",
    std::string(300, 'x'), "2Gbps", "64KiB", "-64KiB", "1e-300", "0x10", "'", "\"unterminated"};

std::string mutate(std::mt19937_64& rng, const std::string& text) {
  auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % std::max<std::size_t>(n, 1)); };
  std::string s = text;
  const int ops = 1 + static_cast<int>(rng() % 3);
  for (int k = 0; k < ops; ++k) {
    auto lines = split_lines(s);
    switch (rng() % 9) {
      case 0:  // flip a bit
        if (!s.empty()) s[pick(s.size())] ^= static_cast<char>(1 << (rng() % 8));
        break;
      case 1:  // truncate
        s.resize(pick(s.size() + 1));
        break;
      case 2:  // delete a line
        if (!lines.empty()) lines.erase(lines.begin() + static_cast<long>(pick(lines.size())));
        s = join_lines(lines);
        break;
      case 3:  // duplicate a line (duplicate keys)
        if (!lines.empty()) {
          const auto i = pick(lines.size());
          lines.insert(lines.begin() + static_cast<long>(i), lines[i]);
        }
        s = join_lines(lines);
        break;
      case 4:  // swap two lines
        if (lines.size() > 1) std::swap(lines[pick(lines.size())], lines[pick(lines.size())]);
        s = join_lines(lines);
        break;
      case 5:  // a scalar value replaced by a hostile one
      case 6: {
        if (lines.empty()) break;
        auto& l = lines[pick(lines.size())];
        const auto colon = l.find(": ");
        if (colon != std::string::npos) l = l.substr(0, colon + 2) + kHostile[pick(kHostile.size())];
        s = join_lines(lines);
        break;
      }
      case 7: {  // indentation
        if (lines.empty()) break;
        auto& l = lines[pick(lines.size())];
        if (rng() % 2 && !l.empty() && l[0] == ' ') {
          l.erase(0, 1 + pick(std::min<std::size_t>(l.find_first_not_of(' '), 4)));
        } else {
          l.insert(0, std::string(1 + pick(4), rng() % 8 ? ' ' : '\t'));
        }
        s = join_lines(lines);
        break;
      }
      case 8: {  // an alias chain (each level doubles the expanded size)
        std::string bomb = "zz0: &a0 [x, x, x, x, x, x, x, x]\n";
        const int levels = 4 + static_cast<int>(rng() % 20);
        for (int i = 1; i <= levels; ++i) {
          bomb += fmt::format("zz{}: &a{} [*a{}, *a{}, *a{}, *a{}]\n", i, i, i - 1, i - 1, i - 1, i - 1);
        }
        s = rng() % 2 ? bomb + s : s + bomb;
        break;
      }
    }
  }
  return s;
}

std::string read_file(const fs::path& p) {
  std::string s;
  if (std::FILE* f = std::fopen(p.c_str(), "rb")) {
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof(buf), f)) > 0;) s.append(buf, n);
    std::fclose(f);
  }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  fs::path repo;
  double seconds = 5;
  std::uint64_t seed = 1;
  std::uint64_t max_mutants = 1000000;
  fs::path keep = fs::temp_directory_path() / "nicsched-soak-loaders";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) {
      std::cerr << "soak_loaders: " << a << " needs a value\n";
      return 2;
    }
    const std::string v = argv[++i];
    try {
      if (a == "--repo") repo = v;
      else if (a == "--seconds") seconds = std::stod(v);
      else if (a == "--seed") seed = std::stoull(v);
      else if (a == "--max-mutants") max_mutants = std::stoull(v);
      else if (a == "--keep") keep = v;
      else {
        std::cerr << "soak_loaders: unknown option " << a << "\n";
        return 2;
      }
    } catch (const std::exception&) {
      std::cerr << "soak_loaders: " << a << ": not a number: " << v << "\n";
      return 2;
    }
  }
  if (repo.empty() || !(seconds > 0)) {
    std::cerr << "usage: soak_loaders --repo DIR [--seconds S] [--seed N] [--max-mutants N] [--keep DIR]\n";
    return 2;
  }
  std::vector<Seed> seeds;
  for (const auto& [dir, kind] : {std::pair{"sim/scenarios", Kind::kScenario}, {"sim/families", Kind::kFamily},
                                   {"host/policies", Kind::kPolicy}, {"tests/nicctl", Kind::kPolicy}}) {
    if (!fs::is_directory(repo / dir)) continue;
    for (const auto& e : fs::directory_iterator(repo / dir)) {
      if (e.path().extension() == ".yaml") seeds.push_back({e.path(), read_file(e.path()), kind});
    }
  }
  std::sort(seeds.begin(), seeds.end(), [](const Seed& a, const Seed& b) { return a.file < b.file; });
  if (seeds.empty()) {
    std::cerr << "soak_loaders: no seed files under " << repo << "\n";
    return 2;
  }
  fs::create_directories(keep);
  const fs::path work = keep / fmt::format("mutant-{}.yaml", ::getpid());
  const host::Capabilities caps = test::capabilities();  // the default NIC: 8 tenants
  std::mt19937_64 rng(seed);
  std::uint64_t mutants = 0, loaded = 0, refused = 0, defects = 0, scenario_mutants = 0, family_mutants = 0,
                policy_mutants = 0;
  double slowest_ms = 0;
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end && mutants < max_mutants) {
    const Seed& s = seeds[rng() % seeds.size()];
    const std::string text = mutate(rng, s.text);
    {
      std::ofstream out(work, std::ios::binary | std::ios::trunc);
      out << text;
    }
    ++mutants;
    ++(s.kind == Kind::kScenario ? scenario_mutants : s.kind == Kind::kFamily ? family_mutants : policy_mutants);
    std::string defect;
    const auto t0 = std::chrono::steady_clock::now();
    try {
      if (s.kind == Kind::kScenario) {
        (void)sim::load_scenario(work);
      } else if (s.kind == Kind::kFamily) {
        const sim::Family f = sim::load_family(work);
        (void)f.draw(f.seed_first);
      } else {
        (void)host::load_policy(work.string(), caps);
      }
      ++loaded;
    } catch (const sim::ScenarioError& e) {
      ++refused;
      if (std::string(e.what()).find(work.string()) == std::string::npos) defect = fmt::format("error without the file name: {}", e.what());
    } catch (const sim::SimError& e) {  // a family that loads but cannot draw a valid scenario
      ++refused;
      if (std::string(e.what()).find(work.string()) == std::string::npos) defect = fmt::format("error without the file name: {}", e.what());
    } catch (const host::PolicyError& e) {
      ++refused;
      if (std::string(e.what()).find(work.string()) == std::string::npos) defect = fmt::format("error without the file name: {}", e.what());
    } catch (const std::exception& e) {
      defect = fmt::format("untyped exception ({}): {}", typeid(e).name(), e.what());
    }
    slowest_ms = std::max(slowest_ms, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    if (!defect.empty()) {
      ++defects;
      const fs::path kept = keep / fmt::format("defect-{}-{}.yaml", mutants, s.file.stem().string());
      fs::copy_file(work, kept, fs::copy_options::overwrite_existing);
      std::cerr << fmt::format("DEFECT: {} mutant of {} kept as {}: {}\n", to_string(s.kind),
                               s.file.string(), kept.string(), defect);
      if (defects >= 10) break;
    }
  }
  fs::remove(work);
  std::cout << fmt::format(R"({{"seed_files": {}, "mutants": {}, "scenario_mutants": {}, "family_mutants": {}, "policy_mutants": {}, )"
                           R"("loaded": {}, "refused": {}, "defects": {}, "slowest_ms": {:.1f}}})",
                           seeds.size(), mutants, scenario_mutants, family_mutants, policy_mutants, loaded, refused, defects, slowest_ms)
            << std::endl;
  return defects == 0 ? 0 : 1;
}
