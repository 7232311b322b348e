// The RTL GEMM array (rtl/npuvp_gemm_array.sv), Verilated, through its driver
// (rtl/gemm_rtl_driver.*): results bit for bit against a C++ reference GEMM
// on random int8 matrices, full and edge blocks, and cycle counts derived by
// hand from the array's timing (docs/rtl.md, "Timing of the RTL array").
//
// Cycle counts below assume the default build, an 8 x 8 array (ROWS = COLS
// = 8); each case checks that first. With B blocks of ROWS x COLS outputs in
// row-major order, rows_b the result rows of block b (8, or what is left of
// m in the last row of blocks):
//   cycles = sum over the first B-1 blocks of max(k, rows_b) + k + rows_last + COLS
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <systemc>

#include "rtl/gemm_rtl_driver.h"
#include "testbench/harness/report_guard.h"

using namespace npuvp;

namespace {

struct Shape {
    std::uint32_t m, k, n;
};

std::string text(const Shape& s) {
    return std::to_string(s.m) + "x" + std::to_string(s.k) + "x" + std::to_string(s.n);
}

// One command through the RTL: operands, what came back, when.
struct Job {
    Shape shape;
    bool data = true;  // false: no operands (as rtl.pe_gemm runs tokens)
    std::vector<std::int8_t> a, b;
    std::vector<std::int32_t> c, reference;
    std::uint64_t cycles = 0;
    std::uint64_t start_ps = 0, end_ps = 0;
    std::string error;
};

// Random int8 values from a fixed seed; the bytes of mt19937's output are
// the same on every platform.
std::vector<std::int8_t> random_int8(std::mt19937& rng, std::size_t count) {
    std::vector<std::int8_t> v(count);
    for (auto& x : v) x = static_cast<std::int8_t>(static_cast<std::uint8_t>(rng() >> 24));
    return v;
}

// The reference: C[i][j] = sum over p of A[i][p] * B[p][j], int32.
std::vector<std::int32_t> reference_gemm(const Shape& s, const std::vector<std::int8_t>& a,
                                         const std::vector<std::int8_t>& b) {
    std::vector<std::int32_t> c(static_cast<std::size_t>(s.m) * s.n, 0);
    for (std::uint32_t i = 0; i < s.m; ++i)
        for (std::uint32_t j = 0; j < s.n; ++j) {
            std::int32_t sum = 0;
            for (std::uint32_t p = 0; p < s.k; ++p)
                sum += static_cast<std::int32_t>(a[static_cast<std::size_t>(i) * s.k + p]) *
                       static_cast<std::int32_t>(b[static_cast<std::size_t>(p) * s.n + j]);
            c[static_cast<std::size_t>(i) * s.n + j] = sum;
        }
    return c;
}

Job make_job(std::mt19937& rng, const Shape& s) {
    Job job;
    job.shape = s;
    job.a = random_int8(rng, static_cast<std::size_t>(s.m) * s.k);
    job.b = random_int8(rng, static_cast<std::size_t>(s.k) * s.n);
    job.reference = reference_gemm(s, job.a, job.b);
    // A sentinel that no product sum of these shapes reaches, so a C element
    // the RTL never wrote shows up.
    job.c.assign(job.reference.size(), std::numeric_limits<std::int32_t>::min());
    return job;
}

// Runs the jobs one after another from one thread, as PE_GEMM's worker does.
SC_MODULE(Bench) {
    GemmRtlDriver driver;
    std::vector<Job> jobs;

    Bench(const sc_core::sc_module_name& name, const sc_core::sc_time& period)
        : sc_core::sc_module(name), driver("rtl", period) {
        SC_THREAD(body);
    }
    SC_HAS_PROCESS(Bench);

    void body() {
        // Exceptions and assertions stay out of the thread (STYLE "Tests").
        for (Job& job : jobs) {
            job.start_ps = sc_core::sc_time_stamp().value();
            try {
                GemmOperands ops;
                if (job.data) ops = {job.a.data(), job.b.data(), job.c.data()};
                job.cycles = driver.run(job.shape.m, job.shape.k, job.shape.n, ops);
            } catch (const std::exception& e) {
                job.error = e.what();
            }
            job.end_ps = sc_core::sc_time_stamp().value();
        }
    }
};

void check_results(const std::vector<Job>& jobs) {
    for (const Job& job : jobs) {
        BOOST_TEST_CONTEXT("GEMM " << text(job.shape)) {
            BOOST_CHECK_EQUAL(job.error, "");
            if (!job.data) continue;
            std::size_t wrong = 0;
            for (std::size_t i = 0; i < job.c.size(); ++i) wrong += job.c[i] != job.reference[i];
            BOOST_CHECK_MESSAGE(wrong == 0, wrong << " of " << job.c.size()
                                                  << " C elements differ from the reference");
        }
    }
}

void require_default_array() {
    BOOST_REQUIRE_MESSAGE(GemmRtlDriver::rows() == 8 && GemmRtlDriver::cols() == 8,
                          "the hand-derived counts are for the default 8 x 8 build");
}

}  // namespace

