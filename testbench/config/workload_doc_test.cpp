// docs/workload.md against the workload loader's kind tables (issue 14 point
// 1): every key a command kind or host request kind reads is named in that
// kind's row of the docs (composite: in its section), so a key added to a
// table but not to the docs fails here.
#include <boost/test/unit_test.hpp>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "config/workload_loader.h"

namespace {

std::vector<std::string> lines_of(const std::string& path) {
    std::ifstream in(path);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

// The first table row of `section` ("## Commands", "## Host requests") whose
// first cell names `kind`, e.g. "| `memory_write`, `memory_read` | ...".
std::string row_of(const std::vector<std::string>& lines, const std::string& section, const std::string& kind) {
    bool inside = false;
    for (const std::string& line : lines) {
        if (line.rfind("## ", 0) == 0) inside = line == section;
        if (!inside || line.rfind("| ", 0) != 0) continue;
        const std::string first = line.substr(0, line.find('|', 1));
        if (first.find("`" + kind + "`") != std::string::npos) return line;
    }
    return "";
}

// The text of `heading` up to the next heading of any level.
std::string section_text(const std::vector<std::string>& lines, const std::string& heading) {
    std::string text;
    bool inside = false;
    for (const std::string& line : lines) {
        if (line.rfind("#", 0) == 0) inside = line == heading;
        if (inside) text += line + "\n";
    }
    return text;
}

}  // namespace

BOOST_AUTO_TEST_CASE(workload_md_names_every_key_of_each_kind) {
    const std::vector<std::string> lines = lines_of(std::string(NPUVP_SOURCE_DIR) + "/docs/workload.md");
    BOOST_REQUIRE(!lines.empty());
    const std::string composite = section_text(lines, "### Composite (SPEC T6)");
    BOOST_REQUIRE(!composite.empty());
    std::size_t checked = 0;
    for (const npuvp::WorkloadKindKeys& kind : npuvp::workload_kind_keys()) {
        // composite's keys are in its own section (`gemm.m` names `gemm`).
        const std::string text = kind.kind == "composite"
                                     ? composite
                                     : row_of(lines, kind.section == "command" ? "## Commands" : "## Host requests",
                                              kind.kind);
        BOOST_TEST_CONTEXT(kind.section << " kind " << kind.kind) {
            BOOST_TEST(!text.empty());
            for (const std::string& key : kind.keys) {
                const std::string named = kind.kind == "composite" ? "`" + key : "`" + key + "`";
                BOOST_TEST(text.find(named) != std::string::npos, "key " << key << " is not in the docs");
                ++checked;
            }
        }
    }
    // Commands: dma_read 2, dma_write 2, gemm 3, math 2, composite 6 + 6 (two
    // forms), ipcq_send 2, ipcq_recv, fetch, store 1 each (26); host:
    // memory_write 2, memory_read 2, mmu_map 5, mmu_unmap 4, kernel_launch 4 (17).
    BOOST_TEST(checked == 43u);
}
