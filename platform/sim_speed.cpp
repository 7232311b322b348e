#include "platform/sim_speed.h"

#include <cstdio>

#include <systemc>

namespace npuvp {

std::string SimSpeed::describe() const {
    char line[160];
    std::snprintf(line, sizeof line, "wall %.3f s, %.2f M delta cycles/s, %.1f us simulated per s",
                  wall_s, delta_cycles_per_s() / 1e6, sim_ns_per_s() / 1000.0);
    return line;
}

void SimStopwatch::start() {
    m_begin = std::chrono::steady_clock::now();
    m_delta_begin = sc_core::sc_delta_count();
    m_ps_begin = sc_core::sc_time_stamp().value();
}

double SimStopwatch::elapsed_s() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - m_begin).count();
}

void SimStopwatch::stop() {
    m_speed.wall_s = elapsed_s();
    m_speed.delta_cycles = sc_core::sc_delta_count() - m_delta_begin;
    m_speed.sim_ps = sc_core::sc_time_stamp().value() - m_ps_begin;
}

}  // namespace npuvp
