// Follows docs/architecture.md, "How to add an engine", with a toy engine:
// the block is a module with its ports listed first (the slot it holds and
// the PE's stage inboxes) and one MethodStageWorker that writes the
// documented hooks (pre_delay, stage_resource, begin_stage, end_stage) and
// nothing else. Two of them share one compute slot in a small harness that
// owns what the Pe module owns (the stage inboxes, the slot) and binds the
// blocks' ports, as Pe does; the completion side is a stub sink. The times
// are derived by hand below. The toy borrows two stage types (GEMM, MATH),
// so step 1 (a StageType and its engine_kinds row) is already done for it:
// the test checks that the lane its trace names has that row, which is all
// the outputs need to show it.
#include <boost/test/unit_test.hpp>

#include <map>
#include <sstream>
#include <string>

#include <systemc>

#include "modules/common/fifo_resource.h"
#include "modules/common/run_status.h"
#include "modules/common/trace.h"
#include "modules/pe/engine_kinds.h"
#include "modules/pe/stage_inboxes.h"
#include "modules/pe/stage_worker.h"
#include "modules/pe/tile_token.h"

using namespace npuvp;

namespace {

constexpr std::uint64_t kNs = 1000;  // ps

// The toy engine: a stage is `pre_ns` of set-up before it asks for the slot,
// then `stage.elements` ns holding the slot (the slot is granted in request
// order, like accel_slot).
class ToyEngine : public sc_core::sc_module {
public:
    // Parameters
    const double pre_ns;

    // Ports: the compute slot it holds for a stage, and the PE's stage
    // inboxes (its stage's tokens in, each token out to its next stage's)
    sc_core::sc_port<FifoResource> slot;
    StageInboxPort inboxes;

    ToyEngine(const sc_core::sc_module_name& name, StageType type, double pre_ns,
              TraceSink& trace, RunStatus& status)
        : sc_core::sc_module(name),
          pre_ns(pre_ns),
          slot("slot"),
          inboxes("inboxes"),
          m_id(this->name()),
          m_worker(*this, type, trace, status) {
        m_worker.spawn("worker");
    }

    StageWorker& worker() { return m_worker; }

private:
    class Worker : public MethodStageWorker {
    public:
        Worker(ToyEngine& engine, StageType type, TraceSink& trace, RunStatus& status)
            : MethodStageWorker(engine.m_id, type, engine.inboxes, trace, status),
              m_engine(engine) {}

    protected:
        sc_core::sc_time pre_delay(const TileToken&) override {
            return sc_core::sc_time(m_engine.pre_ns, sc_core::SC_NS);
        }
        FifoResource* stage_resource(const TileToken&) override {
            return m_engine.slot.operator->();
        }
        // The trace's `bytes` field carries the stage's ns, to tell stages apart.
        bool begin_stage(TileToken& token, ps_t& time) override {
            const std::uint64_t ns = token.stage().elements;
            trace_engine(true, token, static_cast<std::int64_t>(ns));
            time = ns * 1000;
            return true;
        }
        void end_stage(TileToken& token) override {
            trace_engine(false, token, static_cast<std::int64_t>(token.stage().elements));
            record_busy(stage_start());
        }

    private:
        ToyEngine& m_engine;
    };

    std::string m_id;
    Worker m_worker;
};

// The stub completion side: when each tile completed.
struct RecordingSink : CompletionSink {
    std::map<std::uint64_t, std::uint64_t> done_ps;  // tile id -> time
    void tile_completed(TileToken& token) override {
        done_ps[token.plan.tile_id] = sc_core::sc_time_stamp().value();
    }
};

Stage toy_stage(StageType type, std::uint64_t ns) {
    Stage s;
    s.type = type;
    s.elements = ns;
    return s;
}

// Owns what the Pe module owns for its engines (the eight inboxes, the slot)
// and binds the toy engines' ports, then feeds two tokens at t = 0.
struct Harness : sc_core::sc_module {
    std::ostringstream trace_text;
    TraceSink trace{&trace_text};
    RunStatus status;
    FifoResource accel_slot{"accel_slot", 1};
    StageInboxes inboxes{name(), 2, trace};
    ToyEngine first;
    ToyEngine second;
    RecordingSink sink;
    InflightCommand cmd;
    TileToken t1, t2;

