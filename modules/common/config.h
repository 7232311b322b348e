// Validated runtime configuration of a topology (SPEC §2). It lives beside the
// modules because modules receive their own section of it (STYLE: modules do
// not include platform/).
//
// These are plain structs with no SystemC and no YAML types: the loader
// (config/topology_loader.h) fills them from YAML, applies the named defaults of
// config_defaults.h and validates every value; the elaborator and the modules
// only ever see a validated TopologyConfig. Units are those of the YAML keys:
// ns, GB/s (= bytes/ns), GHz, mm, bytes.
#pragma once

#include <any>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace npuvp {

// Where a value came from, for error messages at elaboration time.
struct SourceLoc {
    std::string file;  // topology file, or "--set" for a command-line override
    int line = 0;      // 1-based; 0 when unknown
    int column = 0;    // 1-based; 0 when unknown
    std::string key_path;  // e.g. "cube.pe_template.components.pe_dma.attrs.bw_gbs"
};

// A T1 link: latency plus optional bandwidth (absent = unlimited, pure latency).
struct LinkConfig {
    double latency_ns = 0.0;
    std::optional<double> bw_gbs;
};

struct WireConfig {
    double ns_per_mm = 0.0;  // wire delay per mm of distance (T1)
};

// ---------------------------------------------------------------- PE level

struct PeCpuConfig {
    std::string impl;
    double overhead_ns = 0.0;  // per command issued (T3)
    double kernel_start_ns = 0.0;  // from a kernel's start to its first command
    double kernel_end_ns = 0.0;    // from its last command's completion to its end
};

enum class BankPolicy { serialize, detect };

struct PeSchedulerConfig {
    std::string impl;
    double overhead_ns = 0.0;  // per dispatch (T3)
    int inbox_depth = 0;       // depth of every stage inbox sc_fifo (T6)
    // seed 002: the cumulative consecutive same-bank access count of the
    // commands running at once must stay below bank_limit.
    BankPolicy bank_policy = BankPolicy::serialize;
    int bank_limit = 0;
};

struct PeDmaConfig {
    std::string impl;
    int rd_engines = 0;      // DMA_READ channels
    int wr_engines = 0;      // DMA_WRITE channels
    double setup_ns = 0.0;   // channel hop latency per transfer (T2)
    double bw_gbs = 0.0;     // channel hop bandwidth (T2)
    int banks_per_transfer = 0;  // TCM banks a DMA occupies at a time (seed 002: 16)
    double chunk_ns = 0.0;   // per strided chunk after a transfer's first (T7 DMA patterns)
    double copy_ns = 0.0;    // per broadcast copy after the first
    double piece_ns = 0.0;   // per gathered piece after the first
};

struct PeFetchStoreConfig {
    std::string impl;
    double latency_ns = 0.0;  // fixed latency of one fetch or store
    double command_ns = 0.0;  // more per fetch or store command (not a composite's tiles)
};

// PE_GEMM's cost model (docs/timing.md T3).
enum class GemmCostModel { array_pass, dataflow };

struct PeGemmConfig {
    std::string impl;
    std::string shared_resource;  // "accel_slot"
    int rows = 0;
    int cols = 0;
    double freq_ghz = 0.0;
    int fill_cycles = 0;
    // The loader's default is dataflow; a config built in code keeps SPEC T3's
    // array pass unless it says otherwise.
    GemmCostModel cost_model = GemmCostModel::array_pass;
    int fetch_bytes_per_cycle = 0;   // operand streaming rate into the array
    int reducer_cycles = 0;          // partial-sum reduction when K is folded
    int command_cycles = 0;          // more per gemm command (not a composite's tiles)
};

struct PeMathConfig {
    std::string impl;
    std::string shared_resource;  // "accel_slot"
    int lanes = 0;
    int lanes_32bit = 0;          // lanes for 32-bit elements
    double freq_ghz = 0.0;
    int fill_cycles = 0;
    int command_cycles = 0;       // more per math command (not a composite's tiles)
    std::map<std::string, double> op_cost;  // cycles per element and lane, by op name
};

struct PeTcmConfig {
    std::string impl;
    std::uint64_t size_bytes = 0;      // from size_mb
    std::uint64_t reserved_bytes = 0;  // SchedulerReservedTCM, from reserved_mb
    double read_bw_gbs = 0.0;
    double write_bw_gbs = 0.0;
    double latency_ns = 0.0;
    int banks = 0;                          // TCM banks (seed 002 / CALIBRATION: 16)
    std::uint64_t bank_interleave_bytes = 0;  // bank = (addr / interleave) % banks (8)
    int slices = 0;                 // DM slices of the PE (a broadcast's copies, at most one each)
    double slice_bw_gbs = 0.0;      // one slice's write rate (a broadcast copy streams at it)
};

struct PeMmuConfig {
    std::string impl;
    std::uint64_t page_bytes = 0;
    double translate_ns = 0.0;
};

struct PeIpcqConfig {
    std::string impl;
    int slots = 0;
    std::uint64_t slot_bytes = 0;
};

// The intra-PE edges of seed 000 §D8 (distances in mm) plus the fetch/store
// link bandwidth. Each edge is a directed T1 hop of latency mm × ns_per_mm.
struct PeLinksConfig {
    double cpu_to_scheduler_mm = 0.0;
    double scheduler_to_dma_mm = 0.0;
    double scheduler_to_fetch_store_mm = 0.0;
    double scheduler_to_gemm_mm = 0.0;
    double scheduler_to_math_mm = 0.0;
    double dma_to_fetch_store_mm = 0.0;
    double fetch_store_to_gemm_mm = 0.0;
    double fetch_store_to_math_mm = 0.0;
    double gemm_to_fetch_store_mm = 0.0;
    double gemm_to_math_mm = 0.0;
    double math_to_fetch_store_mm = 0.0;
    double fetch_store_to_dma_mm = 0.0;
    double fetch_store_to_tcm_bw_gbs = 0.0;
};

