// Data mode's part of a workload (docs/workload.md "Operand data"): the
// regions it fills before the run (`data`) and writes to files after it
// (`dump`). Filled and checked by config/workload_loader.cpp; plain C++.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "modules/common/config.h"

namespace npuvp {

enum class DataSpace : std::uint8_t { hbm, sram, tcm };
const char* to_string(DataSpace space);

// [addr, + bytes) in one space: a physical address in HBM or the shared
// SRAM (it may span HBM slices), or an offset in one PE's TCM.
struct DataRegion {
    DataSpace space = DataSpace::hbm;
    std::uint64_t addr = 0;
    std::uint64_t bytes = 0;
    int sip = 0, cube = 0, pe = 0;  // tcm: whose
    SourceLoc loc;                  // the entry
};

// A `data` entry: its bytes, read from a file or generated when the workload
// is loaded.
struct DataInit {
    DataRegion at;
    std::vector<std::uint8_t> bytes;
};

// A `dump` entry: the region's bytes after the run go to `file` (as
// written in the workload until resolve_dump_paths() places it).
struct DataDump {
    DataRegion at;
    std::string file;
    SourceLoc file_loc;  // its `file` key
};

// The element-wise ops data mode computes, with the RTL vector unit's
// meaning (rtl/npuvp_math_unit.sv): sat32 clamps to [-2^31, 2^31 - 1].
enum class DataMathOp : std::uint8_t { add, mul, relu, pass };
// add and bias_add -> add, mul, relu, cast -> pass; false for any other op.
bool data_math_op(const std::string& op, DataMathOp& out);
const char* data_math_ops_text();  // "add, bias_add, mul, relu, cast"
std::int32_t data_math_apply(DataMathOp op, std::int32_t x, std::int32_t y);
// One int8 GEMM step as the RTL array does it: acc + a·b clamped to int32.
std::int32_t data_mac(std::int32_t acc, std::int8_t a, std::int8_t b);

}  // namespace npuvp