    SC_HAS_PROCESS(Harness);
    explicit Harness(const sc_core::sc_module_name& name)
        : sc_core::sc_module(name),
          first("first", StageType::gemm, 2.0, trace, status),
          second("second", StageType::math, 3.0, trace, status) {
        first.slot.bind(accel_slot);
        second.slot.bind(accel_slot);
        first.inboxes.bind(inboxes);
        second.inboxes.bind(inboxes);
        cmd.total_tiles = 2;
        cmd.reset(sink);
        t1.cmd = &cmd;
        t1.plan.tile_id = 1;
        t1.plan.stages = {toy_stage(StageType::gemm, 10), toy_stage(StageType::math, 5)};
        t2.cmd = &cmd;
        t2.plan.tile_id = 2;
        t2.plan.stages = {toy_stage(StageType::gemm, 4)};
        SC_THREAD(feed);
    }

    void feed() {
        inboxes.inbox(StageType::gemm).write(&t1);
        inboxes.inbox(StageType::gemm).write(&t2);
    }
};

}  // namespace

BOOST_AUTO_TEST_CASE(toy_method_engines_chain_and_share_a_slot_in_request_order) {
    Harness h("h");
    sc_core::sc_start();

    // By hand (MethodStageWorker: pre_delay, then the slot in request order,
    // then begin_stage's time, then end_stage and the hand-off):
    //  first  takes t1 at 0, pre 2 ns, slot 2..12 (10 ns), hands t1 to the
    //         math inbox at 12; takes t2 at 12, pre 2 ns, asks at 14: the slot
    //         is free, holds it 14..18 (4 ns); t2's last stage: done at 18.
    //  second takes t1 at 12, pre 3 ns, asks at 15: held by first until 18,
    //         then granted (request order), holds it 18..23 (5 ns): t1 done at 23.
    BOOST_CHECK(!h.status.failed());
    BOOST_REQUIRE_EQUAL(h.sink.done_ps.size(), 2u);
    BOOST_CHECK_EQUAL(h.sink.done_ps.at(2), 18 * kNs);
    BOOST_CHECK_EQUAL(h.sink.done_ps.at(1), 23 * kNs);
    BOOST_CHECK_EQUAL(h.cmd.completed_tiles, 2u);
    // Busy from each grant to done: first 10 + 4 ns, second 5 ns.
    BOOST_CHECK_EQUAL(h.first.worker().busy().value(), 14 * kNs);
    BOOST_CHECK_EQUAL(h.second.worker().busy().value(), 5 * kNs);
    BOOST_CHECK_EQUAL(h.first.worker().stages_done(), 2u);
    BOOST_CHECK_EQUAL(h.second.worker().stages_done(), 1u);
    // Three grants of the slot; second waited 15 -> 18 for it.
    BOOST_CHECK_EQUAL(h.accel_slot.grants(), 3u);
    BOOST_CHECK_EQUAL(h.accel_slot.total_wait().value(), 3 * kNs);
    // One engine_start and one engine_complete per stage, through the base's
    // trace_engine() (the trace event names every engine uses), each on the
    // lane of an engine_kinds row (its stage).
    std::istringstream lines(h.trace_text.str());
    int starts = 0, completes = 0;
    for (std::string line; std::getline(lines, line);) {
        const bool start = line.find("\"engine_start\"") != std::string::npos;
        const bool complete = line.find("\"engine_complete\"") != std::string::npos;
        starts += start;
        completes += complete;
        if (!start && !complete) continue;
        const std::string key = "\"stage\":\"";
        const std::size_t at = line.find(key);
        BOOST_REQUIRE(at != std::string::npos);
        const std::size_t from = at + key.size();
        const std::string lane = line.substr(from, line.find('"', from) - from);
        BOOST_CHECK_MESSAGE(find_engine_kind(lane) != nullptr, "no engine_kinds row for " << lane);
    }
    BOOST_CHECK_EQUAL(starts, 3);
    BOOST_CHECK_EQUAL(completes, 3);
}
