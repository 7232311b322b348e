#!/usr/bin/env python3
"""SimPy baseline for npuvp_bench (docs/speed.md, SPEC §9).

A port of seed 000's PE pipeline model as its pseudo-code gives it (TileToken,
PipelineContext, _pipeline_worker with simpy.Store inboxes of depth
inbox_depth, the single _feed_loop, simpy.Resource for DMA_READ / DMA_WRITE /
accel_slot), with npuvp's timing contract (docs/timing.md):

  T1  every transfer reserves its whole route when it starts, hop by hop
      (t = max(t, free); free = t + ser(n, B); t += L), then drains
      ser(n, min B); ser rounds up to a whole ps. Time is integer ps.
  T2  pe0's routes on configs/topologies/default.yaml (printed by
      `npuvp_bench --case routes`), hard-coded below.
  T3  GEMM (ceil(m/128)·ceil(n/128)·k + 128) cycles, MATH
      (ceil(elements·cost/512) + 8) cycles at 1 GHz, both holding accel_slot;
      FETCH / STORE: T1 over their route + 1 ns; PE_CPU 2 ns per command,
      PE_SCHEDULER 1 ns per fed tile.
  T6  one token per (mi, ni, ki), ki innermost; DMA_READ, FETCH, GEMM, then on
      the last K-step the per_output_tile epilogue (bias_add), STORE, DMA_WRITE.

Each PE reads and writes its own HBM slice, so the --pes N case is N
independent copies of the one-PE model (npuvp's PEs share no hop here).

--launch direct (the default) starts the kernel on every PE at t = 0, as a
workload's `launch:` does. --launch host starts it as npuvp's host
`kernel_launch` request does (docs/architecture.md "The cube command path",
docs/workload.md "Host requests"; the bench's host1_gemm / host8_gemm, target
PEs 0 .. N-1 of sip0.cube0), seed 001's path:

  IO_CPU   one message at a time, overhead_ns each (requests and responses
           alike: a simpy.Resource held overhead_ns). The request takes it at
           t = 0, then stamps the barrier
               target_start = now + max over target PEs of
                              (IO_CPU->M_CPU latency + M_CPU overhead_ns
                               + M_CPU->PE_CPU latency)
           and posts the launch to M_CPU.
  M_CPU    takes messages at their arrival, one at a time, overhead_ns each
           (a single worker process). A launch spawns a fan-out that posts the
           launch to every target PE_CPU at once and waits for all their
           responses (each one also handled by the worker, overhead_ns), then
           posts one response to IO_CPU.
  PE_CPU   waits for target_start (a launch arriving later would start at
           once), runs the kernel as in the direct case, then posts its
           response to M_CPU.
  IO_CPU   handles the response (overhead_ns); the request is complete then.

Every control message carries n = 0 bytes: pure route latency, it reserves no
hop (T1 "Control messages"). The makespan is npuvp's
(WorkloadRun::makespan_ps(), the `makespan` that `npuvp` prints and puts in
--summary as makespan_ns): the latest of every PE's kernel finish and every
host request's completion at IO_CPU, here the latter.

The control constants come from configs/topologies/default.yaml (each route
is printed by `npuvp_bench --case routes`, with the nodes on it that would add
a transit cost: none on these routes):
  io_cpu.attrs.overhead_ns = 5, cube.m_cpu.attrs.overhead_ns = 5;
  IO_CPU <-> M_CPU: the io_link, one hop each way, latency_ns = 500 (its
      bw_gbs does not apply to n = 0);
  M_CPU <-> pe{i}.pe_cpu: M_CPU attaches to router m_cpu.attrs.router = 0,
      PE i's pe_cpu to router i = row * cols + col (2 x 4 mesh), each attach
      link attach_latency_ns = 1; XY routing crosses |dcol| + |drow| mesh
      links of pitch_mm * ns_per_mm + router_latency_ns = 5 * 0.1 + 2 = 2.5 ns
      each, the same count both ways. So 2 + 2.5 * hops ns:
      pe0 2, pe1 4.5, pe2 7, pe3 9.5, pe4 4.5, pe5 7, pe6 9.5, pe7 12 ns.
Hence, with K the direct run's makespan: one PE, barrier 5 + 500 + 5 + 2 =
512 ns, complete at 512 + K + 2 + 5 + 500 + 5 = K + 1024 ns; eight PEs,
barrier 5 + 500 + 5 + 12 = 522 ns, the eight responses reach M_CPU at
K + 522 + {2, 4.5, 4.5, 7, 7, 9.5, 9.5, 12} ns and its worker is done with
the last at K + 522 + 42 ns, so complete at K + 522 + 42 + 500 + 5 = K + 1069 ns.

Prints one line: RESULT makespan_ps=... wall_s=... elab_s=... tokens=... events=...
"""
import argparse
import sys
import time

