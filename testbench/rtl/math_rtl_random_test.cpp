// Randomized tests of the RTL vector unit (rtl/npuvp_math_unit.sv) through
// the adapter (rtl/math_unit.h) at three lane counts: 1 and 3 (Verilated for
// this test only, testbench/CMakeLists.txt) and the unit npuvp is built with
// (16 lanes by default, through MathRtlDriver).
//
// Each case draws its commands from a fixed seed (mt19937_64;
// NPUVP_RTL_RANDOM_SEED overrides it, and a failure names the seed and the
// command): a random op of the four, a length from 0 to 5 beats and a bit,
// int32 operands drawn so that about a quarter are near the int32 limits (add
// and mul then saturate), and for half the commands random input gaps on x
// and y and back-pressure on z (0, 30 % or 70 % of the edges). Expected
// values come from the test, not the driver:
//   results: the op on int64, clamped to int32 (the unit's documented rule);
//   cycles: ceil(len / LANES) + 3 without gaps or back-pressure (1 for len 0;
//     the unit's timing: command on edge 1, beat b on edge 2 + b, two
//     register stages, the last beat leaves on edge B + 3); at least that with;
//   time: cycles × the period, commands back to back.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <systemc>

#include "Vmath_1.h"
#include "Vmath_3.h"
#include "rtl/math_rtl_driver.h"
#include "rtl/math_unit.h"
#include "testbench/harness/report_guard.h"

using namespace npuvp;

namespace {

const char* const kOpNames[] = {"add", "mul", "relu", "pass"};

std::int32_t clamp32(std::int64_t v) {
    return static_cast<std::int32_t>(std::clamp<std::int64_t>(
        v, std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::max()));
}

std::int32_t reference(MathUnitOp op, std::int32_t x, std::int32_t y) {
    switch (op) {
        case MathUnitOp::add: return clamp32(std::int64_t{x} + y);
        case MathUnitOp::mul: return clamp32(std::int64_t{x} * y);
        case MathUnitOp::relu: return x < 0 ? 0 : x;
        case MathUnitOp::pass: return x;
    }
    return 0;
}

struct Job {
    MathUnitOp op = MathUnitOp::add;
    std::uint64_t len = 0;
    std::vector<std::int32_t> x, y, z, want;
    std::uint32_t gaps_x = 0, gaps_y = 0, stalls_z = 0;  // per mille of the edges
    std::uint64_t seed_x = 0, seed_y = 0, seed_z = 0;
    std::uint64_t cycles = 0, start_ps = 0, end_ps = 0;
    std::string error;
};

std::uint64_t base_seed(std::uint64_t fallback) {
    const char* env = std::getenv("NPUVP_RTL_RANDOM_SEED");
    return env ? std::stoull(env) : fallback;
}

std::vector<Job> random_jobs(int lanes, std::uint64_t seed, int count) {
    std::mt19937_64 rng(seed);
    const auto pick = [&](std::uint64_t below) { return rng() % below; };
    // A quarter near the limits (|v| >= 2^30), the rest small or anything.
    const auto value = [&]() -> std::int32_t {
        switch (pick(4)) {
            case 0: {  // magnitude in [2^30, 2^31 - 1], either sign
                const auto magnitude = static_cast<std::int32_t>((rng() & 0x3fffffffu) | 0x40000000u);
                return pick(2) ? magnitude : -magnitude;
            }
            case 1: return static_cast<std::int32_t>(pick(2001)) - 1000;
            default: return static_cast<std::int32_t>(static_cast<std::uint32_t>(rng()));
        }
    };
    const std::uint32_t pacings[] = {0, 300, 700};
    std::vector<Job> jobs(count);
    for (Job& job : jobs) {
        job.op = static_cast<MathUnitOp>(pick(4));
        job.len = pick(5 * static_cast<std::uint64_t>(lanes) + 4);
        job.x.resize(job.len);
        job.y.resize(job.len);
        for (auto& v : job.x) v = value();
        for (auto& v : job.y) v = value();
        job.want.resize(job.len);
        for (std::size_t i = 0; i < job.len; ++i) job.want[i] = reference(job.op, job.x[i], job.y[i]);
        // A sentinel; a result equal to it by chance is checked by want.
        job.z.assign(job.len, 0x5a5a5a5a);
        if (pick(2)) {
            job.gaps_x = pacings[pick(3)];
            job.gaps_y = pacings[pick(3)];
            job.stalls_z = pacings[pick(3)];
            job.seed_x = rng();
            job.seed_y = rng();
            job.seed_z = rng();
        }
    }
    return jobs;
}

rtl::Pacing pacing(std::uint32_t per_mille, std::uint64_t seed) {
    return per_mille ? rtl::Pacing::random(per_mille, seed) : rtl::Pacing::none();
}

template <class Unit>
struct Host : sc_core::sc_module {
    Unit unit;
    explicit Host(const sc_core::sc_module_name& name)
        : sc_core::sc_module(name), unit(sc_core::sc_time(1, sc_core::SC_NS)) {}
};

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
            driver.pace(pacing(job.gaps_x, job.seed_x), pacing(job.gaps_y, job.seed_y),
                        pacing(job.stalls_z, job.seed_z));
            job.start_ps = sc_core::sc_time_stamp().value();
            try {
                job.cycles = driver.run(job.op, job.len, {job.x.data(), job.y.data(), job.z.data()});
            } catch (const std::exception& e) {
                job.error = e.what();
            }
            job.end_ps = sc_core::sc_time_stamp().value();
        }
    }
};

