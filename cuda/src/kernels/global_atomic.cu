// Strategy "global-atomic": see global_atomic.cuh.

#include "kernels/global_atomic.cuh"

#include <algorithm>
#include <string>

#include "cuda_check.hpp"
#include "histoscope/core/error.hpp"
#include "kernels/common/dispatch.cuh"
#include "kernels/common/launch.hpp"

namespace hs::cuda::detail {

namespace {

// Adds a thread's last run, `n` pixels in `bin` (-1: none counted), to `counts`: when every
// converged lane of the warp ends its group in the same bin (a flat area) one lane adds the sum
// of the warp's runs, so a one-colour image does not serialize a warp's 32 atomics on one
// address.
__device__ __forceinline__ void add_last_run(unsigned long long* counts, int bin, unsigned n) {
    const unsigned lanes = __activemask();
    const int leader = __ffs(lanes) - 1;
    const int first = __shfl_sync(lanes, bin, leader);
    if (__all_sync(lanes, bin == first)) {
        const unsigned total = __reduce_add_sync(lanes, n);
        if (static_cast<int>(threadIdx.x & 31u) == leader && first >= 0)
            atomicAdd(counts + first, static_cast<unsigned long long>(total));
    } else if (bin >= 0) {
        atomicAdd(counts + bin, static_cast<unsigned long long>(n));
    }
}

template <typename T, int C, BinMode M>
__global__ void __launch_bounds__(kGlobalAtomicThreads)
    global_atomic_kernel(const GlobalAtomicArgs a) {
    const std::uint64_t first = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const std::uint64_t step = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
    for_each_group<T, C>(a.samples, a.pixels, first, step, [&](const std::uint32_t* w, int valid) {
        for (int o = 0; o < a.outputs; ++o) {
            unsigned long long* const counts = a.out[o].counts;
            int run = -1;  // the bin of the run of equal bins being counted, -1 outside
            unsigned n = 0;
#pragma unroll
            for (int p = 0; p < kPixelsPerGroup<T>; ++p) {
                if (p >= valid) break;
                const int bin =
                    bin_of<M>(group_value<T, C>(w, p, a.out[o].value), a.bins, a.thresholds);
                if (bin == run) {
                    ++n;
                    continue;
                }
                if (run >= 0) atomicAdd(counts + run, static_cast<unsigned long long>(n));
                run = bin;
                n = 1;
            }
            add_last_run(counts, run, n);
        }
    });
}

// The value kind is chosen per output at run time: one kernel per layout and bin mode.
struct Family : KernelFamily<GlobalAtomicArgs, value_kind_bit(ValueKind::Plain),
                             kGlobalAtomicBinModes, kGlobalAtomicBinModes> {
    template <typename T, int C, ValueKind, BinMode M>
    static Pointer get() {
        return &global_atomic_kernel<T, C, M>;
    }
};

Family::Pointer pick(const GlobalAtomicArgs& a) {
    return pick_kernel<Family>(a.u16, a.channels, ValueKind::Plain, a.bins.mode,
                               "engine 'global-atomic'");
}

}  // namespace

std::string GlobalAtomicTuning::describe() const {
    return std::to_string(threads) + " threads x " + std::to_string(blocks) + " blocks (" +
           std::to_string(blocks_per_sm) + "/SM)";
}

GlobalAtomicTuning plan_global_atomic(const GlobalAtomicArgs& a, const DeviceLimits& limits) {
    if (a.outputs < 1 || a.outputs > kGlobalAtomicMaxOutputs)
        throw UnsupportedError("global-atomic: 1 to " + std::to_string(kGlobalAtomicMaxOutputs) +
                               " channels per pass");
    for (int o = 0; o < a.outputs; ++o) {
        const ValueKind v = a.out[o].value.kind;
        if (v != ValueKind::Plain && a.channels < 3)
            throw UnsupportedError("global-atomic: luma and joint values need 3 or 4 channels");
        if (v == ValueKind::Joint && a.u16)
            throw UnsupportedError("global-atomic: the joint colour histogram needs 8-bit samples");
    }
    GlobalAtomicTuning t;
    t.blocks_per_sm =
        most_resident(pick(a), {kGlobalAtomicThreads}, 0, false, "global-atomic").blocks_per_sm;
    const auto resident = static_cast<std::uint64_t>(std::max(1, t.blocks_per_sm)) *
                          static_cast<std::uint64_t>(std::max(1, limits.sm_count));
    t.blocks = static_cast<int>(std::min<std::uint64_t>(
        grid_blocks(group_count(a.pixels, a.u16), kGlobalAtomicThreads, resident), 0x7FFFFFFF));
    return t;
}

void launch_global_atomic(const GlobalAtomicArgs& a, const GlobalAtomicTuning& t,
                          cudaStream_t stream) {
    if (a.pixels == 0) return;
    pick(a)<<<static_cast<unsigned>(t.blocks), static_cast<unsigned>(t.threads), 0, stream>>>(a);
    check(cudaGetLastError(), "global-atomic kernel launch");
}

std::string global_atomic_probe() {
    return probe_kernel(&global_atomic_kernel<std::uint8_t, 1, BinMode::Even64>,
                        "the global-atomic kernel");
}

}  // namespace hs::cuda::detail
