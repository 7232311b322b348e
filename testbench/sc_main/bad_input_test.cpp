// The bad-input suite (issue 21 point 5; docs/limits.md): every class of bad
// input npuvp can be given, one test case per class, each input a row. Every
// row runs the npuvp program as a user would and asserts its exit code (2:
// bad input, 1: the run failed or was stopped) and that the message names the
// file, line and key (or the option, or the PE and command). Every expected
// text is what the rule in docs/limits.md, docs/cli.md or SPEC says the
// message must contain: the place (`file:line:`), the key path, and the bound
// or reason. The suite runs under the sanitizer build in CI, where a crash
// or an undefined conversion fails it.
#include <boost/test/unit_test.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "testbench/harness/onnx_builder.h"
#include "testbench/harness/run_npuvp.h"

namespace {

using npuvp::test::OnnxBuilder;
using npuvp::test::run_npuvp;
using npuvp::test::RunResult;
using npuvp::test::slurp;

std::string source(const std::string& rel) { return std::string(NPUVP_SOURCE_DIR) + "/" + rel; }

struct Case {
    std::string file;      // written with `text` before the run ("" = none)
    std::string text;
    std::string args;      // the command line after the program name
    int code;              // the exit code it must give
    std::vector<std::string> says;  // each must appear in the output
};

void write(const std::string& path, const std::string& text) {
    std::ofstream f(path, std::ios::binary);
    f << text;
}

// Runs each case; returns how many ran (the suite counts them).
int run_cases(const std::vector<Case>& cases) {
    int n = 0;
    for (const Case& c : cases) {
        if (!c.file.empty()) write(c.file, c.text);
        const RunResult r = run_npuvp(c.args);
        BOOST_TEST_CONTEXT("npuvp " << c.args << "\n" << r.out) {
            BOOST_CHECK_EQUAL(r.code, c.code);
            for (const std::string& s : c.says) BOOST_CHECK_MESSAGE(r.out.find(s) != std::string::npos, "lacks: " << s);
            BOOST_CHECK(r.out.find("internal error") == std::string::npos);
        }
        ++n;
    }
    return n;
}

// default.yaml with the first `from` replaced by `to` (one line each, so the
// line numbers stay those of default.yaml).
std::string topo_with(const std::string& from, const std::string& to) {
    std::string t = slurp(source("configs/topologies/default.yaml"));
    const std::size_t at = t.find(from);
    BOOST_REQUIRE_MESSAGE(at != std::string::npos, "default.yaml has no '" + from + "'");
    return t.replace(at, from.size(), to);
}

// A topology case: the edited default.yaml at line `line`, key `key`.
Case topo(const std::string& name, const std::string& from, const std::string& to, int line, const std::string& key,
          const std::string& says) {
    const std::string file = "bad_" + name + ".yaml";
    return {file, topo_with(from, to), "--topology " + file, 2,
            {"npuvp: error: " + file + ":" + std::to_string(line) + ":", key, says}};
}

// A workload case on default.yaml.
Case work(const std::string& name, const std::string& text, int code, std::vector<std::string> says) {
    const std::string file = "bad_" + name + ".yaml";
    return {file, text, "--workload " + file, code, std::move(says)};
}

// One kernel of one command on pe0, as a workload file.
std::string one(const std::string& command) {
    return "name: w\nkernels:\n  k:\n    - " + command + "\nlaunch:\n  - { kernel: k, cube: sip0.cube0, pes: [0] }\n";
}

const std::string gemm_composite =
    "composite: { id: g, gemm: { m: 256, k: 256, n: 256 }, tile: { m: 128, k: 128, n: 128 }, ";

}  // namespace

BOOST_AUTO_TEST_CASE(malformed_yaml_and_files) {
    const std::string dir = "bad_input_dir";
    mkdir(dir.c_str(), 0755);
    write("bad_binary.yaml", std::string("name: w\0\x01\x02", 10));
    const int n = run_cases({
        work("syntax_1", "name: w\nkernels: [\n", 2, {"bad_syntax_1.yaml:", "malformed YAML"}),
        work("syntax_2", "name: w\n  kernels: {}\n", 2, {"bad_syntax_2.yaml:2:", "malformed YAML"}),
        work("syntax_3", "- a\n- b\n", 2, {"bad_syntax_3.yaml:1:1", "must be a map"}),
        work("syntax_4", "", 2, {"bad_syntax_4.yaml", "empty document"}),
        {"bad_topo_syntax.yaml", "name: t\nsystem: {sips: 1\n", "--topology bad_topo_syntax.yaml", 2,
         {"bad_topo_syntax.yaml:", "malformed YAML"}},
        {"", "", "--workload no_such_file.yaml", 2, {"no_such_file.yaml", "cannot open file"}},
        {"", "", "--topology no_such_topology.yaml", 2, {"no_such_topology.yaml", "cannot open file"}},
        {"", "", "--workload " + dir, 2, {dir, "it is a folder, not a file"}},
        {"", "", "--workload bad_binary.yaml", 2, {"bad_binary.yaml", "NUL bytes: a binary file"}},
        {"", "", "--topology /dev/zero", 2, {"/dev/zero", "larger than 16 MiB"}},
        {"bad_sweep.yaml", "topology: [\n", "sweep run bad_sweep.yaml --out bad_sweep_out", 2,
         {"bad_sweep.yaml:", "malformed YAML"}},
    });
    BOOST_TEST_MESSAGE(n << " cases");
}

