// Simulation speed (SPEC §9): wall-clock time spent inside sc_start() and the
// kernel's delta cycles over it. The one place npuvp reads the wall clock for
// a figure it reports; such figures are labelled "wall" wherever they appear,
// since they are the only outputs that differ between identical runs.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace npuvp {

struct SimSpeed {
    double wall_s = 0.0;             // wall-clock seconds inside sc_start()
    std::uint64_t delta_cycles = 0;  // sc_delta_count() advanced over them
    std::uint64_t sim_ps = 0;        // simulated time advanced over them
    // Work done over them (Platform::work_counts(), filled in after the run):
    // engine stage events and tiles fed.
    std::uint64_t stage_events = 0;
    std::uint64_t tiles = 0;
    // How the PEs' pipelines ran (platform/decoupler.h, docs/speed.md): of
    // the launched PEs, how many ran decoupled; the others ran per stage,
    // grouped by the reason (PE names, then why), in launch order.
    std::uint64_t pes = 0;
    std::uint64_t decoupled_pes = 0;
    std::vector<std::pair<std::string, std::string>> per_stage;  // {"pe0, pe3", why}

    double delta_cycles_per_s() const { return wall_s > 0 ? delta_cycles / wall_s : 0.0; }
    double stage_events_per_s() const { return wall_s > 0 ? stage_events / wall_s : 0.0; }
    double tiles_per_s() const { return wall_s > 0 ? tiles / wall_s : 0.0; }
    // Simulated ns per wall-clock second.
    double sim_ns_per_s() const { return wall_s > 0 ? sim_ps / 1000.0 / wall_s : 0.0; }
};

// Brackets the sc_start() calls of a run: start() before the first, stop()
// after the last; speed() is valid after stop(). Costs two clock reads.
class SimStopwatch {
public:
    void start();
    void stop();
    SimSpeed speed() const { return m_speed; }
    // Wall seconds since start() (for a progress line while running).
    double elapsed_s() const;

private:
    std::chrono::steady_clock::time_point m_begin;
    std::uint64_t m_delta_begin = 0;
    std::uint64_t m_ps_begin = 0;
    SimSpeed m_speed;
};

}  // namespace npuvp
