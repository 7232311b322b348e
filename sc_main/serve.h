// `npuvp serve SCENARIO.yaml` (issue 41 points 4, 6 and 7; docs/llm.md
// "Serving"): a language model served to a stream of requests — fixed
// concurrency or Poisson arrivals, continuous or static batching, admission
// by KV-cache capacity — with each distinct step run in detail on the
// event-level model (`npuvp --llm` in a child process, SystemC elaborating
// once per process) and reused for every step like it, and the answers
// serving benchmarks print.
#pragma once


namespace npuvp {

int run_serve(int argc, char* argv[]);

}  // namespace npuvp
