// The pieces that make a Verilated block a PE engine (docs/rtl.md, "Adapter
// pieces"): a gated clock with a zero-time reset, valid/ready handshakes for
// the command, operand streams and result streams (each with its own pacing:
// input gaps, output back-pressure), beat orders, lane packing into whatever
// port type Verilator chose, and a watchdog whose limit is a parameter.
//
// An engine driver (rtl/gemm_array.h, rtl/math_unit.h) binds its Verilated
// model's ports to signals, wraps each handshake in one of the pieces below
// and hands them to ClockedRun::run(), which clocks the RTL until it raises
// done. Nothing here allocates per cycle or per beat: the pieces are members,
// built once, and their callbacks are set once at elaboration.
//
// Only rtl/ and the RTL tests include this header (it names SystemC signal
// types of Verilated ports; the platform sees an RTL block as RtlBlock).
#pragma once

#include <array>
#include <cstdint>
#include <exception>
#include <functional>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include <systemc>

namespace npuvp::rtl {

// ------------------------------------------------------------ port values

// A port's value type as Verilator chose it: bool, uint32_t (up to 32 bits),
// uint64_t (up to 64) or sc_bv<W>.
template <class Port>
using value_of = typename std::remove_reference_t<Port>::data_type;

// Moves 32-bit words (least significant first) into a port value and back.
[[maybe_unused]] inline void set_words(std::uint32_t& value, const std::uint32_t* words) {
    value = words[0];
}
[[maybe_unused]] inline void set_words(std::uint64_t& value, const std::uint32_t* words) {
    value = words[0] | static_cast<std::uint64_t>(words[1]) << 32;
}
template <int W>
void set_words(sc_dt::sc_bv<W>& value, const std::uint32_t* words) {
    for (int i = 0; i < (W + 31) / 32; ++i) value.set_word(i, words[i]);
}
[[maybe_unused]] inline std::uint32_t word(const std::uint32_t& value, int) { return value; }
[[maybe_unused]] inline std::uint32_t word(const std::uint64_t& value, int i) {
    return static_cast<std::uint32_t>(value >> (32 * i));
}
template <int W>
std::uint32_t word(const sc_dt::sc_bv<W>& value, int i) {
    return value.get_word(i);
}

// LANES lanes of BITS bits (8, 16 or 32), lane 0 in the least significant
// bits, packed into a port value of type V without allocating (the words are
// a member; one spare word, as a 33..64-bit port reads two).
template <class V, int LANES, int BITS>
class LanePacker {
    static_assert(BITS == 8 || BITS == 16 || BITS == 32, "lanes of 8, 16 or 32 bits");

public:
    void clear() { m_words.fill(0); }
    void set(int lane, std::uint32_t bits) {
        const int at = lane * BITS;
        m_words[at / 32] |= (bits & mask()) << (at % 32);
    }
    // The packed value (after clear() and set()s).
    const V& value() {
        set_words(m_value, m_words.data());
        return m_value;
    }

private:
    static constexpr std::uint32_t mask() {
        return BITS == 32 ? 0xffffffffu : (1u << BITS) - 1;
    }
    std::array<std::uint32_t, (LANES * BITS + 31) / 32 + 1> m_words{};
    V m_value{};
};

// Lane `lane` of BITS bits of a port value, as unsigned bits.
template <int BITS, class V>
std::uint32_t lane_bits(const V& value, int lane) {
    const int at = lane * BITS;
    const std::uint32_t w = word(value, at / 32) >> (at % 32);
    return BITS == 32 ? w : w & ((1u << BITS) - 1);
}

// ------------------------------------------------------------ clock, reset

// The RTL's clock and reset. The clock is gated: it toggles only inside
// cycle(), which the engine's worker calls while it holds the engine for a
// command, so the RTL's clock runs exactly in the engine's busy window (npuvp
// runs sc_start() until no activity is left, which a free-running sc_clock
// would never allow). A cycle is a low half, then a high half: the RTL takes
// its inputs on the rising edge in the middle.
class GatedClock {
public:
    sc_core::sc_signal<bool> clk{"clk"};
    sc_core::sc_signal<bool> rst_n{"rst_n"};

    // `period`: at least 2 ps; low for period − ⌊period/2⌋, high for ⌊period/2⌋.
    explicit GatedClock(const sc_core::sc_time& period)
        : m_period(period),
          m_low(period - sc_core::sc_time::from_value(period.value() / 2)),
          m_high(sc_core::sc_time::from_value(period.value() / 2)) {
        if (period.value() < 2)
            throw std::invalid_argument("the RTL clock period must be at least 2 ps");
    }

