// A value the VCD shows (SPEC §7, docs/traces.md "VCD"), for a model that
// may run ahead of the SystemC kernel.
//
// SystemC's trace file samples a traced variable at the end of each of the
// kernel's time steps. A block whose work runs in the kernel's time (a
// process, the per-stage pipeline) can be traced directly. A decoupled PE
// (modules/pe/pipeline_calendar.h) runs ahead: its worker ends a stage at
// 1,200 ns while the kernel is still at 1,000 ns, and a variable it wrote
// would be sampled at 1,000 ns. So every value the VCD shows is a VcdValue
// beside the model's own state: a copy that its VcdClock sets at the
// kernel's time of the change — at once when the writer runs in the kernel's
// time, or later, when the kernel reaches the writer's time. The VCD is then
// the per-stage run's, byte for byte.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include <systemc>

namespace npuvp {

// Where a traced value's changes reach the VCD.
class VcdClock {
public:
    // Sets `*shown` (`size` bytes: a bool, a 32- or 64-bit integer) to
    // `bits` at the writer's current time: at once, or when the kernel gets
    // there if the writer runs ahead of it.
    virtual void show(void* shown, std::uint64_t bits, unsigned size) = 0;

    // A value was put in the VCD through this clock (VcdValue::trace()).
    virtual void note_traced() {}

    // The clock of a block that runs in the kernel's time: never ahead.
    static VcdClock& kernel();

    // Sets `*shown` as show() asked.
    static void apply(void* shown, std::uint64_t bits, unsigned size) {
        switch (size) {
        case 1: *static_cast<bool*>(shown) = bits != 0; break;
        case 4: *static_cast<std::int32_t*>(shown) = static_cast<std::int32_t>(bits); break;
        default: *static_cast<std::uint64_t*>(shown) = bits; break;
        }
    }

protected:
    ~VcdClock() = default;
};

inline VcdClock& VcdClock::kernel() {
    struct Kernel final : VcdClock {
        void show(void* shown, std::uint64_t bits, unsigned size) override { apply(shown, bits, size); }
    };
    static Kernel clock;
    return clock;
}

// T is bool, std::int32_t or std::uint64_t (what the blocks trace). The
// model keeps its own state and sets the VcdValue beside it, behind one test
// of traced() where the write is on a hot path: untraced, nothing is copied.
template <class T>
class VcdValue {
    static_assert(std::is_same_v<T, bool> || std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::uint64_t>,
                  "VcdValue: bool, std::int32_t or std::uint64_t");

public:
    explicit VcdValue(T initial = T{}) : m_shown(initial) {}
    VcdValue(const VcdValue&) = delete;
    VcdValue& operator=(const VcdValue&) = delete;

    bool traced() const { return m_clock != nullptr; }
    // The value is `value` from the writer's current time on.
    void set(T value) {
        if (m_clock != nullptr) m_clock->show(&m_shown, static_cast<std::uint64_t>(value), sizeof(T));
    }

    // Puts it in `tf` as `name`, with the value `now`; its changes reach the
    // file through `clock`.
    void trace(sc_core::sc_trace_file* tf, const std::string& name, T now, VcdClock& clock = VcdClock::kernel()) {
        m_clock = &clock;
        clock.note_traced();
        m_shown = now;
        sc_core::sc_trace(tf, m_shown, name);
    }

private:
    T m_shown;
    VcdClock* m_clock = nullptr;  // set once traced
};

}  // namespace npuvp
