// sc_spawn needs the dynamic-process API, asked for before any SystemC header.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include "modules/common/process_pool.h"

namespace npuvp {

void ProcessPool::take(std::function<void()> job, bool next_delta) {
    if (!m_idle.empty()) {
        Worker& w = *m_idle.back();
        m_idle.pop_back();
        w.job = std::move(job);
        if (next_delta)
            w.go.notify(sc_core::SC_ZERO_TIME);
        else
            w.go.notify();  // immediate: runnable in this evaluation phase
        return;
    }
    Worker& w = *m_workers.emplace_back(std::make_unique<Worker>());
    w.job = std::move(job);
    sc_core::sc_spawn_options options;
    if (next_delta) {
        options.dont_initialize();
        options.set_sensitivity(&w.go);
    }
    sc_core::sc_spawn([this, &w] { loop(w); }, nullptr, &options);
    if (next_delta) w.go.notify(sc_core::SC_ZERO_TIME);
}

void ProcessPool::loop(Worker& w) {
    for (;;) {
        w.job();
        w.job = nullptr;
        m_idle.push_back(&w);
        sc_core::wait(w.go);
    }
}

}  // namespace npuvp