BOOST_AUTO_TEST_CASE(results_match_reference_gemm_bit_for_bit) {
    // Full blocks, edge blocks in m, n or both, k = 1, k < ROWS, single rows
    // and columns, long k, and shapes larger than the array in every way.
    const Shape shapes[] = {{8, 8, 8},   {16, 32, 24}, {13, 7, 11}, {1, 1, 1},  {1, 5, 17},
                            {9, 1, 9},   {64, 3, 5},   {8, 100, 8}, {23, 64, 9}, {33, 17, 40},
                            {1, 300, 1}, {7, 2, 57},   {40, 9, 3}};
    std::mt19937 rng(20240);
    Bench bench("bench", sc_core::sc_time(1, sc_core::SC_NS));
    for (const Shape& s : shapes) bench.jobs.push_back(make_job(rng, s));
    sc_core::sc_start();
    check_results(bench.jobs);
}

BOOST_AUTO_TEST_CASE(extreme_values_accumulate_without_overflow) {
    // -128 · -128 = 16384, the largest int8 product, 255 times: 4 177 920,
    // and -128 · 127 = -16256 255 times: -4 145 280; both well inside int32.
    std::mt19937 rng(7);
    Bench bench("bench", sc_core::sc_time(1, sc_core::SC_NS));
    Job max = make_job(rng, {8, 255, 8});
    std::fill(max.a.begin(), max.a.end(), static_cast<std::int8_t>(-128));
    std::fill(max.b.begin(), max.b.end(), static_cast<std::int8_t>(-128));
    max.reference = reference_gemm(max.shape, max.a, max.b);
    Job mixed = make_job(rng, {9, 255, 9});
    std::fill(mixed.a.begin(), mixed.a.end(), static_cast<std::int8_t>(-128));
    std::fill(mixed.b.begin(), mixed.b.end(), static_cast<std::int8_t>(127));
    mixed.reference = reference_gemm(mixed.shape, mixed.a, mixed.b);
    bench.jobs = {max, mixed};
    sc_core::sc_start();
    check_results(bench.jobs);
    BOOST_CHECK_EQUAL(bench.jobs[0].c[0], 4177920);
    BOOST_CHECK_EQUAL(bench.jobs[1].c[80], -4145280);
}