import simpy

# ---------------------------------------------------------------- T1

def ser(n, bw_gbs):
    """Time of n bytes at bw GB/s, rounded up to a whole ps (0 if unlimited)."""
    if n == 0 or bw_gbs == 0:
        return 0
    bps = int(round(bw_gbs * 1e9))
    return -(-n * 10**12 // bps)


class Hop:
    __slots__ = ("name", "latency", "bw", "free")

    def __init__(self, name, latency_ps, bw_gbs):
        self.name, self.latency, self.bw, self.free = name, latency_ps, bw_gbs, 0

    def reserve(self, t, n):
        if n > 0 and self.bw > 0:
            if self.free > t:
                t = self.free
            self.free = t + ser(n, self.bw)
        return t + self.latency


class Route:
    def __init__(self, hops):
        self.hops = hops
        bws = [h.bw for h in hops if h.bw > 0]
        self.min_bw = min(bws) if bws else 0

    def transfer(self, t, n):
        """Done time of n bytes starting at t (reserves every hop)."""
        for h in self.hops:
            t = h.reserve(t, n)
        return t + ser(n, self.min_bw)


# ---------------------------------------------------------------- T6

def tile_plan(m, k, n, tm=128, tk=128, tn=128, d_in=2, d_out=2):
    """Yields (tile_id, in_bytes, out_bytes, stages) in T6 order."""
    cdiv = lambda a, b: -(-a // b)
    mt, nt, kt = cdiv(m, tm), cdiv(n, tn), cdiv(k, tk)
    for tid in range(mt * nt * kt):
        ki = tid % kt
        ni = (tid // kt) % nt
        mi = tid // (kt * nt)
        a = min(tm, m - mi * tm)
        b = min(tk, k - ki * tk)
        c = min(tn, n - ni * tn)
        last_k = ki + 1 == kt
        in_bytes = (a * b + b * c) * d_in
        out_bytes = a * c * d_out if last_k else 0
        stages = [("DMA_READ", in_bytes), ("FETCH", in_bytes), ("GEMM", (a, b, c))]
        if last_k:
            stages += [("MATH", (a * c, "bias_add")), ("STORE", out_bytes),
                       ("DMA_WRITE", out_bytes)]
        yield tid, in_bytes, out_bytes, stages


def count_tiles(m, k, n, t=128):
    cdiv = lambda a, b: -(-a // b)
    return cdiv(m, t) * cdiv(n, t) * cdiv(k, t)


# ---------------------------------------------------------------- seed 000 §D6

class PipelineContext:
    def __init__(self, env, cid, total_tiles):
        self.id = cid
        self.total_tiles = total_tiles
        self.completed_tiles = 0
        self.done_event = env.event()
        self.finished = None

    def complete_tile(self, env):
        self.completed_tiles += 1
        if self.completed_tiles == self.total_tiles:
            self.finished = env.now
            self.done_event.succeed()


class TileToken:
    __slots__ = ("tile_id", "pipeline_ctx", "stages", "stage_idx", "in_bytes", "out_bytes")

    def __init__(self, tile_id, ctx, stages, in_bytes, out_bytes):
        self.tile_id, self.pipeline_ctx, self.stages = tile_id, ctx, stages
        self.stage_idx, self.in_bytes, self.out_bytes = 0, in_bytes, out_bytes


NS = 1000  # ps

# default.yaml figures (the values `npuvp_bench --case routes` prints for pe0)
CPU_OVERHEAD = 2 * NS
SCHED_OVERHEAD = 1 * NS
INBOX_DEPTH = 2
RESERVED_TCM = 8 << 20
FS_LATENCY = 1 * NS
GEMM_ROWS = GEMM_COLS = 128
GEMM_FILL = 128
MATH_LANES, MATH_FILL, MATH_COST = 512, 8, {"bias_add": 1.0}

# The host launch path (--launch host): default.yaml figures, derived in the
# docstring; `npuvp_bench --case routes` prints the routes they come from.
IO_CPU_OVERHEAD = 5 * NS
M_CPU_OVERHEAD = 5 * NS
IO_LINK_LATENCY = 500 * NS      # IO_CPU <-> M_CPU, each way
NOC_ATTACH_LATENCY = 1 * NS     # a node to its router
MESH_LINK_LATENCY = 2500        # pitch_mm 5 x ns_per_mm 0.1 + router_latency_ns 2
MESH_COLS = 4                   # pe_layout 2 x 4; router i = row * cols + col
M_CPU_ROUTER = 0


def m_cpu_pe_cpu_latency(pe):
    """M_CPU <-> pe{pe}.pe_cpu, either way: two attach links and the XY mesh links."""
    row, col = divmod(pe, MESH_COLS)
    m_row, m_col = divmod(M_CPU_ROUTER, MESH_COLS)
    return 2 * NOC_ATTACH_LATENCY + (abs(col - m_col) + abs(row - m_row)) * MESH_LINK_LATENCY


class Pe:
    def __init__(self, env, idx):
        self.env = env
        self.idx = idx
        # T2 hops of pe0 (default.yaml)
        rd0 = Hop("pe_dma.rd0", 500 * NS, 256.0)
        wr0 = Hop("pe_dma.wr0", 500 * NS, 256.0)
        r0_to_dma = Hop("noc.r0->pe_dma", 1 * NS, 0)
        hbm_to_r0 = Hop("hbm_ctrl.pe0->noc.r0", 1 * NS, 0)
        dma_to_r0 = Hop("pe_dma->noc.r0", 1 * NS, 0)
        r0_to_hbm = Hop("noc.r0->hbm_ctrl.pe0", 1 * NS, 0)
        hbm_port = Hop("hbm_ctrl.pe0.port", 100 * NS, 192.0)
        tcm_wr = Hop("pe_tcm.write_port", 2 * NS, 8192.0)
        tcm_rd = Hop("pe_tcm.read_port", 2 * NS, 8192.0)
        tcm_to_fs = Hop("pe_tcm->pe_fetch_store", 0, 2048.0)
        fs_to_tcm = Hop("pe_fetch_store->pe_tcm", 0, 2048.0)
        self.routes = {
            "DMA_READ": Route([rd0, r0_to_dma, hbm_to_r0, hbm_port, tcm_wr]),
            "DMA_WRITE": Route([tcm_rd, wr0, dma_to_r0, r0_to_hbm, hbm_port]),
            "FETCH": Route([tcm_rd, tcm_to_fs]),
            "STORE": Route([fs_to_tcm, tcm_wr]),
        }
        # simpy.Resource: request-order grants, as npuvp's FifoResource
        self.dma_read = simpy.Resource(env, capacity=1)
        self.dma_write = simpy.Resource(env, capacity=1)
        self.accel_slot = simpy.Resource(env, capacity=1)
        self.inbox = {s: simpy.Store(env, capacity=INBOX_DEPTH)
                      for s in ("DMA_READ", "FETCH", "GEMM", "MATH", "STORE", "DMA_WRITE")}
        self.tcm_in_use = 0
        self.tcm_freed = env.event()
        self.pending_feeds = []
        self.feed_ready = env.event()
        self.events = 0  # engine stages done
        for stage in self.inbox:
            env.process(self._pipeline_worker(stage))
        env.process(self._feed_loop())

    # -- PE_CPU: one composite command, wait: true
    def run_kernel(self, m, k, n):
        yield self.env.timeout(CPU_OVERHEAD)  # PE_CPU overhead; cpu->scheduler link: 0 ns
        ctx = PipelineContext(self.env, "fc", count_tiles(m, k, n))
        self.pending_feeds.append((ctx, tile_plan(m, k, n)))
        if not self.feed_ready.triggered:
            self.feed_ready.succeed()
        yield ctx.done_event
        self.finished = ctx.finished

    # -- PE_SCHEDULER: the single _feed_loop
    def _feed_loop(self):
        env = self.env
        while True:
            while not self.pending_feeds:
                self.feed_ready = env.event()
                yield self.feed_ready
            ctx, plan = self.pending_feeds[0]
            for tid, in_b, out_b, stages in plan:
                while self.tcm_in_use + in_b + out_b > RESERVED_TCM:
                    self.tcm_freed = env.event()
                    yield self.tcm_freed
                self.tcm_in_use += in_b + out_b
                yield env.timeout(SCHED_OVERHEAD)
                token = TileToken(tid, ctx, stages, in_b, out_b)
                yield self.inbox[stages[0][0]].put(token)  # back-pressure
            self.pending_feeds.pop(0)

    def _complete(self, token):
        self.tcm_in_use -= token.in_bytes + token.out_bytes
        if not self.tcm_freed.triggered:
            self.tcm_freed.succeed()
        token.pipeline_ctx.complete_tile(self.env)

    # -- seed 000 §D6 _pipeline_worker: chaining lives here only
    def _pipeline_worker(self, stage_type):
        inbox = self.inbox[stage_type]
        while True:
            token = yield inbox.get()
            while True:
                yield from self._process(token)
                token.stage_idx += 1
                if token.stage_idx == len(token.stages):
                    self._complete(token)
                    break
                nxt = token.stages[token.stage_idx][0]
                if nxt == stage_type:
                    continue  # same worker: no inbox round trip (T3)
                yield self.inbox[nxt].put(token)
                break

    def _process(self, token):
        env = self.env
        kind, arg = token.stages[token.stage_idx]
        self.events += 1
        if kind in ("DMA_READ", "DMA_WRITE"):
            res = self.dma_read if kind == "DMA_READ" else self.dma_write
            with res.request() as req:
                yield req
                done = self.routes[kind].transfer(env.now, arg)
                yield env.timeout(done - env.now)
        elif kind in ("FETCH", "STORE"):
            done = self.routes[kind].transfer(env.now, arg) + FS_LATENCY
            yield env.timeout(done - env.now)
        elif kind == "GEMM":
            a, b, c = arg
            cycles = -(-a // GEMM_ROWS) * -(-c // GEMM_COLS) * b + GEMM_FILL
            with self.accel_slot.request() as req:
                yield req
                yield env.timeout(cycles * NS)  # 1 GHz
        else:  # MATH
            elements, op = arg
            cycles = int(-(-(elements * MATH_COST[op]) // MATH_LANES)) + MATH_FILL
            with self.accel_slot.request() as req:
                yield req
                yield env.timeout(cycles * NS)


# ---------------------------------------------------------------- seed 001

def post(env, delay, inbox, item):
    """A posted control message (n = 0): in `inbox` after the route's latency."""
    def deliver():
        yield env.timeout(delay)
        yield inbox.put(item)
    env.process(deliver())


class HostLaunch:
    """One host kernel_launch through IO_CPU, M_CPU and each target PE_CPU."""

    def __init__(self, env, pes, m, k, n):
        self.env, self.pes = env, pes
        self.io_cpu = simpy.Resource(env, capacity=1)  # requests and responses, in turn
        self.io_inbox = simpy.Store(env)
        self.m_cpu_inbox = simpy.Store(env)
        self.launch_inbox = [simpy.Store(env) for _ in pes]
        self.completed = None
        self.pending = 0
        self.all_answered = None
        env.process(self._io_cpu_request())
        env.process(self._io_cpu_worker())
        env.process(self._m_cpu_worker())
        for pe in pes:
            env.process(self._pe_cpu(pe, m, k, n))

    def _io_cpu_request(self):
        env = self.env
        with self.io_cpu.request() as req:
            yield req
            yield env.timeout(IO_CPU_OVERHEAD)
        # ADR-0036 D3: one barrier late enough for the launch to reach every target PE.
        start = env.now + max(IO_LINK_LATENCY + M_CPU_OVERHEAD + m_cpu_pe_cpu_latency(pe.idx)
                              for pe in self.pes)
        post(env, IO_LINK_LATENCY, self.m_cpu_inbox, ("launch", start))

    def _io_cpu_worker(self):
        yield self.io_inbox.get()  # one cube: one response completes the request
        with self.io_cpu.request() as req:
            yield req
            yield self.env.timeout(IO_CPU_OVERHEAD)
        self.completed = self.env.now

    def _m_cpu_worker(self):
        env = self.env
        while True:
            kind, arg = yield self.m_cpu_inbox.get()
            yield env.timeout(M_CPU_OVERHEAD)  # one message at a time (seed 001 D9)
            if kind == "launch":
                env.process(self._m_cpu_fanout(arg))  # seed 001 D2
            else:
                self.pending -= 1
                if self.pending == 0:
                    self.all_answered.succeed()

    def _m_cpu_fanout(self, start):
        self.pending = len(self.pes)
        self.all_answered = self.env.event()
        for pe in self.pes:  # seed 001 D6: target_start passed through unchanged
            post(self.env, m_cpu_pe_cpu_latency(pe.idx), self.launch_inbox[pe.idx], start)
        yield self.all_answered
        post(self.env, IO_LINK_LATENCY, self.io_inbox, "response")  # seed 001 D8

    def _pe_cpu(self, pe, m, k, n):
        env = self.env
        start = yield self.launch_inbox[pe.idx].get()
        if start > env.now:
            yield env.timeout(start - env.now)
        yield from pe.run_kernel(m, k, n)
        post(env, m_cpu_pe_cpu_latency(pe.idx), self.m_cpu_inbox, ("response", pe.idx))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pes", type=int, default=1)
    ap.add_argument("--m", type=int, default=2048)
    ap.add_argument("--k", type=int, default=2048)
    ap.add_argument("--n", type=int, default=2048)
    ap.add_argument("--launch", choices=("direct", "host"), default="direct",
                    help="direct: every PE starts at t = 0; host: one kernel_launch through "
                         "IO_CPU, M_CPU and PE_CPU")
    a = ap.parse_args()
    t0 = time.perf_counter()
    env = simpy.Environment()
    pes = [Pe(env, i) for i in range(a.pes)]
    host = None
    if a.launch == "host":
        host = HostLaunch(env, pes, a.m, a.k, a.n)
    else:
        for pe in pes:
            env.process(pe.run_kernel(a.m, a.k, a.n))
    elab = time.perf_counter() - t0
    t1 = time.perf_counter()
    env.run()
    wall = time.perf_counter() - t1
    if any(getattr(pe, "finished", None) is None for pe in pes):
        print("pe_pipeline: a PE did not finish", file=sys.stderr)
        return 3
    if host is not None and host.completed is None:
        print("pe_pipeline: the host request did not complete", file=sys.stderr)
        return 3
    # npuvp's WorkloadRun::makespan_ps(): the latest PE finish or host request completion.
    makespan = max([pe.finished for pe in pes] + ([host.completed] if host else []))
    tokens = a.pes * count_tiles(a.m, a.k, a.n)
    print("RESULT makespan_ps=%d wall_s=%.6f elab_s=%.6f tokens=%d events=%d"
          % (makespan, wall, elab, tokens, sum(pe.events for pe in pes)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
