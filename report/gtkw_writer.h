// A GTKWave save file (.gtkw) for the waves npuvp wrote (SPEC §7), so
// `gtkwave run.vcd run.gtkw` opens a readable view at once:
//  - the signals grouped per PE and, inside it, per node (engine), engines
//    first; the groups ordered by how long their signals were busy, the
//    busiest first, the run's power above them all;
//  - every signal that never left its idle value (0, or z) folded into one
//    closed group at the end: an M_CPU DMA channel that never moved no
//    longer opens the view;
//  - every `cmd` (a block's, the scheduler's `<context>_cmd`) read through a
//    GTKWave translate filter file written beside the save file, one per PE:
//    the dispatch sequence number the VCD carries becomes the command's id
//    and kind (`fc1 composite`). GTKWave keeps at most 127 filter files, so
//    the 127 busiest PEs get one; the others show the number.
// The signal list and busy times come from the pass that wrote the waves
// (finish_vcd), so the save file always matches the file, VCD or FST.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "report/vcd_finish.h"

namespace npuvp {

// Per PE (its node id, sip0.cube0.pe0): the label of each command by its
// dispatch sequence number, "<id> <kind>".
using CommandLabels = std::map<std::string, std::map<std::uint64_t, std::string>>;

// GTKWave's limit on translate filter files (its FILE_FILTER_MAX, 128, of
// which slot 0 means none).
inline constexpr std::size_t gtkw_max_filters = 127;

// The save file of `dump_path` (FILE.vcd or FILE.fst): FILE.gtkw.
std::string gtkw_path(const std::string& dump_path);

// The filter file of PE `pe` beside the save file of `dump_path`:
// FILE.<pe>.filter.
std::string gtkw_filter_path(const std::string& dump_path, const std::string& pe);

// A filter file's text: one line per command, its number as the save file
// shows a `cmd` (8 hex digits: GTKWave matches the displayed text), then its
// label.
std::string gtkw_filter_text(const std::string& pe, const std::map<std::uint64_t, std::string>& labels);

struct GtkwFile {
    std::string path;
    std::string text;
};

// The save file (first) and the filter files it names.
std::vector<GtkwFile> gtkw_files(const std::string& dump_path, const WaveContents& waves,
                                 const CommandLabels& labels);

}  // namespace npuvp
