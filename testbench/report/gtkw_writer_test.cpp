// The waves' last pass and the GTKWave save file (report/vcd_finish.h,
// report/gtkw_writer.h, report/fst_writer.h; docs/outputs.md "Waveforms"):
// an idle command number becomes z, each signal's busy time is measured,
// the save file orders its groups by that time and folds the never-busy
// signals, and a filter file names each PE's commands. The VCDs are written
// by hand as SystemC writes them; every expected figure is worked out in the
// comments. cli_gtkwave_test opens a real run's files in GTKWave itself.
#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "report/fst_writer.h"
#include "report/gtkw_writer.h"
#include "report/vcd_finish.h"

using namespace npuvp;

namespace {

const std::string ones(32, '1');  // -1 as SystemC writes a 32-bit value

// A kernel VCD: pe0's GEMM (busy, cmd, tile) and its DMA's idle write
// channel, M_CPU's read channel that never moves, and a fill level at -1's
// bits that is not a command number. The GEMM runs command 3 tile 0 from
// 100 to 400 ps and command 4 tile 7 from 400 to 600 ps; it ends idle at 1000.
void write_kernel_vcd(const std::string& path) {
    std::ofstream f(vcd_kernel_path(path), std::ios::binary);
    f << "$date\n     Dec 05, 2026  06:00:00\n$end\n\n$timescale\n     1 ps\n$end\n\n"
         "$scope module SystemC $end\n$scope module sip0 $end\n$scope module cube0 $end\n"
         "$scope module m_cpu $end\n$scope module dma_read $end\n"
         "$var wire   32  aaaaa  in_use [31:0]  $end\n$upscope $end\n$upscope $end\n"
         "$scope module pe0 $end\n$scope module pe_dma $end\n$scope module wr0 $end\n"
         "$var wire    1  aaaab  busy       $end\n$var wire   32  aaaac  cmd [31:0]  $end\n"
         "$upscope $end\n$upscope $end\n$scope module pe_gemm $end\n"
         "$var wire    1  aaaad  busy       $end\n$var wire   32  aaaae  cmd [31:0]  $end\n"
         "$var wire   32  aaaaf  tile [31:0]  $end\n$upscope $end\n$scope module gemm_inbox $end\n"
         "$var wire   32  aaaag  fill [31:0]  $end\n$upscope $end\n"
         "$upscope $end\n$upscope $end\n$upscope $end\n$upscope $end\n\n"
         "$enddefinitions  $end\n\n$dumpvars\nb0 aaaaa\n0aaaab\nb" << ones << " aaaac\n0aaaad\nb" << ones
      << " aaaae\nb" << ones << " aaaaf\nb0 aaaag\n$end\n\n"
         "#100\n1aaaad\nb11 aaaae\nb0 aaaaf\nb" << ones << " aaaag\n\n"
         "#400\nb100 aaaae\nb111 aaaaf\nb0 aaaag\n\n"
         "#600\n0aaaad\nb" << ones << " aaaae\nb" << ones << " aaaaf\n\n#1000\n";
}

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

}  // namespace

BOOST_AUTO_TEST_CASE(an_idle_command_number_becomes_z_and_busy_time_is_measured) {
    write_kernel_vcd("gtkw_writer_z.vcd");
    const WaveContents waves = finish_vcd("gtkw_writer_z.vcd", nullptr);
    const std::string vcd = slurp("gtkw_writer_z.vcd");
    // Every -1 of a cmd or tile is z; the fill level's all-ones stays; the
    // numbers stay as they were.
    BOOST_CHECK(vcd.find("$dumpvars\nb0 aaaaa\n0aaaab\nbz aaaac\n0aaaad\nbz aaaae\nbz aaaaf\nb0 aaaag\n$end\n") !=
                std::string::npos);
    BOOST_CHECK(vcd.find("#100\n1aaaad\nb11 aaaae\nb0 aaaaf\nb" + ones + " aaaag\n") != std::string::npos);
    BOOST_CHECK(vcd.find("#600\n0aaaad\nbz aaaae\nbz aaaaf\n") != std::string::npos);
    BOOST_CHECK(vcd.find(ones + " aaaae") == std::string::npos);

    BOOST_REQUIRE_EQUAL(waves.signals.size(), 7u);
    BOOST_CHECK_EQUAL(waves.end_ps, 1000u);
    const WaveSignal& in_use = waves.signals[0];
    BOOST_CHECK_EQUAL(in_use.scope, "SystemC.sip0.cube0.m_cpu.dma_read");
    BOOST_CHECK_EQUAL(in_use.name, "SystemC.sip0.cube0.m_cpu.dma_read.in_use[31:0]");
    BOOST_CHECK_EQUAL(in_use.width, 32);
    BOOST_CHECK(!in_use.idle_is_z);
    BOOST_CHECK_EQUAL(in_use.busy_ps, 0u);  // M_CPU's channel never moves
    BOOST_CHECK_EQUAL(waves.signals[1].busy_ps, 0u);  // nor does pe0's write channel
    BOOST_CHECK(waves.signals[2].idle_is_z);
    BOOST_CHECK_EQUAL(waves.signals[2].busy_ps, 0u);
    // GEMM busy 100 -> 600: 500 ps; its cmd is a number (3, then 4) over the
    // same 500 ps; so is its tile (0, then 7: tile 0 is a tile, only z is
    // idle); the fill level is non-zero (its -1 bits stay) from 100 to 400:
    // 300 ps.
    BOOST_CHECK_EQUAL(waves.signals[3].name, "SystemC.sip0.cube0.pe0.pe_gemm.busy");
    BOOST_CHECK_EQUAL(waves.signals[3].busy_ps, 500u);
    BOOST_CHECK_EQUAL(waves.signals[4].busy_ps, 500u);
    BOOST_CHECK(waves.signals[5].idle_is_z);
    BOOST_CHECK_EQUAL(waves.signals[5].busy_ps, 500u);
    BOOST_CHECK(!waves.signals[6].idle_is_z);
    BOOST_CHECK_EQUAL(waves.signals[6].busy_ps, 300u);

    BOOST_CHECK(idle_is_z("cmd") && idle_is_z("tile") && idle_is_z("main_cmd") && idle_is_z("dma_cmd"));
    BOOST_CHECK(!idle_is_z("busy") && !idle_is_z("fill") && !idle_is_z("_cmd") && !idle_is_z("cmdx"));
}

