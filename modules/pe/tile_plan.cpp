#include "modules/pe/tile_plan.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "modules/common/checked.h"

namespace npuvp {

namespace {

bool valid_elem_size(std::uint32_t d) { return d == 1 || d == 2 || d == 4; }

[[noreturn]] void reject(const std::string& what) {
    throw std::invalid_argument("CompositeSpec: " + what);
}

void require_nonzero(std::uint64_t value, const char* field) {
    if (value == 0) reject(std::string(field) + " must be > 0");
}


// Writes stages in place so that a reused TilePlan keeps both its vector and
// its strings' capacity: the feed loop allocates nothing per token (STYLE:
// no dynamic allocation per event in hot paths).
class StageWriter {
public:
    explicit StageWriter(std::vector<Stage>& stages) : m_stages(stages) {}
    ~StageWriter() { m_stages.resize(m_count); }

    void transfer(StageType type, std::uint64_t bytes) {
        Stage& s = slot(type);
        s.bytes = bytes;
    }
    // A DMA stage, then its runs in memory (their bytes add up to the
    // stage's). Each run is written member by member: a MemRun built on the
    // stack and copied would be read back with wider loads than the stores
    // that built it, which the store buffer cannot forward (docs/speed.md,
    // "Fifth pass").
    Stage& dma(StageType type) { return slot(type); }
    static void run(Stage& s, std::uint64_t offset, std::uint64_t bytes, std::uint8_t base = 0) {
        MemRun& r = s.mem[s.mem_runs++];
        r.offset = offset;
        r.bytes = bytes;
        r.base = base;
        s.bytes += bytes;
    }
    void gemm(std::uint64_t m, std::uint64_t k, std::uint64_t n, std::uint32_t elem_bytes) {
        Stage& s = slot(StageType::gemm);
        s.m = m;
        s.k = k;
        s.n = n;
        s.elem_bytes = elem_bytes;
    }
    void math(std::uint64_t elements, const std::string& op, std::uint32_t elem_bytes) {
        Stage& s = slot(StageType::math);
        s.elements = elements;
        s.op.assign(op);
        s.elem_bytes = elem_bytes;
    }

private:
    Stage& slot(StageType type) {
        if (m_count == m_stages.size()) m_stages.emplace_back();
        Stage& s = m_stages[m_count++];
        s.type = type;
        s.bytes = s.m = s.k = s.n = s.elements = 0;
        s.op.clear();
        s.elem_bytes = 2;
        s.mem_runs = 0;
        return s;
    }

