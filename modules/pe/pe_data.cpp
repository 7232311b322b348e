#include "modules/pe/pe_data.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <stdexcept>

#include "modules/pe/pe_mmu.h"

namespace npuvp {

bool data_math_op(const std::string& op, DataMathOp& out) {
    if (op == "add" || op == "bias_add") out = DataMathOp::add;
    else if (op == "mul") out = DataMathOp::mul;
    else if (op == "relu") out = DataMathOp::relu;
    else if (op == "cast") out = DataMathOp::pass;
    else return false;
    return true;
}

const char* data_math_ops_text() { return "add, bias_add, mul, relu, cast"; }

namespace {

std::int32_t sat32(std::int64_t v) {
    return static_cast<std::int32_t>(std::clamp<std::int64_t>(v, std::numeric_limits<std::int32_t>::min(),
                                                              std::numeric_limits<std::int32_t>::max()));
}

std::int32_t read_i32(const std::uint8_t* p) {
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[1]) << 8 |
                                     static_cast<std::uint32_t>(p[2]) << 16 |
                                     static_cast<std::uint32_t>(p[3]) << 24);
}

void write_i32(std::uint8_t* p, std::int32_t v) {
    const auto u = static_cast<std::uint32_t>(v);
    p[0] = static_cast<std::uint8_t>(u);
    p[1] = static_cast<std::uint8_t>(u >> 8);
    p[2] = static_cast<std::uint8_t>(u >> 16);
    p[3] = static_cast<std::uint8_t>(u >> 24);
}


}  // namespace

std::int32_t data_math_apply(DataMathOp op, std::int32_t x, std::int32_t y) {
    switch (op) {
        case DataMathOp::add: return sat32(std::int64_t{x} + y);
        case DataMathOp::mul: return sat32(std::int64_t{x} * y);
        case DataMathOp::relu: return x < 0 ? 0 : x;
        case DataMathOp::pass: return x;
    }
    return x;
}

std::int32_t data_mac(std::int32_t acc, std::int8_t a, std::int8_t b) {
    return sat32(std::int64_t{acc} + std::int64_t{a} * b);
}

PeData::PeData(DataStore& tcm, MemoryData& memory, const AddressTranslator& mmu)
    : m_tcm(tcm), m_memory(memory), m_mmu(mmu) {}

PeData::Tile PeData::tile_of(const TileToken& token) const {
    const CompositeSpec& s = token.cmd->command->composite;
    const TilePlan& p = token.plan;
    const TileExtent e = clipped_tile(s, p.mi, p.ki, p.ni);
    Tile t{};
    t.tm = e.tm;
    t.tk = e.tk;
    t.tn = e.tn;
    t.row0 = p.mi * s.tm;
    t.col0 = p.ni * s.tn;
    return t;
}

std::vector<std::int32_t>& PeData::register_file(const Command& command) {
    std::vector<std::int32_t>& rf = m_rf[&command];
    const CompositeSpec& s = command.composite;
    if (rf.empty()) rf.assign(s.m * s.n, 0);  // once per command (the loader bounds M·N)
    return rf;
}

// The token's A tile: in its input buffer, or at its K-step's place in the
// A row panel (ki · tk · tm elements in); B after A in the input buffer, or
// at ki · tk · tn in the B column panel; either at its tile-major place
// from a_tcm / b_tcm when resident (docs/workload.md "Operand data").
std::uint64_t PeData::a_place(const TileToken& token, const Tile& t) const {
    const CompositeSpec& s = token.cmd->command->composite;
    if (s.reuse == OperandReuse::a_panel) return token.panel_buf + token.plan.ki * s.tk * t.tm * s.d_in;
    // Resident in AllocatableTCM (a_tcm), tile-major as in memory (tile_plan.cpp).
    if (s.a_resident) return s.a_tcm + (token.plan.mi * s.tm * s.k + token.plan.ki * s.tk * t.tm) * s.d_in;
    return token.in_buf;
}

std::uint64_t PeData::b_place(const TileToken& token, const Tile& t) const {
    const CompositeSpec& s = token.cmd->command->composite;
    if (s.reuse == OperandReuse::b_panel) return token.panel_buf + token.plan.ki * s.tk * t.tn * s.d_in;
    // Resident in AllocatableTCM (b_tcm), tile-major as in memory (tile_plan.cpp).
    if (s.b_resident) return s.b_tcm + (token.plan.ki * s.tk * s.n + token.plan.ni * s.tn * t.tk) * s.d_in;
    return token.in_buf + (s.reuse == OperandReuse::a_panel || s.a_resident ? 0 : t.tm * t.tk * s.d_in);
}