BOOST_AUTO_TEST_CASE(a_filter_file_names_each_command_number) {
    // GTKWave matches the text it would show: a cmd is shown in hex, 8 digits.
    const std::string text = gtkw_filter_text("sip0.cube0.pe0", {{0, "ld_a dma_read"}, {26, "fc1 composite"},
                                                                 {7, "odd\nname gemm"}});
    BOOST_CHECK_EQUAL(text,
                      "# npuvp: sip0.cube0.pe0's commands by dispatch sequence number, as its cmd signals show "
                      "it (hex)\n"
                      "00000000 ld_a dma_read\n00000007 odd?name gemm\n0000001a fc1 composite\n");
    BOOST_CHECK_EQUAL(gtkw_filter_path("out/run.vcd", "sip0.cube0.pe0"), "out/run.sip0.cube0.pe0.filter");
    BOOST_CHECK_EQUAL(gtkw_path("out/run.fst"), "out/run.gtkw");
}

BOOST_AUTO_TEST_CASE(the_save_file_puts_the_busiest_pe_first_and_folds_the_never_busy) {
    // pe1 busy 300 + 300 ps, pe0 100 + 100 ps: pe1 first, though pe0 comes
    // first in the file. M_CPU never moves; pe0's scheduler sub context
    // never runs: both fold into the closed group at the end.
    WaveContents waves;
    waves.end_ps = 1000;
    auto add = [&](const std::string& scope, const std::string& leaf, int width, std::uint64_t busy) {
        WaveSignal s;
        s.scope = "SystemC." + scope;
        s.name = s.scope + "." + leaf + (width > 1 ? "[" + std::to_string(width - 1) + ":0]" : "");
        s.width = width;
        s.idle_is_z = idle_is_z(leaf);
        s.busy_ps = busy;
        waves.signals.push_back(s);
    };
    waves.signals.push_back({"npuvp", "npuvp.power_w", 64, true, false, 0});
    add("sip0.cube0.m_cpu.dma_read", "in_use", 32, 0);
    add("sip0.cube0.pe0.pe_scheduler", "main_cmd", 32, 100);
    add("sip0.cube0.pe0.pe_scheduler", "sub_cmd", 32, 0);
    add("sip0.cube0.pe0.pe_gemm", "cmd", 32, 100);
    add("sip0.cube0.pe1.pe_gemm", "busy", 1, 300);
    add("sip0.cube0.pe1.pe_gemm", "cmd", 32, 300);
    const CommandLabels labels = {{"sip0.cube0.pe0", {{0, "fc1 composite"}}},
                                  {"sip0.cube0.pe1", {{0, "fc2 composite"}}}};
    const std::vector<GtkwFile> files = gtkw_files("out/run.vcd", waves, labels);
    BOOST_REQUIRE_EQUAL(files.size(), 3u);  // the save file, pe1's filter, pe0's
    BOOST_CHECK_EQUAL(files[0].path, "out/run.gtkw");
    BOOST_CHECK_EQUAL(files[1].path, "out/run.sip0.cube0.pe1.filter");
    BOOST_CHECK_EQUAL(files[1].text, gtkw_filter_text("sip0.cube0.pe1", labels.at("sip0.cube0.pe1")));
    BOOST_CHECK_EQUAL(files[2].path, "out/run.sip0.cube0.pe0.filter");
    const std::string& save = files[0].text;
    BOOST_CHECK(save.find("[dumpfile] \"out/run.vcd\"\n[savefile] \"out/run.gtkw\"\n") != std::string::npos);
    // The order of the groups and signals: 800200 opens a group, c00200 a
    // closed one (TR_CLOSED); 2022 is right-justified hex through a filter
    // file (^1 names it); 424 right-justified signed decimal.
    const std::string expected_body =
        "@800200\n-npuvp\n@48020\nnpuvp.power_w\n@68020\n-\n@68020\n-\n@1000200\n-npuvp\n"
        "@800200\n-SystemC.sip0.cube0.pe1\n@800200\n-SystemC.sip0.cube0.pe1.pe_gemm\n"
        "@28\nSystemC.sip0.cube0.pe1.pe_gemm.busy\n"
        "@2022\n^1 out/run.sip0.cube0.pe1.filter\nSystemC.sip0.cube0.pe1.pe_gemm.cmd[31:0]\n"
        "@1000200\n-SystemC.sip0.cube0.pe1.pe_gemm\n@1000200\n-SystemC.sip0.cube0.pe1\n"
        "@800200\n-SystemC.sip0.cube0.pe0\n@800200\n-SystemC.sip0.cube0.pe0.pe_gemm\n"
        "@2022\n^1 out/run.sip0.cube0.pe0.filter\nSystemC.sip0.cube0.pe0.pe_gemm.cmd[31:0]\n"
        "@1000200\n-SystemC.sip0.cube0.pe0.pe_gemm\n@800200\n-SystemC.sip0.cube0.pe0.pe_scheduler\n"
        "@2022\n^1 out/run.sip0.cube0.pe0.filter\nSystemC.sip0.cube0.pe0.pe_scheduler.main_cmd[31:0]\n"
        "@1000200\n-SystemC.sip0.cube0.pe0.pe_scheduler\n@1000200\n-SystemC.sip0.cube0.pe0\n"
        "@c00200\n-never busy (2 signals)\n"
        "@c00200\n-SystemC.sip0.cube0.m_cpu\n@c00200\n-SystemC.sip0.cube0.m_cpu.dma_read\n"
        "@424\nSystemC.sip0.cube0.m_cpu.dma_read.in_use[31:0]\n"
        "@1400200\n-SystemC.sip0.cube0.m_cpu.dma_read\n@1400200\n-SystemC.sip0.cube0.m_cpu\n"
        "@c00200\n-SystemC.sip0.cube0.pe0\n@c00200\n-SystemC.sip0.cube0.pe0.pe_scheduler\n"
        "@424\nSystemC.sip0.cube0.pe0.pe_scheduler.sub_cmd[31:0]\n"
        "@1400200\n-SystemC.sip0.cube0.pe0.pe_scheduler\n@1400200\n-SystemC.sip0.cube0.pe0\n"
        "@1400200\n-never busy (2 signals)\n";
    const std::size_t body = save.find("@800200\n-npuvp\n");
    BOOST_REQUIRE(body != std::string::npos);
    BOOST_CHECK_EQUAL(save.substr(body), expected_body);
    // Same inputs, same bytes.
    BOOST_CHECK(gtkw_files("out/run.vcd", waves, labels)[0].text == save);
    // A PE without labels (none known) shows the number, in decimal.
    const std::vector<GtkwFile> bare = gtkw_files("out/run.vcd", waves, {});
    BOOST_CHECK_EQUAL(bare.size(), 1u);
    BOOST_CHECK(bare[0].text.find("^1") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(an_fst_file_holds_the_same_changes_and_is_deterministic) {
    if (!fst_built()) {
        BOOST_TEST_MESSAGE("built without FST: nothing to check");
        return;
    }
    write_kernel_vcd("gtkw_writer_a.fst");
    const WaveContents a = finish_vcd("gtkw_writer_a.fst", nullptr);
    write_kernel_vcd("gtkw_writer_b.fst");
    finish_vcd("gtkw_writer_b.fst", nullptr);
    write_kernel_vcd("gtkw_writer_c.vcd");
    const WaveContents c = finish_vcd("gtkw_writer_c.vcd", nullptr);
    BOOST_CHECK_EQUAL(a.signals.size(), c.signals.size());
    BOOST_CHECK_EQUAL(a.end_ps, c.end_ps);
    BOOST_CHECK_EQUAL(a.signals[3].busy_ps, c.signals[3].busy_ps);
    const std::string fst = slurp("gtkw_writer_a.fst");
    BOOST_REQUIRE_GT(fst.size(), 0u);
    BOOST_CHECK(fst == slurp("gtkw_writer_b.fst"));  // no wall-clock date in it
    // GTKWave's own converter reads it back (gtkwave package): the GEMM's
    // cmd is z, 3, 4, z at 0, 100, 400, 600; FST keeps every bit.
    BOOST_REQUIRE_EQUAL(std::system("fst2vcd gtkw_writer_a.fst > gtkw_writer_a.back.vcd 2> gtkw_writer_a.back.log"), 0);
    const std::string back = slurp("gtkw_writer_a.back.vcd");
    BOOST_CHECK(back.find("$var wire 32 ") != std::string::npos);
    BOOST_CHECK(back.find(" cmd [31:0] $end") != std::string::npos);
    BOOST_CHECK(back.find("b" + std::string(32, 'z')) != std::string::npos);
    BOOST_CHECK(back.find("#100\n") != std::string::npos && back.find("#600\n") != std::string::npos);
    BOOST_CHECK(back.find("b00000000000000000000000000000011 ") != std::string::npos);
    BOOST_CHECK(back.find("#1000") != std::string::npos);
}
