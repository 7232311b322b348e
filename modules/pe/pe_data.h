// A PE's data plane in data mode (docs/workload.md "Operand data"): what a
// composite's stages do to bytes, where the timing model moves them, at the
// modelled end of each stage (or, for an RTL engine, while it runs).
//
//  - DMA_READ copies the token's operand tiles memory -> TCM: A into the
//    token's input buffer (or its place in the A row panel), B after it (or
//    into the B column panel); DMA_WRITE copies the output buffer -> memory.
//  - GEMM reads the int8 A (tm×tk) and B (tk×tn) tiles from those TCM places
//    (the bytes FETCH moved) and adds its int32 C to the register file; the
//    first K-step starts the tile at zero. The register file is modelled as
//    one int32 M×N array per composite command, kept for the run.
//  - a MATH epilogue maps the register file's tile through its op (add,
//    bias_add, mul: with its `operand` from TCM; relu; cast), in place.
//  - STORE writes the register file's tile to the output buffer as d_out
//    (int8: clamped to [-128, 127]; int32: as is).
//
// Tiles are row-major inside (an A tile tm rows of tk, B tk rows of tn, C tm
// rows of tn), at the tile addresses of docs/timing.md. Simple commands
// carry no data. Nothing here exists when data mode is off.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "modules/common/data_store.h"
#include "modules/pe/data_spec.h"
#include "modules/pe/tile_token.h"

namespace npuvp {

class AddressTranslator;

class PeData {
public:
    // `tcm`: the PE's TCM store; `memory`: the machine's memory; `mmu`: the
    // PE's translator (virtual addresses).
    PeData(DataStore& tcm, MemoryData& memory, const AddressTranslator& mmu);

    DataStore& tcm() { return m_tcm; }

    // Whether `token` carries data: a tile of a GEMM-form composite (simple
    // commands carry none; a single-op composite in data mode is a load
    // error). Every stage hook here and the RTL workers ask this one test.
    static bool carries(const TileToken& token) {
        const Command& command = *token.cmd->command;
        return command.kind == CommandKind::composite && !command.composite.ops.empty();
    }

    // DMA_READ or DMA_WRITE of `token` has ended: move its bytes. Throws
    // std::runtime_error naming the address on an MMU fault.
    void dma(const TileToken& token, StageType type);

    // GEMM (an RTL engine): the stage's operands, int8, row-major, valid
    // until the next call; then its int32 m×n result.
    void gemm_operands(const TileToken& token, const std::int8_t*& a, const std::int8_t*& b);
    std::int32_t* gemm_result_buffer(const TileToken& token);
    void gemm_result(const TileToken& token);
    // GEMM (the builtin engine): operands, the array's arithmetic, result.
    void gemm(const TileToken& token);

    // MATH (an RTL engine): the op, x (the register file's tile) and y (the
    // operand, or null), `len` elements; then z back into the register file.
    void math_operands(const TileToken& token, DataMathOp& op, const std::int32_t*& x,
                       const std::int32_t*& y, std::uint64_t& len);
    std::int32_t* math_result_buffer();
    void math_result(const TileToken& token);
    // MATH (the builtin engine).
    void math(const TileToken& token);

    // STORE: the register file's tile to the token's output buffer.
    void store(const TileToken& token);

private:
    struct Tile {
        std::uint64_t tm, tk, tn;  // clipped
        std::uint64_t row0, col0;  // the output tile's first row and column
    };
    Tile tile_of(const TileToken& token) const;
    std::vector<std::int32_t>& register_file(const Command& command);
    const OpSpec& epilogue_of(const TileToken& token) const;
    void copy_memory(const MemAddress& addr, std::uint64_t offset, std::uint64_t tcm,
                     std::uint64_t bytes, bool to_tcm);
    void load_tile(std::uint64_t tcm, std::uint64_t elements, std::vector<std::int8_t>& out);
    // Where the token's A and B tiles lie in TCM.
    std::uint64_t a_place(const TileToken& token, const Tile& t) const;
    std::uint64_t b_place(const TileToken& token, const Tile& t) const;

    DataStore& m_tcm;
    MemoryData& m_memory;
    const AddressTranslator& m_mmu;
    // The register file: per composite command, its M×N int32 accumulators.
    std::unordered_map<const Command*, std::vector<std::int32_t>> m_rf;
    // Scratch, grown once, reused for every stage.
    std::vector<std::uint8_t> m_bytes;
    std::vector<std::int8_t> m_a, m_b;
    std::vector<std::int32_t> m_c, m_x, m_y;
};

}  // namespace npuvp