BOOST_AUTO_TEST_CASE(wrong_types_and_unknown_names) {
    const int n = run_cases({
        topo("type_1", "rd_engines: 1 ", "rd_engines: two ", 81, "pe_dma.attrs.rd_engines", "expected an integer"),
        topo("type_2", "setup_ns: 500.0", "setup_ns: [1]", 83, "pe_dma.attrs.setup_ns", ""),
        topo("type_3", "sips: 1 ", "sips: 1.5 ", 11, "system.sips", "expected an integer"),
        topo("unknown_key", "rd_engines: 1 ", "rd_enginez: 1 ", 81, "pe_dma.attrs", "rd_enginez"),
        topo("unknown_impl", "impl: builtin.pe_dma", "impl: builtin.pe_dmaa", 79, "impl", "builtin.pe_dmaa"),
        work("type_4", one("dma_read: { id: ld, bytes: lots }"), 2, {"bad_type_4.yaml:4:", "dma_read.bytes", "expected an integer"}),
        work("type_5", one("dma_read: { id: ld, bytes: 64, wait: yes }"), 2, {"bad_type_5.yaml:4:", "wait", "expected true or false"}),
        work("unknown_command", one("dma_reed: { id: ld, bytes: 64 }"), 2, {"bad_unknown_command.yaml:4:", "dma_reed"}),
        work("unknown_cmd_key", one("dma_read: { id: ld, byte: 64 }"), 2, {"bad_unknown_cmd_key.yaml:4:", "unknown key 'byte'"}),
        work("unknown_op", one("math: { id: m, op: tanhh, elements: 64 }"), 2, {"bad_unknown_op.yaml:4:", "unknown math op 'tanhh'"}),
        work("unknown_kernel", "name: w\nkernels:\n  k:\n    - dma_read: { id: ld, bytes: 64 }\nlaunch:\n  - { kernel: q, cube: sip0.cube0, pes: [0] }\n",
             2, {"bad_unknown_kernel.yaml:6:", "launch[0].kernel", "'q'"}),
        work("unknown_cube", "name: w\nkernels:\n  k:\n    - dma_read: { id: ld, bytes: 64 }\nlaunch:\n  - { kernel: k, cube: sip0.cube9, pes: [0] }\n",
             2, {"bad_unknown_cube.yaml:6:", "launch[0].cube"}),
        work("bad_pe", "name: w\nkernels:\n  k:\n    - dma_read: { id: ld, bytes: 64 }\nlaunch:\n  - { kernel: k, cube: sip0.cube0, pes: [8] }\n",
             2, {"bad_bad_pe.yaml:6:", "launch[0].pes"}),
        work("dup_id", "name: w\nkernels:\n  k:\n    - dma_read: { id: a, bytes: 64 }\n    - dma_read: { id: a, bytes: 64 }\nlaunch:\n  - { kernel: k, cube: sip0.cube0, pes: [0] }\n",
             2, {"bad_dup_id.yaml:5:", "'a'"}),
        {"", "", "--set cube.pe_template.components.pe_dma.attrs.bw_gbs=fast", 2, {"--set", "bw_gbs"}},
        {"", "", "--set cube.no_such_key=1", 2, {"--set", "no_such_key"}},
        {"", "", "--frobnicate", 2, {"unknown option '--frobnicate'"}},
    });
    BOOST_TEST_MESSAGE(n << " cases");
}

BOOST_AUTO_TEST_CASE(numbers_beyond_their_limits) {
    // docs/limits.md: each unit's range; the message gives the range, the
    // value and the reason.
    const int n = run_cases({
        topo("ns", "setup_ns: 500.0", "setup_ns: 1e12 ", 83, "pe_dma.attrs.setup_ns", "must be in [0, 1e9] ns (got 1e12)"),
        topo("gbs_high", "bw_gbs: 256.0            # CALIBRATION DMA", "bw_gbs: 1e10             # CALIBRATION DMA", 84,
             "pe_dma.attrs.bw_gbs", "must be in [0.001, 1e6] GB/s (got 1e10)"),
        topo("gbs_low", "bw_gbs: 256.0            # CALIBRATION DMA", "bw_gbs: 1e-9             # CALIBRATION DMA", 84,
             "pe_dma.attrs.bw_gbs", "must be in [0.001, 1e6] GB/s"),
        topo("ghz_low", "freq_ghz: 1.0            # CALIBRATION clock 1.0 GHz\n          fill_cycles: 128",
             "freq_ghz: 1e-300         # CALIBRATION clock 1.0 GHz\n          fill_cycles: 128", 99, "pe_gemm.attrs.freq_ghz",
             "must be in [0.001, 1000] GHz"),
        topo("ghz_high", "freq_ghz: 1.0            # CALIBRATION clock 1.0 GHz\n          fill_cycles: 8",
             "freq_ghz: 1e9            # CALIBRATION clock 1.0 GHz\n          fill_cycles: 8", 111, "pe_math.attrs.freq_ghz",
             "must be in [0.001, 1000] GHz"),
        topo("engines", "rd_engines: 1 ", "rd_engines: 2147483647 ", 81, "pe_dma.attrs.rd_engines", "must be in [0, 65536]"),
        topo("cycles", "fill_cycles: 128 ", "fill_cycles: 2000000000 ", 100, "pe_gemm.attrs.fill_cycles", "must be in [0, 1e9] cycles"),
        topo("lanes", "lanes: 512 ", "lanes: 100000 ", 109, "pe_math.attrs.lanes", "must be in [0, 65536]"),
        topo("tcm_mib", "size_mb: 32 ", "size_mb: 4194304 ", 129, "pe_tcm.attrs.size_mb", "must be in [0, 1048576] MiB"),
        topo("slice_gib", "hbm_slice_gb: 6 ", "hbm_slice_gb: 17179869183 ", 55, "memory_map.hbm_slice_gb", "must be in [0, 16384] GiB"),
        topo("latency_neg", "latency_ns: 100.0", "latency_ns: -1.0 ", 45, "hbm_ctrl.attrs.latency_ns", "must be >= 0"),
        work("bytes", one("dma_read: { id: ld, bytes: 2199023255553 }"), 2, {"bad_bytes.yaml:4:", "dma_read.bytes", "must be <= 2^40 bytes"}),
        work("elements", one("gemm: { id: g, m: 8589934592, k: 1, n: 1 }"), 2, {"bad_elements.yaml:4:", "gemm.m", "must be <= 2^32 elements"}),
        work("macs", one("gemm: { id: g, m: 4294967296, k: 4294967296, n: 2 }"), 2, {"bad_macs.yaml:4:", "M·K·N is above 2^62 MACs"}),
        work("tiles", one(gemm_composite.substr(0, gemm_composite.find("gemm:")) +
                          "gemm: { m: 4194304, k: 4194304, n: 128 }, tile: { m: 1, k: 1, n: 128 }, dtype: { in: bf16, out: bf16 } }"),
             2, {"bad_tiles.yaml:4:", "more than 2^40 tiles"}),
        work("too_large", one("dma_read: { id: ld, bytes: 99999999999999999999999 }"), 2, {"bad_too_large.yaml:4:", "too large"}),
        work("negative", one("dma_read: { id: ld, bytes: -5 }"), 2, {"bad_negative.yaml:4:", "must be > 0"}),
        work("start", "name: w\nkernels:\n  k:\n    - dma_read: { id: ld, bytes: 64 }\nhost:\n  - kernel_launch: { kernel: k, cubes: [sip0.cube0], target_pe: 0, target_start_ns: 1e15 }\n",
             2, {"bad_start.yaml:6:", "target_start_ns", "must be <= 1e12 ns"}),
        // Checked arithmetic (docs/limits.md): a stage whose time the inputs
        // alone decide, refused at load. 2^32 gelu at 1e9 cycles each on 512
        // lanes = 2^32 · 1e9 / 512 + 8 ≈ 8.4e15 cycles = 8.4e18 ps at 1 GHz,
        // past the 2^62 ps (4.6e18) stop; the GEMM of 2^62 MACs at 1 MHz is
        // (2^51 + 2^20 + 133) cycles (gemm_cost_test) · 1e6 ps > 2^64 ps.
        {"bad_stage_limit.yaml", one("math: { id: v, op: gelu, elements: 4294967296 }"),
         "--workload bad_stage_limit.yaml --set cube.pe_template.components.pe_math.attrs.op_cost.gelu=1e9", 2,
         {"bad_stage_limit.yaml:4:", "kernels.k[0].math", "math 'v': its stage takes", "beyond the run's limit of 2^62 ps"}},
        {"bad_stage_overflow.yaml", one("gemm: { id: g, m: 4294967296, k: 536870912, n: 2 }"),
         "--workload bad_stage_overflow.yaml --set cube.pe_template.components.pe_gemm.attrs.freq_ghz=0.001", 2,
         {"bad_stage_overflow.yaml:4:", "kernels.k[0].gemm", "gemm 'g': a GEMM stage's time is out of range"}},
        {"", "", "--probe-bytes 0", 2, {"--probe-bytes"}},
        {"", "", "--workload " + source("configs/workloads/gemm_bias_relu.yaml") + " --max-tokens 0", 2, {"--max-tokens: expected"}},
        {"", "", "--workload " + source("configs/workloads/gemm_bias_relu.yaml") + " --max-sim-time -1", 2, {"--max-sim-time: expected"}},
        {"", "", "--workload " + source("configs/workloads/gemm_bias_relu.yaml") + " --power-window 1e3", 2, {"--power-window: expected"}},
    });
    BOOST_TEST_MESSAGE(n << " cases");
}

