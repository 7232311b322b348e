#include "report/row_fold.h"

#include <cctype>

namespace npuvp {
namespace {

// What alike rows share: the row with the digit runs of its hierarchical
// names (a token with a '.' and a letter: sip0.cube0.pe3, a hop's name) as
// '#', and every run of spaces as one (a name of more digits is padded with
// fewer). Numbers (no letter) and plain ids (no '.') stay as they are.
std::string shape(const std::string& line) {
    std::string masked;
    masked.reserve(line.size());
    for (std::size_t i = 0; i < line.size();) {
        if (line[i] == ' ') {
            masked += ' ';
            while (i < line.size() && line[i] == ' ') ++i;
            continue;
        }
        std::size_t end = i;
        bool dot = false, letter = false;
        for (; end < line.size() && line[end] != ' '; ++end) {
            dot = dot || line[end] == '.';
            letter = letter || std::isalpha(static_cast<unsigned char>(line[end]));
        }
        const bool name = dot && letter;
        while (i < end) {
            if (name && std::isdigit(static_cast<unsigned char>(line[i]))) {
                masked += '#';
                while (i < end && std::isdigit(static_cast<unsigned char>(line[i]))) ++i;
            } else {
                masked += line[i++];
            }
        }
    }
    return masked;
}

constexpr std::size_t max_block = 4;  // rows in a block that repeats
constexpr std::size_t min_repeats = 3;  // a run of fewer prints whole

}  // namespace

void print_rows(std::ostream& out, const std::vector<TableRow>& rows, std::size_t fold_above) {
    if (rows.size() <= fold_above) {
        for (const TableRow& r : rows) out << r.line << "\n";
        return;
    }
    std::vector<std::string> shapes;
    shapes.reserve(rows.size());
    for (const TableRow& r : rows) shapes.push_back(shape(r.line));
    const std::size_t n = rows.size();
    for (std::size_t i = 0; i < n;) {
        // The block size whose repeats from row i cover the most rows.
        std::size_t best_k = 0, best_reps = 0;
        for (std::size_t k = 1; k <= max_block && i + 2 * k <= n; ++k) {
            std::size_t reps = 1;
            for (;;) {
                const std::size_t next = i + reps * k;
                if (next + k > n) break;
                bool same = true;
                for (std::size_t j = 0; j < k && same; ++j) same = shapes[next + j] == shapes[i + j];
                if (!same) break;
                ++reps;
            }
            if (reps >= min_repeats && reps * k > best_reps * best_k) best_k = k, best_reps = reps;
        }
        if (best_k == 0) {
            out << rows[i].line << "\n";
            ++i;
            continue;
        }
        for (std::size_t j = 0; j < best_k; ++j) out << rows[i + j].line << "\n";
        out << "  ... " << best_reps - 1 << " more alike";
        if (best_k > 1) out << " (" << best_k << " rows each)";
        out << ": " << rows[i + best_k].name << " .. " << rows[i + (best_reps - 1) * best_k].name << "\n";
        i += best_reps * best_k;
    }
}

}  // namespace npuvp