BOOST_AUTO_TEST_CASE(cycle_counts_follow_the_array_timing) {
    require_default_array();
    std::mt19937 rng(1);
    Bench bench("bench", sc_core::sc_time(1, sc_core::SC_NS));
    const Shape shapes[] = {{8, 8, 8}, {16, 128, 16}, {13, 7, 11}, {9, 1, 9},
                            {1, 1, 1}, {64, 3, 5},    {0, 5, 5}};
    for (const Shape& s : shapes) bench.jobs.push_back(make_job(rng, s));
    sc_core::sc_start();
    check_results(bench.jobs);
    // 8x8x8: one block: 8 + 8 + 8.
    // 16x128x16: 4 blocks of 8 rows, k >= 8: 3·128 + 128 + 8 + 8 = 528
    //   (= 4·128 + 16, the C++ model's with fill_cycles = ROWS + COLS).
    // 13x7x11: blocks (rows) 8, 8, 5, 5: max(7,8) + max(7,8) + max(7,5) + 7 + 5 + 8 = 43.
    // 9x1x9: blocks 8, 8, 1, 1: 8 + 8 + 1 + 1 + 1 + 8 = 27.
    // 1x1x1: 1 + 1 + 8 = 10.
    // 64x3x5: 8 blocks of 8 rows: 7·max(3,8) + 3 + 8 + 8 = 75.
    // 0x5x5: nothing to compute: done on the edge that takes the command, 1.
    const std::uint64_t expected[] = {24, 528, 43, 27, 10, 75, 1};
    for (std::size_t i = 0; i < bench.jobs.size(); ++i) {
        const Job& job = bench.jobs[i];
        BOOST_TEST_CONTEXT("GEMM " << text(job.shape)) {
            BOOST_CHECK_EQUAL(job.cycles, expected[i]);
            // Exactly that many 1000 ps periods of simulated time, and the
            // next command starts at once.
            BOOST_CHECK_EQUAL(job.end_ps - job.start_ps, expected[i] * 1000);
            if (i > 0) BOOST_CHECK_EQUAL(job.start_ps, bench.jobs[i - 1].end_ps);
        }
    }
    BOOST_CHECK_EQUAL(bench.jobs.front().start_ps, 0u);
    BOOST_CHECK_EQUAL(bench.driver.commands(), 7u);
    BOOST_CHECK_EQUAL(bench.driver.cycles(), 24u + 528 + 43 + 27 + 10 + 75 + 1);
}

BOOST_AUTO_TEST_CASE(odd_clock_period_gives_whole_periods) {
    require_default_array();
    // 1001 ps: low 501 ps, high 500 ps; 13x7x11 takes 43 cycles (above).
    std::mt19937 rng(2);
    Bench bench("bench", sc_core::sc_time::from_value(1001));
    bench.jobs.push_back(make_job(rng, {13, 7, 11}));
    sc_core::sc_start();
    check_results(bench.jobs);
    BOOST_CHECK_EQUAL(bench.jobs[0].cycles, 43u);
    BOOST_CHECK_EQUAL(bench.jobs[0].end_ps - bench.jobs[0].start_ps, 43u * 1001);
}

BOOST_AUTO_TEST_CASE(operands_do_not_change_the_cycle_count) {
    // rtl.pe_gemm runs tokens without data (zeros on A and B). Between two
    // commands with data, a command without: the same cycles as with data,
    // and the data commands around it stay exact.
    std::mt19937 rng(3);
    Bench bench("bench", sc_core::sc_time(1, sc_core::SC_NS));
    bench.jobs.push_back(make_job(rng, {23, 64, 9}));
    Job no_data = make_job(rng, {23, 64, 9});
    no_data.data = false;
    bench.jobs.push_back(no_data);
    bench.jobs.push_back(make_job(rng, {23, 64, 9}));
    sc_core::sc_start();
    check_results(bench.jobs);
    BOOST_CHECK_EQUAL(bench.jobs[1].cycles, bench.jobs[0].cycles);
    BOOST_CHECK_EQUAL(bench.jobs[2].cycles, bench.jobs[0].cycles);
}