BOOST_AUTO_TEST_CASE(address_windows_that_overflow_or_overlap) {
    const int n = run_cases({
        topo("sram_overlap", "sram_base: 0x1000000000000", "sram_base: 0x100000     ", 56, "memory_map.sram_base",
             "inside the HBM window [0, 51539607552): the windows must not overlap"),
        topo("sram_huge", "sram_base: 0x1000000000000", "sram_base: 0xFFFFFFFFFFFF0000", 56, "memory_map.sram_base",
             "too large"),
        // The largest HBM window the limits allow (64 cubes of 256 slices of
        // 16 TiB = 2^58 bytes) fits 64 bits; it runs over the default SRAM
        // window at 2^48.
        {"", "", "--set system.cubes_per_sip=64 --set cube.memory_map.hbm_slice_gb=16384 --set cube.pe_layout.rows=16 "
                 "--set cube.pe_layout.cols=16 --set cube.memory_map.hbm_slices_per_cube=256",
         2, {"cube.memory_map.sram_base", "inside the HBM window [0, 288230376151711744): the windows must not overlap"}},
    });
    BOOST_TEST_MESSAGE(n << " cases");
}

BOOST_AUTO_TEST_CASE(transfers_beyond_capacity) {
    // default.yaml: TCM 32 MiB, 8 reserved: 24 MiB = 25165824 allocatable
    // bytes; HBM slices of 6 GiB = 6442450944 bytes, 8 of them; SRAM at
    // 2^48, 64 MiB; IPCQ rings of 16 slots × 4 KiB = 65536 bytes.
    const int n = run_cases({
        work("tcm", one("dma_read: { id: ld, bytes: 1073741824 }"), 2,
             {"bad_tcm.yaml:4:", "dma_read.bytes", "1073741824 bytes do not fit the PE's allocatable TCM (25165824 bytes"}),
        work("tcm_write", one("dma_write: { id: st, bytes: 25165825 }"), 2, {"bad_tcm_write.yaml:4:", "do not fit the PE's allocatable TCM"}),
        work("hbm_end", one("dma_read: { id: ld, bytes: 8192, addr: { pa: 51539603456 } }"), 2,
             {"bad_hbm_end.yaml:4:", "dma_read.addr", "runs past the end of HBM slice 7 [45097156608, 51539607552)"}),
        work("slice_end", one("dma_read: { id: ld, bytes: 8192, addr: { pa: 6442446848 } }"), 2,
             {"bad_slice_end.yaml:4:", "runs past the end of HBM slice 0"}),
        work("own_end", one("dma_read: { id: ld, bytes: 8192, addr: { own: 6442446848 } }"), 2,
             {"bad_own_end.yaml:4:", "runs past the end of its PE's own HBM slice"}),
        work("no_window", one("dma_read: { id: ld, bytes: 64, addr: { pa: 0x900000000000 } }"), 2,
             {"bad_no_window.yaml:4:", "is in no memory window"}),
        work("sram_end", one("dma_write: { id: st, bytes: 4096, addr: { pa: 281475043815425 } }"), 2,
             {"bad_sram_end.yaml:4:", "runs past the end of the shared SRAM window"}),
        work("composite_src", one(gemm_composite + "dtype: { in: bf16, out: bf16 }, src: { own: 6442450000 } }"), 2,
             {"bad_composite_src.yaml:4:", "composite.src", "A and B"}),
        work("composite_dst", one(gemm_composite + "dtype: { in: bf16, out: bf16 }, dst: { pa: 51539607000 } }"), 2,
             {"bad_composite_dst.yaml:4:", "composite.dst", "C (M·N·d_out)"}),
        work("broadcast", one("dma_read: { id: ld, bytes: 8388608, pattern: broadcast, copies: 4 }"), 2,
             {"bad_broadcast.yaml:4:", "copies of 8388608 bytes do not fit the allocatable TCM"}),
        // A message larger than a ring could never be sent or received (the
        // run would only stop on it).
        work("ipcq_send_ring", one("ipcq_send: { id: s, peer: 1, bytes: 65537 }"), 2,
             {"bad_ipcq_send_ring.yaml:4:", "ipcq_send.bytes", "65537 bytes can never be in an IPCQ ring of 16 slots × 4096 B = 65536 bytes"}),
        work("ipcq_recv_ring", one("ipcq_recv: { id: r, bytes: 65537 }"), 2,
             {"bad_ipcq_recv_ring.yaml:4:", "ipcq_recv.bytes", "can never be in an IPCQ ring"}),
    });
    BOOST_TEST_MESSAGE(n << " cases");
}

