// Every default of the topology schema, in one place (STYLE "Configuration in
// two layers"). The loader applies these to keys a topology leaves out;
// configs/topologies/default.yaml spells each of them out with the same
// citation, and docs/schema.md lists them.
//
// Figures marked CALIBRATION come from /work/shared/CALIBRATION.md (RNGD-class
// public figures; per-PE numbers are chip figures ÷ 8 PEs). Figures marked
// "assumed" have no public source; the comment says why the value is plausible.
// Time is in ns, bandwidth in GB/s (= bytes/ns), frequency in GHz, distance in
// mm; sizes are in the unit their YAML key names (MiB, KiB, GiB).
#pragma once

#include <cstdint>

namespace npuvp::defaults {

// ---------------------------------------------------------------- whole topology

// Assumed: a neutral label when a topology does not name itself.
inline constexpr const char* kTopologyName = "unnamed";

// Assumed: ~100 ps/mm is the usual delay of a repeated global on-chip wire at
// current nodes; with the default pitch a neighbouring PE is 0.5 ns away.
inline constexpr double kWireNsPerMm = 0.1;

// ---------------------------------------------------------------- energy
// Per-action energies (docs/outputs.md "Energy and power"). Sources: M.
// Horowitz, "Computing's energy problem", ISSCC 2014 (45 nm: 8-bit integer
// multiply 0.2 pJ + add 0.03; 16-bit float multiply 1.1 + add 0.4; 32-bit
// float multiply 3.7 + add 0.9), scaled to a 5-7 nm class node by 0.25
// (assumed: the ~4x energy per operation that 45 nm -> 7 nm gives in
// published logic scaling); HBM: 3.9 pJ/bit for HBM2 (O'Connor et al.,
// "Fine-Grained DRAM", MICRO 2017), taken as 3.5 pJ/bit for HBM3; UCIe 1.0
// advanced package: 0.5 pJ/bit (the specification's target); PCIe-class
// links ~5 pJ/bit (assumed). SRAM, NoC, descriptor and static figures are
// assumed, stated with each default.
inline constexpr double kMacInt8Pj = 0.06;          // (0.2 + 0.03) x 0.25
inline constexpr double kMacBf16Pj = 0.375;         // (1.1 + 0.4) x 0.25
inline constexpr double kMacFp32Pj = 1.15;          // (3.7 + 0.9) x 0.25
inline constexpr double kMathElementPj = 0.5;       // assumed: one bf16 lane op plus its register-file access
inline constexpr double kHbmReadPjPerByte = 28.0;   // 3.5 pJ/bit x 8
inline constexpr double kHbmWritePjPerByte = 28.0;
inline constexpr double kSramReadPjPerByte = 1.5;   // assumed: a large multi-bank SRAM and its crossbar, ~0.19 pJ/bit
inline constexpr double kSramWritePjPerByte = 1.5;
inline constexpr double kTcmReadPjPerByte = 0.8;    // assumed: a PE-local SRAM slice, ~0.1 pJ/bit
inline constexpr double kTcmWritePjPerByte = 0.8;
inline constexpr double kNocPjPerByteHop = 1.0;     // assumed: ~0.025 pJ/bit/mm over a 5 mm hop
inline constexpr double kUciePjPerByte = 4.0;       // 0.5 pJ/bit x 8
inline constexpr double kOffchipPjPerByte = 40.0;   // 5 pJ/bit x 8 (assumed)
inline constexpr double kDmaDescriptorPj = 50.0;    // assumed: a 64 B descriptor read from SRAM and decoded
inline constexpr double kPeStaticMw = 2000.0;       // assumed: 2 W leakage and clock tree per PE
inline constexpr double kHbmStaticMw = 1000.0;      // assumed: 1 W refresh and PHY idle per slice (2 stacks / 8)
inline constexpr double kCubeStaticMw = 5000.0;     // assumed: 5 W for the shared SRAM, NoC, M_CPU and IO

// Limits of the machine the platform elaborates (from the design brief): node ids
// and the PA layout reserve room for at most 64 cubes and 256 PEs per cube.
inline constexpr int kMaxCubes = 64;
inline constexpr int kMaxPesPerCube = 256;

// CALIBRATION chip table: RNGD runs at 1.0 GHz. Every cycle count below is
// converted to ns at this clock.
inline constexpr double kClockGhz = 1.0;

// ---------------------------------------------------------------- system level

inline constexpr const char* kIoCpuImpl = "builtin.io_cpu";
// Assumed: the IO_CPU does the same per-command bookkeeping as an M_CPU, so it
// takes the M_CPU's 5.0 ns (seed 001 D9).
inline constexpr double kIoCpuOverheadNs = 5.0;

// CALIBRATION host link "PCIe Gen5 x16": 32 GT/s × 16 lanes × 128b/130b
// ≈ 63 GB/s per direction, rounded to 64.
inline constexpr double kIoLinkBwGbs = 64.0;
// Assumed: one-way PCIe transaction latency (root complex + switch + endpoint)
// is a few hundred ns; 500 ns is a middle-of-the-range figure.
inline constexpr double kIoLinkLatencyNs = 500.0;

// UCIe 1.0 specification, advanced package: a x64 module at 32 GT/s carries
// 64 × 32 Gb/s = 256 GB/s per direction, with a target latency below 2 ns.
inline constexpr double kUcieBwGbs = 256.0;
inline constexpr double kUcieLatencyNs = 2.0;
// Assumed: the die-to-die port sits at the corner router 0, beside the M_CPU.
inline constexpr int kUcieRouter = 0;

// Assumed: SIPs talk through the host over PCIe Gen5 x16 (64 GB/s, as the
// IO link), and the two PCIe hops make the latency about twice the IO link's.
inline constexpr double kSipLinkBwGbs = 64.0;
inline constexpr double kSipLinkLatencyNs = 1000.0;

// ---------------------------------------------------------------- cube level

inline constexpr const char* kMCpuImpl = "builtin.m_cpu";
// Seed 001 D9 (and SPEC §2): m_cpu overhead_ns 5.0.
inline constexpr double kMCpuOverheadNs = 5.0;
// Assumed: the M_CPU sits at the corner router 0.
inline constexpr int kMCpuRouter = 0;
// response_timeout_ns has no default on purpose: absent means the M_CPU
// fan-out watchdog is off (a missing PE response then stalls the fan-out).

inline constexpr const char* kNocImpl = "builtin.mesh_noc";
// Assumed: a mesh link as wide as one DMA engine (CALIBRATION: 256 B/cycle per
// engine at 1 GHz = 256 GB/s), so one engine streams at full rate per link.
inline constexpr double kNocLinkBwGbs = 256.0;
// Assumed: a 2-stage pipelined router, 2 cycles at 1 GHz.
inline constexpr double kNocRouterLatencyNs = 2.0;
// Assumed: 1 cycle between a node's port and its router.
inline constexpr double kNocAttachLatencyNs = 1.0;
// attach_bw_gbs has no default on purpose: absent means unlimited (pure latency).

inline constexpr const char* kHbmCtrlImpl = "builtin.hbm_ctrl";
// CALIBRATION HBM "32 channels × 48 GB/s" = 1536 GB/s ÷ 8 PEs = 192 GB/s per slice.
inline constexpr double kHbmCtrlBwGbs = 192.0;
// Assumed: CALIBRATION gives a 40–50 ns HBM row switch; with controller and PHY
// a loaded access takes ~100 ns, the usual HBM3 figure.
inline constexpr double kHbmCtrlLatencyNs = 100.0;

inline constexpr const char* kSharedSramImpl = "builtin.shared_sram";
// Assumed: RNGD has no cube-level shared SRAM; 64 MiB is a quarter of its 256 MB DM.
inline constexpr std::int64_t kSharedSramSizeMb = 64;
// Assumed: 4 DMN-like ports × 128 B/cycle (CALIBRATION DM, per DMN) at 1 GHz.
inline constexpr double kSharedSramBwGbs = 512.0;
// Assumed: 20 cycles for a cube-level SRAM macro plus its crossbar.
inline constexpr double kSharedSramLatencyNs = 20.0;
// Assumed: the shared SRAM sits at the corner router 0.
inline constexpr int kSharedSramRouter = 0;

// SPEC §2 and CALIBRATION: one HBM slice per PE, 8 PEs.
inline constexpr int kHbmSlicesPerCube = 8;
// CALIBRATION HBM 48 GB ÷ 8 PEs = 6 GiB per slice.
inline constexpr std::int64_t kHbmSliceGb = 6;
// Assumed: 2^48, above any HBM window (64 cubes × 8 × 6 GiB = 3 TiB < 2^48).
inline constexpr std::uint64_t kSramBase = 0x1000000000000ULL;

// pe_layout.rows and .cols are required (no default).
// Assumed: 8 PEs in 2 × 4 on a ~20 mm × 10 mm compute area gives ~5 mm pitch.
inline constexpr double kPePitchMm = 5.0;

// ---------------------------------------------------------------- PE level

inline constexpr const char* kAccelSlot = "accel_slot";  // seed 000 D8: GEMM and MATH share it

// Assumed: 2 cycles for the PE_CPU to issue one command.
inline constexpr double kPeCpuOverheadNs = 2.0;
// No kernel start-up unless the topology gives one (the furiosa-opt book's
// MNIST timeline shows about 2,000 cycles before the first op: docs/mnist.md).
inline constexpr double kPeCpuKernelStartNs = 0.0;
inline constexpr double kPeCpuKernelEndNs = 0.0;

// Assumed: 1 cycle per scheduler dispatch.
inline constexpr double kPeSchedulerOverheadNs = 1.0;
// Assumed: depth 2 lets a stage hold one token while the next arrives (double
// buffering, as the TRF half-modes of CALIBRATION).
inline constexpr int kPeSchedulerInboxDepth = 2;
// Seed 002 ("the compiler's policy"): an op that would break the bank limit is
// scheduled as if it occupied the DMA context (no concurrent DMA).
inline constexpr const char* kPeSchedulerBankPolicy = "serialize";
// Seed 002 / CALIBRATION banks: the NoC times out after 4096 cycles, and
// (256 / 128) · N · 32 < 4096 gives N < 64 consecutive same-bank accesses.
inline constexpr int kPeSchedulerBankLimit = 64;

// Seed 000 D8: rd_engines: 1, wr_engines: 1.
inline constexpr int kPeDmaRdEngines = 1;
inline constexpr int kPeDmaWrEngines = 1;
// CALIBRATION DMA: "about 500 cycles start-up per command" at 1 GHz.
inline constexpr double kPeDmaSetupNs = 500.0;
// CALIBRATION DMA: 256 B/cycle per engine at 1 GHz.
inline constexpr double kPeDmaBwGbs = 256.0;
// Seed 002 / CALIBRATION: a DMA engine occupies 16 banks at a time.
inline constexpr int kPeDmaBanksPerTransfer = 16;
// Assumed: each descriptor after a transfer's first costs 45 ns. No public
// per-descriptor figure; taken as CALIBRATION's HBM row switch (40–50 ns),
// what a chunk that is not contiguous with the last costs at HBM. The same
// for the three kinds unless a topology tells them apart (rngd_pe.yaml does,
// from the furiosa-opt book's MNIST timeline: docs/validation.md).
inline constexpr double kPeDmaChunkNs = 45.0;
inline constexpr double kPeDmaCopyNs = kPeDmaChunkNs;
inline constexpr double kPeDmaPieceNs = kPeDmaChunkNs;

// Assumed: 1 cycle to issue a fetch or a store.
inline constexpr double kPeFetchStoreLatencyNs = 1.0;
// A command's own fixed cost (issue, set-up, completion) beyond what a
// composite's tile pays, for fetch / store, gemm and math commands: none
// unless the topology gives one (rngd_pe.yaml: the furiosa-opt book's MNIST
// timeline, about 260 cycles per tensor-unit command; docs/validation.md).
inline constexpr double kPeFetchStoreCommandNs = 0.0;
inline constexpr int kPeGemmCommandCycles = 0;
inline constexpr int kPeMathCommandCycles = 0;

// CALIBRATION: 256 TFLOPS BF16 ÷ 8 = 32 TFLOPS per PE = 16,384 MAC/cycle at
// 1 GHz, a 128 × 128 array equivalent.
inline constexpr int kPeGemmRows = 128;
inline constexpr int kPeGemmCols = 128;
inline constexpr double kPeGemmFreqGhz = kClockGhz;
// Assumed: a systolic array fills along one dimension, 128 cycles.
inline constexpr int kPeGemmFillCycles = 128;
// The GEMM cost model (docs/timing.md T3): "dataflow" (operand streaming
// and K folded onto idle rows / columns) or "array_pass" (SPEC T3 as the
// seeds state it: a full array pass per output block).
inline constexpr const char* kPeGemmCostModel = "dataflow";
// CALIBRATION tensor unit: fetch up to 32 B/cycle per slice × 64 slices per PE.
inline constexpr int kPeGemmFetchBytesPerCycle = 2048;
// CALIBRATION tensor unit: contraction packet reducer latency 5 cycles (bf16).
inline constexpr int kPeGemmReducerCycles = 5;

// CALIBRATION slices: 1 PE = 64 slices × 8 lanes = 512 vector lanes.
inline constexpr int kPeMathLanes = 512;
// CALIBRATION tensor unit: the vector engine takes 8 or 4 elements per cycle
// per lane group: 4 for 32-bit elements, so 64 slices × 4 = 256 lanes.
inline constexpr int kPeMathLanes32 = 256;
inline constexpr double kPeMathFreqGhz = kClockGhz;
// Assumed: an 8-stage vector pipeline.
inline constexpr int kPeMathFillCycles = 8;

// Assumed cycles per element per lane: simple element-wise ops take 1, a
// reduction step 2, transcendental ops take a few cycles of a polynomial or
// table unit (exp 4, softmax 6 = exp + reduce, gelu 8).
struct MathOpCost {
    const char* op;
    double cycles;
};
inline constexpr MathOpCost kPeMathOpCost[] = {
    {"exp", 4.0}, {"bias_add", 1.0}, {"relu", 1.0},   {"gelu", 8.0}, {"add", 1.0},
    {"mul", 1.0}, {"reduce", 2.0},   {"softmax", 6.0}, {"cast", 1.0},
    // The tensor unit's re-layout stages (CALIBRATION: Fetch → Switch → … →
    // Transpose → Commit), one element per lane per cycle like a cast:
    // `transpose` re-lays a tensor, `switch` moves or broadcasts it across slices.
    {"transpose", 1.0}, {"switch", 1.0},
};

// CALIBRATION: 256 MB DM ÷ 8 PEs = 32 MiB per PE.
inline constexpr std::int64_t kPeTcmSizeMb = 32;
// Assumed: a quarter of the TCM is SchedulerReservedTCM for tile buffers.
inline constexpr std::int64_t kPeTcmReservedMb = 8;
// CALIBRATION DM: 64 slices × 128 B/cycle per slice at 1 GHz = 8192 GB/s.
inline constexpr double kPeTcmReadBwGbs = 8192.0;
inline constexpr double kPeTcmWriteBwGbs = 8192.0;
// Assumed: 2 cycles of SRAM access.
inline constexpr double kPeTcmLatencyNs = 2.0;
// CALIBRATION banks: the bank index is address bits 3–6, i.e. 16 banks with an
// 8-byte interleave (bank = (offset / 8) % 16).
inline constexpr int kPeTcmBanks = 16;
inline constexpr std::int64_t kPeTcmBankInterleaveBytes = 8;
// CALIBRATION slices: 1 PE = 64 slices; DM 128 B/cycle per slice at 1 GHz.
inline constexpr int kPeTcmSlices = 64;
inline constexpr double kPeTcmSliceBwGbs = 128.0;

// Assumed: 64 KiB pages, a common large page for accelerator MMUs.
inline constexpr std::int64_t kPeMmuPageKb = 64;
// Assumed: a 2-cycle TLB hit.
inline constexpr double kPeMmuTranslateNs = 2.0;

// Assumed: 16 slots of 4 KiB, enough for one collective chunk per peer PE.
inline constexpr int kPeIpcqSlots = 16;
inline constexpr std::int64_t kPeIpcqSlotKb = 4;

// Seed 000 D8: every intra-PE edge is 0.0 mm (the blocks are adjacent).
inline constexpr double kPeLinkMm = 0.0;
// CALIBRATION tensor unit: fetch 32 B/cycle per slice × 64 slices at 1 GHz.
inline constexpr double kPeFetchStoreToTcmBwGbs = 2048.0;

}  // namespace npuvp::defaults
