// PE commands and kernel programs (seed 000 §D1–§D3; SPEC §5): what PE_CPU
// runs and PE_SCHEDULER dispatches. Filled from a workload YAML by
// config/workload_loader.*; plain C++, no SystemC, no YAML.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "modules/common/config.h"
#include "modules/pe/data_spec.h"
#include "modules/system/host_request.h"
#include "modules/pe/tile_plan.h"

namespace npuvp {

enum class CommandKind : std::uint8_t {
    dma_read,   // DmaReadCmd: memory -> TCM
    dma_write,  // DmaWriteCmd: TCM -> memory
    gemm,       // GemmCmd: m×k×n on PE_GEMM
    math,       // MathCmd: `elements` of `op` on PE_MATH
    composite,  // CompositeCmd: tiled pipeline (T6)
    wait,       // PE_CPU waits for earlier commands to complete
    ipcq_send,  // send `bytes` to a peer PE's IPCQ ring over vc_comm
    ipcq_recv,  // wait for `bytes` to arrive in this PE's IPCQ ring
    fetch,      // register-file preload: `bytes` TCM -> register file (PE_FETCH_STORE)
    store,      // register-file commit: `bytes` register file -> TCM (PE_FETCH_STORE)
};

const char* to_string(CommandKind kind);

// Execution contexts of seed 002 (SPEC §6): main = the tensor-unit pipeline
// (GEMM, MATH), sub = register-file preload / commit (fetch, store), dma =
// tensor DMA. Commands of one context run in program order, one at a time.
// Composites and IPCQ receives are not context-scheduled (`none`).
enum class ExecContext : std::uint8_t { main, sub, dma, none };
constexpr std::size_t exec_context_count = 3;  // main, sub, dma

const char* to_string(ExecContext context);
// The context a command kind runs in unless the program names another.
ExecContext default_context(CommandKind kind);
// The one stage a simple command's token runs (its engine's inbox);
// composite and wait are never simple (store is returned for them).
StageType simple_stage(CommandKind kind);

// An address range a command reads or writes (SPEC §6 hazards): TCM offsets
// are PE-local; HBM and shared SRAM ranges are physical addresses.
enum class MemSpace : std::uint8_t { tcm, hbm, sram };
const char* to_string(MemSpace space);

struct MemRange {
    MemSpace space = MemSpace::tcm;
    std::uint64_t base = 0;
    std::uint64_t bytes = 0;
    bool overlaps(const MemRange& o) const {
        return space == o.space && base < o.base + o.bytes && o.base < base + bytes;
    }
};

// A command's TCM access pattern (SPEC §6 banks): `count` accesses of
// `elem_bytes` at base, base + stride, ...; it gives, per TCM bank, the
// longest run of consecutive accesses to that bank.
struct AccessPattern {
    bool given = false;
    std::uint64_t base = 0;
    std::uint64_t stride = 0;
    std::uint64_t count = 0;
    std::uint32_t elem_bytes = 0;
};

// A memory-side address: a physical address, an offset into the running PE's
// own HBM slice (`own`: one kernel body, launched on many PEs, names each PE's
// slice), or a virtual one that PE_MMU translates on every DMA access. `given`
// is false when the workload left it out (the PE's own HBM slice is used).
struct MemAddress {
    bool given = false;
    bool is_va = false;
    std::uint64_t value = 0;
    bool is_own = false;  // last, so that {given, is_va, value} still reads as before

