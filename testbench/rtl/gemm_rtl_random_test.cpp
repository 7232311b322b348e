// Randomized tests of the RTL GEMM array (rtl/npuvp_gemm_array.sv) through
// the adapter (rtl/gemm_array.h) on three array sizes: 4 × 4 (built with
// DIM_W = 18, so that the accumulator can saturate), the platform's array as
// built (8 × 8 by default, through GemmRtlDriver) and 16 × 8. The 4 × 4 and
// 16 × 8 arrays are Verilated for this test only (testbench/CMakeLists.txt).
//
// Each case draws its commands from a fixed seed (mt19937, the same numbers
// on every platform; NPUVP_RTL_RANDOM_SEED overrides it to explore, and a
// failure names the seed and the command): random shapes (0 to 3 blocks and a
// bit in m and n, k from 0 to 40), full-range int8 operands, and for each
// command random input gaps on A and B and back-pressure on C (none, 30 % or
// 70 % of the edges, each stream its own seed). Expected values come from the
// test, not the driver:
//   results: an int64 GEMM in the test, clamped to int32 at every step (the
//     array's documented saturation; never reached at these k);
//   cycles: without gaps or back-pressure, the array's timing written out
//     block by block below; with them, at least that;
//   time: cycles × the clock period, commands back to back.
// One command in four runs with zero skipping on (docs/rtl.md "Zero
// skipping"), half of its A row blocks drawn all zero: its cycles follow the
// rule written out in expected_cycles_zero_skip() below, its results stay
// exact, and the blocks skipped are counted by the test from A.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <systemc>

#include "Vgemm_16x8.h"
#include "Vgemm_4x4.h"
#include "rtl/gemm_array.h"
#include "rtl/gemm_rtl_driver.h"
#include "testbench/harness/report_guard.h"

using namespace npuvp;

