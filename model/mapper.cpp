#include "model/mapper.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <set>
#include <sstream>

#include "modules/common/checked.h"
#include "modules/pe/pe_gemm.h"

namespace npuvp::model {

namespace {

// A GEMM tile's rows and columns: the array's size (docs/models.md "Tiles").
constexpr std::uint64_t kTile = 128;
// A token (a GEMM tile's A and B, or a MATH tile) takes at most this share of
// the reserved TCM, so that the tokens in flight (DMA, fetch, compute, store,
// and the next DMA) fit beside an operand panel.
constexpr std::uint64_t kTokensInReserve = 8;
// Activations and weights run as bf16 (2 bytes), whatever the model's type,
// unless the options say 8-bit (MapOptions::elem_bytes): Greedy::m_elem.
// A K-split's partial sums are fp32.
constexpr std::uint64_t kPartialElem = 4;
// Tensors in shared SRAM start on this boundary.
constexpr std::uint64_t kSramAlign = 4096;
// What one more layer costs on the shipped topologies (assumed from
// default.yaml runs: a host launch and its response ~1.5 µs, one DMA
// start-up ~0.6 µs): a K split, which adds a sum layer, must save more.
constexpr double kLayerCostNs = 2000.0;
// TopK: passes over its input (a radix select over 16-bit keys, 8 bits a
// pass, then a gather; docs/models.md "Operators").
constexpr std::uint64_t kTopKPasses = 3;
// A grouped (not depthwise) convolution is this many GEMMs at most, each
// written out as a composite of its layer's kernel (ResNeXt has 32).
constexpr std::uint64_t kMaxGroups = 4096;
// A K-split's sum gives each of its PEs at least this many outputs.
constexpr std::uint64_t kSumMinShare = 1024;
// What a size product names when it overflows (checked arithmetic; the CLI
// adds the model file: sc_main/main.cpp load_model()).
constexpr const char* kSize = "a layer's size in elements, bytes or FLOPs";

std::uint64_t round_up(std::uint64_t v, std::uint64_t to) { return checked_mul(ceil_div(v, to), to, kSize); }

bool is_view(const std::string& op) {
    return op == "Reshape" || op == "Flatten" || op == "Squeeze" || op == "Unsqueeze" ||
           op == "Identity" || op == "Dropout";
}
bool is_gemm(const std::string& op) { return op == "MatMul" || op == "Gemm" || op == "Conv" || op == "ConvTranspose"; }
// A layout change (a DMA copy). Resize in its default mode, nearest, picks
// one input element per output element: a copy too; its linear and cubic
// modes compute (vector_layer).
bool is_copy(const Node& node) {
    const std::string& op = node.op;
    return op == "Transpose" || op == "Concat" || op == "Split" || op == "Slice" || op == "Gather" ||
           op == "Expand" || op == "Pad" || (op == "Resize" && node.text("mode", "nearest") == "nearest");
}

// The PE_MATH op an element-wise ONNX op costs as (docs/models.md "Operators").
std::string math_op(const std::string& op, bool constant_operand) {
    if (op == "Relu" || op == "LeakyRelu" || op == "Clip" || op == "Neg") return "relu";
    if (op == "HardSigmoid" || op == "HardSwish") return "mul";
    if (op == "Max" || op == "Min" || op == "Where") return "add";
    if (op == "ReduceSum" || op == "ReduceMax" || op == "TopK") return "reduce";
    if (op == "Resize") return "mul";  // linear or cubic: a weighted sum of neighbours (vector_layer)
    if (op == "Sigmoid" || op == "Tanh" || op == "Sqrt" || op == "Pow") return "exp";
    if (op == "Gelu" || op == "Erf") return "gelu";
    // Recognised patterns (model/patterns.h): SiLU is a sigmoid with its
    // product with x in the same pass (as HardSwish); RMSNorm costs what a
    // LayerNormalization does; rotary two multiply passes (vector_layer).
    if (op == "Silu") return "exp";
    if (op == "RMSNormalization") return "softmax";
    if (op == "RotaryEmbedding") return "mul";
    if (op == "Add" || op == "Sub") return constant_operand ? "bias_add" : "add";
    if (op == "Mul" || op == "Div" || op == "BatchNormalization") return "mul";
    if (op == "Softmax" || op == "LayerNormalization") return "softmax";
    if (op == "ReduceMean" || op == "GlobalAveragePool" || op == "AveragePool" || op == "MaxPool") return "reduce";
    if (op == "Cast") return "cast";
    return "";
}
bool fusable_epilogue(const std::string& op) {
    return op == "Relu" || op == "LeakyRelu" || op == "Clip" || op == "Neg" || op == "HardSigmoid" || op == "HardSwish" ||
           op == "Sigmoid" || op == "Tanh" || op == "Gelu" || op == "Silu" ||
           op == "Erf" || op == "Add" || op == "Sub" || op == "Mul" || op == "Div";
}

// A name from the model in a comment of the workload YAML: one line
// (control bytes would end the comment and break the file).
std::string comment_text(const std::string& s) {
    std::string out;
    for (char c : s) out += (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? '?' : c;
    return out;
}

std::string sanitize(const std::string& s) {
    std::string out;
    for (char c : s) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
    return out;
}

std::uint64_t u(std::int64_t v) { return v < 0 ? 0 : static_cast<std::uint64_t>(v); }

// An activation a layer reads: the layers that wrote it, its bytes (bf16, the
// whole tensor) and whether the layer reads it as a GEMM's B operand.
struct Input {
    std::vector<std::string> producers;
    std::uint64_t bytes = 0;
    bool b = false;
};

// Where a layer reads an activation from or writes its output to, when not
// its PEs' own HBM slices: a physical address (shared SRAM). 0 = own slice.
struct Place {
    std::uint64_t pa = 0;
    bool given() const { return pa != 0; }
};

struct Layer {
    MappedLayer info;
    std::vector<std::string> epilogues;
    std::uint64_t gemm_count = 1;  // a grouped Conv or a batched B: this many GEMMs
    std::uint64_t groups_per_pe = 1;  // of them, what each PE runs (split "groups"; else all)
    std::uint64_t tm = kTile, tk = kTile, tn = kTile;
    std::uint64_t share_m = 0, share_n = 0, share_k = 0;
    std::uint64_t out_bytes = 0;     // what it writes, every PE together
    std::vector<Input> inputs;       // the activations it reads
    int cube = 0;                    // index in (sip, cube) order
    int k_parts = 0;                 // a K-split's sum: the partials it adds (one per GEMM PE)
    std::uint64_t partial_bytes = 0; // a K-split's sum: its share of one GEMM PE's fp32 partial
    std::uint64_t sum_stride = 0;    // a K-split's sum: one GEMM PE's whole partial (M·N fp32)
    Place src, src_b, dst;           // shared-SRAM placement (docs/models.md "Placement")
    // A step of an all-reduce between cards (tensor parallelism): PE 0 reads
    // `xfer_bytes` from another card at `xfer_from`, adds them to its own
    // (a reduce step) and writes the result at `xfer_to`.
    std::uint64_t xfer_bytes = 0, xfer_from = 0, xfer_to = 0;
    bool xfer_add = false;
};

// Which layers precede which through `after`, one bit per pair.
class Ancestors {
public:
    template <typename Layers>
    Ancestors(const Layers& layers, const std::map<std::string, std::size_t>& index)
        : m_words((layers.size() + 63) / 64), m_bits(layers.size() * m_words, 0) {
        for (std::size_t i = 0; i < layers.size(); ++i)
            for (const std::string& a : layers[i].info.after) {
                const std::size_t j = index.at(a);
                set(i, j);
                for (std::size_t w = 0; w < m_words; ++w) m_bits[i * m_words + w] |= m_bits[j * m_words + w];
            }
    }
    bool has(std::size_t layer, std::size_t ancestor) const {
        return (m_bits[layer * m_words + ancestor / 64] >> (ancestor % 64)) & 1u;
    }

private:
    void set(std::size_t layer, std::size_t ancestor) {
        m_bits[layer * m_words + ancestor / 64] |= std::uint64_t{1} << (ancestor % 64);
    }
    std::size_t m_words;
    std::vector<std::uint64_t> m_bits;
};

class Greedy {
public:
    Greedy(const Network& net, const TopologyConfig& topo, const MapOptions& options)
        : m_net(net), m_topo(topo), m_options(options), m_pes(topo.pes_per_cube()),
          m_elem(options.elem_bytes == 1 ? 1 : 2) {
        if (options.recognise) m_rec = recognise_patterns(net);
        else m_rec.nodes = net.nodes;
        for (const Node& node : m_rec.nodes)
            for (const std::string& in : node.inputs) ++m_uses[in];
        for (const std::string& out : net.outputs) ++m_uses[out];
        for (const auto& [name, t] : net.tensors)
            if (t.constant) m_constant.insert(name);
    }

    Mapping run() {
        for (const Node& node : m_rec.nodes) place(node);
        order_layers();
        assign_cubes();
        place_exchanges();
        cross_cube_reads();
        if (m_options.tensor_parallel > 1) cards();
        Mapping out;
        std::ostringstream y;
        y << "# Mapped from " << comment_text(m_net.file) << " by builtin.greedy_mapper (docs/models.md).\n"
          << "name: " << sanitize(m_net.name) << "\nkernels:\n";
        // Compiled (MapOptions::compiled): emit_compiled() writes one kernel
        // per PE holding every layer's body, so the layers are not kernels
        // of their own.
        if (m_options.compiled) check_compilable();
        for (const Layer& l : m_layers) {
            // What the policy chose, for a reader of `npuvp map`'s file.
            y << "  # node " << comment_text(l.info.node) << " (" << l.info.op << "): " << l.info.lowering;
            if (l.info.m) y << " " << l.info.m << "x" << l.info.k << "x" << l.info.n;
            y << ", on " << l.info.pes << " PE" << (l.info.pes == 1 ? "" : "s") << " of " << l.info.cube;
            if (l.info.split != "-") y << " split by " << l.info.split;
            if (l.info.reads_from != "own slice" || l.info.writes_to != "own slice")
                y << "; input from " << l.info.reads_from << ", output to " << l.info.writes_to;
            if (!l.info.fused.empty()) {
                y << "; fused:";
                for (const std::string& f : l.info.fused) y << " " << comment_text(f);
            }
            if (!l.info.patterns.empty()) {
                y << "; recognised:";
                for (std::size_t i = 0; i < l.info.patterns.size(); ++i) y << (i ? ", " : " ") << l.info.patterns[i];
            }
            y << "\n";
            if (m_options.compiled) continue;
            y << "  " << l.info.id << ":\n";
            emit_layer(y, l);
        }
        if (m_options.compiled && !m_layers.empty()) {
            emit_compiled(y, out);
        } else {
            emit_launches(y);
        }
        out.workload_yaml = y.str();
        for (const Transfer& t : m_transfers) out.transfers.push_back({t.id, t.consumer, t.producer, t.id[0] == 'x'});
        for (const Layer& l : m_layers) {
            out.layers.push_back(l.info);
            out.sram_tensors += l.dst.given();
        }
        out.folded = m_folded;
        return out;
    }

private:
    // A kernel launched on one consumer PE before its layer: it reads what
    // the layer needs from where other PEs wrote it (other slices of its
    // cube, or another cube), and, when staged, writes it into its own slice.
    struct Transfer {
        std::string id, consumer, producer, after;
        int pe = 0;
        std::vector<std::pair<std::uint64_t, std::uint64_t>> reads;  // (pa, bytes)
        std::uint64_t write_bytes = 0;
    };

    // A layer's commands; a slice that cannot hold an operand is the model's error.
    void emit_layer(std::ostringstream& y, const Layer& l) const {
        try {
            emit_body(y, l);
        } catch (const SliceOverflow& e) {
            throw ModelError(m_net.file, l.info.node, l.info.op, e.what(slice_bytes()));
        }
    }

    // Per layer (not compiled): the transfers' and layers' kernels, and the
    // host's launches of them, each after the layers it waits for.
    void emit_launches(std::ostringstream& y) const {
        for (const Transfer& t : m_transfers) {
            y << "  " << t.id << ":\n";
            emit_transfer(y, t);
        }
        if (m_layers.empty()) {
            // Every node folds (views, constants, empty tensors): nothing to
            // run but an empty kernel, so the run still reports (makespan 0).
            y << "  nothing:\n    - wait: all\nlaunch:\n  - { kernel: nothing, cube: " << cube_name(0)
              << ", pes: [0] }\n";
        } else {
            y << "host:\n";
        }
        // A layer's transfers go out before it. With the device queue each
        // launch is sent at once and its M_CPUs hold it until its inputs are
        // written (docs/models.md "Launches").
        const char* resolve = m_options.device_queue ? ", resolve_after: device" : "";
        const auto feeding = transfers_by_consumer();
        for (const Layer& l : m_layers) {
            if (const auto fed = feeding.find(l.info.id); fed != feeding.end())
                for (const Transfer* t : fed->second)
                    y << "  - kernel_launch: { id: " << t->id << ", kernel: " << t->id << ", cubes: [" << l.info.cube
                      << "], target_pe: [" << t->pe << "], after: [" << t->after << "]" << resolve << " }\n";
            y << "  - kernel_launch: { id: " << l.info.id << ", kernel: " << l.info.id
              << ", cubes: [" << l.info.cube << "], target_pe: " << targets(l.info.pes) << ", after: [";
            for (std::size_t i = 0; i < l.info.after.size(); ++i) y << (i ? ", " : "") << l.info.after[i];
            y << "]" << resolve << " }\n";
        }
    }

    // A transfer's commands: its reads, and when staged, the write into its
    // PE's slice.
    void emit_transfer(std::ostringstream& y, const Transfer& t) const {
        for (std::size_t j = 0; j < t.reads.size(); ++j)
            emit_dma(y, "dma_read", "xin" + (t.reads.size() > 1 ? std::to_string(j) : ""), t.reads[j].second,
                     t.reads[j].first);
        if (t.write_bytes) {
            y << "    - wait: all\n";
            try {
                emit_dma(y, "dma_write", "xout", t.write_bytes, std::nullopt);
            } catch (const SliceOverflow& e) {
                throw ModelError(m_net.file, t.consumer, "", "its input, staged into its PE's slice: " +
                                                                e.what(slice_bytes()));
            }
        }
        y << "    - wait: all\n";
    }

    // Compiled kernels synchronise through IPCQ, which joins the PEs of one
    // cube: the network must run on one.
    void check_compilable() const {
        if (m_options.tensor_parallel > 1 || m_options.cubes > 1)
            throw ModelError(m_net.file, "", "",
                             "--launch compiled runs a network on one cube (its PEs synchronise through their "
                             "IPCQ rings, which do not cross cubes): not with " +
                                 std::string(m_options.tensor_parallel > 1 ? "tensor parallelism"
                                                                           : "--map-cubes > 1") +
                                 " (use --launch host or device)");
    }

    // The commands in `text` (each starts a line with "    - ", as emit_*()
    // write them; a composite's own lines are indented further).
    static std::size_t commands_in(const std::string& text) {
        std::size_t n = 0;
        for (std::size_t at = 0; at < text.size();) {
            if (text.compare(at, 6, "    - ") == 0) ++n;
            const std::size_t end = text.find('\n', at);
            if (end == std::string::npos) break;
            at = end + 1;
        }
        return n;
    }

    // PE `pe`'s side of barrier `k` among PEs [0, pes) (docs/models.md
    // "Compiled kernels"). Every part before it ends with `wait: all`, so
    // the PE's earlier commands are complete. Arrival: each PE but 0 sends
    // PE 0 a message of sync_bytes (a slot of its ring each); PE 0 receives
    // them, as many a receive as its ring has slots (a receive waits for all
    // its bytes, so it must not need more messages than the ring holds).
    // Release, a binomial tree (the sends of one PE go one after another on
    // its vc_comm channel, each with its DMA start-up): in round r every PE
    // q < 2^r that is released sends to q + 2^r, so the last PE is released
    // after ceil(log2 pes) sends, not pes - 1.
    static void emit_barrier(std::ostringstream& y, int pe, int pes, int k, int slots) {
        const std::string id = "sync" + std::to_string(k);
        int round = 0;  // the first round this PE sends in: the one after it was released
        if (pe == 0) {
            for (int from = 1, part = 0; from < pes; from += slots, ++part)
                y << "    - ipcq_recv: { id: " << id << "_in" << part
                  << ", bytes: " << std::min(slots, pes - from) * sync_bytes << " }\n";
        } else {
            while ((2 << round) <= pe) ++round;  // released in round floor(log2 pe)
            ++round;
            y << "    - ipcq_send: { id: " << id << ", peer: 0, bytes: " << sync_bytes << " }\n"
              << "    - ipcq_recv: { id: " << id << "_go, bytes: " << sync_bytes << " }\n";
        }
        y << "    - wait: all\n";
        for (; (1 << round) < pes; ++round)
            if (pe < (1 << round) && pe + (1 << round) < pes)
                y << "    - ipcq_send: { id: " << id << "_to" << pe + (1 << round) << ", peer: " << pe + (1 << round)
                  << ", bytes: " << sync_bytes << " }\n";
    }

    // MapOptions::compiled (docs/models.md "Compiled kernels"): one kernel
    // per PE of the cube, launched once by the host. PE p's kernel holds,
    // layer by layer in dependency order, a barrier when the layer waits
    // for one since the last barrier, the transfers it runs for the layer,
    // and the layer's commands when the layer runs on it. Command ids take their
    // layer's (or transfer's) id as a prefix; Mapping::compiled says which
    // layer each command counts for. The host sends the launches at once
    // (`after: []`), in PE order.
    void emit_compiled(std::ostringstream& y, Mapping& out) {
        int pes = 1;
        for (const Layer& l : m_layers) pes = std::max(pes, l.info.pes);
        const auto feeding = transfers_by_consumer();
        // Waves: a barrier comes before a layer that waits for one since the
        // last barrier (directly, or through a transfer that reads its
        // output); layers that do not wait for each other run one after the
        // other on each PE without one.
        std::map<std::string, std::string> producer_of;  // a transfer's id -> the layer it reads
        for (const Transfer& t : m_transfers) producer_of[t.id] = t.after;
        std::vector<bool> barrier_before(m_layers.size(), false);
        std::set<std::string> wave;
        for (std::size_t i = 0; i < m_layers.size(); ++i) {
            for (const std::string& a : m_layers[i].info.after) {
                const auto t = producer_of.find(a);
                if (wave.count(t == producer_of.end() ? a : t->second) == 0) continue;
                barrier_before[i] = true;
                wave.clear();
                break;
            }
            wave.insert(m_layers[i].info.id);
        }
        // Each layer's commands, written once for every PE that runs them.
        std::vector<std::string> bodies(m_layers.size());
        for (std::size_t i = 0; i < m_layers.size(); ++i) {
            std::ostringstream text;
            m_prefix = m_layers[i].info.id + "_";
            emit_layer(text, m_layers[i]);
            bodies[i] = text.str();
        }
        // Weight prefetch: a layer's chunks, the same on every PE that runs
        // it; a PE's prefetching layers' bodies depend on where its chunks
        // fall in its own sequence (buffer, next chunk), so they are written
        // per PE, and a body already written (another PE's, the same text)
        // is named by its anchor.
        const std::vector<std::vector<Chunk>> chunks = m_options.prefetch ? plan_prefetch() : std::vector<std::vector<Chunk>>();
        std::set<std::size_t> prefetched;  // layers with a chunk prefetched on some PE
        std::map<std::string, std::string> anchor_of;  // a body written -> its anchor
        for (int p = 0; p < pes; ++p) {
            CompiledKernel k;
            k.kernel = "pe" + std::to_string(p);
            k.pe = p;
            y << "  " << k.kernel << ":\n";
            // Appends `body`'s commands, counted for layers `time_layer` and
            // `bytes_layer` (-1: none).
            const auto count = [&](const std::string& body, int time_layer, int bytes_layer) {
                const std::size_t n = commands_in(body);
                k.time_layer.insert(k.time_layer.end(), n, time_layer);
                k.bytes_layer.insert(k.bytes_layer.end(), n, bytes_layer);
            };
            // This PE's chunks in program order.
            std::vector<const Chunk*> mine;
            for (std::size_t i = 0; i < chunks.size(); ++i)
                if (p < m_layers[i].info.pes)
                    for (const Chunk& c : chunks[i]) mine.push_back(&c);
            for (const Chunk* c : mine) prefetched.insert(c->layer);
            out.prefetch_chunks += mine.size();
            std::size_t next_chunk = 0;
            int sync = 0;
            for (std::size_t i = 0; i < m_layers.size(); ++i) {
                const Layer& l = m_layers[i];
                const int layer = static_cast<int>(i);
                if (barrier_before[i]) {
                    if (pes > 1) {
                        std::ostringstream text;
                        emit_barrier(text, p, pes, sync, m_topo.cube.pe_template.ipcq.slots);
                        count(text.str(), -1, -1);
                        y << text.str();
                    }
                    ++sync;
                }
                if (const auto fed = feeding.find(l.info.id); fed != feeding.end())
                    for (const Transfer* t : fed->second)
                        if (t->pe == p) {
                            std::ostringstream text;
                            m_prefix = t->id + "_";
                            emit_transfer(text, *t);
                            count(text.str(), -1, layer);
                            y << text.str();
                        }
                if (p >= l.info.pes) continue;
                std::string staged;  // a prefetching layer's body on this PE
                if (i < chunks.size() && !chunks[i].empty()) {
                    std::ostringstream text;
                    std::vector<int> bytes_of;
                    m_prefix = l.info.id + "_";
                    try {
                        emit_prefetched(text, l, mine, next_chunk, bytes_of);
                    } catch (const SliceOverflow& e) {
                        throw ModelError(m_net.file, l.info.node, l.info.op, e.what(slice_bytes()));
                    }
                    staged = text.str();
                    k.time_layer.insert(k.time_layer.end(), bytes_of.size(), layer);
                    k.bytes_layer.insert(k.bytes_layer.end(), bytes_of.begin(), bytes_of.end());
                } else {
                    count(bodies[i], layer, layer);
                }
                // The body as a nested list with an anchor where a PE first
                // runs it, named by an alias where another runs the same
                // text (the loader takes nested lists in place): the
                // document does not grow with the PEs.
                const std::string& body = staged.empty() ? bodies[i] : staged;
                const auto [named, added] = anchor_of.try_emplace(
                    body, "L" + std::to_string(layer) + (p == 0 ? "" : "_" + std::to_string(p)));
                if (!added) {
                    y << "    - *" << named->second << "\n";
                    continue;
                }
                y << "    - &" << named->second << "\n";
                for (std::size_t at = 0; at < body.size();) {
                    const std::size_t end = body.find('\n', at);
                    y << "  " << body.substr(at, end - at + 1);
                    at = end + 1;
                }
            }
            if (pes > 1) out.barriers = static_cast<std::size_t>(sync);
            if (k.time_layer.empty()) {  // (a kernel is never an empty list)
                y << "    - wait: all\n";
                k.time_layer.push_back(-1);
                k.bytes_layer.push_back(-1);
            }
            out.compiled.push_back(std::move(k));
        }
        out.prefetched_layers = prefetched.size();
        m_prefix.clear();
        y << "host:\n";
        for (int p = 0; p < pes; ++p)
            y << "  - kernel_launch: { id: pe" << p << ", kernel: pe" << p << ", cubes: [" << cube_name(0)
              << "], target_pe: [" << p << "], after: [] }\n";
    }

    // Host requests may only name earlier ones: a fused residual add can make
    // a layer wait for one created after it, so the layers go out in
    // dependency order (ties in creation order).
    void order_layers() {
        std::map<std::string, std::size_t> index;
        for (std::size_t i = 0; i < m_layers.size(); ++i) index[m_layers[i].info.id] = i;
        std::vector<std::size_t> pending(m_layers.size(), 0);
        std::vector<std::vector<std::size_t>> waiting(m_layers.size());
        for (std::size_t i = 0; i < m_layers.size(); ++i)
            for (const std::string& id : m_layers[i].info.after) {
                ++pending[i];
                const auto it = index.find(id);
                if (it != index.end()) waiting[it->second].push_back(i);
            }
        std::set<std::size_t> ready;
        for (std::size_t i = 0; i < m_layers.size(); ++i)
            if (pending[i] == 0) ready.insert(i);
        std::vector<Layer> ordered;
        while (!ready.empty()) {
            const std::size_t i = *ready.begin();
            ready.erase(ready.begin());
            ordered.push_back(m_layers[i]);
            for (const std::size_t c : waiting[i])
                if (--pending[c] == 0) ready.insert(c);
        }
        // Only a model ONNX would not accept (a tensor read through two
        // names of one layer) can make the fused layers wait on each other.
        if (ordered.size() != m_layers.size())
            for (std::size_t i = 0; i < m_layers.size(); ++i)
                if (pending[i] != 0)
                    throw ModelError(m_net.file, m_layers[i].info.node, m_layers[i].info.op,
                                     "its layer " + m_layers[i].info.id +
                                         " and the layers it fuses wait on each other (a cycle after fusion)");
        m_layers = std::move(ordered);
    }

    std::uint64_t slice_bytes() const { return m_topo.cube.memory_map.hbm_slice_bytes; }
    std::uint64_t cube_bytes() const {
        return checked_mul(slice_bytes(), static_cast<std::uint64_t>(m_topo.cube.memory_map.hbm_slices_per_cube), kSize);
    }
    // The first byte of PE `pe`'s HBM slice in cube `cube` ((sip, cube) order).
    std::uint64_t slice_pa(int cube, int pe) const {
        return checked_add(checked_mul(cube_bytes(), static_cast<std::uint64_t>(cube), kSize),
                       checked_mul(slice_bytes(), static_cast<std::uint64_t>(pe), kSize), kSize);
    }
    std::uint64_t sram_pa(int cube) const {
        return checked_add(m_topo.cube.memory_map.sram_base,
                       checked_mul(m_topo.cube.shared_sram.size_bytes, static_cast<std::uint64_t>(cube), kSize), kSize);
    }

    // MapOptions::cubes > 1: contiguous stages of about equal FLOPs (a layer
    // goes to the stage its FLOP midpoint falls in), stage s on the s-th cube
    // in (sip, cube) order. A K-split's sum stays on its GEMM's cube.
    void assign_cubes() {
        const int cubes = m_options.tensor_parallel > 1
                              ? 1  // every layer on every card: cards() places the copies
                              : std::max(1, std::min(m_options.cubes, m_topo.system.sips * m_topo.system.cubes_per_sip));
        std::uint64_t total = 0;
        for (const Layer& l : m_layers) total = checked_add(total, l.info.flops, kSize);
        std::uint64_t before = 0;
        for (Layer& l : m_layers) {
            const double mid = static_cast<double>(before) + static_cast<double>(l.info.flops) / 2.0;
            l.cube = cubes == 1 || total == 0
                         ? 0
                         : std::min(cubes - 1, static_cast<int>(mid * cubes / static_cast<double>(total)));
            before = checked_add(before, l.info.flops, kSize);
            if (l.k_parts) l.cube = layer(l.info.after.front()).cube;
            l.info.cube = cube_name(l.cube);
        }
    }

    Layer& layer(const std::string& id) {
        return *std::find_if(m_layers.begin(), m_layers.end(), [&](const Layer& l) { return l.info.id == id; });
    }

    // A layer whose input was written on another cube first reads it: each
    // of its PEs a 1/pes share, from the slice of the same PE index in the
    // producer's cube (the producer's PE j wrote its share there; its SRAM
    // window when it wrote to shared SRAM), over UCIe or the SIP link; the
    // layer waits for those reads.
    void cross_cube_reads() {
        std::map<std::string, const Layer*> by_id;
        for (const Layer& l : m_layers) by_id[l.info.id] = &l;
        for (Layer& l : m_layers) {
            std::vector<std::string> after;
            for (const std::string& p : l.info.after) {
                const auto it = by_id.find(p);
                if (it == by_id.end() || it->second->cube == l.cube) {
                    after.push_back(p);
                    continue;
                }
                const Layer& from = *it->second;
                for (int j = 0; j < l.info.pes; ++j) {
                    Transfer t;
                    t.id = "x" + std::to_string(m_transfers.size()) + "_" + l.info.id + "_p" + std::to_string(j);
                    t.consumer = l.info.id, t.producer = p, t.after = p, t.pe = j;
                    const std::uint64_t bytes =
                        std::max<std::uint64_t>(1, ceil_div(l.info.in_bytes, static_cast<std::uint64_t>(l.info.pes)));
                    t.reads.emplace_back(from.dst.given() ? from.dst.pa : slice_pa(from.cube, j), bytes);
                    m_transfers.push_back(t);
                    after.push_back(t.id);
                    l.info.reads_from = "other cube";
                }
            }
            l.info.after = after;
        }
    }

    // A consumer reads an input where it wrote it when both split it by rows
    // (M, elements, bytes) over the same PEs, PE i's share on PE i (or both
    // run on one PE); any other pairing needs rows another PE wrote.
    static bool by_rows(const Layer& l) {
        return l.info.pes == 1 || l.info.split == "M" || l.info.split == "elements" || l.info.split == "bytes";
    }
    static bool aligned(const Layer& consumer, const Input& in, const Layer& producer) {
        return !in.b && consumer.info.pes == producer.info.pes && by_rows(consumer) && by_rows(producer);
    }

    // The data exchange between the PEs of one cube (docs/models.md
    // "Placement"). An output that some consumer on its cube reads in another
    // split than it was written in goes to the cube's shared SRAM when it fits
    // there beside every SRAM tensor that may still be live (one whose
    // readers are not all finished before its writer starts, by the `after`
    // order), and every reader on the cube reads it from there; otherwise it
    // stays in HBM and each PE of such a consumer first copies the bytes
    // other PEs wrote into its own slice (a staged exchange).
    void place_exchanges() {
        std::map<std::string, std::size_t> index;
        for (std::size_t i = 0; i < m_layers.size(); ++i) index[m_layers[i].info.id] = i;
        // Ancestors through `after` (the layers are in dependency order): a
        // bit matrix, layers² / 8 bytes (a set per layer took layers² / 2
        // tree nodes on a chain: gigabytes at 10 000 layers).
        const Ancestors ancestors(m_layers, index);
        // Readers of each layer's output: (consumer, input).
        std::vector<std::vector<std::pair<std::size_t, std::size_t>>> readers(m_layers.size());
        for (std::size_t c = 0; c < m_layers.size(); ++c)
            for (std::size_t k = 0; k < m_layers[c].inputs.size(); ++k)
                for (const std::string& p : m_layers[c].inputs[k].producers) readers[index.at(p)].emplace_back(c, k);
        struct Block {
            std::uint64_t offset, bytes;
            std::size_t writer;
        };
        std::map<int, std::vector<Block>> sram;  // per cube
        std::vector<std::pair<std::size_t, std::size_t>> staged;
        for (std::size_t p = 0; p < m_layers.size(); ++p) {
            Layer& producer = m_layers[p];
            bool exchange = false;
            for (const auto& [c, k] : readers[p])
                exchange = exchange || (m_layers[c].cube == producer.cube &&
                                        !aligned(m_layers[c], m_layers[c].inputs[k], producer));
            if (!exchange) continue;
            // First fit among the blocks that may still be live when p starts.
            const auto dead = [&](const Block& b) {
                if (!ancestors.has(p, b.writer)) return false;
                for (const auto& [c, k] : readers[b.writer])
                    if (!ancestors.has(p, c)) return false;
                return true;
            };
            std::vector<Block>& blocks = sram[producer.cube];
            blocks.erase(std::remove_if(blocks.begin(), blocks.end(), dead), blocks.end());
            std::sort(blocks.begin(), blocks.end(), [](const Block& a, const Block& b) { return a.offset < b.offset; });
            const std::uint64_t bytes = round_up(std::max<std::uint64_t>(producer.out_bytes, 1), kSramAlign);
            std::uint64_t offset = 0;
            for (const Block& b : blocks) {
                if (b.offset >= offset && b.offset - offset >= bytes) break;
                offset = std::max(offset, b.offset + b.bytes);
            }
            if (offset <= m_topo.cube.shared_sram.size_bytes && m_topo.cube.shared_sram.size_bytes - offset >= bytes) {
                blocks.push_back({offset, bytes, p});
                producer.dst.pa = checked_add(sram_pa(producer.cube), offset, kSize);
                producer.info.writes_to = "shared SRAM";
                for (const auto& [c, k] : readers[p]) {
                    Layer& consumer = m_layers[c];
                    if (consumer.cube != producer.cube) continue;
                    (consumer.inputs[k].b ? consumer.src_b : consumer.src).pa = producer.dst.pa;
                    consumer.info.reads_from = "shared SRAM";
                }
                continue;
            }
            for (const auto& [c, k] : readers[p])
                if (m_layers[c].cube == producer.cube && !m_layers[c].k_parts &&
                    !aligned(m_layers[c], m_layers[c].inputs[k], producer))
                    staged.emplace_back(c, p);
        }
        for (const auto& [c, p] : staged) stage(m_layers[c], m_layers[p]);
    }

    // A staged exchange through HBM: consumer PE i needs bytes [lo, hi) of
    // the tensor (its share of rows when split by rows, or a K split's B;
    // else all of it); producer PE j wrote its 1/pes share of it; PE i reads
    // every overlap that another PE wrote from that PE's slice and writes
    // what it read into its own slice. A K split's A is its 1/pes of the
    // columns: 1/pes of every producer's share. The consumer waits for them.
    void stage(Layer& consumer, const Layer& producer) {
        const Input& in = *std::find_if(consumer.inputs.begin(), consumer.inputs.end(), [&](const Input& i) {
            return std::find(i.producers.begin(), i.producers.end(), producer.info.id) != i.producers.end();
        });
        const std::uint64_t total = std::max<std::uint64_t>(in.bytes, 1);
        const std::uint64_t cp = static_cast<std::uint64_t>(consumer.info.pes), pp = static_cast<std::uint64_t>(producer.info.pes);
        const bool columns = consumer.info.split == "K" && !in.b;
        const bool whole = !columns && !(consumer.info.split == "K" || (!in.b && by_rows(consumer)));
        const std::uint64_t need = whole || columns ? total : ceil_div(total, cp), share = ceil_div(total, pp);
        std::vector<std::string> waits;
        for (std::uint64_t i = 0; i < cp; ++i) {
            const bool all = whole || columns;
            const std::uint64_t lo = all ? 0 : std::min(total, i * need), hi = all ? total : std::min(total, lo + need);
            Transfer t;
            t.id = "e" + std::to_string(m_transfers.size()) + "_" + consumer.info.id + "_p" + std::to_string(i);
            t.consumer = consumer.info.id, t.producer = producer.info.id, t.after = producer.info.id;
            t.pe = static_cast<int>(i);
            for (std::uint64_t j = 0; j < pp; ++j) {
                const std::uint64_t a = std::max(lo, j * share), b = std::min(hi, (j + 1) * share);
                if (j == i || a >= b) continue;
                const std::uint64_t bytes = columns ? ceil_div(b - a, cp) : b - a;
                t.reads.emplace_back(slice_pa(producer.cube, static_cast<int>(j)), bytes);
                t.write_bytes += bytes;
            }
            if (t.reads.empty()) continue;
            m_transfers.push_back(t);
            waits.push_back(t.id);
        }
        auto& after = consumer.info.after;
        const auto at = std::find(after.begin(), after.end(), producer.info.id);
        if (waits.empty()) return;
        consumer.info.reads_from = "staged";
        if (at != after.end()) after.erase(at);
        after.insert(after.end(), waits.begin(), waits.end());
    }

    // Each consumer's transfers, in order (an index: a scan of every
    // transfer per layer was quadratic).
    std::map<std::string, std::vector<const Transfer*>> transfers_by_consumer() const {
        std::map<std::string, std::vector<const Transfer*>> feeding;
        for (const Transfer& t : m_transfers) feeding[t.consumer].push_back(&t);
        return feeding;
    }

    // Tensor parallelism (docs/models.md "Tensor parallelism"): the layers,
    // placed on cube 0, run on each of the first tensor_parallel cubes —
    // card c's copy of layer L is L_c<c>, at card c's addresses, waiting
    // for card c's copies of what L waited for — and each all-reduce becomes
    // its steps between the cards, each a kernel on PE 0 of the receiving
    // card after the two cards' previous steps:
    //   ring: 2 (n - 1) steps; in step s card i reads chunk (i - 1 - s) mod n
    //     (bytes / n, rounded up) from card i - 1, adds it to its own in the
    //     first n - 1 steps (reduce-scatter) and keeps it in the rest
    //     (all-gather);
    //   tree: for d = 1, 2, 4, … below n, card i (a multiple of 2d) reads
    //     all the bytes from card i + d and adds them; then, d descending,
    //     card i + d reads the sum from card i.
    // A dependant on card c waits for card c's last step.
    void cards() {
        const int n = m_options.tensor_parallel;
        std::vector<Layer> out;
        std::vector<Transfer> transfers;
        std::map<std::string, std::vector<std::string>> done;  // id -> what card c's dependants wait for
        const auto waits_for = [&](const std::string& id, int c) {
            const auto it = done.find(id);
            return it == done.end() ? id + "_c" + std::to_string(c) : it->second[static_cast<std::size_t>(c)];
        };
        const auto feeding = transfers_by_consumer();
        const std::vector<const Transfer*> none;
        for (const Layer& l : m_layers) {
            std::vector<std::string> ids;
            if (l.info.lowering == "all-reduce") {
                all_reduce(l, n, out, done, waits_for);
                continue;
            }
            const auto fed = feeding.find(l.info.id);
            for (int c = 0; c < n; ++c) {
                for (const Transfer* t_ptr : fed == feeding.end() ? none : fed->second) {
                    const Transfer& t = *t_ptr;
                    Transfer k = t;
                    k.id = t.id + "_c" + std::to_string(c);
                    k.consumer = t.consumer + "_c" + std::to_string(c);
                    k.after = waits_for(t.after, c);
                    for (auto& r : k.reads) r.first = on_card(r.first, c);
                    transfers.push_back(k);
                }
                Layer k = l;
                k.cube = c;
                k.info.cube = cube_name(c);
                k.info.id = l.info.id + "_c" + std::to_string(c);
                for (std::string& a : k.info.after) a = waits_for(a, c);
                for (Place* p : {&k.src, &k.src_b, &k.dst})
                    if (p->given()) p->pa = on_card(p->pa, c);
                ids.push_back(k.info.id);
                out.push_back(std::move(k));
            }
            done[l.info.id] = ids;
        }
        m_layers = std::move(out);
        m_transfers = std::move(transfers);
    }

    template <typename WaitsFor>
    void all_reduce(const Layer& a, int n, std::vector<Layer>& out, std::map<std::string, std::vector<std::string>>& done,
                    const WaitsFor& waits_for) const {
        const bool ring = m_options.all_reduce == MapOptions::AllReduce::ring;
        const std::uint64_t bytes = std::max<std::uint64_t>(a.out_bytes, m_elem);
        const std::uint64_t chunk = ring ? round_up(ceil_div(bytes, static_cast<std::uint64_t>(n)), m_elem) : bytes;
        // Where a card holds the tensor: the all-reduce's shared-SRAM place
        // when its readers read it there, else PE 0's slice (the step's PE).
        const auto base = [&](int c) { return a.dst.given() ? on_card(a.dst.pa, c) : slice_pa(c, 0); };
        // Per card: what its next step waits for: its latest step, first its
        // copies of the producers (none for a graph input).
        std::vector<std::vector<std::string>> last(static_cast<std::size_t>(n));
        for (int c = 0; c < n; ++c)
            for (const std::string& p : a.info.after) last[static_cast<std::size_t>(c)].push_back(waits_for(p, c));
        struct Move {
            int to, from;
            std::uint64_t offset;
            bool add;
        };
        std::vector<std::vector<Move>> steps;
        if (ring) {
            for (int s = 0; s < 2 * (n - 1); ++s) {
                std::vector<Move> step;
                for (int i = 0; i < n; ++i) {
                    const int k = ((i - 1 - s) % n + n) % n;
                    step.push_back({i, (i + n - 1) % n, static_cast<std::uint64_t>(k) * chunk, s < n - 1});
                }
                steps.push_back(step);
            }
        } else {
            int top = 1;
            for (int d = 1; d < n; d *= 2) {
                std::vector<Move> step;
                for (int i = 0; i + d < n; i += 2 * d) step.push_back({i, i + d, 0, true});
                steps.push_back(step);
                top = d;
            }
            for (int d = top; d >= 1; d /= 2) {
                std::vector<Move> step;
                for (int i = 0; i + d < n; i += 2 * d) step.push_back({i + d, i, 0, false});
                steps.push_back(step);
            }
        }
        for (std::size_t s = 0; s < steps.size(); ++s) {
            std::vector<std::vector<std::string>> next = last;
            for (const Move& m : steps[s]) {
                Layer k;
                k.info.node = a.info.node;
                k.info.op = a.info.op;
                k.info.id = a.info.id + "_s" + std::to_string(s) + "_c" + std::to_string(m.to);
                k.info.lowering = std::string("all-reduce ") + (ring ? "ring" : "tree") + " step " +
                                  std::to_string(s + 1) + " of " + std::to_string(steps.size()) + " (" +
                                  (m.add ? "reduce" : "gather") + " from card " + std::to_string(m.from) + ")";
                k.info.split = "-";
                k.info.flops = 0;
                k.info.cube = cube_name(m.to);
                k.cube = m.to;
                k.info.in_bytes = k.out_bytes = chunk;
                k.info.reads_from = "other cube";
                for (const int c : {m.to, m.from})
                    for (const std::string& w : last[static_cast<std::size_t>(c)])
                        if (std::find(k.info.after.begin(), k.info.after.end(), w) == k.info.after.end())
                            k.info.after.push_back(w);
                k.xfer_bytes = chunk;
                k.xfer_from = checked_add(base(m.from), m.offset, kSize);
                k.xfer_to = checked_add(base(m.to), m.offset, kSize);
                k.xfer_add = m.add;
                next[static_cast<std::size_t>(m.to)] = {k.info.id};
                out.push_back(std::move(k));
            }
            last = next;
        }
        // A dependant on card c waits for its last step (with no step and
        // no producer, n = 1 does not come here: nothing).
        std::vector<std::string> ids;
        for (const auto& l : last) ids.push_back(l.empty() ? std::string() : l.front());
        done[a.info.id] = ids;
    }

    // A physical address of cube 0's HBM or shared SRAM, moved to card c's.
    std::uint64_t on_card(std::uint64_t pa, int c) const {
        const std::uint64_t cards = static_cast<std::uint64_t>(c);
        if (pa >= sram_pa(0)) return checked_add(pa, checked_mul(m_topo.cube.shared_sram.size_bytes, cards, kSize), kSize);
        return checked_add(pa, checked_mul(cube_bytes(), cards, kSize), kSize);
    }

    std::string cube_name(int index) const {
        const int per_sip = m_topo.system.cubes_per_sip;
        return "sip" + std::to_string(index / per_sip) + ".cube" + std::to_string(index % per_sip);
    }

    // Layers that produce the activations `node` reads.
    std::vector<std::string> producers(const Node& node) const {
        std::vector<std::string> after;
        for (const std::string& in : node.inputs) {
            const auto it = m_producer.find(in);
            if (it == m_producer.end()) continue;
            for (const std::string& id : it->second)
                if (std::find(after.begin(), after.end(), id) == after.end()) after.push_back(id);
        }
        return after;
    }
    bool constant(const std::string& tensor) const { return tensor.empty() || m_constant.count(tensor); }
    bool all_constant(const Node& node) const {
        return std::all_of(node.inputs.begin(), node.inputs.end(), [&](const std::string& t) { return constant(t); });
    }
    void alias(const Node& node, const std::vector<std::string>& ids) {
        for (const std::string& out : node.outputs) m_producer[out] = ids;
    }
    std::uint64_t out_elements(const Node& node) const { return m_net.tensor(node, node.outputs.front()).elements(); }

    void place(const Node& node) {
        if (node.op == "Shape" || all_constant(node)) {
            // Computed at compile time (shape arithmetic, constant folding).
            for (const std::string& out : node.outputs) m_constant.insert(out);
            m_folded.push_back(node.name);
            return;
        }
        if (is_view(node.op) || (node.op == "AllReduce" && m_options.tensor_parallel <= 1)) {
            // (An all-reduce over one card adds nothing.)
            alias(node, producers(node));
            m_folded.push_back(node.name);
            return;
        }
        if (std::all_of(node.outputs.begin(), node.outputs.end(), [&](const std::string& out) {
                return out.empty() || m_net.tensor(node, out).elements() == 0;
            })) {
            // An empty result (a slice past the end, a zero-size split): nothing moves.
            alias(node, producers(node));
            m_folded.push_back(node.name);
            return;
        }
        if (fold_into_producer(node)) return;
        Layer l;
        l.info.node = node.name;
        l.info.op = node.op;
        l.info.id = "l" + std::to_string(m_layers.size()) + "_" + sanitize(node.name);
        l.info.after = producers(node);
        if (node.op == "AllReduce") {
            // Lowered per card by cards() once every layer is placed; it
            // reads from the other cards, not from its producer's PEs.
            l.info.lowering = "all-reduce";
            l.info.split = "-";
            l.info.flops = 0;
            l.info.in_bytes = l.out_bytes = checked_mul(out_elements(node), m_elem, kSize);
            m_layers.push_back(l);
            m_layer_of_output[node.outputs.front()] = m_layers.size() - 1;
            alias(node, {l.info.id});
            return;
        }
        if (is_gemm(node.op)) gemm_layer(node, l);
        else if (is_copy(node)) copy_layer(node, l);
        else vector_layer(node, l);
        record_inputs(node, l);
        absorb(node, l);
        m_layers.push_back(l);
        if (l.info.split == "K") m_layers.push_back(k_sum(m_layers.back()));
        m_layer_of_output[node.outputs.front()] = m_layers.size() - 1;
        alias(node, {m_layers.back().info.id});
    }

    // The activations a layer reads (docs/models.md "Placement"): a GEMM's A
    // (its first input) and, when a layer wrote it, its B; a MATH layer's
    // first input; every input of a layout change.
    void record_inputs(const Node& node, Layer& l) const {
        const std::size_t count = is_copy(node) ? node.inputs.size() : is_gemm(node.op) ? 2 : 1;
        for (std::size_t i = 0; i < std::min(count, node.inputs.size()); ++i) {
            const std::string& t = node.inputs[i];
            if (constant(t)) continue;
            Input in;
            in.producers = producers(Node{"", "", {t}, {}, {}, {}, {}});
            if (in.producers.empty()) continue;  // a graph input: in every slice (docs/models.md)
            in.bytes = checked_mul(m_net.tensor(node, t).elements(), m_elem, kSize);
            in.b = is_gemm(node.op) && i == 1;
            l.inputs.push_back(in);
        }
    }

    // A K-split GEMM's second layer: its PEs' fp32 partial sums added. PE i
    // of the sum takes its 1/pes share of the M·N outputs, reads that share
    // of every GEMM PE's partial from its slice, adds them ((parts - 1) adds
    // per output, fp32), runs the GEMM's epilogues and writes the bf16 result.
    Layer k_sum(Layer& gemm) const {
        Layer s;
        s.info.node = gemm.info.node;
        s.info.op = gemm.info.op;
        s.info.id = "l" + std::to_string(m_layers.size()) + "_" + sanitize(gemm.info.node) + "_sum";
        s.info.lowering = "sum of K partials";
        s.info.after = {gemm.info.id};
        s.k_parts = gemm.info.pes;
        const std::uint64_t outputs = checked_mul(gemm.info.m, gemm.info.n, kSize);
        s.share_m = std::max(ceil_div(outputs, static_cast<std::uint64_t>(m_pes)), std::min(outputs, kSumMinShare));
        s.info.pes = static_cast<int>(ceil_div(outputs, s.share_m));
        s.info.split = s.info.pes > 1 ? "elements" : "-";
        s.info.flops = checked_mul(outputs, static_cast<std::uint64_t>(s.k_parts - 1), kSize);
        s.partial_bytes = checked_mul(s.share_m, kPartialElem, kSize);
        s.info.in_bytes = checked_mul(checked_mul(outputs, kPartialElem, kSize), static_cast<std::uint64_t>(s.k_parts), kSize);
        s.out_bytes = checked_mul(outputs, m_elem, kSize);
        s.epilogues = std::move(gemm.epilogues);
        gemm.epilogues.clear();
        s.sum_stride = checked_mul(outputs, kPartialElem, kSize);
        // It reads the partials: through shared SRAM when they fit (one
        // strided read), else from each GEMM PE's slice.
        Input in;
        in.producers = {gemm.info.id};
        in.bytes = gemm.out_bytes;
        s.inputs.push_back(in);
        return s;
    }

    // A recognised pattern's node (model/patterns.h) brings the nodes it
    // replaced into the layer that lowers it, and the pattern's name.
    void absorb(const Node& node, Layer& l) const {
        const auto it = m_rec.groups.find(node.name);
        if (it == m_rec.groups.end()) return;
        l.info.fused.insert(l.info.fused.end(), it->second.absorbed.begin(), it->second.absorbed.end());
        l.info.patterns.push_back(it->second.pattern);
    }

    // An epilogue (a bias, an activation, a residual add) or a batch norm
    // right after a GEMM layer that nothing else reads: it becomes that
    // layer's epilogue (SPEC T6 per_output_tile), or folds into its weights.
    bool fold_into_producer(const Node& node) {
        const bool bn = node.op == "BatchNormalization";
        if (!bn && !fusable_epilogue(node.op)) return false;
        int from = -1;
        for (std::size_t i = 0; i < node.inputs.size(); ++i) {
            const auto it = m_layer_of_output.find(node.inputs[i]);
            if (it == m_layer_of_output.end()) continue;
            if (!is_gemm(m_layers[it->second].info.op) || m_uses[node.inputs[i]] != 1) continue;
            from = static_cast<int>(i);
            break;
        }
        if (from < 0) return false;
        Layer& l = m_layers[m_layer_of_output.at(node.inputs[static_cast<std::size_t>(from)])];
        bool constant_operand = true;
        for (std::size_t i = 0; i < node.inputs.size(); ++i)
            if (static_cast<int>(i) != from && !constant(node.inputs[i])) {
                constant_operand = false;
                for (const std::string& id : producers(Node{"", "", {node.inputs[i]}, {}, {}, {}, {}}))
                    if (id != l.info.id && std::find(l.info.after.begin(), l.info.after.end(), id) == l.info.after.end())
                        l.info.after.push_back(id);
            }
        if (!bn) l.epilogues.push_back(math_op(node.op, constant_operand));
        absorb(node, l);
        l.info.fused.push_back(node.name);
        m_layer_of_output.erase(node.inputs[static_cast<std::size_t>(from)]);
        m_layer_of_output[node.outputs.front()] = static_cast<std::size_t>(&l - m_layers.data());
        alias(node, {l.info.id});
        return true;
    }

    // Splits `tiles` row (or column) tiles of `dim` over the PEs: each PE an
    // equal share of whole tiles; returns the share and sets the PE count.
    std::uint64_t split(std::uint64_t dim, int& pes) const {
        const std::uint64_t tiles = ceil_div(dim, kTile);
        const std::uint64_t p = std::min<std::uint64_t>(tiles, static_cast<std::uint64_t>(m_pes));
        const std::uint64_t share = ceil_div(tiles, p) * kTile;
        pes = static_cast<int>(ceil_div(dim, share));
        return std::min(share, dim);
    }

    void gemm_layer(const Node& node, Layer& l) {
        std::uint64_t M = 0, K = 0, N = 0;
        const TensorInfo& out = m_net.tensor(node, node.outputs.front());
        if (node.inputs.size() < 2)
            throw ModelError(m_net.file, node.name, node.op, "a GEMM needs two inputs (it has " +
                                                                 std::to_string(node.inputs.size()) + ")");
        if (node.op == "Conv" || node.op == "ConvTranspose") {
            // im2col: M = N · output pixels, K = C_in/group · taps, N =
            // C_out/group. A Conv's taps are its kernel's area. A
            // ConvTranspose runs as the convolutions that compute each output
            // phase (the sub-pixel form): an output pixel gathers, per input
            // channel, the ceil(k / stride) taps of each axis that land on
            // it, so no zero is multiplied and nothing is scattered.
            const bool transposed = node.op == "ConvTranspose";
            const TensorInfo& x = m_net.tensor(node, node.inputs[0]);
            const TensorInfo& w = m_net.tensor(node, node.inputs[1]);
            if (x.shape.size() < 3 || w.shape.size() < 3 || out.shape.size() < 3 ||
                (transposed && out.shape.size() != x.shape.size()))
                throw ModelError(m_net.file, node.name, node.op, "expects N x C x spatial... tensors");
            const std::uint64_t group = u(node.attr("group", 1));
            const std::vector<std::int64_t> strides = transposed ? node.attrs("strides", {}) : std::vector<std::int64_t>{};
            std::uint64_t spatial = 1, taps = 1;
            for (std::size_t i = 2; i < out.shape.size(); ++i) spatial = checked_mul(spatial, u(out.shape[i]), kSize);
            for (std::size_t i = 2; i < w.shape.size(); ++i) {
                const std::size_t axis = i - 2;
                const std::uint64_t stride = axis < strides.size() ? std::max<std::uint64_t>(u(strides[axis]), 1) : 1;
                taps = checked_mul(taps, ceil_div(u(w.shape[i]), stride), kSize);
            }
            const std::uint64_t cin = u(x.shape[1]), cout = u(out.shape[1]);
            if (group == 0 || cin % group != 0 || cout % group != 0)
                throw ModelError(m_net.file, node.name, node.op,
                                 "group " + std::to_string(node.attr("group", 1)) + " does not divide its " +
                                     std::to_string(cin) + " input and " + std::to_string(cout) + " output channels");
            if (!transposed && group > 1 && group == cin && group == cout) {
                // Depthwise: every output element is a kernel-sized dot
                // product of one channel, a vector op (docs/models.md).
                l.info.lowering = "math mul (depthwise)";
                l.out_bytes = checked_mul(out.elements(), m_elem, kSize);
                return vector_work(l, "mul", checked_mul(out.elements(), taps, kSize));
            }
            // Each group is a GEMM written out in the workload.
            if (group > kMaxGroups)
                throw ModelError(m_net.file, node.name, node.op,
                                 "group " + std::to_string(group) + ": more than the limit of " +
                                     std::to_string(kMaxGroups) + " GEMMs in one layer (docs/models.md \"Limits\"" +
                                     (transposed ? std::string(")")
                                                 : "; a depthwise convolution, group = input = output channels, is "
                                                   "one vector op whatever its groups)"));
            M = checked_mul(u(out.shape[0]), spatial, kSize);
            K = checked_mul(cin / group, taps, kSize);
            N = cout / group;
            l.gemm_count = group;
            if (node.inputs.size() > 2 && !node.inputs[2].empty()) l.epilogues.push_back("bias_add");
        } else {
            const TensorInfo& a = m_net.tensor(node, node.inputs[0]);
            const TensorInfo& b = m_net.tensor(node, node.inputs[1]);
            if (a.shape.empty() || b.shape.empty())
                throw ModelError(m_net.file, node.name, node.op, "a scalar operand");
            const bool ta = node.attr("transA", 0) != 0, tb = node.attr("transB", 0) != 0;
            const std::size_t ar = a.shape.size(), br = b.shape.size();
            K = u(ta && ar >= 2 ? a.shape[ar - 2] : a.shape[ar - 1]);
            N = br >= 2 ? u(tb ? b.shape[br - 2] : b.shape[br - 1]) : 1;
            // A B with batch dims of its own (attention's keys and values:
            // one matrix per batch and head) is that many GEMMs, each with
            // its own B and its share of A's rows; a B without them is
            // shared, and A's batch dims fold into M.
            std::uint64_t groups = 1;
            for (std::size_t i = 0; i + 2 < br; ++i) groups = checked_mul(groups, u(b.shape[i]), kSize);
            if (groups > 1) {
                if (groups > kMaxGroups)
                    throw ModelError(m_net.file, node.name, node.op,
                                     std::to_string(groups) + " batched matrices in its second input: more than the limit of " +
                                         std::to_string(kMaxGroups) + " GEMMs in one layer (docs/models.md \"Limits\")");
                if (K == 0 || a.elements() % checked_mul(K, groups, kSize) != 0)
                    throw ModelError(m_net.file, node.name, node.op,
                                     "its first input's " + std::to_string(a.elements()) + " elements are not " +
                                         std::to_string(groups) + " batches of rows of " + std::to_string(K));
                l.gemm_count = groups;
            }
            M = K == 0 ? 0 : a.elements() / K / groups;
            if (node.op == "Gemm" && node.inputs.size() > 2 && !node.inputs[2].empty()) l.epilogues.push_back("bias_add");
        }
        if (M == 0 || K == 0 || N == 0) throw ModelError(m_net.file, node.name, node.op, "an empty GEMM");
        l.info.in_bytes = checked_mul(checked_mul(M, K, kSize), checked_mul(m_elem, l.gemm_count, kSize), kSize);
        l.info.m = M, l.info.k = K, l.info.n = N;
        l.info.flops = checked_mul(checked_mul(checked_mul(2, M, kSize), checked_mul(K, N, kSize), kSize), l.gemm_count, kSize);
        l.info.lowering = l.gemm_count > 1 ? "gemm x" + std::to_string(l.gemm_count) + " (groups)" : "gemm";
        l.out_bytes = checked_mul(checked_mul(M, N, kSize), checked_mul(m_elem, l.gemm_count, kSize), kSize);
        // Split: by M when it has a tile row for every PE, else by N, else
        // over as many PEs as the larger dimension has tiles; by K (with a
        // sum layer after it) instead when that uses at least twice as many
        // PEs as the best of M and N, so that the sum's cost is paid back.
        const std::uint64_t mt = ceil_div(M, kTile), nt = ceil_div(N, kTile), kt = ceil_div(K, kTile);
        const std::uint64_t pes = static_cast<std::uint64_t>(m_pes);
        const std::uint64_t best_mn = std::min(pes, std::max(mt, nt)), by_k_pes = std::min(pes, kt);
        // The HBM time a K split saves on each PE's share of B.
        const double b_bytes = static_cast<double>(K) * static_cast<double>(N) * static_cast<double>(m_elem);
        const double saved_ns = (b_bytes / static_cast<double>(best_mn) - b_bytes / static_cast<double>(by_k_pes)) /
                                std::max(m_topo.cube.hbm_ctrl.bw_gbs, 1e-9);
        l.share_m = M, l.share_n = N, l.share_k = K;
        if (l.gemm_count == 1 && by_k_pes >= 2 * best_mn && saved_ns > kLayerCostNs) {
            l.share_k = ceil_div(kt, by_k_pes) * kTile;
            l.info.pes = static_cast<int>(ceil_div(K, l.share_k));
            l.info.split = "K";
            l.out_bytes = checked_mul(checked_mul(M, N, kSize), checked_mul(kPartialElem, static_cast<std::uint64_t>(l.info.pes), kSize), kSize);
        } else if (l.gemm_count > 1 && checked_mul(mt, nt, kSize) < pes) {
            // Whole groups over the PEs (attention's heads, a grouped Conv's
            // groups) when one group has fewer tiles than there are PEs:
            // each PE runs its share of the groups.
            const std::uint64_t p = std::min<std::uint64_t>(l.gemm_count, pes);
            l.groups_per_pe = ceil_div(l.gemm_count, p);
            l.info.pes = static_cast<int>(ceil_div(l.gemm_count, l.groups_per_pe));
            l.info.split = "groups";
        } else {
            const bool by_m = mt >= pes || (nt < pes && mt >= nt);
            if (by_m) l.share_m = split(M, l.info.pes);
            else l.share_n = split(N, l.info.pes);
            l.info.split = l.info.pes == 1 ? "-" : by_m ? "M" : "N";
        }
        // The K-step: the longest multiple of 128 (up to the share's K) whose
        // A and B tiles fit a token's room; each DMA then pays its start-up
        // (~600 ns) for more bytes (docs/models.md "Tiles").
        l.tm = std::min(kTile, l.share_m), l.tn = std::min(kTile, l.share_n);
        const std::uint64_t k_room = token_room() / checked_mul(l.tm + l.tn, m_elem, kSize);
        l.tk = std::min(l.share_k, std::max(kTile, k_room / kTile * kTile));
    }

    void vector_work(Layer& l, const std::string& op, std::uint64_t elements) {
        l.epilogues = {op};
        l.info.flops = elements;
        const std::uint64_t per_pe = ceil_div(elements, static_cast<std::uint64_t>(m_pes));
        l.info.pes = static_cast<int>(std::min<std::uint64_t>(ceil_div(elements, std::max<std::uint64_t>(per_pe, 1)), m_pes));
        l.info.split = l.info.pes > 1 ? "elements" : "-";
        l.share_m = per_pe;
    }

    void vector_layer(const Node& node, Layer& l) {
        const bool constant_operand = std::any_of(node.inputs.begin() + (node.inputs.empty() ? 0 : 1), node.inputs.end(),
                                                  [&](const std::string& t) { return constant(t) && !t.empty(); });
        const std::string op = math_op(node.op, constant_operand);
        if (op.empty()) throw ModelError(m_net.file, node.name, node.op, "no lowering for this operator");
        // Pools and reductions read every input element; the rest produce one per output element.
        const bool reads_all = op == "reduce";
        std::uint64_t elements = reads_all ? m_net.tensor(node, node.inputs[0]).elements() : out_elements(node);
        l.info.lowering = "math " + op;
        if (node.op == "TopK") {
            // A radix select over the bf16 keys: two 8-bit histogram passes
            // find the k-th largest value, a third gathers the k that pass it
            // (docs/models.md "Operators"); k does not change the cost.
            elements = checked_mul(elements, kTopKPasses, kSize);
            l.info.lowering = "math reduce (top-k, 3 passes)";
        }
        if (node.op == "Resize") {
            // Linear or cubic: each output element a weighted sum of 2 (4)
            // neighbours along every resized axis.
            const std::uint64_t taps = resize_taps(node);
            elements = checked_mul(elements, taps, kSize);
            l.info.lowering = "math mul (resize " + node.text("mode", "nearest") + ", " + std::to_string(taps) + " taps)";
        }
        if (node.op == "RotaryEmbedding") {
            // x·cos, then rotate_half(x)·sin added to it: two multiply
            // passes over the elements (the half swap and its sign are the
            // tile's lane order, docs/models.md "Recognised patterns").
            elements = checked_mul(elements, 2, kSize);
            l.info.lowering = "math mul (rotary, 2 passes)";
        }
        vector_work(l, op, elements);
        l.info.in_bytes = checked_mul(m_net.tensor(node, node.inputs[0]).elements(), m_elem, kSize);
        l.out_bytes = checked_mul(out_elements(node), m_elem, kSize);
        if (node.op == "TopK" && node.outputs.size() > 1 && !node.outputs[1].empty())
            l.out_bytes = checked_mul(l.out_bytes, 2, kSize);  // values and indices
    }

    // Resize (linear or cubic): taps per output element, 2 (linear) or 4
    // (cubic) per axis whose size changes.
    std::uint64_t resize_taps(const Node& node) const {
        const std::string mode = node.text("mode", "nearest");
        if (mode != "linear" && mode != "cubic")
            throw ModelError(m_net.file, node.name, node.op, "mode '" + mode + "' (nearest, linear or cubic)");
        const TensorInfo& in = m_net.tensor(node, node.inputs[0]);
        const TensorInfo& out = m_net.tensor(node, node.outputs.front());
        std::uint64_t taps = 1;
        for (std::size_t i = 0; i < std::min(in.shape.size(), out.shape.size()); ++i)
            if (in.shape[i] != out.shape[i]) taps = checked_mul(taps, mode == "linear" ? 2 : 4, kSize);
        return taps;
    }

    void copy_layer(const Node& node, Layer& l) {
        std::uint64_t bytes = 0;
        for (const std::string& out : node.outputs)
            if (!out.empty()) bytes = checked_add(bytes, checked_mul(m_net.tensor(node, out).elements(), m_elem, kSize), kSize);
        l.info.lowering = "dma copy";
        const std::uint64_t per_pe = ceil_div(bytes, static_cast<std::uint64_t>(m_pes));
        l.info.pes = static_cast<int>(ceil_div(bytes, std::max<std::uint64_t>(per_pe, 1)));
        l.info.split = l.info.pes > 1 ? "bytes" : "-";
        l.share_m = per_pe;
        l.info.flops = 0;
        l.info.in_bytes = bytes;
        l.out_bytes = bytes;
    }

    // The bytes one token may take (kTokensInReserve).
    std::uint64_t token_room() const {
        return std::max<std::uint64_t>(m_topo.cube.pe_template.tcm.reserved_bytes / kTokensInReserve, 4096);
    }

    std::string targets(int pes) const {
        if (pes >= m_pes) return "all";
        std::string s = "[";
        for (int i = 0; i < pes; ++i) s += (i ? ", " : "") + std::to_string(i);
        return s + "]";
    }

    static std::string pa(const Place& p) { return "{ pa: " + std::to_string(p.pa) + " }"; }
    static std::optional<std::uint64_t> place(const Place& p) {
        return p.given() ? std::optional<std::uint64_t>(p.pa) : std::nullopt;
    }

    // The most one simple DMA moves: the PE's allocatable TCM, where a DMA
    // puts or takes its bytes (seed 000 D5.1; the workload loader refuses
    // more).
    std::uint64_t dma_piece() const {
        const auto& tcm = m_topo.cube.pe_template.tcm;
        return std::max<std::uint64_t>(tcm.size_bytes - tcm.reserved_bytes, 1);
    }

    // A share in a PE's own slice (a DMA's, an elementwise composite's, a
    // GEMM operand's) of more bytes than the slice holds: thrown by the
    // emitters, caught where the layer is known, so the error names its node
    // (a ModelError, not a workload the loader refuses at a generated line).
    struct SliceOverflow {
        std::uint64_t bytes;
        std::string what(std::uint64_t slice) const {
            return "a PE's share is " + std::to_string(bytes) + " bytes in its own HBM slice, more than the slice's " +
                   std::to_string(slice) + " (cube.memory_map.hbm_slice_bytes): the network does not fit this machine";
        }
    };
    void fits_own_slice(bool own, std::uint64_t bytes) const {
        if (own && bytes > slice_bytes()) throw SliceOverflow{bytes};
    }

    // One simple DMA of `bytes` at physical address `at` (none: the PE's own
    // slice from its start), or, past dma_piece(), consecutive pieces of at
    // most that many bytes, `id0`, `id1`, … (docs/models.md "Placement"):
    // issued back to back, PE_DMA's channels overlap them as they would one
    // transfer's chunks. A transfer that fits is one command, as before.
    void emit_dma(std::ostringstream& y, const char* kind, const std::string& id, std::uint64_t bytes,
                  std::optional<std::uint64_t> at) const {
        fits_own_slice(!at, bytes);
        const std::uint64_t piece = dma_piece();
        if (bytes <= piece) {
            y << "    - " << kind << ": { id: " << m_prefix << id << ", bytes: " << bytes;
            if (at) y << ", addr: { pa: " << *at << " }";
            y << " }\n";
            return;
        }
        // Piece j is `id` j (`id`_j when `id` ends in a digit: part1_0, not part10).
        const std::string stem = std::isdigit(static_cast<unsigned char>(id.back())) ? id + "_" : id;
        std::uint64_t done = 0;
        for (std::uint64_t j = 0; done < bytes; ++j) {
            const std::uint64_t n = std::min(piece, bytes - done);
            y << "    - " << kind << ": { id: " << m_prefix << stem << j << ", bytes: " << n << ", addr: ";
            if (at) y << "{ pa: " << checked_add(*at, done, kSize) << " } }\n";
            else y << "{ own: " << done << " } }\n";
            done += n;
        }
    }

    // Weight prefetch (MapOptions::prefetch; docs/models.md "Weight
    // prefetch"): a part of a GEMM layer's weights, its composite's B (or a
    // share of its columns), that one TCM buffer holds.
    struct Chunk {
        std::size_t layer = 0;       // index in m_layers
        std::uint64_t group = 0;     // the layer's GEMM it belongs to (gemm_count > 1)
        std::uint64_t part = 0, parts = 1;  // of the GEMM's columns: this many chunks
        std::uint64_t n0 = 0, n = 0;  // its columns of the share's N
        std::uint64_t bytes = 0;     // K·n·elem
        std::uint64_t own = 0;       // where it lies in the PE's slice
    };

    // The AllocatableTCM a compiled kernel stages operands in: a quarter
    // for a layer's A (its activations), the rest in two buffers that a
    // PE's weight chunks take in turn (one loads while the other is read),
    // each in whole 64-byte granules.
    std::uint64_t staged_a_room() const {
        const auto& tcm = m_topo.cube.pe_template.tcm;
        return (tcm.size_bytes - tcm.reserved_bytes) / 4 / 64 * 64;
    }
    std::uint64_t prefetch_buffer() const {
        const auto& tcm = m_topo.cube.pe_template.tcm;
        return (tcm.size_bytes - tcm.reserved_bytes - staged_a_room()) / 2 / 64 * 64;
    }
    std::uint64_t staged_a_at() const { return m_topo.cube.pe_template.tcm.reserved_bytes; }
    std::uint64_t prefetch_buffer_at(std::size_t chunk) const {
        return staged_a_at() + staged_a_room() + (chunk % 2) * prefetch_buffer();
    }

    // The chunks of each layer (the same on every PE that runs it). A GEMM
    // layer's weights are prefetched when its B is a weight (not an
    // activation another layer writes) in the PE's own slice, its A fits
    // the staged A's room and one column of tiles of B (K·tn) fits a
    // buffer; a B larger than a buffer is split by columns into chunks
    // that fit. The prefetched weights lie
    // in each PE's slice after its activations (which start at offset 0):
    // from the largest footprint a layer has there, rounded up to 1 MiB, in
    // layer order, as far as the slice holds them; a layer past that, or not
    // eligible, reads B from memory per token as before.
    std::vector<std::vector<Chunk>> plan_prefetch() const {
        std::vector<std::vector<Chunk>> out(m_layers.size());
        std::uint64_t base = 0;
        for (const Layer& l : m_layers) {
            const std::uint64_t out_elem = l.info.split == "K" ? 4 : m_elem;
            const std::uint64_t operands =
                sat_mul(sat_add(sat_mul(l.share_m, l.share_k), sat_mul(l.share_k, l.share_n)), m_elem);
            for (const std::uint64_t b : {l.info.in_bytes, l.out_bytes, operands,
                                          sat_mul(sat_mul(l.share_m, l.share_n), out_elem), l.xfer_bytes,
                                          sat_mul(l.share_m, m_elem)})
                base = std::max(base, b);
        }
        for (const Transfer& t : m_transfers) base = std::max(base, t.write_bytes);
        constexpr std::uint64_t mib = std::uint64_t{1} << 20;
        std::uint64_t at = sat_mul(ceil_div(base, mib), mib);
        const std::uint64_t buffer = prefetch_buffer();
        double carry_ns = -1;  // the last staged chunk's compute, which the next load hides behind (-1: none)
        for (std::size_t i = 0; i < m_layers.size(); ++i) {
            const Layer& l = m_layers[i];
            if (l.info.m == 0 || l.k_parts || l.xfer_bytes || l.info.lowering == "dma copy" || l.src_b.given()) continue;
            if (std::any_of(l.inputs.begin(), l.inputs.end(), [](const Input& in) { return in.b; })) continue;
            if (sat_mul(sat_mul(l.share_m, l.share_k), m_elem) > staged_a_room()) continue;  // A cannot be staged
            const std::uint64_t column = sat_mul(sat_mul(l.share_k, l.tn), m_elem);  // one column of tiles
            if (column == 0 || column > buffer) continue;
            const std::uint64_t per_chunk = std::min(l.share_n, buffer / column * l.tn);
            const std::uint64_t parts = ceil_div(l.share_n, per_chunk);
            const std::uint64_t groups = l.info.split == "groups" ? l.groups_per_pe : l.gemm_count;
            const std::uint64_t weights = sat_mul(sat_mul(sat_mul(l.share_k, l.share_n), m_elem), groups);
            if (sat_add(at, weights) > slice_bytes()) continue;  // the slice is full
            std::vector<Chunk> chunks;
            for (std::uint64_t g = 0; g < groups; ++g)
                for (std::uint64_t j = 0; j < parts; ++j) {
                    Chunk c;
                    c.layer = i;
                    c.group = g;
                    c.part = j;
                    c.parts = parts;
                    c.n0 = j * per_chunk;
                    c.n = std::min(per_chunk, l.share_n - c.n0);
                    c.bytes = l.share_k * c.n * m_elem;
                    chunks.push_back(c);
                }
            // Staged or streamed, whichever the estimate says is sooner.
            double staged = load_ns(sat_mul(sat_mul(l.share_m, l.share_k), m_elem), l.src.given());
            double streamed = 0, previous = carry_ns;
            for (const Chunk& c : chunks) {
                const double load = load_ns(c.bytes, false), compute = compute_ns(l, c.n);
                staged += compute + (previous < 0 ? load : std::max(0.0, load - previous));
                previous = compute;
                streamed += std::max(stream_ns(l, c.n), compute);
            }
            if (staged >= streamed) {
                carry_ns = -1;  // it reads per token: the next staged layer loads its first chunk itself
                continue;
            }
            carry_ns = previous;
            for (Chunk& c : chunks) {
                c.own = at;
                at += c.bytes;
            }
            out[i] = std::move(chunks);
        }
        return out;
    }

    // The compiler's estimates behind the choice (docs/models.md "Weight
    // prefetch"), in ns on one PE: the read channel's bandwidth from the
    // PE's slice or the shared SRAM (the narrower of the channel's and the
    // memory's) ...
    double read_gbs(bool sram) const {
        const double memory = sram ? m_topo.cube.shared_sram.bw_gbs : m_topo.cube.hbm_ctrl.bw_gbs;
        return std::max(std::min(m_topo.cube.pe_template.dma.bw_gbs, memory), 1e-9);
    }
    // ... a transfer of `bytes` (its start-up, then its bytes) ...
    double load_ns(std::uint64_t bytes, bool sram) const {
        return m_topo.cube.pe_template.dma.setup_ns + static_cast<double>(bytes) / read_gbs(sram);
    }
    // ... a composite of `n` columns of layer `l`: its tokens' GEMM stages
    // back to back (PE_GEMM's formula, modules/pe/pe_gemm.h) ...
    double tokens(const Layer& l, std::uint64_t n) const {
        return static_cast<double>(ceil_div(l.share_m, l.tm)) * static_cast<double>(ceil_div(n, l.tn)) *
               static_cast<double>(ceil_div(l.share_k, l.tk));
    }
    double compute_ns(const Layer& l, std::uint64_t n) const {
        const PeGemmConfig& g = m_topo.cube.pe_template.gemm;
        const std::uint64_t tm = std::min(l.tm, l.share_m), tk = std::min(l.tk, l.share_k), tn = std::min(l.tn, n);
        return tokens(l, n) * static_cast<double>(gemm_cycles(g, tm, tk, tn, static_cast<std::uint32_t>(m_elem))) /
               std::max(g.freq_ghz, 1e-9);
    }
    // ... and the same composite reading per token: a transfer a token,
    // each operand read once but the one without a panel, which is read
    // once per row (A) or column (B) of tiles of the other, the panel kept
    // being the one that saves more (docs/timing.md "Operand reuse").
    double stream_ns(const Layer& l, std::uint64_t n) const {
        const double mt = static_cast<double>(ceil_div(l.share_m, l.tm)), nt = static_cast<double>(ceil_div(n, l.tn));
        const double a = static_cast<double>(l.share_m) * static_cast<double>(l.share_k) * static_cast<double>(m_elem);
        const double b = static_cast<double>(l.share_k) * static_cast<double>(n) * static_cast<double>(m_elem);
        const bool a_again = (nt - 1) * a < (mt - 1) * b;  // the B panel saves more: A read once per column
        return tokens(l, n) * m_topo.cube.pe_template.dma.setup_ns + (a_again ? nt : 1) * a / read_gbs(l.src.given()) +
               (a_again ? 1 : mt) * b / read_gbs(false);
    }

    // A GEMM layer whose weights are prefetched, on a PE whose chunks in
    // program order are `chunks`, the layer's from `next` on (advanced past
    // them). The layer's A is staged into TCM first (a dma_read from where
    // the layer reads it); each chunk's composite then reads A and B from
    // TCM (`a_tcm`, `b_tcm`), so its tokens have no DMA_READ, and the read
    // channel carries the kernel's dma_reads only (one writer of its inbox:
    // the PE stays on the decoupled pipeline). The PE's first chunk is
    // loaded after the A, before its composite; every later one right after
    // the composite before it, so that it loads while that one computes.
    // The hazards order the rest (docs/workload.md "Schedule semantics"): a
    // composite waits for its A and its chunk (RAW on their TCM ranges), a
    // load for the composite that read its buffer last (WAR). `bytes_of`
    // gets the layer each command's bytes count for (a load's: its chunk's).
    void emit_prefetched(std::ostringstream& y, const Layer& l, const std::vector<const Chunk*>& chunks,
                         std::size_t& next, std::vector<int>& bytes_of) const {
        const std::uint64_t out_elem = l.info.split == "K" ? 4 : m_elem;
        const auto prefetch = [&](std::size_t c) {
            const Chunk& k = *chunks[c];
            y << "    - dma_read: { id: " << m_prefix << "w" << c << ", bytes: " << k.bytes << ", addr: { own: " << k.own
              << " }, writes: [{ tcm: " << prefetch_buffer_at(c) << ", bytes: " << k.bytes << " }] }\n";
            bytes_of.push_back(static_cast<int>(k.layer));
        };
        const int layer = static_cast<int>(chunks[next]->layer);
        const std::uint64_t a = checked_mul(checked_mul(l.share_m, l.share_k, kSize), m_elem, kSize);
        fits_own_slice(!l.src.given(), a);
        y << "    - dma_read: { id: " << m_prefix << "a, bytes: " << a << ", addr: " << (l.src.given() ? pa(l.src) : "{ own: 0 }")
          << ", writes: [{ tcm: " << staged_a_at() << ", bytes: " << a << " }] }\n";
        bytes_of.push_back(layer);
        for (; next < chunks.size() && static_cast<int>(chunks[next]->layer) == layer; ++next) {
            const Chunk& k = *chunks[next];
            if (next == 0) prefetch(0);
            const std::uint64_t dst = checked_mul(checked_mul(l.share_m, k.n0, kSize), out_elem, kSize);
            fits_own_slice(!l.dst.given(), checked_add(dst, checked_mul(checked_mul(l.share_m, k.n, kSize), out_elem, kSize), kSize));
            y << "    - composite:\n"
              << "        id: " << m_prefix << sanitize(l.info.node) << (l.gemm_count > 1 ? "_g" + std::to_string(k.group) : "")
              << (k.parts > 1 ? "_n" + std::to_string(k.part) : "") << "\n"
              << "        gemm: { m: " << l.share_m << ", k: " << l.share_k << ", n: " << k.n << " }\n"
              << "        tile: { m: " << l.tm << ", k: " << l.tk << ", n: " << l.tn << " }\n";
            if (l.info.split == "K") y << "        dtype: { " << (m_elem == 1 ? "in: int8, " : "") << "out: " << sum_dtype() << " }\n";
            else if (m_elem == 1) y << "        dtype: { in: int8, out: int8 }\n";
            y << "        a_tcm: " << staged_a_at() << "\n"
              << "        b_tcm: " << prefetch_buffer_at(next) << "\n";
            if (l.dst.given()) y << "        dst: { pa: " << checked_add(l.dst.pa, dst, kSize) << " }\n";
            else if (dst) y << "        dst: { own: " << dst << " }\n";
            if (!l.epilogues.empty()) {
                y << "        epilogues:\n";
                for (const std::string& e : l.epilogues) y << "          - { op: " << e << ", scope: per_output_tile }\n";
            }
            bytes_of.push_back(layer);
            if (next + 1 < chunks.size()) prefetch(next + 1);
        }
        y << "    - wait: all\n";
        bytes_of.push_back(layer);
    }

    void emit_body(std::ostringstream& y, const Layer& l) const {
        if (l.xfer_bytes) {
            // An all-reduce step (cards()): read the other card's bytes, add, write.
            emit_dma(y, "dma_read", "xin", l.xfer_bytes, l.xfer_from);
            y << "    - wait: all\n";
            if (l.xfer_add)
                y << "    - math: { id: " << m_prefix << "sum, op: add, elements: " << ceil_div(l.xfer_bytes, m_elem) << math_dtype()
                  << " }\n    - wait: all\n";
            emit_dma(y, "dma_write", "xout", l.xfer_bytes, l.xfer_to);
            y << "    - wait: all\n";
            return;
        }
        if (l.info.lowering == "dma copy") {
            // A layout change: each PE reads its share and writes it back, re-laid.
            emit_dma(y, "dma_read", "rd", l.share_m, place(l.src));
            emit_dma(y, "dma_write", "wr", l.share_m, place(l.dst));
            y << "    - wait: all\n";
            return;
        }
        if (l.k_parts) {
            // The sum of a K split: its share of every GEMM PE's partial, in
            // one strided read from shared SRAM, else one read per slice.
            // (Past dma_piece(), one read a partial, each in pieces.)
            const std::uint64_t all = checked_mul(l.partial_bytes, static_cast<std::uint64_t>(l.k_parts), kSize);
            if (l.src.given() && all <= dma_piece())
                y << "    - dma_read: { id: " << m_prefix << "parts, bytes: " << all << ", addr: " << pa(l.src)
                  << ", pattern: strided, chunks: " << l.k_parts << ", stride: " << l.sum_stride << " }\n";
            else
                for (int j = 0; j < l.k_parts; ++j)
                    emit_dma(y, "dma_read", "part" + std::to_string(j),
                             l.partial_bytes,
                             l.src.given() ? checked_add(l.src.pa,
                                                         checked_mul(l.sum_stride, static_cast<std::uint64_t>(j), kSize), kSize)
                                           : slice_pa(l.cube, j));
            y << "    - wait: all\n"
              << "    - math: { id: " << m_prefix << "sum, op: add, elements: " << checked_mul(l.share_m, static_cast<std::uint64_t>(l.k_parts - 1), kSize)
              << ", dtype: " << sum_dtype() << " }\n";
            for (std::size_t e = 0; e < l.epilogues.size(); ++e)
                y << "    - math: { id: " << m_prefix << "ep" << e << ", op: " << l.epilogues[e] << ", elements: " << l.share_m << math_dtype()
                  << " }\n";
            y << "    - wait: all\n";
            emit_dma(y, "dma_write", "out", checked_mul(l.share_m, m_elem, kSize), place(l.dst));
            y << "    - wait: all\n";
            return;
        }
        if (l.info.m == 0) {
            const std::uint64_t bytes = checked_mul(l.share_m, m_elem, kSize);
            fits_own_slice(!l.src.given() || !l.dst.given(), bytes);
            y << "    - composite: { id: " << m_prefix << sanitize(l.info.node) << ", op: " << l.epilogues.front()
              << ", bytes: " << bytes << ", tile_bytes: " << std::min(bytes, token_room() / m_elem * m_elem)
              << (l.src.given() ? ", src: " + pa(l.src) : "") << (l.dst.given() ? ", dst: " + pa(l.dst) : "") << math_dtype()
              << " }\n"
              << "    - wait: all\n";
            return;
        }
        // Each operand a PE keeps in its own slice must fit the slice.
        const std::uint64_t out_elem = l.info.split == "K" ? 4 : m_elem;
        for (const auto& [own, bytes] :
             {std::pair{!l.src.given(), checked_mul(checked_mul(l.share_m, l.share_k, kSize), m_elem, kSize)},
              std::pair{!l.src_b.given(), checked_mul(checked_mul(l.share_k, l.share_n, kSize), m_elem, kSize)},
              std::pair{!l.dst.given(), checked_mul(checked_mul(l.share_m, l.share_n, kSize), out_elem, kSize)}})
            fits_own_slice(own, bytes);
        const std::uint64_t groups = l.info.split == "groups" ? l.groups_per_pe : l.gemm_count;
        for (std::uint64_t g = 0; g < groups; ++g) {
            y << "    - composite:\n"
              << "        id: " << m_prefix << sanitize(l.info.node) << (l.gemm_count > 1 ? "_g" + std::to_string(g) : "") << "\n"
              << "        gemm: { m: " << l.share_m << ", k: " << l.share_k << ", n: " << l.share_n << " }\n"
              << "        tile: { m: " << l.tm << ", k: " << l.tk << ", n: " << l.tn << " }\n";
            if (l.info.split == "K") y << "        dtype: { " << (m_elem == 1 ? "in: int8, " : "") << "out: " << sum_dtype() << " }\n";
            else if (m_elem == 1) y << "        dtype: { in: int8, out: int8 }\n";
            // A in shared SRAM: B keeps its own place, the PE's slice.
            if (l.src.given()) y << "        src: " << pa(l.src) << "\n";
            if (l.src_b.given()) y << "        src_b: " << pa(l.src_b) << "\n";
            else if (l.src.given()) y << "        src_b: { own: 0 }\n";
            if (l.dst.given()) y << "        dst: " << pa(l.dst) << "\n";
            if (!l.epilogues.empty()) {
                y << "        epilogues:\n";
                for (const std::string& e : l.epilogues) y << "          - { op: " << e << ", scope: per_output_tile }\n";
            }
        }
        y << "    - wait: all\n";
    }

    const Network& m_net;
    const TopologyConfig& m_topo;
    const MapOptions& m_options;
    std::vector<Transfer> m_transfers;
    const int m_pes;
    // The bytes of an activation or weight element: 2 (bf16) or 1 (8-bit:
    // INT8 or FP8, both written as the workload's int8, MapOptions).
    const std::uint64_t m_elem;
    // A sum's workload dtype (a K split's partials, 4 bytes), and a MATH
    // command's or a one-op composite's dtype key (none: bf16).
    const char* sum_dtype() const { return m_elem == 1 ? "int32" : "fp32"; }
    std::string math_dtype() const { return m_elem == 1 ? ", dtype: int8" : ""; }
    Recognised m_rec;  // the nodes mapped: the network's, recognised patterns as one node each
    std::map<std::string, int> m_uses;
    std::set<std::string> m_constant;
    std::map<std::string, std::vector<std::string>> m_producer;  // tensor -> layers that wrote it
    std::map<std::string, std::size_t> m_layer_of_output;        // a GEMM layer's (fused) output
    std::vector<Layer> m_layers;
    std::vector<std::string> m_folded;
    // emit_compiled(): the id prefix of the commands being written (its
    // layer's or transfer's id and "_"); empty otherwise.
    mutable std::string m_prefix;
    // A barrier message: one 64-byte line, a flag.
    static constexpr int sync_bytes = 64;
};

}  // namespace

const char* to_string(MapOptions::AllReduce a) { return a == MapOptions::AllReduce::ring ? "ring" : "tree"; }

Mapping greedy_map(const Network& net, const TopologyConfig& topo, const MapOptions& options) {
    return Greedy(net, topo, options).run();
}

const std::map<std::string, Mapper>& mappers() {
    static const std::map<std::string, Mapper> registry = {{"builtin.greedy_mapper", greedy_map}};
    return registry;
}

}  // namespace npuvp::model