BOOST_AUTO_TEST_CASE(mmu_mappings_that_collide) {
    const std::string k = "name: w\nkernels:\n  k:\n    - dma_read: { id: ld, bytes: 64, addr: { va: 0x40000000 } }\n"
                          "launch:\n  - { kernel: k, cube: sip0.cube0, pes: [0] }\n";
    const int n = run_cases({
        work("mmu_dup", k + "mmu:\n  - { cube: sip0.cube0, pes: [0], va: 0x40000000, pa: 0x0, bytes: 0x200000 }\n"
                            "  - { cube: sip0.cube0, pes: [0, 1], va: 0x40100000, pa: 0x400000, bytes: 0x10000 }\n",
             2, {"bad_mmu_dup.yaml:9:", "mmu[1] maps va [1074790400, 1074855936) on sip0.cube0.pe0, where mmu[0] already maps"}),
        work("mmu_window", k + "mmu:\n  - { cube: sip0.cube0, pes: [0], va: 0x40000000, pa: 0x900000000000, bytes: 0x10000 }\n",
             2, {"bad_mmu_window.yaml:8:", "is not inside one memory window"}),
        work("mmu_host", k + "mmu:\n  - { cube: sip0.cube0, pes: [0], va: 0x40000000, pa: 0x0, bytes: 0x10000 }\n"
                             "host:\n  - mmu_map: { cubes: [sip0.cube0], target_pe: 0, va: 0x40000000, pa: 0x10000, bytes: 0x10000 }\n",
             2, {"bad_mmu_host.yaml:10:", "host request 'r0' maps va", "where mmu[0] already maps"}),
        work("mmu_page", k + "mmu:\n  - { cube: sip0.cube0, pes: [0], va: 0x40000001, pa: 0x0, bytes: 0x10000 }\n",
             2, {"bad_mmu_page.yaml:8:", "mmu[0].va", "multiple of the PE_MMU page size"}),
        work("mmu_many", k + "mmu:\n  - { cube: sip0.cube0, pes: all, va: 0x0, pa: 0x0, bytes: 0xC00000000 }\n",
             2, {"bad_mmu_many.yaml:8:", "maps more than 4194304 pages"}),
    });
    BOOST_TEST_MESSAGE(n << " cases");
}

BOOST_AUTO_TEST_CASE(programs_that_deadlock_or_are_stopped) {
    // Exit 1, never 0: the diagnosis names the PE, the command and what it
    // waits on.
    const int n = run_cases({
        work("ipcq_unmatched", one("ipcq_send: { id: send, peer: 1, bytes: 65536 }"), 1,
             {"npuvp: run failed", "sip0.cube0.pe1: 65536 bytes sent into its IPCQ ring (ipcq_send) were never received"}),
        work("ipcq_recv", one("ipcq_recv: { id: recv, bytes: 65536, wait: true }"), 1,
             {"sip0.cube0.pe0: kernel 'k' did not finish", "'recv' waits for 65536 bytes in sip0.cube0.pe0's IPCQ ring, which holds 0"}),
        work("ipcq_full",
             "name: w\nkernels:\n  k:\n" + std::string("    - ipcq_send: { id: s1, peer: 1, bytes: 65536 }\n") +
                 "    - ipcq_send: { id: s2, peer: 1, bytes: 65536, wait: true }\nlaunch:\n  - { kernel: k, cube: sip0.cube0, pes: [0] }\n",
             1, {"'s2' waits for room in sip0.cube0.pe1's IPCQ ring (65536 of 65536 bytes held"}),
        {"", "", "--workload " + source("configs/workloads/host_watchdog.yaml"), 1, {"npuvp: run failed", "host request"}},
        // A launch the device holds for one that never finishes.
        work("device_held",
             "name: w\nkernels:\n  stuck:\n    - ipcq_recv: { bytes: 64 }\n  k:\n    - math: { op: relu, elements: 512 }\n"
             "host:\n  - kernel_launch: { id: a, kernel: stuck, target_pe: [0] }\n"
             "  - kernel_launch: { id: b, kernel: k, target_pe: [1], resolve_after: device }\n",
             1, {"host request 'b' (kernel_launch) incomplete: 0 of 1 cubes answered (resolve_after: device: its M_CPUs hold it "
                 "until 'a' completes)"}),
        {"", "", "--workload " + source("configs/workloads/mmu_fault.yaml"), 1, {"MMU fault: command"}},
        {"", "", "--workload " + source("configs/workloads/gemm_all_pes.yaml") + " --max-tokens 10", 1,
         {"npuvp: run stopped: --max-tokens 10 reached (", "did not finish"}},
        {"", "", "--workload " + source("configs/workloads/gemm_all_pes.yaml") + " --max-sim-time 1000", 1,
         {"npuvp: run stopped: --max-sim-time reached at 1000.000 ns (the last event before it at"}},
    });
    BOOST_TEST_MESSAGE(n << " cases");
}

BOOST_AUTO_TEST_CASE(outputs_that_cannot_be_written) {
    const std::string w = "--workload " + source("configs/workloads/gemm_bias_relu.yaml");
    const int n = run_cases({
        {"", "", w + " --trace no_dir/t.jsonl", 2, {"--trace: cannot write 'no_dir/t.jsonl': the folder 'no_dir' does not exist"}},
        {"", "", w + " --vcd no_dir/v.vcd", 2, {"--vcd: cannot write 'no_dir/v.vcd'"}},
        {"", "", w + " --vcd no_dir/v.fst", 2, {"--vcd: cannot write 'no_dir/v.fst': the folder 'no_dir' does not exist"}},
        {"", "", w + " --vcd v.txt", 2, {"--vcd: the file name must end in .vcd or .fst, got 'v.txt'"}},
        {"", "", w + " --report r.html", 2, {"--report: 'r.html' must end in .json or .md"}},
        {"", "", w + " --summary no_dir/s.json", 2, {"--summary: cannot write"}},
        {"", "", w + " --timeline ''", 2, {"--timeline: cannot write '': the path is empty"}},
        {"", "", "--summary s.json", 2, {"--summary: it describes one --workload or --model run"}},
    });
    BOOST_TEST_MESSAGE(n << " cases");
}