void PeData::copy_memory(const MemAddress& addr, std::uint64_t offset, std::uint64_t tcm, std::uint64_t bytes,
                         bool to_tcm) {
    if (m_bytes.size() < bytes) m_bytes.resize(bytes);
    std::uint8_t* buf = m_bytes.data();
    if (!to_tcm) m_tcm.read(tcm, buf, bytes);
    const std::uint64_t start = addr.value + offset;
    // A virtual range page by page, as the DMA's transfer was translated.
    const std::uint64_t page = addr.is_va ? m_mmu.page_bytes() : bytes;
    for (std::uint64_t done = 0; done < bytes;) {
        const std::uint64_t at = start + done;
        const std::uint64_t n = addr.is_va ? std::min(bytes - done, page - at % page) : bytes;
        std::uint64_t pa = at;
        if (addr.is_va) {
            const auto translated = m_mmu.translate(at);
            if (!translated) {
                char va[32];
                std::snprintf(va, sizeof va, "0x%llx", static_cast<unsigned long long>(at));
                throw std::runtime_error(std::string("MMU fault on data at virtual address ") + va);
            }
            pa = *translated;
        }
        if (to_tcm)
            m_memory.read(pa, buf + done, n);
        else
            m_memory.write(pa, buf + done, n);
        done += n;
    }
    if (to_tcm) m_tcm.write(tcm, buf, bytes);
}

void PeData::dma(const TileToken& token, StageType type) {
    const InflightCommand& cmd = *token.cmd;
    if (!carries(token)) return;
    const Stage& stage = token.stage();
    if (type == StageType::dma_write) {
        // One run: the C tile, from the output buffer.
        copy_memory(cmd.write_addr, stage.mem[0].offset, token.out_buf, stage.mem[0].bytes, false);
        return;
    }
    // The runs TilePlanner wrote: A (unless resident), then B (unless resident).
    const CompositeSpec& s = cmd.command->composite;
    const Tile t = tile_of(token);
    const bool a_loaded = !s.a_resident && (s.reuse != OperandReuse::a_panel || token.plan.ni == 0);
    std::uint8_t run = 0;
    if (a_loaded) {
        const MemRun& a = stage.mem[run++];
        copy_memory(a.base ? cmd.read_b_addr : cmd.read_addr, a.offset, a_place(token, t), a.bytes, true);
    }
    if (run < stage.mem_runs) {
        const MemRun& b = stage.mem[run];
        copy_memory(b.base ? cmd.read_b_addr : cmd.read_addr, b.offset, b_place(token, t), b.bytes, true);
    }
}

void PeData::load_tile(std::uint64_t tcm, std::uint64_t elements, std::vector<std::int8_t>& out) {
    if (out.size() < elements) out.resize(elements);
    m_tcm.read(tcm, reinterpret_cast<std::uint8_t*>(out.data()), elements);
}

void PeData::gemm_operands(const TileToken& token, const std::int8_t*& a, const std::int8_t*& b) {
    const Tile t = tile_of(token);
    load_tile(a_place(token, t), t.tm * t.tk, m_a);
    load_tile(b_place(token, t), t.tk * t.tn, m_b);
    a = m_a.data();
    b = m_b.data();
}

std::int32_t* PeData::gemm_result_buffer(const TileToken& token) {
    const Tile t = tile_of(token);
    if (m_c.size() < t.tm * t.tn) m_c.resize(t.tm * t.tn);
    return m_c.data();
}

// K-steps add up in the register file, each sum clamped to int32 (within a
// K-step the engine clamps at every product, rtl/npuvp_gemm_array.sv).
void PeData::gemm_result(const TileToken& token) {
    const CompositeSpec& s = token.cmd->command->composite;
    std::vector<std::int32_t>& rf = register_file(*token.cmd->command);
    const Tile t = tile_of(token);
    const bool first = token.plan.ki == 0;
    for (std::uint64_t r = 0; r < t.tm; ++r)
        for (std::uint64_t c = 0; c < t.tn; ++c) {
            std::int32_t& acc = rf[(t.row0 + r) * s.n + t.col0 + c];
            const std::int32_t v = m_c[r * t.tn + c];
            acc = first ? v : sat32(std::int64_t{acc} + v);
        }
}

void PeData::gemm(const TileToken& token) {
    if (!carries(token)) return;
    const std::int8_t *a = nullptr, *b = nullptr;
    gemm_operands(token, a, b);
    std::int32_t* c = gemm_result_buffer(token);
    const Tile t = tile_of(token);
    for (std::uint64_t i = 0; i < t.tm; ++i)
        for (std::uint64_t j = 0; j < t.tn; ++j) {
            std::int32_t acc = 0;
            for (std::uint64_t kk = 0; kk < t.tk; ++kk) acc = data_mac(acc, a[i * t.tk + kk], b[kk * t.tn + j]);
            c[i * t.tn + j] = acc;
        }
    gemm_result(token);
}

