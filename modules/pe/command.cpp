#include "modules/pe/command.h"

namespace npuvp {

const char* to_string(CommandKind kind) {
    switch (kind) {
    case CommandKind::dma_read: return "dma_read";
    case CommandKind::dma_write: return "dma_write";
    case CommandKind::gemm: return "gemm";
    case CommandKind::math: return "math";
    case CommandKind::composite: return "composite";
    case CommandKind::wait: return "wait";
    case CommandKind::ipcq_send: return "ipcq_send";
    case CommandKind::ipcq_recv: return "ipcq_recv";
    case CommandKind::fetch: return "fetch";
    case CommandKind::store: return "store";
    }
    return "?";
}

const char* to_string(DmaPatternKind kind) {
    switch (kind) {
    case DmaPatternKind::contiguous: return "contiguous";
    case DmaPatternKind::strided: return "strided";
    case DmaPatternKind::broadcast: return "broadcast";
    case DmaPatternKind::gather: return "gather";
    }
    return "?";
}

const char* to_string(ExecContext context) {
    switch (context) {
    case ExecContext::main: return "main";
    case ExecContext::sub: return "sub";
    case ExecContext::dma: return "dma";
    case ExecContext::none: return "none";
    }
    return "?";
}

StageType simple_stage(CommandKind kind) {
    switch (kind) {
    case CommandKind::dma_read: return StageType::dma_read;
    case CommandKind::dma_write: return StageType::dma_write;
    case CommandKind::gemm: return StageType::gemm;
    case CommandKind::math: return StageType::math;
    case CommandKind::ipcq_send: return StageType::ipcq_send;
    case CommandKind::ipcq_recv: return StageType::ipcq_recv;
    case CommandKind::fetch: return StageType::fetch;
    case CommandKind::store:
    case CommandKind::composite:
    case CommandKind::wait: return StageType::store;
    }
    return StageType::store;
}

ExecContext default_context(CommandKind kind) {
    switch (kind) {
    case CommandKind::gemm:
    case CommandKind::math: return ExecContext::main;
    case CommandKind::fetch:
    case CommandKind::store: return ExecContext::sub;
    case CommandKind::dma_read:
    case CommandKind::dma_write:
    case CommandKind::ipcq_send: return ExecContext::dma;
    case CommandKind::composite:
    case CommandKind::wait:
    case CommandKind::ipcq_recv: return ExecContext::none;
    }
    return ExecContext::none;
}

const char* to_string(MemSpace space) {
    switch (space) {
    case MemSpace::tcm: return "tcm";
    case MemSpace::hbm: return "hbm";
    case MemSpace::sram: return "sram";
    }
    return "?";
}

}  // namespace npuvp

namespace npuvp {

const char* to_string(HostRequestKind kind) {
    switch (kind) {
    case HostRequestKind::memory_write: return "memory_write";
    case HostRequestKind::memory_read: return "memory_read";
    case HostRequestKind::mmu_map: return "mmu_map";
    case HostRequestKind::mmu_unmap: return "mmu_unmap";
    case HostRequestKind::kernel_launch: return "kernel_launch";
    }
    return "?";
}

}  // namespace npuvp