namespace {

struct Shape {
    std::uint32_t m, k, n;
};

// The array's cycle count with A and B always valid and C always ready,
// block by block (docs/rtl.md "Timing"): blocks in row-major order, each
// takes max(k, its result rows) cycles before the next may start, and the
// last one k + its rows + COLS; 1 when there is nothing to compute.
std::uint64_t expected_cycles(int rows, int cols, const Shape& s) {
    if (s.m == 0 || s.k == 0 || s.n == 0) return 1;
    std::uint64_t cycles = 0;
    const std::uint32_t row_blocks = (s.m + rows - 1) / rows, col_blocks = (s.n + cols - 1) / cols;
    for (std::uint32_t rb = 0; rb < row_blocks; ++rb)
        for (std::uint32_t cb = 0; cb < col_blocks; ++cb) {
            const std::uint64_t block_rows = std::min<std::uint64_t>(rows, s.m - rb * rows);
            const bool last = rb + 1 == row_blocks && cb + 1 == col_blocks;
            cycles += last ? s.k + block_rows + cols : std::max<std::uint64_t>(s.k, block_rows);
        }
    return cycles;
}

// The same with zero skipping, as docs/rtl.md "Zero skipping" states it
// (written from the document, not from gemm_array_cycles_zero_skip()): blocks
// in row-major order, k_b = 1 for column block >= 1 of a row block whose A
// rows are all zero, else k; cycles = k_first + the sum over consecutive
// blocks (b, b+1) of max(k_(b+1), rows_b) + rows_last + COLS.
std::uint64_t expected_cycles_zero_skip(int rows, int cols, const Shape& s, const std::vector<std::int8_t>& a,
                                        std::uint64_t& skipped) {
    skipped = 0;
    if (s.m == 0 || s.k == 0 || s.n == 0) return 1;
    const std::uint32_t row_blocks = (s.m + rows - 1) / rows, col_blocks = (s.n + cols - 1) / cols;
    std::vector<std::uint64_t> k_of, rows_of;
    for (std::uint32_t rb = 0; rb < row_blocks; ++rb) {
        const std::uint64_t block_rows = std::min<std::uint64_t>(rows, s.m - rb * rows);
        const auto first = a.begin() + static_cast<std::ptrdiff_t>(rb) * rows * s.k;
        const bool zero = std::all_of(first, first + static_cast<std::ptrdiff_t>(block_rows * s.k),
                                      [](std::int8_t v) { return v == 0; });
        for (std::uint32_t cb = 0; cb < col_blocks; ++cb) {
            const bool skip = zero && cb > 0;
            skipped += skip;
            k_of.push_back(skip ? 1 : s.k);
            rows_of.push_back(block_rows);
        }
    }
    std::uint64_t cycles = k_of.front();
    for (std::size_t b = 0; b + 1 < k_of.size(); ++b) cycles += std::max(k_of[b + 1], rows_of[b]);
    return cycles + rows_of.back() + cols;
}

// C = A·B in int64, clamped to int32 after every product added (the
// array's saturating accumulator, docs/rtl.md "Accumulator").
std::vector<std::int32_t> reference(const Shape& s, const std::vector<std::int8_t>& a,
                                    const std::vector<std::int8_t>& b) {
    std::vector<std::int32_t> c(static_cast<std::size_t>(s.m) * s.n);
    for (std::uint32_t i = 0; i < s.m; ++i)
        for (std::uint32_t j = 0; j < s.n; ++j) {
            std::int64_t acc = 0;
            for (std::uint32_t p = 0; p < s.k; ++p) {
                acc += std::int64_t{a[static_cast<std::size_t>(i) * s.k + p]} *
                       b[static_cast<std::size_t>(p) * s.n + j];
                acc = std::clamp<std::int64_t>(acc, std::numeric_limits<std::int32_t>::min(),
                                               std::numeric_limits<std::int32_t>::max());
            }
            c[static_cast<std::size_t>(i) * s.n + j] = static_cast<std::int32_t>(acc);
        }
    return c;
}

struct Job {
    Shape shape{};
    std::vector<std::int8_t> a, b;
    std::vector<std::int32_t> c, want;
    std::uint32_t gaps_a = 0, gaps_b = 0, stalls_c = 0;  // per mille of the edges
    bool zero_skip = false;
    std::uint64_t seed_a = 0, seed_b = 0, seed_c = 0;
    std::uint64_t cycles = 0, start_ps = 0, end_ps = 0;
    std::string error;
};

std::uint64_t base_seed(std::uint64_t fallback) {
    const char* env = std::getenv("NPUVP_RTL_RANDOM_SEED");
    return env ? std::stoull(env) : fallback;
}

std::vector<Job> random_jobs(int rows, int cols, std::uint64_t seed, int count) {
    std::mt19937_64 rng(seed);
    const auto pick = [&](std::uint64_t below) { return static_cast<std::uint32_t>(rng() % below); };
    const std::uint32_t pacings[] = {0, 300, 700};
    std::vector<Job> jobs(count);
    for (Job& job : jobs) {
        // One command in eight has k = 0, one in eight k = 1.
        const std::uint32_t kind = pick(8);
        job.shape = {pick(3 * rows + 4), kind == 0 ? 0 : kind == 1 ? 1 : pick(40) + 1,
                     pick(3 * cols + 4)};
        job.a.resize(static_cast<std::size_t>(job.shape.m) * job.shape.k);
        job.b.resize(static_cast<std::size_t>(job.shape.k) * job.shape.n);
        for (auto& x : job.a) x = static_cast<std::int8_t>(static_cast<std::uint8_t>(rng()));
        for (auto& x : job.b) x = static_cast<std::int8_t>(static_cast<std::uint8_t>(rng()));
        // Zero skipping, with each of A's row blocks zeroed at even odds.
        job.zero_skip = pick(4) == 0;
        if (job.zero_skip)
            for (std::uint32_t row0 = 0; row0 < job.shape.m; row0 += rows)
                if (pick(2))
                    std::fill_n(job.a.begin() + static_cast<std::ptrdiff_t>(row0) * job.shape.k,
                                static_cast<std::size_t>(std::min<std::uint32_t>(rows, job.shape.m - row0)) * job.shape.k,
                                std::int8_t{0});
        job.want = reference(job.shape, job.a, job.b);
        // A sentinel no product sum of these shapes reaches (|C| <= 40·16384).
        job.c.assign(job.want.size(), std::numeric_limits<std::int32_t>::min());
        // Half the commands run without gaps or back-pressure (exact cycles).
        if (pick(2)) {
            job.gaps_a = pacings[pick(3)];
            job.gaps_b = pacings[pick(3)];
            job.stalls_c = pacings[pick(3)];
            job.seed_a = rng();
            job.seed_b = rng();
            job.seed_c = rng();
        }
    }
    return jobs;
}

rtl::Pacing pacing(std::uint32_t per_mille, std::uint64_t seed) {
    return per_mille ? rtl::Pacing::random(per_mille, seed) : rtl::Pacing::none();
}

// Owns a GemmArray (not a module itself) so that its signals have a parent.
template <class Array>
struct Host : sc_core::sc_module {
    Array array;
    explicit Host(const sc_core::sc_module_name& name)
        : sc_core::sc_module(name), array(sc_core::sc_time(1, sc_core::SC_NS)) {}
};

// Runs the jobs back to back from one thread through `driver` (GemmArray or
// GemmRtlDriver: the same run / pace interface).
template <class Driver>
struct Bench : sc_core::sc_module {
    Driver& driver;
    std::vector<Job> jobs;