// Issue 39 point 7: a write that fails (a full disk: /dev/full behind a
// name each output accepts) fails the run, naming the option and the file,
// and leaves no partial file (the VCD's kernel file beside it included).
BOOST_AUTO_TEST_CASE(outputs_on_a_full_device) {
    const std::string w = "--workload " + source("configs/workloads/gemm_bias_relu.yaml");
    const std::vector<std::string> names = {"full.jsonl", "full.bin", "full.json", "full.svg",
                                            "full.md",    "full.vcd", "full.fst"};
    for (const std::string& name : names) {
        std::remove(name.c_str());
        BOOST_REQUIRE_EQUAL(symlink("/dev/full", name.c_str()), 0);
    }
    ::mkdir("full_dumps", 0755);
    std::remove("full_dumps/gemm_bias_relu_data_c.bin");
    BOOST_REQUIRE_EQUAL(symlink("/dev/full", "full_dumps/gemm_bias_relu_data_c.bin"), 0);
    const int n = run_cases({
        {"", "", w + " --trace full.jsonl", 1, {"--trace: writing 'full.jsonl' failed"}},
        {"", "", w + " --trace-binary full.bin", 1, {"--trace-binary: writing 'full.bin' failed"}},
        {"", "", w + " --timeline full.json", 1, {"--timeline: writing 'full.json' failed"}},
        {"", "", w + " --svg full.svg", 1, {"--svg: writing 'full.svg' failed"}},
        {"", "", w + " --report full.json", 1, {"--report: writing 'full.json' failed"}},
        {"", "", w + " --report full.md", 1, {"--report: writing 'full.md' failed"}},
        {"", "", w + " --vcd full.vcd", 1, {"--vcd: writing 'full.vcd' failed"}},
        // FST: written to a scratch file, read back, then copied into place.
        {"", "", w + " --vcd full.fst", 1, {"--vcd: writing 'full.fst' failed"}},
        {"", "", w + " --summary full.json", 2, {"--summary: cannot write 'full.json'", "No space left on device"}},
        {"", "", "--workload " + source("configs/workloads/gemm_bias_relu_data.yaml") + " --dump-dir full_dumps", 2,
         {"gemm_bias_relu_data.yaml:33:5: dump[0]: cannot write full_dumps/gemm_bias_relu_data_c.bin",
          "No space left on device"}},
    });
    BOOST_TEST_MESSAGE(n << " cases");
    // The kernel's VCD (full.tmp.<pid>.vcd) and the FST's scratch file
    // (full.tmp.<pid>.fst) went with the failed run.
    for (const auto& f : std::filesystem::directory_iterator("."))
        BOOST_CHECK_MESSAGE(f.path().filename().string().rfind("full.tmp.", 0) != 0, "left behind: " << f.path());
}

BOOST_AUTO_TEST_CASE(sweep_files) {
    const std::string head = "name: s\ntopology: " + source("configs/topologies/default.yaml") +
                             "\nworkload: " + source("configs/workloads/gemm_bias_relu.yaml") +
                             "\naxes:\n  - key: cube.pe_template.components.pe_dma.attrs.bw_gbs\n    values: [64, 128]\n";
    auto sweep = [&](const std::string& name, const std::string& tail, std::vector<std::string> says) {
        const std::string file = "bad_sweep_" + name + ".yaml";
        return Case{file, head + tail, "sweep run " + file + " --out bad_sweep_" + name + "_out", 2, std::move(says)};
    };
    const int n = run_cases({
        // A constraint nested past the parser's depth once overflowed the stack.
        sweep("deep", "constraints:\n  - " + std::string(5000, '(') + "1" + std::string(5000, ')') + "\n",
              {"bad_sweep_deep.yaml:8:", "nested more than 256 deep"}),
        sweep("nots", "constraints:\n  - " + [] { std::string t; for (int i = 0; i < 300; ++i) t += "not "; return t + "1"; }() + "\n",
              {"bad_sweep_nots.yaml:8:", "nested more than 256 deep"}),
        // A division by zero once gave NaN, counted as true.
        sweep("div0", "constraints:\n  - bw_gbs / 0 > 1\n", {"bad_sweep_div0.yaml:8:", "division by zero"}),
        sweep("mod0", "constraints:\n  - bw_gbs % 0 == 1\n", {"bad_sweep_mod0.yaml:8:", "modulo by zero"}),
        sweep("unknown_name", "constraints:\n  - bandwidth > 1\n", {"bad_sweep_unknown_name.yaml:8:", "bandwidth"}),
        sweep("unknown_key", "colour: red\n", {"bad_sweep_unknown_key.yaml:7:", "colour"}),
        // A point whose --set names no key fails when it runs: exit 1, each
        // point's error in its result.
        Case{"bad_sweep_set.yaml", head + "  - key: cube.no_such.attrs.x\n    values: [1]\n",
             "sweep run bad_sweep_set.yaml --out bad_sweep_set_out", 1, {"2 failed"}},
    });
    BOOST_TEST_MESSAGE(n << " cases");
}