    // Synchronous active-low reset, one rising edge with rst_n low, in delta
    // cycles at the current time: a reset costs no simulated time. From an
    // SC_THREAD.
    void reset() {
        // After an abort the clock has just been written low in this delta;
        // let that land first, so that the pulse below is a rising edge.
        clk.write(false);
        sc_core::wait(sc_core::SC_ZERO_TIME);
        rst_n.write(false);
        clk.write(true);
        sc_core::wait(sc_core::SC_ZERO_TIME);
        clk.write(false);
        sc_core::wait(sc_core::SC_ZERO_TIME);
        rst_n.write(true);
        sc_core::wait(sc_core::SC_ZERO_TIME);
        m_reset_done = true;
    }
    bool reset_done() const { return m_reset_done; }

    // One cycle: the low half, `before_edge()` (inputs have settled, outputs
    // not yet changed), the rising edge, the high half, the falling edge.
    template <class BeforeEdge>
    void cycle(BeforeEdge&& before_edge) {
        sc_core::wait(m_low);
        before_edge();
        clk.write(true);
        sc_core::wait(m_high);
        clk.write(false);
    }

    const sc_core::sc_time& period() const { return m_period; }

private:
    sc_core::sc_time m_period, m_low, m_high;
    bool m_reset_done = false;
};

// ------------------------------------------------------------ pacing

// When a stream holds back: a source keeps valid low before a new beat (an
// input gap), a sink keeps ready low (back-pressure). Decided per rising
// edge, numbered from 1 within a command. Deterministic: a random pacing is
// a seeded xorshift64* sequence, so the same seed gives the same cycles.
class Pacing {
public:
    // Never holds back (the platform's pacing).
    static Pacing none() { return Pacing(); }
    // Holds back at every `n`-th edge (n >= 2).
    static Pacing every(std::uint32_t n) {
        if (n < 2) throw std::invalid_argument("Pacing::every(n) needs n >= 2");
        Pacing p;
        p.m_every = n;
        return p;
    }
    // Holds back at each edge with probability per_mille / 1000 (< 1000).
    static Pacing random(std::uint32_t per_mille, std::uint64_t seed) {
        if (per_mille >= 1000) throw std::invalid_argument("Pacing::random needs per_mille < 1000");
        Pacing p;
        p.m_per_mille = per_mille;
        p.m_state = seed * 0x9e3779b97f4a7c15ull + 1;  // never 0
        return p;
    }

    bool holds(std::uint64_t edge) {
        if (m_every) return edge % m_every == 0;
        if (!m_per_mille) return false;
        m_state ^= m_state >> 12;
        m_state ^= m_state << 25;
        m_state ^= m_state >> 27;
        return (m_state * 0x2545f4914f6cdd1dull >> 32) % 1000 < m_per_mille;
    }

private:
    std::uint32_t m_every = 0;
    std::uint32_t m_per_mille = 0;
    std::uint64_t m_state = 0;
};

// ------------------------------------------------------------ beat order

// The order in which a stream's beats follow one another: nested loops over
// up to four dimensions, the loop order configurable (outermost first). An
// RTL block documents the order it expects (the GEMM array: row block, column
// block, beat); the driver states it once and walks it. A `present`
// predicate, when set, skips coordinates the stream does not carry (the GEMM's
// result rows past m).
class BeatOrder {
public:
    static constexpr int kMaxDims = 4;
    using Present = std::function<bool(const BeatOrder&)>;

    // `loops`: dimension indices from the outermost loop to the innermost.
    explicit BeatOrder(std::initializer_list<int> loops) {
        if (loops.size() == 0 || loops.size() > kMaxDims)
            throw std::invalid_argument("BeatOrder: 1 to 4 dimensions");
        for (int d : loops) {
            if (d < 0 || d >= static_cast<int>(loops.size()) || m_seen[d])
                throw std::invalid_argument("BeatOrder: the loops must name each dimension once");
            m_seen[d] = true;
            m_loops[m_dims++] = d;
        }
    }
    void set_present(Present present) { m_present = std::move(present); }

    // Starts at the first beat; `extents` per dimension (in dimension order,
    // not loop order). Any extent 0: no beats.
    void start(std::initializer_list<std::uint64_t> extents) {
        if (static_cast<int>(extents.size()) != m_dims)
            throw std::invalid_argument("BeatOrder::start: one extent per dimension");
        int d = 0;
        m_end = false;
        for (std::uint64_t e : extents) {
            m_extent[d] = e;
            m_at[d] = 0;
            m_end = m_end || e == 0;
            ++d;
        }
        skip_absent();
    }
    bool end() const { return m_end; }
    std::uint64_t at(int dim) const { return m_at[dim]; }
    // To the next beat, the innermost loop first.
    void next() {
        step();
        skip_absent();
    }

private:
    void step() {
        for (int l = m_dims - 1; l >= 0; --l) {
            const int d = m_loops[l];
            if (++m_at[d] < m_extent[d]) return;
            m_at[d] = 0;
        }
        m_end = true;
    }
    void skip_absent() {
        if (m_present)
            while (!m_end && !m_present(*this)) step();
    }

