// How a run ends when the model finds an error it cannot go on from (a fault
// on an unmapped VA, a broken invariant): the first error is kept, the
// simulation stops at the end of the current delta, and the CLI reports it
// and exits 1 (SPEC §8: a clear error, never a crash or a hang).
#pragma once

#include <functional>
#include <string>
#include <utility>

#include <systemc>

namespace npuvp {

class RunStatus {
public:
    void fail(const std::string& node_id, const std::string& message) {
        if (m_error.empty()) {
            m_error = node_id + ": " + message;
            m_time = sc_core::sc_time_stamp();
        }
        if (m_on_stop) m_on_stop();
        sc_core::sc_stop();
    }
    // Called when the run stops on an error (the platform writes out the
    // trace's held lines: no later delta cycle will).
    void on_stop(std::function<void()> hook) { m_on_stop = std::move(hook); }
    bool failed() const { return !m_error.empty(); }
    const std::string& error() const { return m_error; }
    sc_core::sc_time time() const { return m_time; }

private:
    std::string m_error;
    sc_core::sc_time m_time;
    std::function<void()> m_on_stop;
};

}  // namespace npuvp