// The epilogue a MATH stage runs: TilePlanner writes a token's MATH stages
// as the per_k_tile epilogues, then (last K-step) the per_output_tile ones,
// then (the command's last token) the once ones, each in `ops` order.
const OpSpec& PeData::epilogue_of(const TileToken& token) const {
    std::uint32_t nth = 0;
    for (std::uint32_t i = 0; i < token.stage_idx; ++i)
        if (token.plan.stages[i].type == StageType::math) ++nth;
    const std::vector<OpSpec>& ops = token.cmd->command->composite.ops;
    const auto pick = [&](EpilogueScope scope) -> const OpSpec* {
        for (std::size_t i = 1; i < ops.size(); ++i)
            if (ops[i].scope == scope && nth-- == 0) return &ops[i];
        return nullptr;
    };
    const OpSpec* op = pick(EpilogueScope::per_k_tile);
    if (!op && token.plan.last_k) op = pick(EpilogueScope::per_output_tile);
    if (!op && token.plan.last_k && token.plan.last_tile) op = pick(EpilogueScope::once);
    if (!op) throw std::logic_error("PeData: a MATH stage without its epilogue");
    return *op;
}

void PeData::math_operands(const TileToken& token, DataMathOp& op, const std::int32_t*& x,
                           const std::int32_t*& y, std::uint64_t& len) {
    const CompositeSpec& s = token.cmd->command->composite;
    const OpSpec& spec = epilogue_of(token);
    if (!data_math_op(token.stage().op, op))
        throw std::runtime_error("MATH " + token.stage().op + " has no data mode (" + data_math_ops_text() + ")");
    const Tile t = tile_of(token);
    len = t.tm * t.tn;
    std::vector<std::int32_t>& rf = register_file(*token.cmd->command);
    if (m_x.size() < len) m_x.resize(len);
    for (std::uint64_t r = 0; r < t.tm; ++r)
        std::copy_n(rf.begin() + static_cast<std::ptrdiff_t>((t.row0 + r) * s.n + t.col0), t.tn,
                    m_x.begin() + static_cast<std::ptrdiff_t>(r * t.tn));
    x = m_x.data();
    y = nullptr;
    if (op != DataMathOp::add && op != DataMathOp::mul) return;
    // The operand, int32 in TCM: bias_add a vector of N (one per column),
    // add and mul an M×N matrix, row-major.
    if (m_y.size() < len) m_y.resize(len);
    if (m_bytes.size() < 4 * s.n) m_bytes.resize(4 * s.n);
    const bool bias = token.stage().op == "bias_add";
    for (std::uint64_t r = 0; r < t.tm; ++r) {
        const std::uint64_t from = bias ? t.col0 : (t.row0 + r) * s.n + t.col0;
        m_tcm.read(spec.operand.value() + 4 * from, m_bytes.data(), 4 * t.tn);
        for (std::uint64_t c = 0; c < t.tn; ++c) m_y[r * t.tn + c] = read_i32(m_bytes.data() + 4 * c);
    }
    y = m_y.data();
}

std::int32_t* PeData::math_result_buffer() {
    if (m_c.size() < m_x.size()) m_c.resize(m_x.size());
    return m_c.data();
}

void PeData::math_result(const TileToken& token) {
    const CompositeSpec& s = token.cmd->command->composite;
    std::vector<std::int32_t>& rf = register_file(*token.cmd->command);
    const Tile t = tile_of(token);
    for (std::uint64_t r = 0; r < t.tm; ++r)
        std::copy_n(m_c.begin() + static_cast<std::ptrdiff_t>(r * t.tn), t.tn,
                    rf.begin() + static_cast<std::ptrdiff_t>((t.row0 + r) * s.n + t.col0));
}

void PeData::math(const TileToken& token) {
    if (!carries(token)) return;
    DataMathOp op{};
    const std::int32_t *x = nullptr, *y = nullptr;
    std::uint64_t len = 0;
    math_operands(token, op, x, y, len);
    std::int32_t* z = math_result_buffer();
    for (std::uint64_t i = 0; i < len; ++i) z[i] = data_math_apply(op, x[i], y ? y[i] : 0);
    math_result(token);
}

void PeData::store(const TileToken& token) {
    if (!carries(token)) return;
    const Command& command = *token.cmd->command;
    const CompositeSpec& s = command.composite;
    const std::vector<std::int32_t>& rf = register_file(command);
    const Tile t = tile_of(token);
    const std::uint64_t bytes = t.tm * t.tn * s.d_out;
    if (m_bytes.size() < bytes) m_bytes.resize(bytes);
    for (std::uint64_t r = 0; r < t.tm; ++r)
        for (std::uint64_t c = 0; c < t.tn; ++c) {
            const std::int32_t v = rf[(t.row0 + r) * s.n + t.col0 + c];
            const std::uint64_t at = r * t.tn + c;
            if (s.d_out == 1)
                m_bytes[at] = static_cast<std::uint8_t>(static_cast<std::int8_t>(std::clamp(v, -128, 127)));
            else
                write_i32(m_bytes.data() + 4 * at, v);
        }
    m_tcm.write(token.out_buf, m_bytes.data(), bytes);
}

}  // namespace npuvp
