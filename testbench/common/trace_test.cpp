// The trace's typed records (modules/common/trace.h): each named builder
// fills the fields its kind carries, and the sink writes them as one JSON
// line in the fixed order t_ps, ev, node, cmd, tile, then stage, cause,
// bytes, peer, detail when set (SPEC §7). The expected lines are the format
// the trace had with positional fields: the builders must not change a byte.
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "modules/common/trace.h"

#include <systemc>

namespace {

using namespace npuvp;

BOOST_AUTO_TEST_CASE(every_builder_writes_its_fields_in_the_fixed_order) {
    const std::string node = "sip0.cube0.pe3.pe_dma", peer = "sip0.cube0.hbm_ctrl";
    const std::string id = "c7", detail = "waits \"c6\"\n";
    std::ostringstream out;
    TraceSink sink(&out);
    sink.emit(trace::engine_start(1500, node, 7, 2, "DMA_READ", 4096, &peer));
    sink.emit(trace::engine_complete(2500, node, 7, 2, "GEMM"));
    sink.emit(trace::inbox_fill(1, node, "dma_read_inbox", 3));
    sink.emit(trace::command_submitted(2, node, 7, "composite", id));
    sink.emit(trace::command_complete(3, node, 7, "gemm", id));
    sink.emit(trace::wait_begin(4, node, 7, "main", "dependency", detail));
    sink.emit(trace::wait_end(5, node, 7, "main", "dependency", id));
    sink.emit(trace::bank_violation(6, node, 7, "sub", detail));
    sink.emit(trace::sub_command_dispatched(7, node, 7, 0, "DMA_READ", &id));
    sink.emit(trace::sub_command_dispatched(8, node, 7, 1, "FETCH"));
    sink.emit(trace::tile_ready(9, node, 7, 1));
    sink.emit(trace::tcm_in_use(10, node, 65536));
    sink.emit(trace::kernel_start(11, node, id));
    sink.emit(trace::kernel_complete(12, node, id));
    sink.emit(trace::fanout_start(13, node, 4, "kernel_launch", -1, id));
    sink.emit(trace::fanout_complete(14, node, "memory_write", true, id));
    sink.emit(trace::fanout_complete(15, node, "memory_write", false, id));
    sink.emit(trace::late_response(16, node, 4, peer));
    sink.emit(trace::request_start(17, node, 0, "memory_read", 256, id));
    sink.emit(trace::request_complete(18, node, 0, "memory_read", false, id));
    sink.emit(trace::control_delivered(19, node, 3, peer));
    const std::string n = "\"node\":\"sip0.cube0.pe3.pe_dma\"";
    const std::string expected =
        "{\"t_ps\":1500,\"ev\":\"engine_start\"," + n + ",\"cmd\":7,\"tile\":2,\"stage\":\"DMA_READ\",\"bytes\":4096,\"peer\":\"sip0.cube0.hbm_ctrl\"}\n"
        "{\"t_ps\":2500,\"ev\":\"engine_complete\"," + n + ",\"cmd\":7,\"tile\":2,\"stage\":\"GEMM\"}\n"
        "{\"t_ps\":1,\"ev\":\"inbox_fill\"," + n + ",\"cmd\":-1,\"tile\":-1,\"stage\":\"dma_read_inbox\",\"bytes\":3}\n"
        "{\"t_ps\":2,\"ev\":\"command_submitted\"," + n + ",\"cmd\":7,\"tile\":-1,\"stage\":\"composite\",\"detail\":\"c7\"}\n"
        "{\"t_ps\":3,\"ev\":\"command_complete\"," + n + ",\"cmd\":7,\"tile\":-1,\"stage\":\"gemm\",\"detail\":\"c7\"}\n"
        "{\"t_ps\":4,\"ev\":\"wait_begin\"," + n + ",\"cmd\":7,\"tile\":-1,\"stage\":\"main\",\"cause\":\"dependency\",\"detail\":\"waits \\\"c6\\\"\\n\"}\n"
        "{\"t_ps\":5,\"ev\":\"wait_end\"," + n + ",\"cmd\":7,\"tile\":-1,\"stage\":\"main\",\"cause\":\"dependency\",\"detail\":\"c7\"}\n"
        "{\"t_ps\":6,\"ev\":\"bank_violation\"," + n + ",\"cmd\":7,\"tile\":-1,\"stage\":\"sub\",\"cause\":\"bank\",\"detail\":\"waits \\\"c6\\\"\\n\"}\n"
        "{\"t_ps\":7,\"ev\":\"sub_command_dispatched\"," + n + ",\"cmd\":7,\"tile\":0,\"stage\":\"DMA_READ\",\"detail\":\"c7\"}\n"
        "{\"t_ps\":8,\"ev\":\"sub_command_dispatched\"," + n + ",\"cmd\":7,\"tile\":1,\"stage\":\"FETCH\"}\n"
        "{\"t_ps\":9,\"ev\":\"tile_ready\"," + n + ",\"cmd\":7,\"tile\":1}\n"
        "{\"t_ps\":10,\"ev\":\"tcm_in_use\"," + n + ",\"cmd\":-1,\"tile\":-1,\"bytes\":65536}\n"
        "{\"t_ps\":11,\"ev\":\"kernel_start\"," + n + ",\"cmd\":-1,\"tile\":-1,\"detail\":\"c7\"}\n"
        "{\"t_ps\":12,\"ev\":\"kernel_complete\"," + n + ",\"cmd\":-1,\"tile\":-1,\"detail\":\"c7\"}\n"
        "{\"t_ps\":13,\"ev\":\"fanout_start\"," + n + ",\"cmd\":4,\"tile\":-1,\"stage\":\"kernel_launch\",\"detail\":\"c7\"}\n"
        "{\"t_ps\":14,\"ev\":\"fanout_complete\"," + n + ",\"cmd\":-1,\"tile\":-1,\"stage\":\"memory_write\",\"cause\":\"timeout\",\"detail\":\"c7\"}\n"
        "{\"t_ps\":15,\"ev\":\"fanout_complete\"," + n + ",\"cmd\":-1,\"tile\":-1,\"stage\":\"memory_write\",\"detail\":\"c7\"}\n"
        "{\"t_ps\":16,\"ev\":\"late_response\"," + n + ",\"cmd\":4,\"tile\":-1,\"peer\":\"sip0.cube0.hbm_ctrl\"}\n"
        "{\"t_ps\":17,\"ev\":\"request_start\"," + n + ",\"cmd\":0,\"tile\":-1,\"stage\":\"memory_read\",\"bytes\":256,\"detail\":\"c7\"}\n"
        "{\"t_ps\":18,\"ev\":\"request_complete\"," + n + ",\"cmd\":0,\"tile\":-1,\"stage\":\"memory_read\",\"detail\":\"c7\"}\n"
        "{\"t_ps\":19,\"ev\":\"control_delivered\"," + n + ",\"cmd\":3,\"tile\":-1,\"bytes\":0,\"peer\":\"sip0.cube0.hbm_ctrl\"}\n";
    BOOST_CHECK_EQUAL(out.str(), expected);
    BOOST_CHECK_EQUAL(sink.events(), 21u);
}

BOOST_AUTO_TEST_CASE(recorded_events_keep_their_kind_and_own_their_strings) {
    std::string node = "sip0.cube0.pe0.pe_gemm", id = "c1";
    std::vector<RecordedEvent> log;
    TraceSink sink;
    BOOST_CHECK(!sink.enabled());
    sink.emit(trace::kernel_start(1, node, id));  // off: nothing recorded
    sink.record_to(&log);
    BOOST_CHECK(sink.enabled());
    sink.emit(trace::command_submitted(5, node, 1, "gemm", id));
    node = "changed";
    id = "changed";
    BOOST_REQUIRE_EQUAL(log.size(), 1u);
    BOOST_CHECK(log[0].kind == TraceKind::command_submitted);
    BOOST_CHECK_EQUAL(log[0].node, "sip0.cube0.pe0.pe_gemm");
    BOOST_CHECK_EQUAL(log[0].detail, "c1");
    BOOST_CHECK_EQUAL(log[0].stage, "gemm");
    BOOST_CHECK_EQUAL(log[0].cmd, 1);
    BOOST_CHECK_EQUAL(log[0].bytes, -1);
    BOOST_CHECK_EQUAL(sink.events(), 0u);  // no stream: no line written

    // Every kind has its own name (the trace's "ev").
    std::set<std::string> names;
    const int kinds = static_cast<int>(TraceKind::control_delivered) + 1;
    for (int k = 0; k < kinds; ++k) names.insert(to_string(static_cast<TraceKind>(k)));
    BOOST_CHECK_EQUAL(names.size(), static_cast<std::size_t>(kinds));
    BOOST_CHECK(names.count("") == 0);
}

// The binary form (TraceFormat::binary) reads back into the very JSON lines
// the sink writes: every builder, names that need escaping, a string that
// changes at the same address, times that go back (events written outside a
// running simulation go out as emitted). A truncated or foreign input is an
// error naming the record, with the lines before it written.
BOOST_AUTO_TEST_CASE(binary_trace_reads_back_into_the_same_json_lines) {
    std::string node = "sip0.cube0.pe3.pe_dma";
    const std::string peer = "sip0.cube0.hbm_ctrl", id = "c7", detail = "waits \"c6\"\n\t", odd = "n\"o\\de";
    std::ostringstream json, binary;
    TraceSink to_json(&json), to_binary(&binary, TraceFormat::binary);
    const auto emit = [&](const TraceEvent& e) {
        to_json.emit(e);
        to_binary.emit(e);
    };
    emit(trace::engine_start(1500, node, 7, 2, "DMA_READ", 4096, &peer));
    emit(trace::engine_complete(2500, node, 7, 2, "GEMM"));
    emit(trace::inbox_fill(1, node, "dma_read_inbox", 3));
    emit(trace::command_submitted(2, node, 7, "composite", id));
    emit(trace::wait_begin(4, node, 7, "main", "dependency", detail));
    emit(trace::wait_end(5, node, 7, "main", "dependency", id));
    emit(trace::bank_violation(6, node, 7, "sub", detail));
    emit(trace::sub_command_dispatched(7, node, 7, 0, "DMA_READ", &id));
    emit(trace::tile_ready(9, odd, 7, 1));
    emit(trace::tcm_in_use(10, node, 65536));
    node = "sip0.cube1.pe0.pe_gemm";  // the same string, another node
    emit(trace::kernel_start(11, node, id));
    emit(trace::fanout_start(13, node, 4, "kernel_launch", -1, id));
    emit(trace::fanout_complete(14, node, "memory_write", true, id));
    emit(trace::late_response(16, node, 4, peer));
    emit(trace::request_start(17, node, 0, "memory_read", 256, id));
    emit(trace::request_complete(18, node, 0, "memory_read", false, id));
    emit(trace::control_delivered(19, node, 3, peer));
    emit(trace::command_complete(~std::uint64_t{0} >> 2, node, 7, "gemm", odd));
    to_json.flush();
    to_binary.flush();
    BOOST_CHECK_EQUAL(to_binary.events(), to_json.events());
    BOOST_CHECK(binary.str().size() * 2 < json.str().size());

    std::istringstream in(binary.str());
    std::ostringstream lines;
    BOOST_CHECK_EQUAL(binary_trace_to_json_lines(in, lines), "");
    BOOST_CHECK_EQUAL(lines.str(), json.str());

    const std::string cut = binary.str().substr(0, binary.str().size() - 3);
    std::istringstream truncated(cut);
    std::ostringstream partial;
    const std::string error = binary_trace_to_json_lines(truncated, partial);
    BOOST_CHECK(error.find("it ends inside") != std::string::npos);
    BOOST_CHECK(error.find("(record ") != std::string::npos);
    BOOST_CHECK(!partial.str().empty());
    BOOST_CHECK(json.str().rfind(partial.str(), 0) == 0);  // the lines before it

    std::istringstream foreign(json.str());
    std::ostringstream none;
    BOOST_CHECK(binary_trace_to_json_lines(foreign, none).find("not a binary npuvp trace") == 0);
    BOOST_CHECK(none.str().empty());
}

}  // namespace