BOOST_AUTO_TEST_CASE(data_that_cannot_be_loaded) {
    // Data mode (docs/workload.md "Operand data"): every bad `data` / `dump`
    // entry is exit 2 naming the file, the line of the entry (line 8 below,
    // the second entry line 9; the composite line 4) and the key.
    const std::string composite =
        "composite: { id: g, gemm: { m: 16, k: 16, n: 16 }, tile: { m: 16, k: 16, n: 16 }, dtype: { in: int8, out: int32 }";
    auto data = [&](const std::string& name, const std::string& entries, std::vector<std::string> says,
                    const std::string& extra = " }", const std::string& in = "int8") {
        std::string c = composite + extra;
        if (in != "int8") c.replace(c.find("in: int8"), 8, "in: " + in);
        return work(name, one(c) + "data:\n" + entries, 2, std::move(says));
    };
    write("short.bin", std::string(8, '\x01'));
    const std::string rnd = "from: { random: { seed: 1 } } }\n";
    const int n = run_cases({
        data("data_missing_file", "  - { hbm: 0, bytes: 16, from: { file: no_such.bin } }\n",
             {"bad_data_missing_file.yaml:8:", "data[0].from.file", "cannot open"}),
        data("data_short_file", "  - { hbm: 0, bytes: 16, from: { file: short.bin } }\n",
             {"bad_data_short_file.yaml:8:", "data[0].from.file", "has 8 bytes, fewer than the 16"}),
        data("data_outside", "  - { hbm: 0xC00000000, dtype: int8, shape: [16], " + rnd,
             {"bad_data_outside.yaml:8:", "data[0].hbm", "outside the HBM window"}),
        data("data_sram_outside", "  - { sram: 0x10, dtype: int8, shape: [16], " + rnd,
             {"bad_data_sram_outside.yaml:8:", "data[0].sram", "outside the shared SRAM window"}),
        data("data_overlap", "  - { hbm: 0, dtype: int8, shape: [64], " + rnd + "  - { hbm: 32, dtype: int8, shape: [64], " + rnd,
             {"bad_data_overlap.yaml:9:", "data[1]", "overlaps data[0]"}),
        data("data_two_sizes", "  - { hbm: 0, bytes: 16, dtype: int8, shape: [16], " + rnd,
             {"bad_data_two_sizes.yaml:8:", "data[0]", "give 'bytes', or 'dtype' and 'shape'"}),
        data("data_zero_dim", "  - { hbm: 0, dtype: int8, shape: [16, 0], " + rnd,
             {"bad_data_zero_dim.yaml:8:", "data[0].shape[1]"}),
        data("data_unknown_dtype", "  - { hbm: 0, dtype: int4, shape: [16], " + rnd,
             {"bad_data_unknown_dtype.yaml:8:", "data[0].dtype", "dtype 'int4' has no data mode"}),
        data("data_bf16", "  - { hbm: 0, dtype: bf16, shape: [16], " + rnd,
             {"bad_data_bf16.yaml:8:", "data[0].dtype", "dtype 'bf16' has no data mode"}),
        data("data_shape_overflow", "  - { hbm: 0, dtype: int32, shape: [4294967296, 4294967296, 16], " + rnd,
             {"bad_data_shape_overflow.yaml:8:", "data[0].shape", "overflow 64 bits"}),
        data("data_tcm_reserved", "  - { tcm: 0, pe: 0, dtype: int32, shape: [16], " + rnd,
             {"bad_data_tcm_reserved.yaml:8:", "data[0].tcm", "not inside AllocatableTCM"}),
        data("data_cube_on_hbm", "  - { hbm: 0, cube: sip0.cube0, dtype: int8, shape: [16], " + rnd,
             {"bad_data_cube_on_hbm.yaml:8:", "data[0].cube", "applies to 'tcm' only"}),
        data("data_random_no_dtype", "  - { hbm: 0, bytes: 16, " + rnd,
             {"bad_data_random_no_dtype.yaml:8:", "data[0].from.random", "random values need"}),
        data("data_min_above_max", "  - { hbm: 0, dtype: int8, shape: [16], from: { random: { seed: 1, min: 5, max: 4 } } }\n",
             {"bad_data_min_above_max.yaml:8:", "data[0].from.random.min", "min 5 is above max 4"}),
        data("data_min_range", "  - { hbm: 0, dtype: int8, shape: [16], from: { random: { seed: 1, min: -129 } } }\n",
             {"bad_data_min_range.yaml:8:", "data[0].from.random.min", "outside int8 [-128, 127]"}),
        data("data_bf16_composite", "  - { hbm: 0, dtype: int8, shape: [16], " + rnd,
             {"bad_data_bf16_composite.yaml:4:", "dtype.in", "dtype.in must be int8"}, " }", "bf16"),
        data("data_bias_no_operand", "  - { hbm: 0, dtype: int8, shape: [16], " + rnd,
             {"bad_data_bias_no_operand.yaml:4:", "epilogues[0].op", "needs 'operand'"},
             ", epilogues: [ { op: bias_add } ] }"),
        data("data_exp", "  - { hbm: 0, dtype: int8, shape: [16], " + rnd,
             {"bad_data_exp.yaml:4:", "epilogues[0].op", "epilogue exp has no data mode"},
             ", epilogues: [ { op: exp } ] }"),
        data("data_operand_outside", "  - { hbm: 0, dtype: int8, shape: [16], " + rnd,
             {"bad_data_operand_outside.yaml:4:", "epilogues[0].operand", "not inside AllocatableTCM"},
             ", epilogues: [ { op: bias_add, operand: 0x100 } ] }"),
        work("operand_without_data", one(composite + ", epilogues: [ { op: bias_add, operand: 0x900000 } ] }"), 2,
             {"bad_operand_without_data.yaml:4:", "epilogues[0].operand", "data mode only"}),
        // A dump into a folder that does not exist: before the run.
        work("dump_unwritable", one(composite + " }") + "dump:\n  - { hbm: 0, bytes: 16, file: no_dir/c.bin }\n", 2,
             {"bad_dump_unwritable.yaml:8:", "dump[0].file", "the folder 'no_dir' does not exist"}),
    });
    BOOST_TEST_MESSAGE(n << " cases");
}

