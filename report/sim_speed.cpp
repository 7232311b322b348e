#include "report/sim_speed.h"

#include <systemc>

namespace npuvp {

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
