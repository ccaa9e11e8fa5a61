// Report: the last stage of a run. RunMetrics as one JSON object (documented in
// docs/simulation.md), as a table, several runs side by side, and the progress time series
// as CSV. Reads only what metrics.hpp defines.
#pragma once

#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "nicsched/sim/metrics.hpp"
#include "nicsched/sim/scenario.hpp"

namespace nicsched::sim {

[[nodiscard]] std::string to_json(const RunMetrics& m);  // one object, documented in docs/simulation.md
void write_table(std::ostream& os, const RunMetrics& m);
// Several runs of the same scenario side by side (one row per tenant and run).
void write_comparison(std::ostream& os, const std::vector<RunMetrics>& runs);
// The time series, one row per sample and tenant; names from the scenario. Throws SimError
// when the file cannot be written.
void write_time_series(const std::filesystem::path& file, const std::vector<ProgressSample>& samples,
                       const Scenario& s);

}  // namespace nicsched::sim