BOOST_AUTO_TEST_CASE(held_results_stall_the_array_without_loss) {
    require_default_array();
    // c_ready low in every third cycle: each C row that meets a low c_ready
    // waits one cycle and the whole array holds with it, so results stay
    // exact and the count only grows.
    std::mt19937 rng(4);
    Bench bench("bench", sc_core::sc_time(1, sc_core::SC_NS));
    bench.driver.pace(rtl::Pacing::none(), rtl::Pacing::none(), rtl::Pacing::every(3));
    const Shape shapes[] = {{13, 7, 11}, {16, 128, 16}, {9, 1, 9}, {33, 17, 40}};
    for (const Shape& s : shapes) bench.jobs.push_back(make_job(rng, s));
    sc_core::sc_start();
    check_results(bench.jobs);
    // Without stalls: 43, 528, 27 (cycle_counts_follow_the_array_timing).
    BOOST_CHECK_GT(bench.jobs[0].cycles, 43u);
    BOOST_CHECK_GT(bench.jobs[1].cycles, 528u);
    BOOST_CHECK_GT(bench.jobs[2].cycles, 27u);
}

BOOST_AUTO_TEST_CASE(k_zero_writes_zeros) {
    // C = A·B with k = 0 is the m×n zero matrix. The array moves no data and
    // raises done on the edge that takes the command (1 cycle); the driver
    // writes the zeros over the sentinel make_job() put in C.
    std::mt19937 rng(5);
    Bench bench("bench", sc_core::sc_time(1, sc_core::SC_NS));
    bench.jobs.push_back(make_job(rng, {5, 0, 7}));
    bench.jobs.push_back(make_job(rng, {13, 7, 11}));  // and the array works on after it
    sc_core::sc_start();
    check_results(bench.jobs);
    BOOST_CHECK_EQUAL(bench.jobs[0].c.size(), 35u);
    BOOST_CHECK(std::all_of(bench.jobs[0].c.begin(), bench.jobs[0].c.end(),
                            [](std::int32_t v) { return v == 0; }));
    BOOST_CHECK_EQUAL(bench.jobs[0].cycles, 1u);
}

namespace {

// A watchdog that fires, then a command with the watchdog back to automatic.
SC_MODULE(WatchdogBench) {
    GemmRtlDriver driver;
    Job first, second;
    std::string abort_text;
    std::uint64_t abort_cycles = 0, abort_end_ps = 0;

    WatchdogBench(const sc_core::sc_module_name& name)
        : sc_core::sc_module(name), driver("rtl", sc_core::sc_time(1, sc_core::SC_NS)) {
        SC_THREAD(body);
    }
    SC_HAS_PROCESS(WatchdogBench);

    void body() {
        driver.set_watchdog(20);
        try {
            driver.run(first.shape.m, first.shape.k, first.shape.n,
                       {first.a.data(), first.b.data(), first.c.data()});
        } catch (const rtl::RtlAbort& e) {
            abort_text = e.what();
            abort_cycles = e.cycles;
        } catch (const std::exception& e) {
            abort_text = std::string("not an RtlAbort: ") + e.what();
        }
        abort_end_ps = sc_core::sc_time_stamp().value();
        driver.set_watchdog(0);
        second.start_ps = abort_end_ps;
        try {
            second.cycles = driver.run(second.shape.m, second.shape.k, second.shape.n,
                                       {second.a.data(), second.b.data(), second.c.data()});
        } catch (const std::exception& e) {
            second.error = e.what();
        }
        second.end_ps = sc_core::sc_time_stamp().value();
    }
};

}  // namespace

