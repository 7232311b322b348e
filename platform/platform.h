// The elaborated machine (SPEC §2): builds every node of a validated
// TopologyConfig as an sc_module whose hierarchical name is its node id,
// binds TLM sockets along every topology link (each direction its own T1
// hop), and computes routes once, on request, from the topology (the seeds'
// router.find_node_path / find_mcpu_dma_path). Components never decide
// routes: they follow the Route they are given.
//
// Routing rule (deterministic):
//  - a direct link is the route;
//  - inside one PE, the shortest path over the template's links (BFS, links
//    tried in the order they were made);
//  - between NoC-attached nodes of one cube: attach link, XY over the mesh,
//    attach link;
//  - between cubes of one SIP: to the cube's UCIe port, along the UCIe chain,
//    from the other cube's UCIe port;
//  - between SIPs, and to or from an IO_CPU: through the cubes' M_CPUs and the
//    IO_CPUs (io_link, sip_link).
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <systemc>

#include "modules/common/config.h"
#include "modules/common/fabric.h"
#include "modules/common/fifo_resource.h"
#include "modules/common/run_status.h"
#include "modules/common/trace.h"
#include "modules/cube/m_cpu.h"
#include "modules/cube/memory_target.h"
#include "modules/cube/noc.h"
#include "modules/cube/ucie_port.h"
#include "modules/pe/pe.h"
#include "modules/pe/pe_routes.h"
#include "modules/system/io_cpu.h"
#include "platform/address_resolver.h"
#include "platform/decoupler.h"
#include "platform/impl_registry.h"
#include "tlm_sockets/route.h"

namespace npuvp {

struct CubeNodes {
    int sip = 0;
    int cube = 0;         // within its SIP
    int global = 0;       // sip · cubes_per_sip + cube
    sc_core::sc_module* container = nullptr;
    MCpu* m_cpu = nullptr;
    Noc* noc = nullptr;
    std::vector<MemoryTarget*> hbm;  // hbm_ctrl.pe{X}
    MemoryTarget* shared_sram = nullptr;
    UciePort* ucie = nullptr;        // only when the SIP has more than one cube
    std::vector<Pe*> pes;            // pe{X}, by index
    std::vector<PeRoutes*> routes;   // what each PE's `routes` port is bound to, by index
    IpcqPeers* ipcqs = nullptr;      // what each PE's `dma().peers` is bound to
};

struct SipNodes {
    int sip = 0;
    sc_core::sc_module* container = nullptr;
    IoCpu* io_cpu = nullptr;
    std::vector<CubeNodes> cubes;
};

// A directed topology link: an `out` binding of `from` to `to.in` and its hop.
struct Link {
    RoutedNode* from = nullptr;
    RoutedNode* to = nullptr;
    int out_port = -1;
    int in_port = -1;  // the binding of `to.in` it reaches
    std::string kind;  // "mesh", "attach", "pe", "io", "ucie", "sip"
    std::unique_ptr<Hop> hop;
};

// How the platform is elaborated; no choice here may change a result
// (SPEC T4; t4_order_test builds the same platform both ways).
struct PlatformBuildOrder {
    bool pes_in_reverse = false;  // create each cube's PEs (and HBM slices) last to first
};

class Platform final : public Fabric, public AddressDecoder {
public:
    using BuildOrder = PlatformBuildOrder;
    Platform(const TopologyConfig& topo, TraceSink& trace,
             const ImplRegistry& impls = builtin_registry(), BuildOrder order = {});
    ~Platform() override;
    Platform(const Platform&) = delete;
    Platform& operator=(const Platform&) = delete;