BOOST_AUTO_TEST_CASE(onnx_models_that_are_malformed_or_too_large) {
    // --model (docs/models.md "Import" and "Limits"; issue 39 point 11): an
    // ONNX file is untrusted input. Each model is built here with the ONNX
    // protobuf classes, written as bad_model_<name>.onnx, and run; each must
    // give exit 2 and a message naming the file, the node or tensor, and
    // what is wrong (the bound, for a limit).
    auto model = [](const std::string& name, const OnnxBuilder& b, std::vector<std::string> says) {
        const std::string file = "bad_model_" + name + ".onnx";
        says.insert(says.begin(), "npuvp: error: " + file + ": ");
        return Case{file, b.bytes(), "--model " + file, 2, std::move(says)};
    };
    auto bytes_case = [](const std::string& name, const std::string& bytes, std::vector<std::string> says) {
        const std::string file = "bad_model_" + name + ".onnx";
        says.insert(says.begin(), "npuvp: error: " + file + ": ");
        return Case{file, bytes, "--model " + file, 2, std::move(says)};
    };
    std::vector<Case> cases;
    // A cycle: a reads q, which r makes from a's output.
    {
        OnnxBuilder b;
        b.input("x", {1, 4}).output("y", {1, 4});
        b.node("Add", "a", {"x", "q"}, {"p"});
        b.node("Relu", "r", {"p"}, {"q"});
        b.node("Relu", "out", {"p"}, {"y"});
        cases.push_back(model("cycle", b, {"node 'a' (Add): the graph has a cycle through this node"}));
    }
    // A node that reads a tensor nothing makes.
    {
        OnnxBuilder b;
        b.input("x", {1, 4}).output("y", {1, 4});
        b.node("Add", "a", {"x", "ghost"}, {"y"});
        cases.push_back(model("missing_input", b, {"node 'a' (Add): input 'ghost' is missing: no node produces it"}));
    }
    // A graph output nothing makes.
    {
        OnnxBuilder b;
        b.input("x", {1, 4}).output("y", {1, 4}).output("z", {1, 4});
        b.node("Relu", "r", {"x"}, {"y"});
        cases.push_back(model("missing_output", b, {"graph output 'z' is missing"}));
    }
    // Two nodes that make one tensor.
    {
        OnnxBuilder b;
        b.input("x", {1, 4}).output("y", {1, 4});
        b.node("Relu", "a", {"x"}, {"y"});
        b.node("Sigmoid", "b", {"x"}, {"y"});
        cases.push_back(model("two_producers", b, {"node 'b' (Sigmoid): output 'y' is also an output of node 'a'"}));
    }
    // Huge dimensions: beyond the 2^40 elements of a tensor, and beyond 64 bits.
    {
        OnnxBuilder b;
        b.input("x", {1ll << 31, 1ll << 31}).output("y", {1ll << 31, 1ll << 31});
        b.node("Relu", "r", {"x"}, {"y"});
        cases.push_back(model("huge_dims", b, {"graph input 'x' of shape [2147483648, 2147483648] has 4611686018427387904 "
                                               "elements, more than the limit of 2^40", "docs/models.md \"Limits\""}));
    }
    {
        OnnxBuilder b;
        b.input("x", {1, 4}).weight("w", {1ll << 62, 8, 4}).output("y", {1, 4});
        b.node("Relu", "r", {"x"}, {"y"});
        cases.push_back(model("dims_beyond_64_bits", b, {"initializer 'w' of dims [4611686018427387904, 8, 4] has 2^64 or "
                                                         "more elements, more than the limit of 2^40"}));
    }
    // A shape that only shape inference makes huge: Expand to [2^21, 2^21, 4].
    {
        OnnxBuilder b;
        b.input("x", {1, 4}).int64s("shape", {1ll << 21, 1ll << 21, 4}).output("y", {});
        b.g->mutable_output(0)->mutable_type()->mutable_tensor_type()->clear_shape();
        b.node("Expand", "big", {"x", "shape"}, {"y"});
        cases.push_back(model("inferred_huge", b, {"tensor 'y' of shape [2097152, 2097152, 4] has 17592186044416 elements, "
                                                   "more than the limit of 2^40"}));
    }
    // A negative dimension of a weight.
    {
        OnnxBuilder b;
        b.input("x", {1, 4}).weight("w", {4, -2}).output("y", {1, 4});
        b.node("Relu", "r", {"x"}, {"y"});
        cases.push_back(model("negative_dim", b, {"initializer 'w' has a negative dimension: [4, -2]"}));
    }
    // 33 dimensions.
    {
        OnnxBuilder b;
        b.input("x", std::vector<std::int64_t>(33, 1)).output("y", {1});
        b.node("Relu", "r", {"x"}, {"y"});
        cases.push_back(model("rank", b, {"graph input 'x' has 33 dimensions, more than the limit of 32"}));
    }
    // 10 001 nodes.
    {
        OnnxBuilder b;
        b.input("x", {1, 4}).output("c10000", {1, 4});
        for (int i = 0; i <= 10000; ++i)
            b.node("Relu", "r" + std::to_string(i), {i == 0 ? "x" : "c" + std::to_string(i - 1)}, {"c" + std::to_string(i)});
        cases.push_back(model("too_many_nodes", b, {"the graph has 10001 nodes, more than the limit of 10000"}));
    }
    // A 5000-byte node name (the message shows its first 200 bytes).
    {
        OnnxBuilder b;
        b.input("x", {1, 4}).output("y", {1, 4});
        b.node("Relu", std::string(5000, 'n'), {"x"}, {"y"});
        cases.push_back(model("long_name", b, {"node 0: its name '" + std::string(200, 'n') + "... (5000 bytes)' is 5000 "
                                               "bytes long, more than the limit of 4096"}));
    }
    // An attribute with 65 537 values.
    {
        OnnxBuilder b;
        b.input("x", {1, 4}).output("y", {4, 1});
        OnnxBuilder::ints(b.node("Transpose", "t", {"x"}, {"y"}), "perm", std::vector<std::int64_t>(65537, 0));
        cases.push_back(model("long_attribute", b, {"node 't' (Transpose): attribute 'perm' has 65537 values, more than "
                                                    "the limit of 65536"}));
    }
    // An initializer whose data is not as long as its dims say.
    {
        OnnxBuilder b;
        b.input("x", {1, 2}).weight("w", {2}).output("y", {1, 2});
        b.g->mutable_initializer(0)->set_raw_data("abc");
        b.node("Add", "a", {"x", "w"}, {"y"});
        cases.push_back(model("short_data", b, {"initializer 'w' has 3 bytes of raw data; its dims [2] of 4-byte elements need 8"}));
    }
    // A node ONNX's schema refuses (a MatMul of one input), one of another
    // domain, and one with a subgraph.
    {
        OnnxBuilder b;
        b.input("x", {4, 4}).output("y", {4, 4});
        b.node("MatMul", "mm", {"x"}, {"y"});
        cases.push_back(model("schema", b, {"node 'mm' (MatMul): not a valid MatMul of ONNX opset 17"}));
    }
    {
        OnnxBuilder b;
        b.input("x", {1, 4}).output("y", {1, 4});
        b.node("Relu", "r", {"x"}, {"y"})->set_domain("com.example");
        cases.push_back(model("domain", b, {"node 'r' (Relu): an operator of domain 'com.example': unsupported"}));
    }
    // No ONNX opset.
    {
        OnnxBuilder b;
        b.m.clear_opset_import();
        b.input("x", {1, 4}).output("y", {1, 4});
        b.node("Relu", "r", {"x"}, {"y"});
        cases.push_back(model("no_opset", b, {"it imports no version of the ONNX operator set"}));
    }
    // A convolution whose group does not divide its channels, and one of
    // more GEMMs than the limit.
    {
        OnnxBuilder b;
        b.input("x", {1, 4, 8, 8}).weight("w", {6, 2, 1, 1}).output("y", {1, 6, 8, 8});
        OnnxBuilder::attr(b.node("Conv", "conv", {"x", "w"}, {"y"}), "group", 3);
        cases.push_back(model("conv_group", b, {"node 'conv' (Conv): group 3 does not divide its 4 input and 6 output channels"}));
    }
    {
        OnnxBuilder b;
        b.input("x", {1, 16384, 1, 1}).weight("w", {16384, 2, 1, 1}).output("y", {1, 16384, 1, 1});
        OnnxBuilder::attr(b.node("Conv", "conv", {"x", "w"}, {"y"}), "group", 8192);
        cases.push_back(model("conv_groups", b, {"node 'conv' (Conv): group 8192: more than the limit of 4096 GEMMs in one layer"}));
    }
    // What fuzz_model found (docs/fuzzing.md): a Conv whose X has 2
    // dimensions and W 3 crashed libonnx's shape inference; now refused
    // before it runs. And a Transpose whose perm is not a permutation.
    {
        OnnxBuilder b;
        b.m.mutable_opset_import(0)->set_version(11);
        b.input("x", {32, 8}).input("w", {1, 3, 1});
        b.g->add_output()->set_name("y");
        b.node("Conv", "conv", {"x", "w"}, {"y"});
        cases.push_back(model("conv_rank", b, {"node 'conv' (Conv): input X has 2 dimensions: it needs N x C x at least "
                                               "one spatial one"}));
    }
    {
        OnnxBuilder b;
        b.input("x", {1, 8, 4, 4}).weight("w", {8, 8, 3}).output("y", {1, 8, 4, 4});
        b.node("Conv", "conv", {"x", "w"}, {"y"});
        cases.push_back(model("conv_w_rank", b, {"node 'conv' (Conv): weight W has 3 dimensions, input X 4: they must agree"}));
    }
    {
        // Its second: a stride of 0 made libonnx divide by zero.
        OnnxBuilder b;
        b.input("x", {1, 8, 4, 4}).weight("w", {8, 8, 3, 3}).output("y", {1, 8, 4, 4});
        OnnxBuilder::ints(b.node("Conv", "conv", {"x", "w"}, {"y"}), "strides", {0, 1});
        cases.push_back(model("conv_stride", b, {"node 'conv' (Conv): attribute 'strides' [0, 1]: each value must be in [1, 2^31]"}));
    }
    {
        OnnxBuilder b;
        b.input("x", {1, 4}).output("y", {4, 1});
        OnnxBuilder::ints(b.node("Transpose", "t", {"x"}, {"y"}), "perm", {1, 7});
        cases.push_back(model("perm", b, {"node 't' (Transpose): attribute 'perm' [1, 7] is not a permutation of X's 2 dimensions"}));
    }
    {
        // Its fourth (run 12): a LayerNormalization of a scalar, whose Mean
        // and InvStdDev outputs libonnx shaped from X's dimension at the
        // axis, read before the shape's start (a SEGV); the same with an
        // axis below -rank.
        OnnxBuilder b;
        b.weight("x", {}).weight("s", {});
        for (const char* out : {"y", "mean", "inv"}) b.g->add_output()->set_name(out);
        b.node("LayerNormalization", "ln", {"x", "s"}, {"y", "mean", "inv"});
        cases.push_back(model("ln_scalar", b, {"node 'ln' (LayerNormalization): input X is a scalar: it needs at least one "
                                               "dimension to normalise over"}));
    }
    {
        OnnxBuilder b;
        b.input("x", {2, 3}).weight("s", {3});
        for (const char* out : {"y", "mean", "inv"}) b.g->add_output()->set_name(out);
        OnnxBuilder::attr(b.node("LayerNormalization", "ln", {"x", "s"}, {"y", "mean", "inv"}), "axis", -7);
        cases.push_back(model("ln_axis", b, {"node 'ln' (LayerNormalization): attribute 'axis' -7 is outside X's 2 "
                                             "dimensions [-2, 1]"}));
    }
    {
        // Run 14's slow units: a Transpose whose share on a PE is more than
        // the PE's HBM slice (6 GiB on default.yaml) was mapped into a
        // workload of hundreds of reads the loader then refused at a line
        // of the generated file, seconds later; the mapper refuses it,
        // naming the node. 2^40 floats, copied by the PEs in shares of 2^38
        // bytes from their own slices (as run 14's input).
        OnnxBuilder b;
        b.input("x", {std::int64_t{1} << 40}).output("y", {std::int64_t{1} << 40});
        b.node("Transpose", "t", {"x"}, {"y"});
        cases.push_back(model("transpose_slice", b, {"node 't' (Transpose): a PE's share is ",
                                                     " bytes in its own HBM slice, more than the slice's 6442450944 "
                                                     "(cube.memory_map.hbm_slice_bytes): the network does not fit "
                                                     "this machine"}));
    }
    {
        // Run 16's out-of-memory (finding 5): the same for an elementwise
        // op, one composite on a share of 2^38 bytes in each PE's slice,
        // whose mapped workload took 2.5 GB under the sanitizers on the
        // harness's two-SIP topology.
        OnnxBuilder b;
        b.input("x", {std::int64_t{1} << 40}).output("y", {std::int64_t{1} << 40});
        b.node("Clip", "c", {"x"}, {"y"});
        cases.push_back(model("clip_slice", b, {"node 'c' (Clip): a PE's share is ",
                                                " bytes in its own HBM slice, more than the slice's 6442450944 "}));
    }
    // Truncated protobuf bytes: a whole model cut at several places.
    {
        OnnxBuilder b;
        b.input("x", {1, 800}).weight("w", {800, 256}).output("y", {1, 256});
        b.node("MatMul", "fc", {"x", "w"}, {"y"});
        const std::string whole = b.bytes();
        for (const std::size_t keep : {std::size_t{1}, whole.size() / 3, whole.size() / 2, whole.size() - 1})
            cases.push_back(bytes_case("truncated_" + std::to_string(keep), whole.substr(0, keep),
                                       {"not an ONNX model (it does not parse as a ModelProto with a graph: truncated"}));
    }
    const int n = run_cases(cases);
    BOOST_TEST_MESSAGE(n << " cases");
}
