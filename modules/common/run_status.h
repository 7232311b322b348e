// How a run ends when the model finds an error it cannot go on from (a fault
// on an unmapped VA, a broken invariant): the earliest error is kept, the
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
    // An error at `at` (a decoupled PE's pipeline time, which may be ahead
    // of the kernel's). Of several errors before the stop the earliest is
    // kept, and of errors at one instant the first node id in text order,
    // whichever process ran first: a run reports the same error on either
    // time base (docs/architecture.md "The decoupled pipeline").
    void fail(const std::string& node_id, const std::string& message, const sc_core::sc_time& at) {
        if (m_error.empty() || at < m_time || (at == m_time && node_id < m_node)) {
            m_node = node_id;
            m_error = node_id + ": " + message;
            m_time = at;
        }
        if (m_on_stop) m_on_stop();
        if (!m_stopped) sc_core::sc_stop();  // (once: the kernel warns about a second call)
        m_stopped = true;
    }
    // An error at the kernel's time.
    void fail(const std::string& node_id, const std::string& message) {
        fail(node_id, message, sc_core::sc_time_stamp());
    }
    // Called when the run stops on an error (the platform writes out the
    // trace's held lines: no later delta cycle will).
    void on_stop(std::function<void()> hook) { m_on_stop = std::move(hook); }
    bool failed() const { return !m_error.empty(); }
    const std::string& error() const { return m_error; }
    sc_core::sc_time time() const { return m_time; }

private:
    std::string m_node, m_error;
    sc_core::sc_time m_time;
    bool m_stopped = false;
    std::function<void()> m_on_stop;
};

}  // namespace npuvp