    const TopologyConfig& config() const { return m_topo; }
    const std::vector<SipNodes>& sips() const { return m_sips; }
    CubeNodes& cube(int sip, int cube) { return m_sips.at(sip).cubes.at(cube); }
    Pe& pe(int sip, int cube, int pe) { return *this->cube(sip, cube).pes.at(pe); }
    // Work the pipeline did so far, for speed figures (docs/speed.md):
    // tiles fed, stage events (one per engine stage done: DMA channel grants
    // + FETCH, STORE, GEMM, MATH stages), commands completed, PEs that ran one.
    struct WorkCounts {
        std::uint64_t tiles = 0, stage_events = 0, commands = 0, pes = 0;
        // Activations of the PE pipeline's method processes: stage workers in
        // method mode, the feed loop, the completion process (docs/speed.md).
        std::uint64_t activations = 0;
    };
    WorkCounts work_counts() const;

    const AddressResolver& resolver() const { return m_resolver; }
    // Which PEs run the decoupled pipeline, and the driver that runs them
    // (docs/speed.md "The decoupled pipeline").
    Decoupler& decoupler() { return *m_decoupler; }
    const Decoupler& decoupler() const { return *m_decoupler; }
    RunStatus& status() { return m_status; }
    const RunStatus& status() const { return m_status; }

    // The memory target (HBM slice or shared SRAM) holding `pa`; throws
    // std::out_of_range naming the address when it is outside every window.
    RoutedNode& memory_target(std::uint64_t pa);
    RoutedNode& memory_target(const AddressLocation& at);  // pa already located
    // AddressDecoder: where a payload without npuvp's extension goes from
    // `at`: the first hop of the platform's route to the target of its
    // address (the same route npuvp's own transfers take).
    int decode(RoutedNode& at, std::uint64_t address) override;

    // Every node, sorted by node id.
    const std::vector<RoutedNode*>& nodes() const { return m_nodes; }
    RoutedNode* find(const std::string& node_id) const;  // nullptr when absent; O(log nodes)
    const std::vector<std::unique_ptr<Link>>& links() const { return m_links; }
    const Link* link(const RoutedNode& from, const RoutedNode& to) const;

    // The route between two nodes (computed once, then cached). Throws
    // std::invalid_argument when `to` cannot be reached from `from`.
    const Route& route(RoutedNode& from, RoutedNode& to) override;
    const Route& route(const std::string& from, const std::string& to);
    // A read's route: request from -> to, data (and its link hops) to -> from.
    const Route& read_route(RoutedNode& from, RoutedNode& to) override;

    // Fabric
    RoutedNode& node(NodeRole role, int sip, int cube, int pe) override;
    std::uint64_t hbm_base(int sip, int cube, int slice) const override {
        return m_resolver.hbm_base(sip, cube, slice);
    }
    std::uint64_t hbm_slice_bytes() const override {
        return m_topo.cube.memory_map.hbm_slice_bytes;
    }
    int pes_per_cube() const override { return m_topo.pes_per_cube(); }

    // T2 DMA routes of one PE channel to / from a memory target:
    //   read : channel -> NoC -> target port -> TCM write port
    //   write: TCM read port -> channel -> NoC -> target port
    const Route& dma_route(Pe& pe, DmaDirection dir, int channel, RoutedNode& target);

    // T2 on-PE routes: FETCH (TCM read port -> fetch link) and STORE (store
    // link -> TCM write port), over the fetch_store <-> pe_tcm link pair.
    const Route& fetch_route(Pe& pe);
    const Route& store_route(Pe& pe);
    // The vc_comm route of a PE's DMA to the IPCQ of another PE of its cube.
    const Route& comm_route(Pe& pe, Pe& peer);

    // VCD (SPEC §7): adds the shadow signals of every node whose id matches
    // one of `globs` (fnmatch; all when empty) and of every PE whose id
    // (sip0.cube0.pe3) matches (its accel_slot and inbox fill levels).
    // Signal names are <node id>.<signal>, so GTKWave groups them by node.
    // Returns the matched ids in elaboration order.
    std::vector<std::string> add_traces(sc_core::sc_trace_file* tf,
                                        const std::vector<std::string>& globs) const;

