// SystemC threads kept for the next job instead of ended: a job (an M_CPU
// fan-out, an IO_CPU host request) runs on an idle thread of the pool, or on
// a new one when every thread is busy. A spawned thread maps a stack (and a
// guard page) and an ended one unmaps it: one thread per job cost a quarter
// of a mapped ResNet-50's simulation in those system calls (docs/speed.md
// "Kept threads"). A job starts where a thread spawned for it would have:
// start() in this evaluation phase (an idle thread is notified at once),
// start_next_delta() in the next delta cycle. The pool keeps as many
// threads as jobs ever ran at once.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

#include <systemc>

namespace npuvp {

class ProcessPool {
public:
    // Runs `job` on a thread of the pool in this evaluation phase.
    void start(std::function<void()> job) { take(std::move(job), false); }
    // ... in the next delta cycle.
    void start_next_delta(std::function<void()> job) { take(std::move(job), true); }
    std::size_t threads() const { return m_workers.size(); }

private:
    struct Worker {
        sc_core::sc_event go;
        std::function<void()> job;
    };
    void take(std::function<void()> job, bool next_delta);
    void loop(Worker& worker);

    std::vector<std::unique_ptr<Worker>> m_workers;
    std::vector<Worker*> m_idle;  // last idle first
};

}  // namespace npuvp
