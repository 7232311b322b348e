// The PE's engine kinds: one row per StageType, in the order the outputs show
// them (docs/cli.md "Outputs"). This is the one list the writers in report/
// read: the lanes of the timeline and the schedule picture and their order,
// the picture's colours and legend, the busy-time rows of the report and the
// printed table (through Pe::engine_busy), and the engines' place in the
// GTKWave save file. A new engine kind is a row here (docs/architecture.md,
// "How to add an engine"), not an edit of each writer.
#pragma once

#include <cstddef>
#include <string>

#include "modules/pe/tile_plan.h"

namespace npuvp {

struct EngineKind {
    StageType stage;     // its lane in the outputs is to_string(stage): DMA_READ, ...
    const char* block;   // the kind of the PE block whose workers run it (its VCD scope)
    const char* colour;  // its boxes in the schedule picture (the legend shows each colour once)
    // Whether it has a busy-time row (Pe::engine_busy: the report, the
    // summary, the printed table). IPCQ_RECV has none: its stage waits for
    // data, which is not work, and then takes it at once.
    bool busy_row;
};

inline constexpr EngineKind engine_kinds[] = {
    {StageType::dma_read, "pe_dma", "#4e79a7", true},
    {StageType::dma_write, "pe_dma", "#76b7b2", true},
    {StageType::fetch, "pe_fetch_store", "#edc948", true},
    {StageType::store, "pe_fetch_store", "#b07aa1", true},
    {StageType::gemm, "pe_gemm", "#f28e2b", true},
    {StageType::math, "pe_math", "#59a14f", true},
    {StageType::ipcq_send, "pe_dma", "#ff9da7", true},
    {StageType::ipcq_recv, "pe_ipcq", "#ff9da7", false},
};
inline constexpr std::size_t engine_kind_count = sizeof engine_kinds / sizeof engine_kinds[0];

namespace detail {
constexpr bool every_stage_has_one_engine_kind() {
    for (std::size_t s = 0; s < stage_type_count; ++s) {
        int rows = 0;
        for (const EngineKind& k : engine_kinds) rows += static_cast<std::size_t>(k.stage) == s;
        if (rows != 1) return false;
    }
    return engine_kind_count == stage_type_count;
}
}  // namespace detail
static_assert(detail::every_stage_has_one_engine_kind(),
              "engine_kinds needs exactly one row per StageType");

// The row whose lane is `lane` (DMA_READ, ...); nullptr for any other lane.
inline const EngineKind* find_engine_kind(const std::string& lane) {
    for (const EngineKind& k : engine_kinds)
        if (lane == to_string(k.stage)) return &k;
    return nullptr;
}

// The rows with a busy-time row: the engines Pe::engine_busy lists per PE.
inline constexpr std::size_t busy_row_count() {
    std::size_t n = 0;
    for (const EngineKind& k : engine_kinds) n += k.busy_row;
    return n;
}

}  // namespace npuvp
