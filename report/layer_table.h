// Results per layer of a mapped model (docs/models.md "Reading the results";
// issue 19 point 5): for each layer its node and op, the PEs it ran on, when
// it ran and its share of the makespan, FLOPs, HBM bytes, achieved TFLOPS
// against the peak of those PEs, what bounded it, and the critical path
// through layers. Built from the mapping and the run's command records.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "model/mapper.h"
#include "platform/workload_run.h"

namespace npuvp {

struct LayerResult {
    std::string id, node, op, lowering, split, cube;
    int pes = 0;
    std::uint64_t start_ps = 0, end_ps = 0;  // its first command's start, its last one's finish
    std::uint64_t flops = 0;
    // Bytes by memory level, every PE's DMA together (with the cross-cube
    // reads and staged copies that feed it).
    std::uint64_t hbm_read = 0, hbm_write = 0, sram_read = 0, sram_write = 0;
    double tflops = 0.0, peak_tflops = 0.0;
    // "DMA" or "compute": the larger of its slowest PE's DMA and compute
    // busy time, with that share of its PE time ("DMA 96%"); "queued" when
    // both are under half its span (its PEs were busy with other layers, or
    // the launch dominated).
    std::string bound;
    // Its slowest PE's DMA busy time in parts (DmaTimeSplit): start-up,
    // transfer at the slowest hop (`transfer_hop`, the one carrying most of
    // it), waiting behind other transfers (`wait_hop`, the one waited for
    // most); its compute busy time.
    std::uint64_t dma_startup_ps = 0, dma_transfer_ps = 0, dma_wait_ps = 0, compute_ps = 0;
    std::string transfer_hop, wait_hop;
    // Its dynamic energy (report/energy.h): its commands' MACs and MATH
    // elements, and the bytes they (and the transfers feeding it) moved at
    // HBM and shared SRAM; TCM, NoC and static energy stay with the run.
    double energy_pj = 0.0;
    std::string waited_for;  // the input layer that finished last before it, "" for none
    bool critical = false;   // on the critical path through layers
};

// What a hop is, by its name, for a bound label: the memory it serves
// ("HBM", "SRAM", "TCM"), the "DMA engine", or the link ("mesh link",
// "UCIe", "SIP link", "link").
std::string hop_kind(const std::string& hop_name);

// The bytes one PE's command moves by memory level (a composite's A and B
// each where it lies, after operand reuse; a DMA command's bytes): an
// address at or above `sram_base` is shared SRAM, every other one HBM.
struct LevelBytes {
    std::uint64_t hbm_read = 0, hbm_write = 0, sram_read = 0, sram_write = 0;
};
void add_command_bytes(const Command& c, std::uint64_t sram_base, LevelBytes& into);

// Empty when the run has no host (a model always has one).
std::vector<LayerResult> layer_results(const model::Mapping& mapping, const WorkloadRun& run,
                                       const TopologyConfig& topo);

// One layer as a JSON object (the summary's and the report's "layers" rows).
void write_layer_json(std::ostream& out, const LayerResult& l);

// One layer as a Markdown table row, after layer_markdown_header().
const char* layer_markdown_header();
void write_layer_markdown(std::ostream& out, const LayerResult& l, std::uint64_t makespan_ps);

// "layers" table and the critical path, for the terminal.
void print_layers(std::ostream& out, const std::vector<LayerResult>& layers, std::uint64_t makespan_ps);

}  // namespace npuvp