template <class Driver>
void run_and_check(Driver& driver, int lanes, std::uint64_t seed, int count) {
    Bench<Driver> bench("bench", driver);
    bench.jobs = random_jobs(lanes, seed, count);
    sc_core::sc_start();
    std::uint64_t paced = 0, exact = 0, saturated = 0, prev_end = 0;
    for (std::size_t i = 0; i < bench.jobs.size(); ++i) {
        const Job& job = bench.jobs[i];
        BOOST_TEST_CONTEXT("seed " << seed << ", command " << i << ": "
                                   << kOpNames[static_cast<int>(job.op)] << " over " << job.len
                                   << " on " << lanes << " lanes, gaps " << job.gaps_x << "/"
                                   << job.gaps_y << " per mille, stalls " << job.stalls_z) {
            BOOST_CHECK_EQUAL(job.error, "");
            std::size_t wrong = 0;
            for (std::size_t e = 0; e < job.len; ++e) wrong += job.z[e] != job.want[e];
            BOOST_CHECK_MESSAGE(wrong == 0, wrong << " of " << job.len << " results differ");
            const std::uint64_t beats = (job.len + lanes - 1) / lanes;
            const std::uint64_t nominal = job.len == 0 ? 1 : beats + 3;
            const bool paced_job = job.gaps_x || job.gaps_y || job.stalls_z;
            if (paced_job)
                BOOST_CHECK_GE(job.cycles, nominal);
            else
                BOOST_CHECK_EQUAL(job.cycles, nominal);
            BOOST_CHECK_EQUAL(job.end_ps - job.start_ps, job.cycles * 1000);
            BOOST_CHECK_EQUAL(job.start_ps, prev_end);
            prev_end = job.end_ps;
            paced += paced_job && job.cycles > nominal;
            exact += !paced_job;
            for (std::size_t e = 0; e < job.len; ++e)
                saturated += (job.op == MathUnitOp::add || job.op == MathUnitOp::mul) &&
                             (job.want[e] == std::numeric_limits<std::int32_t>::max() ||
                              job.want[e] == std::numeric_limits<std::int32_t>::min());
        }
    }
    BOOST_TEST_MESSAGE(exact << " exact, " << paced << " slowed, " << saturated
                             << " saturated results");
    // The draw covers what it is meant to (with the fixed seeds).
    BOOST_CHECK_GT(exact, 0u);
    BOOST_CHECK_GT(paced, 0u);
    BOOST_CHECK_GT(saturated, 0u);
    BOOST_CHECK_EQUAL(driver.commands(), bench.jobs.size());
}

// Runs 40-element mul commands on a 3-lane unit: the first with a watchdog
// limit of 10, the second with the automatic one.
struct Runner : sc_core::sc_module {
    MathUnit<Vmath_3, 3, 32>& unit;
    std::vector<std::int32_t> x, y, z;
    std::uint64_t abort_cycles = 0, abort_ps = 0, cycles = 0, end_ps = 0;
    std::string error;
    Runner(const sc_core::sc_module_name& n, MathUnit<Vmath_3, 3, 32>& u)
        : sc_core::sc_module(n), unit(u), x(40), y(40), z(40, 7) {
        for (int i = 0; i < 40; ++i) x[i] = i - 20, y[i] = 3;
        SC_THREAD(body);
    }
    SC_HAS_PROCESS(Runner);
    void body() {
        unit.set_watchdog(10);
        try {
            unit.run(MathUnitOp::mul, 40, {x.data(), y.data(), z.data()});
        } catch (const rtl::RtlAbort& e) {
            abort_cycles = e.cycles;
        } catch (const std::exception& e) {
            error = e.what();
        }
        abort_ps = sc_core::sc_time_stamp().value();
        unit.set_watchdog(0);
        try {
            cycles = unit.run(MathUnitOp::mul, 40, {x.data(), y.data(), z.data()});
        } catch (const std::exception& e) {
            error = e.what();
        }
        end_ps = sc_core::sc_time_stamp().value();
    }
};

}  // namespace

BOOST_AUTO_TEST_CASE(random_math_on_1_lane) {
    Host<MathUnit<Vmath_1, 1, 32>> host("host");
    run_and_check(host.unit, 1, base_seed(22101), 150);
}

BOOST_AUTO_TEST_CASE(random_math_on_3_lanes) {
    Host<MathUnit<Vmath_3, 3, 32>> host("host");
    run_and_check(host.unit, 3, base_seed(22103), 150);
}

BOOST_AUTO_TEST_CASE(random_math_on_the_built_unit) {
    MathRtlDriver driver("rtl", sc_core::sc_time(1, sc_core::SC_NS));
    run_and_check(driver, MathRtlDriver::lanes(), base_seed(22116), 100);
}

BOOST_AUTO_TEST_CASE(math_watchdog_aborts_and_the_next_command_runs) {
    // 40 elements on 3 lanes: 14 beats + 3 = 17 cycles. A limit of 10 aborts
    // after 10 edges (10 ns); the unit is reset, and the same command then
    // takes exactly 17 cycles and computes exactly.
    Host<MathUnit<Vmath_3, 3, 32>> host("host");
    Runner runner("runner", host.unit);
    sc_core::sc_start();
    BOOST_CHECK_EQUAL(runner.error, "");
    BOOST_CHECK_EQUAL(runner.abort_cycles, 10u);
    BOOST_CHECK_EQUAL(runner.abort_ps, 10000u);
    BOOST_CHECK_EQUAL(runner.cycles, 17u);
    BOOST_CHECK_EQUAL(runner.end_ps - runner.abort_ps, 17000u);
    for (int i = 0; i < 40; ++i) BOOST_CHECK_EQUAL(runner.z[i], (i - 20) * 3);
}