// The nine components of pe_template (seed 000 §D8). `names` maps each kind to
// the component's key in the YAML, which is its node id inside the PE.
struct PeTemplateConfig {
    PeCpuConfig cpu;
    PeSchedulerConfig scheduler;
    PeDmaConfig dma;
    PeFetchStoreConfig fetch_store;
    PeGemmConfig gemm;
    PeMathConfig math;
    PeTcmConfig tcm;
    PeMmuConfig mmu;
    PeIpcqConfig ipcq;
    PeLinksConfig links;
    std::map<std::string, std::string> names;  // kind -> component name
    std::map<std::string, SourceLoc> impl_loc; // kind -> where its impl was named
};

// ---------------------------------------------------------------- cube level

struct MCpuConfig {
    std::string impl;
    double overhead_ns = 0.0;
    int router = 0;  // mesh router the M_CPU attaches to (T5)
    // Watchdog beyond seed 001: a fan-out whose PE responses have not all
    // arrived this long after dispatch ends with success = false. Off if absent.
    std::optional<double> response_timeout_ns;
};

struct NocConfig {
    std::string impl;
    double link_bw_gbs = 0.0;
    double router_latency_ns = 0.0;
    LinkConfig attach;  // node <-> router links
};

struct HbmCtrlConfig {
    std::string impl;
    double bw_gbs = 0.0;
    double latency_ns = 0.0;
};

struct SharedSramConfig {
    std::string impl;
    std::uint64_t size_bytes = 0;
    double bw_gbs = 0.0;
    double latency_ns = 0.0;
    int router = 0;
};

struct MemoryMapConfig {
    int hbm_slices_per_cube = 0;
    std::uint64_t hbm_slice_bytes = 0;
    std::uint64_t sram_base = 0;  // PA of cube 0's shared SRAM window
};

struct PeLayoutConfig {
    int rows = 0;
    int cols = 0;
    double pitch_mm = 0.0;
};

struct UcieConfig {
    LinkConfig link;  // between consecutive cubes of one SIP
    int router = 0;   // mesh router the cube's UCIe port attaches to
};

struct CubeConfig {
    MCpuConfig m_cpu;
    NocConfig noc;
    HbmCtrlConfig hbm_ctrl;
    SharedSramConfig shared_sram;
    MemoryMapConfig memory_map;
    PeLayoutConfig pe_layout;
    PeTemplateConfig pe_template;
    std::map<std::string, SourceLoc> impl_loc;  // "m_cpu", "noc", ... -> where named
};

// ---------------------------------------------------------------- system level

struct IoCpuConfig {
    std::string impl;
    double overhead_ns = 0.0;
};

struct SystemConfig {
    int sips = 0;
    int cubes_per_sip = 0;
    IoCpuConfig io_cpu;
    LinkConfig io_link;   // IO_CPU <-> each cube's M_CPU
    UcieConfig ucie;
    LinkConfig sip_link;  // IO_CPU of SIP s <-> IO_CPU of SIP s+1
    SourceLoc io_cpu_impl_loc;
};

// The attrs an impl brings beyond its kind's (ImplRegistry::add_attrs): the
// values in the impl's own struct, for its factory, and each value's YAML
// text, for the dump.
struct ImplAttrs {
    std::any values;
    std::vector<std::pair<std::string, std::string>> text;  // key, value as written
};

// Energy per action and static power (Accelergy-style tables; docs/outputs.md
// "Energy and power"): what report/energy.* multiplies the run's counts by.
struct EnergyConfig {
    double mac_int8_pj = 0.0, mac_bf16_pj = 0.0, mac_fp32_pj = 0.0;  // per MAC, by the operands' dtype
    double math_element_pj = 0.0;  // per PE_MATH element and cycle of its op's op_cost
    double hbm_read_pj_per_byte = 0.0, hbm_write_pj_per_byte = 0.0;
    double sram_read_pj_per_byte = 0.0, sram_write_pj_per_byte = 0.0;  // shared SRAM
    double tcm_read_pj_per_byte = 0.0, tcm_write_pj_per_byte = 0.0;
    double noc_pj_per_byte_hop = 0.0;   // each mesh or attach link a byte crosses
    double ucie_pj_per_byte = 0.0;      // each UCIe crossing
    double offchip_pj_per_byte = 0.0;   // the io link and the SIP link
    double dma_descriptor_pj = 0.0;     // per DMA transfer (one descriptor)
    double pe_static_mw = 0.0;          // per PE
    double hbm_static_mw = 0.0;         // per HBM slice
    double cube_static_mw = 0.0;        // per cube: shared SRAM, NoC, M_CPU
};

struct TopologyConfig {
    std::string source;  // file the topology was read from
    std::string name;
    WireConfig wire;
    SystemConfig system;
    CubeConfig cube;  // every cube is built from this one description
    EnergyConfig energy;
    std::map<std::string, ImplAttrs> impl_attrs;  // by kind, for impls that bring attrs

    int pes_per_cube() const { return cube.pe_layout.rows * cube.pe_layout.cols; }
};

}  // namespace npuvp