    std::vector<Stage>& m_stages;
    std::size_t m_count = 0;
};

}  // namespace

const char* to_string(OperandReuse reuse) {
    switch (reuse) {
        case OperandReuse::none: return "none";
        case OperandReuse::a_panel: return "a_panel";
        case OperandReuse::b_panel: return "b_panel";
    }
    return "?";
}

const char* to_string(StageType type) {
    switch (type) {
        case StageType::dma_read: return "DMA_READ";
        case StageType::fetch: return "FETCH";
        case StageType::gemm: return "GEMM";
        case StageType::math: return "MATH";
        case StageType::store: return "STORE";
        case StageType::dma_write: return "DMA_WRITE";
        case StageType::ipcq_send: return "IPCQ_SEND";
        case StageType::ipcq_recv: return "IPCQ_RECV";
    }
    return "?";
}

std::uint64_t composite_source_bytes(const CompositeSpec& s) {
    if (s.ops.empty()) return s.total_bytes;
    const std::uint64_t a = checked_mul(checked_mul(s.m, s.k, "operand bytes"), s.d_in, "operand bytes");
    const std::uint64_t b = checked_mul(checked_mul(s.k, s.n, "operand bytes"), s.d_in, "operand bytes");
    return checked_add(a, b, "operand bytes");
}

std::uint64_t composite_read_bytes(const CompositeSpec& s, OperandReuse reuse) {
    constexpr const char* what = "a composite's operand bytes read";
    const std::uint64_t mt = ceil_div(s.m, s.tm), nt = ceil_div(s.n, s.tn);
    const std::uint64_t a = s.a_resident ? 0 : composite_a_bytes(s), b = s.b_resident ? 0 : composite_b_bytes(s);
    switch (reuse) {
        case OperandReuse::a_panel: return checked_add(a, checked_mul(mt, b, what), what);
        case OperandReuse::b_panel: return checked_add(checked_mul(nt, a, what), b, what);
        case OperandReuse::none: break;
    }
    return checked_add(checked_mul(nt, a, what), checked_mul(mt, b, what), what);
}

std::uint64_t composite_a_bytes(const CompositeSpec& s) {
    return checked_mul(checked_mul(s.m, s.k, "operand bytes"), s.d_in, "operand bytes");
}

std::uint64_t composite_b_bytes(const CompositeSpec& s) {
    return checked_mul(checked_mul(s.k, s.n, "operand bytes"), s.d_in, "operand bytes");
}

std::uint64_t composite_output_bytes(const CompositeSpec& s) {
    if (s.ops.empty()) return s.total_bytes;
    return checked_mul(checked_mul(s.m, s.n, "output bytes"), s.d_out, "output bytes");
}

TilePlanner::TilePlanner(CompositeSpec spec) : m_spec(std::move(spec)) {
    const CompositeSpec& s = m_spec;
    if (!valid_elem_size(s.d_in)) reject("d_in must be 1, 2 or 4 bytes, got " + std::to_string(s.d_in));

    if (s.ops.empty()) {
        // seed 000 §D3.2 legacy path: one MATH op over byte tiles.
        require_nonzero(s.total_bytes, "total_bytes");
        require_nonzero(s.tile_bytes, "tile_bytes");
        if (s.legacy_op.empty()) reject("legacy_op must name a MATH op when ops is empty");
        // Elements are bytes / d_in; whole elements only, so no tile loses a
        // partial element to truncation.
        if (s.total_bytes % s.d_in != 0 || s.tile_bytes % s.d_in != 0)
            reject("total_bytes and tile_bytes must be multiples of d_in (" +
                   std::to_string(s.d_in) + ")");
        m_total = ceil_div(s.total_bytes, s.tile_bytes);
        m_max_stages = 5;
        return;
    }

    if (!valid_elem_size(s.d_out)) reject("d_out must be 1, 2 or 4 bytes, got " + std::to_string(s.d_out));
    require_nonzero(s.m, "m");
    require_nonzero(s.k, "k");
    require_nonzero(s.n, "n");
    require_nonzero(s.tm, "tm");
    require_nonzero(s.tk, "tk");
    require_nonzero(s.tn, "tn");
    // seed 000 §D3.3: ops[0] (the head) fixes the M/K/N split; only a GEMM head
    // has that geometry.
    if (s.ops[0].kind != "gemm") reject("ops[0].kind must be \"gemm\", got \"" + s.ops[0].kind + "\"");
    if (s.b_resident && (s.b_separate || s.reuse == OperandReuse::b_panel))
        reject("a B resident in TCM has no place in memory (src_b) and no panel (reuse b_panel)");
    if (s.a_resident && s.reuse == OperandReuse::a_panel) reject("an A resident in TCM has no panel (reuse a_panel)");
    const std::string math_prefix = "math.";
    for (std::size_t i = 1; i < s.ops.size(); ++i) {
        const OpSpec& op = s.ops[i];
        const std::string field = "ops[" + std::to_string(i) + "]";
        if (op.kind.compare(0, math_prefix.size(), math_prefix) != 0 || op.kind.size() == math_prefix.size())
            reject(field + ".kind must be \"math.<op>\", got \"" + op.kind + "\"");
        switch (op.scope) {
            case EpilogueScope::per_k_tile:
            case EpilogueScope::per_output_tile:
            case EpilogueScope::once: break;
            default:
                reject(field + ".scope is not per_k_tile, per_output_tile or once (" +
                       std::to_string(static_cast<unsigned>(op.scope)) + ")");
        }
        m_epilogues.push_back({op.kind.substr(math_prefix.size()), op.scope});
    }
    // A tile larger than its dimension is clipped (T6 edge tiles), not an error.
    m_mt = ceil_div(s.m, s.tm);
    m_nt = ceil_div(s.n, s.tn);
    m_kt = ceil_div(s.k, s.tk);
    m_total = checked_mul(checked_mul(m_mt, m_nt, "tile count"), m_kt, "tile count");
    // Worst-case bytes of one tile, so that no per-token product can overflow.
    const std::uint64_t tm = std::min(s.tm, s.m), tk = std::min(s.tk, s.k), tn = std::min(s.tn, s.n);
    checked_mul(checked_add(checked_mul(tm, tk, "tile bytes"), checked_mul(tk, tn, "tile bytes"), "tile bytes"), s.d_in,
                "tile bytes");
    checked_mul(checked_mul(tm, tn, "tile bytes"), s.d_out, "tile bytes");
    // Tile addresses (docs/timing.md): A (M·K) then B (K·N) from src, C
    // (M·N) from dst; the farthest byte must fit 64 bits.
    m_b_base = checked_mul(checked_mul(s.m, s.k, "operand bytes"), s.d_in, "operand bytes");
    composite_source_bytes(s);
    composite_output_bytes(s);
    // DMA_READ, FETCH, GEMM, every epilogue, STORE, DMA_WRITE: the last token's plan.
    m_max_stages = 5 + m_epilogues.size();
}

[[gnu::hot]] bool TilePlanner::next(TilePlan& out) {
    if (m_next_id >= m_total) return false;
    out.stages.reserve(m_max_stages);
    if (m_spec.ops.empty()) {
        next_legacy(out);
    } else {
        next_gemm(out);
        // The next tile's indices, counted instead of divided out of its id.
        const std::uint64_t mid_count = m_spec.reuse == OperandReuse::b_panel ? m_mt : m_nt;
        if (++m_ki == m_kt) {
            m_ki = 0;
            if (++m_mid == mid_count) {
                m_mid = 0;
                ++m_outer;
            }
        }
    }
    ++m_next_id;
    return true;
}

[[gnu::hot]] void TilePlanner::next_gemm(TilePlan& out) {
    const CompositeSpec& s = m_spec;
    // SPEC T6: tile_id runs over (mi, ni) row-major, then ki innermost; with
    // a B panel over (ni, mi), so that the panel's column stays (docs/timing.md
    // "Operand reuse").
    const std::uint64_t id = m_next_id;
    const std::uint64_t ki = m_ki;
    const bool b_panel = s.reuse == OperandReuse::b_panel;
    const bool a_panel = s.reuse == OperandReuse::a_panel;
    const std::uint64_t ni = b_panel ? m_outer : m_mid;
    const std::uint64_t mi = b_panel ? m_mid : m_outer;
    // Edge tiles are clipped to what is left of the dimension.
    const TileExtent extent = clipped_tile(s, mi, ki, ni);
    const std::uint64_t tm = extent.tm, tk = extent.tk, tn = extent.tn;

    out.tile_id = id;
    out.mi = mi;
    out.ni = ni;
    out.ki = ki;
    out.last_k = ki + 1 == m_kt;
    out.last_tile = id + 1 == m_total;
    // What is resident: an A tile once its panel's first N pass (ni = 0) has
    // loaded it; a B tile once the first M pass (mi = 0) has.
    const bool a_loaded = !s.a_resident && (!a_panel || ni == 0);
    const bool b_loaded = !s.b_resident && (!b_panel || mi == 0);
    out.in_bytes = ((a_panel || s.a_resident ? 0 : tm * tk) + (b_panel || s.b_resident ? 0 : tk * tn)) * s.d_in;
    out.out_bytes = out.last_k ? tm * tn * s.d_out : 0;
    out.panel_bytes = 0;
    out.panel_last = false;
    if (a_panel) {
        out.panel_bytes = ni == 0 && ki == 0 ? tm * s.k * s.d_in : 0;
        out.panel_last = ni + 1 == m_nt && out.last_k;
    } else if (b_panel) {
        out.panel_bytes = mi == 0 && ki == 0 ? s.k * tn * s.d_in : 0;
        out.panel_last = mi + 1 == m_mt && out.last_k;
    }

    // Tile addresses (docs/timing.md "Tile addresses"): each operand is
    // stored tile-major, one row panel after the other, as a compiler for a
    // tensor unit lays it out: A tile (mi, ki) at mi·tm·K + ki·tk·tm, B tile
    // (ki, ni) at M·K + ki·tk·N + ni·tn·tk, C tile (mi, ni) at mi·tm·N +
    // ni·tn·tm, in elements, with tm, tk, tn this tile's (clipped) sizes.
    const std::uint64_t a_off = (mi * s.tm * s.k + ki * s.tk * tm) * s.d_in;
    // B from src_b when it has its own place, else right after A in src
    // (at src when A is resident in TCM).
    const std::uint64_t b_off =
        (s.b_separate || s.a_resident ? 0 : m_b_base) + (ki * s.tk * s.n + ni * s.tn * tk) * s.d_in;
    StageWriter w(out.stages);
    // A token with nothing to read (its A in a panel or in TCM, B resident
    // in TCM) has no DMA_READ: it starts at its FETCH.
    if (a_loaded || b_loaded) {
        Stage& read = w.dma(StageType::dma_read);
        if (a_loaded) StageWriter::run(read, a_off, tm * tk * s.d_in);
        if (b_loaded) StageWriter::run(read, b_off, tk * tn * s.d_in, s.b_separate ? 1 : 0);
    }
    // FETCH takes both operand tiles to the register file, resident or not.
    w.transfer(StageType::fetch, (tm * tk + tk * tn) * s.d_in);
    w.gemm(tm, tk, tn, s.d_in);
    const std::uint64_t out_elems = tm * tn;
    for (const Epilogue& e : m_epilogues)
        if (e.scope == EpilogueScope::per_k_tile) w.math(out_elems, e.op, s.d_out);
    if (!out.last_k) return;  // partial sums stay in the register file (T6)
    for (const Epilogue& e : m_epilogues)
        if (e.scope == EpilogueScope::per_output_tile) w.math(out_elems, e.op, s.d_out);
    // SPEC T6: `once` epilogues are extra stages of the command's last token,
    // after its per_output_tile epilogues and before its STORE. The token only
    // holds its own output tile, so they are timed over that tile's tm·tn
    // elements (the seed gives no other extent for a once-per-kernel op).
    if (out.last_tile)
        for (const Epilogue& e : m_epilogues)
            if (e.scope == EpilogueScope::once) w.math(out_elems, e.op, s.d_out);
    w.transfer(StageType::store, out.out_bytes);
    StageWriter::run(w.dma(StageType::dma_write), (mi * s.tm * s.n + ni * s.tn * tm) * s.d_out, out.out_bytes);
}

void TilePlanner::next_legacy(TilePlan& out) {
    const CompositeSpec& s = m_spec;
    const std::uint64_t id = m_next_id;
    const std::uint64_t bytes = std::min(s.tile_bytes, s.total_bytes - id * s.tile_bytes);

    // A byte tile has no (mi, ni, ki): it is its own output tile, index in mi.
    out.tile_id = id;
    out.mi = id;
    out.ni = 0;
    out.ki = 0;
    out.last_k = true;
    out.last_tile = id + 1 == m_total;
    out.panel_bytes = 0;
    out.panel_last = false;
    out.in_bytes = bytes;
    // seed 000 §D3.2: an element-wise op writes what it read, so d_out == d_in
    // is assumed and the output buffer has the input's size.
    out.out_bytes = bytes;

    // Byte tile i lies at i·tile_bytes past src and past dst.
    const std::uint64_t offset = id * s.tile_bytes;
    StageWriter w(out.stages);
    StageWriter::run(w.dma(StageType::dma_read), offset, bytes);
    w.transfer(StageType::fetch, bytes);
    w.math(bytes / s.d_in, s.legacy_op, s.d_in);
    w.transfer(StageType::store, bytes);
    StageWriter::run(w.dma(StageType::dma_write), offset, bytes);
}

}  // namespace npuvp
