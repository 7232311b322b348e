// Mapping a Network onto the machine (docs/models.md "Mapping"): each ONNX
// node becomes a layer (or folds into one), each layer a kernel of commands
// split over the PEs of a cube, launched by the host after the layers it
// depends on. The result is an ordinary workload YAML, so `npuvp map` writes
// exactly what `npuvp --model` runs.
//
// A mapping policy is a function registered by name (`mappers()`); the
// shipped one is `builtin.greedy_mapper`. Adding one: docs/models.md.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "modules/common/config.h"
#include "model/onnx_import.h"
#include "model/patterns.h"

namespace npuvp::model {

struct MapOptions {
    // Cubes the layers are pipelined over, in (sip, cube) order from
    // sip0.cube0: 1 = the whole network on sip0.cube0; N > 1 = contiguous
    // stages of about equal FLOPs, stage s on the s-th cube, a stage's input
    // read from the cube that wrote it (over UCIe or the SIP link).
    int cubes = 1;
    // Cards (cubes, in the same order) a tensor-parallel step is split over
    // (docs/models.md "Tensor parallelism"): every layer runs on each of
    // them, and an AllReduce node becomes transfers between them, in a ring
    // or a tree. 1 = none; not together with cubes > 1.
    int tensor_parallel = 1;
    enum class AllReduce { ring, tree };
    AllReduce all_reduce = AllReduce::ring;
    // The bytes of every activation and weight element the mapped kernels
    // move and compute: 2 (bf16, whatever an ONNX model's own type) or 1
    // (INT8 or FP8 e4m3, written as the workload's int8: GEMMs int8 in and
    // out, a K split's partials int32, MATH on int8; docs/models.md).
    int elem_bytes = 2;
    // Recognise GELU, SiLU, RMSNorm and rotary spellings as one node each
    // before mapping (model/patterns.h, docs/models.md "Recognised
    // patterns"); false maps every node as the file spells it.
    bool recognise = true;
    // Launch every layer with `resolve_after: device` (docs/models.md
    // "Launches"): the host sends them all at once and each cube's M_CPU
    // starts a layer when the layers it waits for are done, with no round
    // trip to the host between them. false: the host launches each layer
    // when its inputs' responses are back.
    bool device_queue = false;
    // One compiled kernel per PE (docs/models.md "Compiled kernels"): every
    // layer's commands in one program a PE runs from one launch, the PEs
    // meeting at a barrier (IPCQ messages through PE 0) between layers. One
    // cube only; not with device_queue.
    bool compiled = false;
    // Compiled kernels only: each PE prefetches the next GEMM's weights into
    // its AllocatableTCM while the current one computes, double-buffered
    // (docs/models.md "Weight prefetch"); false (`--no-prefetch`): every
    // token reads its B tile from memory, as a per-layer launch does.
    bool prefetch = true;
};
const char* to_string(MapOptions::AllReduce a);

// One mapped layer: what the report's per-layer table says about how it was
// lowered (docs/models.md "Reading the results").
struct MappedLayer {
    std::string id;        // the kernel and host request id (l<i>_<node>)
    std::string node;      // the ONNX node (the head of a fused group)
    std::string op;        // its op type
    std::string lowering;  // "gemm", "math <op>", "dma copy", ...
    std::vector<std::string> fused;  // nodes folded into it (epilogues, BN, views)
    // Patterns recognised among them (model/patterns.h): "GELU (erf)",
    // "GELU (tanh)", "SiLU", "RMSNorm", "rotary".
    std::vector<std::string> patterns;
    int pes = 1;           // PEs it is split over
    std::string split;     // "M", "N", "K", "groups", "elements", "bytes" or "-"
    std::uint64_t m = 0, k = 0, n = 0;  // GEMM shape (whole layer)
    std::uint64_t flops = 0;            // 2·M·K·N for a GEMM, elements for MATH
    std::vector<std::string> after;     // the layers it waits for
    std::string cube = "sip0.cube0";    // where it runs
    std::uint64_t in_bytes = 0;         // its activation input (bf16), whole layer
    // Where its activations come from and its output goes (docs/models.md
    // "Placement"): "own slice", "shared SRAM", "staged" (copied from other
    // PEs' slices first) or "other cube".
    std::string reads_from = "own slice", writes_to = "own slice";
};

// A kernel launched on one PE before a layer, moving the layer's input from
// where other PEs wrote it: a cross-cube read, or a staged exchange through
// HBM (read from other slices of the cube, written into its own).
struct MappedTransfer {
    std::string id, consumer, producer;
    bool cross_cube = false;
};

// MapOptions::compiled: one PE's kernel, and the layer (an index in
// Mapping::layers) each of its commands counts for: its time
// (`time_layer`: the layer's own commands) and its bytes (`bytes_layer`:
// those and the transfers that feed the layer); -1 for a barrier's.
struct CompiledKernel {
    std::string kernel;
    int pe = 0;
    std::vector<int> time_layer, bytes_layer;
};

struct Mapping {
    std::string workload_yaml;
    // MapOptions::compiled with prefetch: the GEMM layers whose weights some
    // PE prefetches into TCM, and the prefetches (a chunk, one a buffer) on
    // all PEs together.
    std::size_t prefetched_layers = 0, prefetch_chunks = 0;
    std::vector<CompiledKernel> compiled;  // MapOptions::compiled: one a PE, else empty
    std::size_t barriers = 0;              // MapOptions::compiled: the barriers each PE meets
    std::vector<MappedLayer> layers;
    std::vector<MappedTransfer> transfers;
    std::size_t sram_tensors = 0;     // outputs exchanged through shared SRAM
    std::vector<std::string> folded;  // nodes that cost nothing (views, constants)
};

using Mapper = std::function<Mapping(const Network&, const TopologyConfig&, const MapOptions&)>;

// The registered mapping policies, by name.
const std::map<std::string, Mapper>& mappers();

Mapping greedy_map(const Network& net, const TopologyConfig& topo, const MapOptions& options);

}  // namespace npuvp::model
