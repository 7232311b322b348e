// TilePlan / Stage (seed 000 §D3.2, §D3.3, §D6; SPEC §3 T6, §5): what a
// CompositeCmd becomes before its tiles enter the self-routing pipeline. The
// plan a token carries lists its stages in order; each component does its
// stage and hands the token to the next one (D6), so the plan is all the
// chaining logic needs.
//
// TilePlanner yields the plans one at a time: a composite can have millions of
// tokens, and PE_SCHEDULER's single feed loop (SPEC §5) only ever needs the next
// one, so memory stays O(1) in the number of tiles. Pure C++, no SystemC.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace npuvp {

// seed 000 §D6 StageType, same order; the IPCQ stages (SPEC §5) follow.
enum class StageType : std::uint8_t {
    dma_read, fetch, gemm, math, store, dma_write, ipcq_send, ipcq_recv
};
constexpr std::size_t stage_type_count = 8;

const char* to_string(StageType type);

// seed 000 §D3.3: how often an epilogue op runs.
enum class EpilogueScope : std::uint8_t { per_k_tile, per_output_tile, once };

struct OpSpec {
    std::string kind;  // "gemm" (head only) or "math.<op>", e.g. "math.bias_add"
    EpilogueScope scope = EpilogueScope::per_output_tile;  // ignored for ops[0]
    // Data mode (docs/workload.md "Operand data"): the TCM offset of an
    // add / bias_add / mul epilogue's int32 second operand, if given.
    std::optional<std::uint64_t> operand = std::nullopt;
};

// Operand reuse (docs/timing.md "Operand reuse"): which operand, if any,
// stays resident in reserved TCM as a panel, and so the loop order: an A row
// panel (mi, all of K) kept across the N loop, tokens in (mi, ni, ki) order;
// a B column panel (all of K, ni) kept across the M loop, tokens in (ni, mi,
// ki) order.
enum class OperandReuse : std::uint8_t { none, a_panel, b_panel };

const char* to_string(OperandReuse reuse);

struct CompositeSpec {
    // Head GEMM geometry (T6): M×K×N split into tm×tk×tn tiles.
    std::uint64_t m = 0, k = 0, n = 0;
    std::uint64_t tm = 0, tk = 0, tn = 0;
    std::uint32_t d_in = 0, d_out = 0;  // element bytes: int8 1, bf16 2, fp32 and int32 4
    bool out_fp32 = false;              // d_out 4 is fp32, not int32 (data mode computes int32 only)
    std::vector<OpSpec> ops;            // ops[0] head, ops[1:] epilogues
    OperandReuse reuse = OperandReuse::none;  // GEMM form only
    bool reuse_given = false;  // the workload named it (else the loader chose it)
    bool b_separate = false;   // B lies at its own place (src_b), not after A in src
    // An operand resident in the PE's AllocatableTCM (`a_tcm`, `b_tcm`;
    // docs/timing.md "Operands resident in TCM"): put there before the
    // command (a compiled kernel's staged activations and prefetched
    // weights), so no token's DMA_READ carries it. With A resident, B in
    // memory starts at src (or src_b), not after A.
    bool a_resident = false, b_resident = false;
    std::uint64_t a_tcm = 0, b_tcm = 0;
    // Legacy single-op composite (seed 000 §D3.2), used when ops is empty.
    std::uint64_t total_bytes = 0;
    std::uint64_t tile_bytes = 0;
    std::string legacy_op;  // MATH op name, e.g. "relu"
};

// Where a DMA stage's bytes lie in memory: `bytes` from `offset` past the
// command's memory address (src for DMA_READ, dst for DMA_WRITE).
struct MemRun {
    std::uint64_t offset = 0;
    std::uint64_t bytes = 0;
    std::uint8_t base = 0;  // 0: past src (dst); 1: past src_b (B at its own place)
};

struct Stage {
    StageType type = StageType::dma_read;
    std::uint64_t bytes = 0;            // DMA_READ, FETCH, STORE, DMA_WRITE
    std::uint64_t m = 0, k = 0, n = 0;  // GEMM
    std::uint64_t elements = 0;         // MATH
    std::string op;                     // MATH op name without "math."
    std::uint32_t elem_bytes = 2;       // GEMM: of A and B (d_in); MATH: of its elements
    // DMA_READ / DMA_WRITE of a composite's tile: its runs in memory (a GEMM
    // tile reads two, its A and B operand tiles; docs/timing.md "Tile
    // addresses"). None (a simple command): one run of `bytes` at offset 0.
    MemRun mem[2];
    std::uint8_t mem_runs = 0;
    // A simple command's one stage (not a composite's tile): it also pays
    // its engine's per-command fixed cost (`command_cycles` of PE_GEMM and
    // PE_MATH, `command_ns` of PE_FETCH_STORE; docs/timing.md T3).
    bool command = false;
};