    // Where a node attaches to its cube's mesh: (global cube, router) or
    // (-1, -1) for nodes that are not on a mesh.
    std::pair<int, int> attachment(const RoutedNode& node) const;

private:
    struct NodeInfo {
        int sip = -1;
        int cube = -1;  // global cube index
        int pe = -1;
        int router = -1;
    };

    void build();
    void build_cube(SipNodes& sip, CubeNodes& cube);
    void wire();
    void attach_pe(CubeNodes& cube, Pe& pe);
    Link& add_link(RoutedNode& from, RoutedNode& to, const std::string& kind, double latency_ns,
                   double bw_gbs);
    void add_duplex(RoutedNode& a, RoutedNode& b, const std::string& kind, double latency_ns,
                    double bw_gbs);
    void register_node(RoutedNode& node, NodeInfo info);
    const NodeInfo& info(const RoutedNode& node) const;  // throws std::out_of_range if not ours
    // The place in m_owned of a container about to be made, before the
    // children its constructor makes (m_owned stays in creation order).
    std::size_t own_slot();

    std::vector<RoutedNode*> node_path(RoutedNode& from, RoutedNode& to) const;
    std::vector<RoutedNode*> pe_internal_path(RoutedNode& from, RoutedNode& to) const;
    void append_mesh(std::vector<RoutedNode*>& path, int global_cube, int from_router,
                     int to_router) const;
    CubeNodes& global_cube(int global);
    const CubeNodes& global_cube(int global) const;
    // `data_back`: the data of this route flows from the target to the
    // initiator, so each link step reserves the reverse direction's hop.
    Route& make_route(const std::string& key, const std::vector<RoutedNode*>& nodes,
                      const std::vector<Hop*>& head, const std::vector<Hop*>& tail,
                      bool data_back = false);

    const TopologyConfig& m_topo;
    TraceSink& m_trace;
    RunStatus m_status;
    const ImplRegistry& m_impls;
    BuildOrder m_order;
    AddressResolver m_resolver;

    // Every module and channel built, in the order SystemC made them
    // (parents before their children); each keeps its own deleter
    // (sc_object has a protected destructor).
    std::vector<std::shared_ptr<void>> m_owned;
    std::vector<std::unique_ptr<IpcqList>> m_ipcq_lists;  // one per cube
    std::vector<SipNodes> m_sips;
    // Per-node and per-link indexes hold a few words per entry: a machine
    // has ~2·10^5 of each (16,384 PEs), where a std::map with string keys
    // cost ~150 bytes an entry (issue 38). m_nodes, sorted by id, is also
    // the index by id (find()).
    std::vector<RoutedNode*> m_nodes;
    std::vector<std::pair<const RoutedNode*, NodeInfo>> m_info;  // sorted by pointer after build(); lookup only
    std::vector<std::unique_ptr<Link>> m_links;
    struct NodePairHash {
        std::size_t operator()(const std::pair<const RoutedNode*, const RoutedNode*>& p) const {
            const std::size_t a = std::hash<const RoutedNode*>()(p.first);
            return a ^ (std::hash<const RoutedNode*>()(p.second) + 0x9e3779b97f4a7c15ULL + (a << 6) + (a >> 2));
        }
    };
    std::unordered_map<std::pair<const RoutedNode*, const RoutedNode*>, Link*, NodePairHash>
        m_link_index;  // lookup only, never iterated
    std::map<std::string, std::unique_ptr<Route>> m_routes;
    // route() and read_route() by their two ends, in front of m_routes: a
    // look-up per message (a launch's response, a host request's parts)
    // made a string key and compared it down the map (lookup only, never
    // iterated).
    using RouteIndex = std::unordered_map<std::pair<const RoutedNode*, const RoutedNode*>, const Route*, NodePairHash>;
    RouteIndex m_route_by_ends, m_read_route_by_ends;
    std::vector<std::unique_ptr<PeRoutes>> m_pe_routes;
    std::unique_ptr<Decoupler> m_decoupler;
};

}  // namespace npuvp