    std::array<int, kMaxDims> m_loops{};
    std::array<bool, kMaxDims> m_seen{};
    int m_dims = 0;
    std::array<std::uint64_t, kMaxDims> m_extent{}, m_at{};
    bool m_end = true;
    Present m_present;
};

// ------------------------------------------------------------ handshakes

// One valid/ready handshake of a command, seen from the driver; ClockedRun
// calls these around every rising edge.
class Handshake {
public:
    virtual ~Handshake() = default;
    // Before the first edge of a command (its inputs for edge 1).
    virtual void begin() = 0;
    // Just before a rising edge: what this edge moves.
    virtual void before_edge() = 0;
    // After the falling edge that ends cycle `edge` (1, 2, ...): the inputs
    // for edge `edge + 1`.
    virtual void after_edge(std::uint64_t edge) = 0;
    // After an abort: inputs idle (valid, ready low) before the RTL's reset.
    virtual void idle() = 0;
};

// The command handshake: cmd_valid from begin() until the edge that moves it.
// The engine writes the command's fields before ClockedRun::run().
class CommandPort final : public Handshake {
public:
    CommandPort(sc_core::sc_signal<bool>& valid, const sc_core::sc_signal<bool>& ready)
        : m_valid(valid), m_ready(ready) {}
    void begin() override { m_valid.write(true); }
    void before_edge() override { m_moves = m_valid.read() && m_ready.read(); }
    void after_edge(std::uint64_t) override {
        if (m_moves) m_valid.write(false);
    }
    void idle() override { m_valid.write(false); }

private:
    sc_core::sc_signal<bool>& m_valid;
    const sc_core::sc_signal<bool>& m_ready;
    bool m_moves = false;
};

// A stream into the RTL (operands): its beats in `order`, each beat's value
// from `fill(order)` (set once; without one the stream carries zeros), valid
// held until the RTL takes the beat, and a new beat offered only at an edge
// its pacing does not hold back (an input gap).
template <class V>
class StreamSource final : public Handshake {
public:
    using Fill = std::function<const V&(const BeatOrder&)>;

    StreamSource(sc_core::sc_signal<bool>& valid, const sc_core::sc_signal<bool>& ready,
                 sc_core::sc_signal<V>& data, BeatOrder order)
        : m_valid(valid), m_ready(ready), m_data(data), m_order(std::move(order)) {}

    BeatOrder& order() { return m_order; }
    void set_fill(Fill fill) { m_fill = std::move(fill); }
    // The RTL said it does not need the next `beats` beats (the GEMM
    // array's zero skipping): they are dropped, not moved, after edge
    // `edge`, and the beat after them is offered.
    void skip(std::uint64_t beats, std::uint64_t edge) {
        for (std::uint64_t i = 0; i < beats && !m_order.end(); ++i) {
            m_order.next();
            ++m_skipped;
        }
        m_valid.write(false);
        offer(edge + 1);
    }
    std::uint64_t skipped() const { return m_skipped; }
    void pace(Pacing pacing) { m_pacing = pacing; }
    // For the next command: real values (fill) or zeros.
    void carry_data(bool data) { m_data_on = data && m_fill; }
    std::uint64_t moved() const { return m_moved; }

    void begin() override {
        m_moved = 0;
        m_skipped = 0;
        m_waiting = false;
        if (!m_data_on && !m_zero) {
            m_data.write(V{});
            m_zero = true;
        }
        offer(1);
    }
    void before_edge() override { m_moves = m_valid.read() && m_ready.read(); }
    void after_edge(std::uint64_t edge) override {
        if (m_moves) {
            ++m_moved;
            m_order.next();
            m_valid.write(false);
            m_waiting = true;
        }
        if (m_waiting) offer(edge + 1);
    }
    void idle() override {
        m_valid.write(false);
        m_waiting = false;
    }

private:
    // Offers the current beat at `edge` unless the pacing holds it back.
    void offer(std::uint64_t edge) {
        m_waiting = !m_order.end();
        if (!m_waiting || m_pacing.holds(edge)) return;
        if (m_data_on) {
            m_data.write(m_fill(m_order));
            m_zero = false;
        }
        m_valid.write(true);
        m_waiting = false;
    }

