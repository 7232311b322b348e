// Stub neighbours for block benches (STYLE "Tests": a harness owns the block
// under test, stub initiators and targets): a target that records every
// payload it receives (and when), an initiator that sends messages along
// hand-built routes and waits once, and `Wires`, which owns the hops and
// routes a bench lays out by hand. Routes are built before sc_start()
// (binding is elaboration).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <systemc>
#include <tlm>

#include "modules/common/timed_inbox.h"
#include "tlm_sockets/hop.h"
#include "tlm_sockets/npu_extension.h"
#include "tlm_sockets/route.h"
#include "tlm_sockets/routed_node.h"

namespace npuvp::test {

constexpr ps_t ns(std::uint64_t v) { return v * 1000; }
inline ps_t now_ps() { return sc_core::sc_time_stamp().value(); }

// A node that only forwards (a stand-in router or link end).
class StubNode : public RoutedNode {
public:
    using RoutedNode::RoutedNode;
    const char* kind() const override { return "stub_node"; }
};

// What a payload looked like when it reached a StubTarget.
struct Arrival {
    MsgKind kind = MsgKind::control;
    std::uint64_t address = 0;
    std::uint64_t bytes = 0;       // the modelled n of T1
    std::uint64_t command_id = 0;
    std::int64_t tile_id = -1;
    std::uint64_t request_id = 0;
    const void* body = nullptr;
    ps_t sent_ps = 0;     // when b_transport reached it (the sender's now)
    ps_t arrival_ps = 0;  // now + delay: when the message is there (LT)
};

// A target that records every payload, answers with `answer` (OK by default)
// and, if `on_arrival` is set, runs it in its own thread at each message's
// arrival time (so a stub can answer: wait, transport, ...). Optionally it
// has a service hop of its own (a memory-like port).
class StubTarget : public RoutedNode {
public:
    std::vector<Arrival> arrivals;
    tlm::tlm_response_status answer = tlm::TLM_OK_RESPONSE;
    std::function<void(const Arrival&)> on_arrival;

    explicit StubTarget(const sc_core::sc_module_name& name) : RoutedNode(name) {
        SC_HAS_PROCESS(StubTarget);
        SC_THREAD(react);
    }
    const char* kind() const override { return "stub_target"; }

    void set_port(double latency_ns, double bw_gbs) {
        m_port.emplace(node_id() + ".port", ns_to_ps(latency_ns, "a stub's latency_ns"), bw_gbs);
    }
    Hop* service_hop() override { return m_port ? &*m_port : nullptr; }

protected:
    void serve(tlm::tlm_generic_payload& p, NpuExtension& ext, sc_core::sc_time& delay) override {
        arrivals.push_back({ext.kind, p.get_address(), ext.bytes, ext.command_id, ext.tile_id,
                            ext.request_id, ext.body, now_ps(), now_ps() + delay.value()});
        m_pending.push(arrivals.size() - 1, delay);
        p.set_response_status(answer);
    }

private:
    void react() {
        for (;;) {
            const std::size_t i = m_pending.pop();
            if (on_arrival) on_arrival(arrivals[i]);
        }
    }

    std::optional<Hop> m_port;
    TimedInbox<std::size_t> m_pending;
};

// An initiator: runs `jobs` in order from its own thread (each at its start
// time or when the previous one is done), or sends from a caller's thread
// with send(). Every send waits once for the T1 done (LT initiator). It is a
// StubTarget too, so it records (and may answer) what is sent back to it.
class StubInitiator : public StubTarget {
public:
    struct Job {
        ps_t start_ps = 0;
        const Route* route = nullptr;
        MsgKind kind = MsgKind::control;
        std::uint64_t bytes = 0;
        std::uint64_t address = 0;
        const void* body = nullptr;
    };
    struct Done {
        ps_t start_ps = 0;  // when transport() was called
        ps_t delay_ps = 0;  // the whole T1 delay it returned
        ps_t done_ps = 0;   // after the one wait
        std::string error;  // transport() threw (an error response)
    };
    std::vector<Job> jobs;
    std::vector<Done> done;

    explicit StubInitiator(const sc_core::sc_module_name& name) : StubTarget(name) {
        SC_HAS_PROCESS(StubInitiator);
        SC_THREAD(run);
    }
    const char* kind() const override { return "stub_initiator"; }

    // From any thread: sends now, waits for done, records and returns it.
    Done send(const Job& job) {
        Transaction& txn = m_txns.emplace_back();  // a body may outlive the call
        txn.ext().body = job.body;
        txn.prepare(job.kind, *job.route, job.address, job.bytes);
        Done d;
        d.start_ps = now_ps();
        try {
            const sc_core::sc_time delay = transport(txn);
            d.delay_ps = delay.value();
            sc_core::wait(delay);
        } catch (const std::exception& e) {
            d.error = e.what();
        }
        d.done_ps = now_ps();
        done.push_back(d);
        return d;
    }

private:
    void run() {
        for (const Job& job : jobs) {
            if (job.start_ps > now_ps()) sc_core::wait(sc_core::sc_time::from_value(job.start_ps - now_ps()));
            send(job);
        }
    }

    std::deque<Transaction> m_txns;
};

// The hops and routes of a bench, laid out by hand: a route is a node path
// (each consecutive pair bound once, out -> in) and its T1 steps, each a hop
// and the path position of the node that applies it (docs/timing.md, "Who
// applies which step").
class Wires {
public:
    Hop& hop(const std::string& name, double latency_ns, double bw_gbs = 0.0) {
        return m_hops.emplace_back(name, ns_to_ps(latency_ns, "a stub's latency_ns"), bw_gbs);
    }

    const Route& route(const std::vector<RoutedNode*>& nodes, const std::vector<RouteStep>& steps) {
        Route& r = m_routes.emplace_back();
        for (std::size_t i = 0; i < nodes.size(); ++i) {
            int port = -1;
            if (i + 1 < nodes.size()) {
                const auto key = std::make_pair(nodes[i]->node_id(), nodes[i + 1]->node_id());
                auto it = m_ports.find(key);
                port = it != m_ports.end() ? it->second
                                           : m_ports.emplace(key, nodes[i]->connect_to(*nodes[i + 1])).first->second;
            }
            r.path.push_back({nodes[i], port});
        }
        r.steps = steps;
        r.finalise();
        return r;
    }

private:
    std::deque<Hop> m_hops;
    std::deque<Route> m_routes;
    std::map<std::pair<std::string, std::string>, int> m_ports;  // lookup only
};

// Runs `body` as a thread of its own (a bench's script), e.g. to probe a
// block's state at chosen times. Record inside, assert after sc_start().
class Script : public sc_core::sc_module {
public:
    Script(const sc_core::sc_module_name& name, std::function<void()> body)
        : sc_module(name), m_body(std::move(body)) {
        SC_HAS_PROCESS(Script);
        SC_THREAD(run);
    }

private:
    void run() { m_body(); }
    std::function<void()> m_body;
};

inline void wait_until(ps_t t) {
    if (t > now_ps()) sc_core::wait(sc_core::sc_time::from_value(t - now_ps()));
}

}  // namespace npuvp::test