    Bench(const sc_core::sc_module_name& name, Driver& driver) : sc_core::sc_module(name), driver(driver) {
        SC_THREAD(body);
    }
    SC_HAS_PROCESS(Bench);

    void body() {
        for (Job& job : jobs) {
            driver.pace(pacing(job.gaps_a, job.seed_a), pacing(job.gaps_b, job.seed_b),
                        pacing(job.stalls_c, job.seed_c));
            driver.set_zero_skip(job.zero_skip);
            job.start_ps = sc_core::sc_time_stamp().value();
            try {
                job.cycles = driver.run(job.shape.m, job.shape.k, job.shape.n,
                                        {job.a.data(), job.b.data(), job.c.data()});
            } catch (const std::exception& e) {
                job.error = e.what();
            }
            job.end_ps = sc_core::sc_time_stamp().value();
        }
    }
};

template <class Driver>
void run_and_check(Driver& driver, int rows, int cols, std::uint64_t seed, int count) {
    Bench<Driver> bench("bench", driver);
    bench.jobs = random_jobs(rows, cols, seed, count);
    sc_core::sc_start();
    std::uint64_t paced = 0, exact = 0, zero_k = 0, prev_end = 0, skipped = 0, skip_jobs = 0;
    for (std::size_t i = 0; i < bench.jobs.size(); ++i) {
        const Job& job = bench.jobs[i];
        const Shape& s = job.shape;
        BOOST_TEST_CONTEXT("seed " << seed << ", command " << i << ": " << s.m << "x" << s.k << "x"
                                   << s.n << " on " << rows << " x " << cols << ", gaps "
                                   << job.gaps_a << "/" << job.gaps_b << " per mille, stalls "
                                   << job.stalls_c << (job.zero_skip ? ", zero skipping" : "")) {
            BOOST_CHECK_EQUAL(job.error, "");
            std::size_t wrong = 0;
            for (std::size_t e = 0; e < job.c.size(); ++e) wrong += job.c[e] != job.want[e];
            BOOST_CHECK_MESSAGE(wrong == 0, wrong << " of " << job.c.size() << " C elements differ");
            std::uint64_t skips = 0;
            const std::uint64_t nominal =
                job.zero_skip ? expected_cycles_zero_skip(rows, cols, s, job.a, skips) : expected_cycles(rows, cols, s);
            skipped += skips;
            skip_jobs += job.zero_skip && skips > 0;
            const bool paced_job = job.gaps_a || job.gaps_b || job.stalls_c;
            if (paced_job)
                BOOST_CHECK_GE(job.cycles, nominal);
            else
                BOOST_CHECK_EQUAL(job.cycles, nominal);
            BOOST_CHECK_EQUAL(job.end_ps - job.start_ps, job.cycles * 1000);
            BOOST_CHECK_EQUAL(job.start_ps, prev_end);
            prev_end = job.end_ps;
            paced += paced_job && job.cycles > nominal;
            exact += !paced_job;
            zero_k += s.k == 0 && s.m && s.n;
        }
    }
    // The draw covers what it is meant to (fixed seed: these hold; another
    // seed may need more commands).
    BOOST_TEST_MESSAGE(exact << " exact, " << paced << " slowed by gaps or back-pressure, "
                             << zero_k << " with k = 0, " << skip_jobs << " skipping " << skipped << " blocks");
    BOOST_CHECK_GT(exact, 0u);
    BOOST_CHECK_GT(paced, 0u);
    BOOST_CHECK_GT(skip_jobs, 0u);
    // Every block the rule skips, and no other, was skipped by the RTL.
    BOOST_CHECK_EQUAL(driver.skipped_blocks(), skipped);
    BOOST_CHECK_EQUAL(driver.commands(), bench.jobs.size());
}

using Array4x4 = GemmArray<Vgemm_4x4, 4, 4, 18>;
using Array16x8 = GemmArray<Vgemm_16x8, 16, 8, 16>;

}  // namespace

