// An sc_event made when it is first asked for. An event made during
// elaboration gets a unique name in the kernel's registry (with the event,
// ~300 bytes); one made in the simulation does not. For the events of a
// block that most PEs of a large machine never notify or wait on (issue 38:
// 16,384 PEs). Notifying it makes it, so the kernel sees every notification
// it would have seen of a plain member event.
#pragma once

#include <memory>

#include <systemc>

namespace npuvp {

class LazyEvent {
public:
    sc_core::sc_event& get() const {
        if (!m_event) m_event = std::make_unique<sc_core::sc_event>();
        return *m_event;
    }
    void notify(const sc_core::sc_time& delay) { get().notify(delay); }

private:
    mutable std::unique_ptr<sc_core::sc_event> m_event;
};

}  // namespace npuvp