BOOST_AUTO_TEST_CASE(watchdog_aborts_resets_and_the_next_command_runs) {
    require_default_array();
    // 13x7x11 needs 43 cycles (cycle_counts_follow_the_array_timing); with a
    // limit of 20 the watchdog fires after edge 20, at 20 ns, in the middle of
    // the command (beats still in the array, results not yet out). The
    // driver resets the RTL in zero time; the next 13x7x11 then takes exactly
    // 43 cycles again and computes exactly: nothing of the aborted command
    // is left in the array.
    std::mt19937 rng(6);
    WatchdogBench bench("bench");
    bench.first = make_job(rng, {13, 7, 11});
    bench.second = make_job(rng, {13, 7, 11});
    sc_core::sc_start();
    BOOST_CHECK_EQUAL(bench.abort_cycles, 20u);
    BOOST_CHECK_MESSAGE(bench.abort_text.find("no done within 20 cycles; the RTL was reset") !=
                            std::string::npos,
                        bench.abort_text);
    BOOST_CHECK_EQUAL(bench.abort_end_ps, 20000u);
    check_results({bench.second});
    BOOST_CHECK_EQUAL(bench.second.cycles, 43u);
    BOOST_CHECK_EQUAL(bench.second.end_ps - bench.second.start_ps, 43000u);
    // Only the finished command counts.
    BOOST_CHECK_EQUAL(bench.driver.commands(), 1u);
    BOOST_CHECK_EQUAL(bench.driver.cycles(), 43u);
}

BOOST_AUTO_TEST_CASE(slow_operands_pass_the_automatic_watchdog) {
    require_default_array();
    // A producer that offers a beat only at every third edge or so (70 % of
    // the edges held back on A and B, the issue's "a beat only every third
    // cycle"): the results stay exact and the automatic limit (8 × the
    // unpaced cycles + 64: 16x128x16 → 8·528 + 64 = 4288) is not reached —
    // the old fixed watchdog (about 2 × the unpaced cycles) was.
    std::mt19937 rng(8);
    Bench bench("bench", sc_core::sc_time(1, sc_core::SC_NS));
    bench.driver.pace(rtl::Pacing::random(700, 1), rtl::Pacing::random(700, 2),
                      rtl::Pacing::none());
    const Shape shapes[] = {{16, 128, 16}, {13, 7, 11}, {1, 1, 1}};
    for (const Shape& s : shapes) bench.jobs.push_back(make_job(rng, s));
    sc_core::sc_start();
    check_results(bench.jobs);
    BOOST_CHECK_EQUAL(bench.driver.watchdog_limit(16, 128, 16), 4288u);
    // 512 beats at about 1 in 3.3 edges (two streams: a beat moves when both
    // are valid, so slower still): well beyond twice 528.
    BOOST_CHECK_GT(bench.jobs[0].cycles, 2 * 528u);
}

BOOST_AUTO_TEST_CASE(zero_skip_skips_the_blocks_of_zero_row_blocks_exactly) {
    // Zero skipping (docs/rtl.md "Zero skipping"): 20x12x20 on the 8 x 8
    // array, 3 row blocks (8, 8, 4 rows) x 3 column blocks. A's rows 0-7
    // (row block 0) and 16-19 (row block 2) are zero, rows 8-15 random, so
    // blocks (0,1), (0,2), (2,1), (2,2) are skipped: one virtual beat each.
    // In block order k_b = 12, 1, 1, 12, 12, 12, 12, 1, 1 and rows_b = 8 x 6,
    // 4 x 3; cycles = k_first + sum over consecutive blocks of
    // max(k_(b+1), rows_b) + rows_last + COLS:
    //   12 + [8 + 8 + 12 + 12 + 12 + 12 + 4 + 4] + 4 + 8 = 96
    // (without skipping: 8 x 12 + 12 + 4 + 8 = 120). Results exact, the
    // skipped blocks' rows zero; 4 blocks skipped.
    require_default_array();
    const Shape s{20, 12, 20};
    std::mt19937 rng(77);
    Job sparse = make_job(rng, s);
    for (std::uint32_t i = 0; i < s.m; ++i)
        if (i < 8 || i >= 16)
            for (std::uint32_t p = 0; p < s.k; ++p) sparse.a[static_cast<std::size_t>(i) * s.k + p] = 0;
    sparse.reference = reference_gemm(s, sparse.a, sparse.b);
    Bench bench("bench", sc_core::sc_time(1, sc_core::SC_NS));
    bench.jobs = {sparse};
    bench.driver.set_zero_skip(true);
    sc_core::sc_start();
    check_results(bench.jobs);
    BOOST_CHECK_EQUAL(bench.jobs[0].cycles, 96u);
    BOOST_CHECK_EQUAL(bench.jobs[0].end_ps - bench.jobs[0].start_ps, 96000u);
    BOOST_CHECK_EQUAL(bench.driver.skipped_blocks(), 4u);
    BOOST_CHECK_EQUAL(gemm_array_cycles_zero_skip(8, 8, s.m, s.k, s.n, sparse.a.data()), 96u);
    BOOST_CHECK_EQUAL(gemm_array_cycles(8, 8, s.m, s.k, s.n), 120u);
}