    sc_core::sc_signal<bool>& m_valid;
    const sc_core::sc_signal<bool>& m_ready;
    sc_core::sc_signal<V>& m_data;
    BeatOrder m_order;
    Fill m_fill;
    Pacing m_pacing;
    bool m_data_on = false, m_zero = true, m_moves = false, m_waiting = false;
    std::uint64_t m_moved = 0, m_skipped = 0;
};

// A stream out of the RTL (results), the result collector: each beat that
// moves is handed to `take(order, value)` (set once; without one, results are
// counted and dropped) with its coordinates in `order`; ready is low at the
// edges its pacing holds back (back-pressure). A beat past the end of the
// order is a broken handshake.
template <class V>
class StreamSink final : public Handshake {
public:
    using Take = std::function<void(const BeatOrder&, const V&)>;

    StreamSink(const sc_core::sc_signal<bool>& valid, sc_core::sc_signal<bool>& ready,
               const sc_core::sc_signal<V>& data, BeatOrder order, std::string what)
        : m_valid(valid), m_ready(ready), m_data(data), m_order(std::move(order)),
          m_what(std::move(what)) {}

    BeatOrder& order() { return m_order; }
    void set_take(Take take) { m_take = std::move(take); }
    void pace(Pacing pacing) { m_pacing = pacing; }
    void collect(bool on) { m_collect = on && m_take; }
    std::uint64_t moved() const { return m_moved; }

    void begin() override {
        m_moved = 0;
        m_ready.write(!m_pacing.holds(1));
    }
    void before_edge() override {
        if (!(m_valid.read() && m_ready.read())) return;
        if (m_order.end())
            throw std::runtime_error("the RTL sent more " + m_what + " than the command has");
        if (m_collect) m_take(m_order, m_data.read());
        ++m_moved;
        m_order.next();
    }
    void after_edge(std::uint64_t edge) override { m_ready.write(!m_pacing.holds(edge + 1)); }
    void idle() override { m_ready.write(false); }

private:
    const sc_core::sc_signal<bool>& m_valid;
    sc_core::sc_signal<bool>& m_ready;
    const sc_core::sc_signal<V>& m_data;
    BeatOrder m_order;
    std::string m_what;
    Take m_take;
    Pacing m_pacing;
    bool m_collect = false;
    std::uint64_t m_moved = 0;
};

// ------------------------------------------------------------ the run

// A command the RTL did not finish within the watchdog's limit. The driver
// has reset the RTL when this is thrown, so the next command runs.
class RtlAbort : public std::runtime_error {
public:
    RtlAbort(std::uint64_t cycles, std::uint64_t limit, const std::string& what)
        : std::runtime_error(what), cycles(cycles), limit(limit) {}
    std::uint64_t cycles;
    std::uint64_t limit;
};

// The run's diagnosis of an RtlAbort, after the PE and the command: the
// cycles run and the watchdog's setting (`watchdog` = attrs.watchdog_cycles,
// 0: automatic, 8 × the command's `normal_cycles` + 64).
inline std::string abort_text(const RtlAbort& e, std::uint64_t watchdog, std::uint64_t normal_cycles) {
    return ": the RTL did not raise done within " + std::to_string(e.cycles) + " cycles (attrs.watchdog_cycles " +
           (watchdog ? std::to_string(watchdog) : "0: automatic, 8 x " + std::to_string(normal_cycles) + " + 64") +
           "); the RTL was reset";
}

// Clocks one command through the RTL: the handshakes begin, then cycle
// after cycle each is sampled before the rising edge and updated after the
// falling edge, until `done` is high after an edge. Returns the cycles, from
// the edge that takes the command (edge 1) to the edge that raises done.
// If done is not high after `limit` edges, the inputs go idle, the RTL is
// reset and RtlAbort is thrown; an exception from a handshake (a broken
// protocol) resets the RTL the same way before it passes on. From an
// SC_THREAD.
template <std::size_t N>
std::uint64_t clocked_run(GatedClock& clock, const std::array<Handshake*, N>& parts,
                          const sc_core::sc_signal<bool>& done, std::uint64_t limit) {
    if (!clock.reset_done()) clock.reset();
    const auto abort = [&] {
        for (Handshake* p : parts) p->idle();
        clock.reset();
    };
    for (Handshake* p : parts) p->begin();
    std::uint64_t edge = 0;
    // A broken handshake throws from a piece; the RTL is reset outside the
    // handler (a wait() inside a catch block would switch coroutines while
    // the runtime holds the caught exception).
    std::exception_ptr broken;
    try {
        for (;;) {
            clock.cycle([&] {
                for (Handshake* p : parts) p->before_edge();
            });
            ++edge;
            for (Handshake* p : parts) p->after_edge(edge);
            if (done.read()) return edge;
            if (edge >= limit) break;
        }
    } catch (...) {
        broken = std::current_exception();
    }
    abort();
    if (broken) std::rethrow_exception(broken);
    throw RtlAbort(edge, limit,
                   "RTL watchdog: no done within " + std::to_string(limit) +
                       " cycles; the RTL was reset");
}

}  // namespace npuvp::rtl