    // The address a PE whose slice starts at `home` uses (va: the value,
    // translated later).
    std::uint64_t resolve(std::uint64_t home) const {
        if (!given) return home;
        return is_own ? home + value : value;
    }
};

// A simple DMA command's transfer pattern (docs/timing.md "DMA transfer
// patterns", SPEC T7): how its bytes are laid out on either side. The cost of
// each is the channel's time for its bytes (copies included) plus, per
// descriptor after the first, `pe_dma.chunk_ns` (strided), `copy_ns`
// (broadcast) or `piece_ns` (gather).
enum class DmaPatternKind : std::uint8_t {
    contiguous,  // one descriptor: [addr, + bytes) <-> the TCM range
    strided,     // `chunks` descriptors on the memory side, `stride` apart
    broadcast,   // dma_read: read once, written as `copies` copies, one per TCM slice
    gather,      // dma_write: `chunks` pieces from as many TCM slices to one memory range
};
const char* to_string(DmaPatternKind kind);

struct DmaPattern {
    DmaPatternKind kind = DmaPatternKind::contiguous;
    std::uint32_t chunks = 1;   // descriptors: strided and gather; broadcast: copies
    std::uint64_t stride = 0;   // strided: bytes from one chunk's start to the next
    bool plain() const { return kind == DmaPatternKind::contiguous; }
};

struct Command {
    CommandKind kind = CommandKind::wait;
    std::string id;             // name in reports and traces; "c<index>" by default
    std::uint32_t index = 0;    // position in its kernel
    bool wait = false;          // PE_CPU waits for this command before the next one
    SourceLoc loc;              // where the workload wrote it

    // dma_read, dma_write, ipcq_send, ipcq_recv
    std::uint64_t bytes = 0;
    MemAddress addr;            // dma_read / dma_write memory side
    DmaPattern pattern;         // dma_read / dma_write: layout and descriptors

    // gemm
    std::uint64_t m = 0, k = 0, n = 0;

    // math
    std::string op;
    std::uint64_t elements = 0;

    // gemm, math: the element size in bytes (dtype; bf16 = 2 when absent)
    std::uint32_t elem_bytes = 2;

    // composite (T6); src feeds DMA_READ, dst takes DMA_WRITE
    CompositeSpec composite;
    MemAddress src, dst;
    MemAddress src_b;  // GEMM form: B's own place (composite.b_separate); else B follows A in src

    // wait: indices of the commands to wait for; empty = every earlier command
    std::vector<std::uint32_t> wait_for;

    // ipcq_send: the peer PE (index within the cube)
    int peer = -1;

    // Schedule semantics (seed 002, SPEC §6)
    ExecContext context = ExecContext::none;  // default_context(kind) unless named
    bool context_given = false;
    std::vector<MemRange> reads;               // hazards: RAW / WAR / WAW
    std::vector<MemRange> writes;
    std::vector<std::string> resources;        // scheduling resources held while it runs,
                                               // e.g. "vector_engine"
    AccessPattern access;                      // TCM bank pattern (bank limit, starvation)
};

struct Kernel {
    std::string name;
    std::vector<Command> commands;
    SourceLoc loc;
};

// Run `kernel` on PEs of one cube, starting at t = 0 (direct launch; host
// launches through IO_CPU and M_CPU come with the cube command path).
struct Launch {
    std::string kernel;
    int sip = 0;
    int cube = 0;
    std::vector<int> pes;
    SourceLoc loc;
};

// Pages mapped in PE_MMU before the run: [va, va + bytes) -> [pa, pa + bytes).
struct MmuMapping {
    int sip = 0;
    int cube = 0;
    std::vector<int> pes;
    std::uint64_t va = 0;
    std::uint64_t pa = 0;
    std::uint64_t bytes = 0;
    SourceLoc loc;
};

struct WorkloadConfig {
    std::string source;
    std::string name;
    std::map<std::string, Kernel> kernels;  // by name
    std::vector<Launch> launches;
    std::vector<MmuMapping> mmu;
    std::vector<HostRequest> host;  // requests through IO_CPU (SPEC §4), in list order
    // Data mode (docs/workload.md "Operand data"): on when either list is
    // given, even empty (`data: []`: every byte reads as 0), as the loader
    // validated the workload.
    std::vector<DataInit> data;
    std::vector<DataDump> dumps;
    bool data_lists = false;  // the workload had a `data` or `dump` list
    bool data_mode() const { return data_lists || !data.empty() || !dumps.empty(); }
};

}  // namespace npuvp