BOOST_AUTO_TEST_CASE(zero_skip_with_dense_data_changes_nothing) {
    // Random int8 A has no all-zero row block: nothing is skipped, and the
    // counts are the array's usual ones (16x32x24: 5 x 32 + 32 + 8 + 8 = 208).
    require_default_array();
    std::mt19937 rng(78);
    Bench bench("bench", sc_core::sc_time(1, sc_core::SC_NS));
    bench.jobs = {make_job(rng, {16, 32, 24}), make_job(rng, {13, 7, 11})};
    bench.driver.set_zero_skip(true);
    sc_core::sc_start();
    check_results(bench.jobs);
    BOOST_CHECK_EQUAL(bench.jobs[0].cycles, 208u);
    BOOST_CHECK_EQUAL(bench.jobs[1].cycles, gemm_array_cycles(8, 8, 13, 7, 11));
    BOOST_CHECK_EQUAL(bench.driver.skipped_blocks(), 0u);
}

BOOST_AUTO_TEST_CASE(zero_skip_holds_under_gaps_and_back_pressure) {
    // The 20x12x20 command of zero_skip_skips_the_blocks_of_zero_row_blocks_exactly
    // (96 cycles unpaced, 4 blocks skipped) and two more shapes with zero row
    // blocks, now with random input gaps on A and B and back-pressure on C
    // (seeded): the skip handshake may meet a beat not yet offered or a held
    // C port. Results stay exact, the same blocks are skipped, and every
    // command takes at least its unpaced count.
    require_default_array();
    std::mt19937 rng(79);
    const Shape shapes[] = {{20, 12, 20}, {16, 3, 30}, {24, 40, 9}};
    Bench bench("bench", sc_core::sc_time(1, sc_core::SC_NS));
    std::vector<std::uint64_t> unpaced;
    std::uint64_t blocks = 0;
    for (const Shape& s : shapes) {
        Job job = make_job(rng, s);
        // Row blocks 0 and 2 zero (rows 0-7, 16-23).
        for (std::uint32_t i = 0; i < s.m; ++i)
            if (i < 8 || (i >= 16 && i < 24))
                for (std::uint32_t p = 0; p < s.k; ++p) job.a[static_cast<std::size_t>(i) * s.k + p] = 0;
        job.reference = reference_gemm(s, job.a, job.b);
        unpaced.push_back(gemm_array_cycles_zero_skip(8, 8, s.m, s.k, s.n, job.a.data()));
        const std::uint64_t col_blocks = (s.n + 7) / 8, row_blocks = (s.m + 7) / 8;
        blocks += (col_blocks - 1) * (row_blocks >= 3 ? 2 : 1);
        bench.jobs.push_back(job);
    }
    BOOST_REQUIRE_EQUAL(unpaced[0], 96u);
    bench.driver.set_zero_skip(true);
    bench.driver.pace(rtl::Pacing::random(300, 1), rtl::Pacing::random(300, 2), rtl::Pacing::random(300, 3));
    sc_core::sc_start();
    check_results(bench.jobs);
    for (std::size_t i = 0; i < bench.jobs.size(); ++i)
        BOOST_CHECK_GE(bench.jobs[i].cycles, unpaced[i]);
    BOOST_CHECK_EQUAL(bench.driver.skipped_blocks(), blocks);
}