BOOST_AUTO_TEST_CASE(random_gemms_on_a_4x4_array) {
    Host<Array4x4> host("host");
    run_and_check(host.array, 4, 4, base_seed(22004), 120);
}

BOOST_AUTO_TEST_CASE(random_gemms_on_the_built_array) {
    GemmRtlDriver driver("rtl", sc_core::sc_time(1, sc_core::SC_NS));
    run_and_check(driver, GemmRtlDriver::rows(), GemmRtlDriver::cols(), base_seed(22008), 80);
}

BOOST_AUTO_TEST_CASE(random_gemms_on_a_16x8_array) {
    Host<Array16x8> host("host");
    run_and_check(host.array, 16, 8, base_seed(22016), 60);
}

BOOST_AUTO_TEST_CASE(accumulator_saturates_at_every_step) {
    // 1×k×1 on the 4 × 4 array built with DIM_W = 18 (k up to 262 143):
    // A all −128; B −128 for the first 131 073 beats (products +16 384),
    // then 127 for 10 (products −16 256).
    //   saturating at every step: 131 072·16 384 = 2^31 > 2^31 − 1, so the
    //     accumulator sticks at 2 147 483 647 until the 10 negative
    //     products: 2 147 483 647 − 162 560 = 2 147 321 087;
    //   clamping only the final sum would give 131 073·16 384 − 162 560 =
    //     2 147 337 472, and wrapping a negative number.
    // And all −128 over the same k: 2 147 483 647.
    const std::uint32_t k = 131083;
    Host<Array4x4> host("host");
    Bench<Array4x4> bench("bench", host.array);
    Job mixed, max;
    mixed.shape = max.shape = {1, k, 1};
    mixed.a.assign(k, -128);
    mixed.b.assign(k, -128);
    std::fill(mixed.b.end() - 10, mixed.b.end(), static_cast<std::int8_t>(127));
    mixed.c.assign(1, 0);
    max.a.assign(k, -128);
    max.b.assign(k, -128);
    max.c.assign(1, 0);
    bench.jobs = {mixed, max};
    sc_core::sc_start();
    BOOST_CHECK_EQUAL(bench.jobs[0].error, "");
    BOOST_CHECK_EQUAL(bench.jobs[1].error, "");
    BOOST_CHECK_EQUAL(bench.jobs[0].c[0], 2147321087);
    BOOST_CHECK_EQUAL(bench.jobs[1].c[0], 2147483647);
    // The test's reference applies the same rule.
    BOOST_CHECK_EQUAL(reference(mixed.shape, mixed.a, mixed.b)[0], 2147321087);
    // One block: k + 1 row + 4 columns.
    BOOST_CHECK_EQUAL(bench.jobs[0].cycles, k + 1 + 4u);
}
