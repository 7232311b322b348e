// Long tables on stdout folded where rows repeat (docs/outputs.md "Large
// machines"): on a machine of thousands of PEs the summary printed a row (or
// a few) per PE, 163,880 lines for a GEMM on 16,384 PEs, nearly all alike.
// A table of more than `fold_above` rows prints a run of alike rows — or of
// alike blocks of up to four rows (a PE's DMA read and write, TCM read and
// write) — once, then one line that says how many more there are and where
// they run from and to. Rows are alike when they are the same but for the
// digits of the hierarchical names in them (the PE, node, hop or link they
// are about: sip0.cube0.pe3); their numbers must be equal. A table of up to
// `fold_above` rows prints as it always did.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

namespace npuvp {

struct TableRow {
    std::string name;  // what the row is about, as it appears in `line`
    std::string line;  // the whole row, without its newline
};

inline constexpr std::size_t fold_rows_above = 64;

void print_rows(std::ostream& out, const std::vector<TableRow>& rows, std::size_t fold_above = fold_rows_above);

}  // namespace npuvp
