// print_rows (report/row_fold.h): a long table folds runs of rows that are
// alike but for the digits of their hierarchical names, and blocks of up to
// four such rows; a short one prints as it is. Expected texts by hand.
#include <boost/test/unit_test.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "report/row_fold.h"

using npuvp::TableRow;

namespace {

std::string pe(int i) { return "sip0.cube0.pe" + std::to_string(i); }

// A PE row as the summary pads it: the name in 18 columns, then a value.
TableRow row(int i, const std::string& value) {
    std::string line = pe(i);
    line.resize(18, ' ');
    return {pe(i), line + value};
}

std::string printed(const std::vector<TableRow>& rows) {
    std::ostringstream out;
    npuvp::print_rows(out, rows);
    return out.str();
}

}  // namespace

// Up to fold_rows_above (64) rows: every row, as given, even all alike.
BOOST_AUTO_TEST_CASE(a_short_table_prints_every_row) {
    std::vector<TableRow> rows;
    std::string expected;
    for (int i = 0; i < 64; ++i) {
        rows.push_back(row(i, "5.000"));
        expected += rows.back().line + "\n";
    }
    BOOST_CHECK_EQUAL(printed(rows), expected);
}

// 70 rows, all 5.000 but row 40 (6.000): rows 0..39 are alike (pe9 and
// pe10 differ in padding only), row 40 stands alone, 41..69 are alike.
BOOST_AUTO_TEST_CASE(a_long_table_folds_alike_runs_and_keeps_what_differs) {
    std::vector<TableRow> rows;
    for (int i = 0; i < 70; ++i) rows.push_back(row(i, i == 40 ? "6.000" : "5.000"));
    const std::string expected = rows[0].line + "\n" +
                                 "  ... 39 more alike: sip0.cube0.pe1 .. sip0.cube0.pe39\n" +
                                 rows[40].line + "\n" + rows[41].line + "\n" +
                                 "  ... 28 more alike: sip0.cube0.pe42 .. sip0.cube0.pe69\n";
    BOOST_CHECK_EQUAL(printed(rows), expected);
}

// Blocks: each PE has a read and a write row (as the traffic table's DMA
// rows); 40 PEs are 80 rows folding into the first block and one line. A
// run of two alike rows prints whole (a fold needs three), and rows that
// differ only in a plain id (fc1, fc2: no '.') are not alike.
BOOST_AUTO_TEST_CASE(blocks_fold_and_plain_ids_and_pairs_stay) {
    std::vector<TableRow> rows;
    for (int i = 0; i < 40; ++i) {
        rows.push_back({pe(i) + ".pe_dma read", "dma " + pe(i) + ".pe_dma read 100"});
        rows.push_back({pe(i) + ".pe_dma write", "dma " + pe(i) + ".pe_dma write 50"});
    }
    rows.push_back({"x", "sip0.cube0.pe0  fc1  7"});
    rows.push_back({"x", "sip0.cube0.pe0  fc2  7"});
    rows.push_back({"y", "memory sip0.cube0.hbm_ctrl.pe0 9"});
    rows.push_back({"y", "memory sip0.cube0.hbm_ctrl.pe1 9"});
    const std::string expected = rows[0].line + "\n" + rows[1].line + "\n" +
                                 "  ... 39 more alike (2 rows each): sip0.cube0.pe1.pe_dma read .. "
                                 "sip0.cube0.pe39.pe_dma read\n" +
                                 rows[80].line + "\n" + rows[81].line + "\n" + rows[82].line + "\n" +
                                 rows[83].line + "\n";
    BOOST_CHECK_EQUAL(printed(rows), expected);
}