struct TilePlan {
    std::uint64_t tile_id = 0;
    std::uint64_t mi = 0, ni = 0, ki = 0;
    bool last_k = false;     // last K-step of its output tile: it stores
    bool last_tile = false;  // the command's last token
    std::uint64_t in_bytes = 0;   // reserved-TCM input buffer: the operand tiles not in a panel (nor in TCM already)
    std::uint64_t out_bytes = 0;  // reserved-TCM output buffer; 0 unless last_k
    // Operand reuse: the first token of a panel allocates it (its DMA_READ
    // loads the panel's tile as well as in_bytes); the panel is freed when its
    // last token (panel_last) completes.
    std::uint64_t panel_bytes = 0;
    bool panel_last = false;
    std::vector<Stage> stages;
};

// The sizes of GEMM tile (mi, ki, ni) of `spec`: tm, tk, tn, each clipped to
// what is left of its dimension (SPEC T6 edge tiles). The one formula the
// tile planner and data mode's tile walk (modules/pe/pe_data.cpp) share.
struct TileExtent {
    std::uint64_t tm = 0, tk = 0, tn = 0;
};
inline TileExtent clipped_tile(const CompositeSpec& spec, std::uint64_t mi, std::uint64_t ki, std::uint64_t ni) {
    return {std::min(spec.tm, spec.m - mi * spec.tm), std::min(spec.tk, spec.k - ki * spec.tk),
            std::min(spec.tn, spec.n - ni * spec.tn)};
}

// Where a composite's data lies (docs/timing.md "Tile addresses"): the bytes
// it reads from src (A, M·K, then B, K·N, at d_in; legacy: total_bytes) and
// writes to dst (C, M·N at d_out; legacy: total_bytes). Throw
// std::invalid_argument when a product overflows 64 bits; a spec TilePlanner
// accepted never does.
std::uint64_t composite_source_bytes(const CompositeSpec& spec);
// Bytes a GEMM composite reads from memory with `reuse` (docs/timing.md
// "Operand reuse"): none (Nt·A + Mt·B), a_panel (A + Mt·B), b_panel
// (Nt·A + B), without an operand's terms when it is resident in TCM; an Overflow
// beyond 64 bits (modules/common/checked.h).
std::uint64_t composite_read_bytes(const CompositeSpec& spec, OperandReuse reuse);
// The operands' own bytes (GEMM form): A = M·K·d_in, B = K·N·d_in.
std::uint64_t composite_a_bytes(const CompositeSpec& spec);
std::uint64_t composite_b_bytes(const CompositeSpec& spec);
std::uint64_t composite_output_bytes(const CompositeSpec& spec);

class TilePlanner {
public:
    // Throws std::invalid_argument naming the offending field.
    explicit TilePlanner(CompositeSpec spec);

    std::uint64_t total_tiles() const { return m_total; }

    // Fills `out` with the next token's plan, reusing its stage storage; false
    // once every token has been produced (then `out` is left untouched).
    bool next(TilePlan& out);

private:
    struct Epilogue {
        std::string op;  // without "math."
        EpilogueScope scope;
    };

    void next_gemm(TilePlan& out);
    void next_legacy(TilePlan& out);

    CompositeSpec m_spec;
    std::vector<Epilogue> m_epilogues;  // ops[1:], in their order
    std::uint64_t m_mt = 0, m_nt = 0, m_kt = 0;  // tile counts per dimension
    std::uint64_t m_b_base = 0;  // where B starts past src: M·K·d_in
    std::uint64_t m_total = 0;
    std::uint64_t m_next_id = 0;
    // The next GEMM tile's indices: ki innermost, then the middle and outer
    // of (mi, ni) row-major, or of (ni, mi) with a B panel (T6).
    std::uint64_t m_ki = 0, m_mid = 0, m_outer = 0;
    std::size_t m_max_stages = 0;  // reserved once so the plan never grows
};

}  // namespace npuvp
