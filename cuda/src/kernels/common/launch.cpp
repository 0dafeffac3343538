#include "kernels/common/launch.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>

#include "cuda_check.hpp"

namespace hs::cuda::detail {

std::string probe_kernel(const void* kernel, std::string_view what) {
    cudaFuncAttributes attr{};
    const cudaError_t e = cudaFuncGetAttributes(&attr, kernel);
    if (e == cudaSuccess) return {};
    static_cast<void>(cudaGetLastError());
    if (e == cudaErrorNoKernelImageForDevice || e == cudaErrorInvalidDeviceFunction ||
        e == cudaErrorUnsupportedPtxVersion)
        return "this build has no kernel code for the device (" + describe(e) +
               "); rebuild with its architecture in CMAKE_CUDA_ARCHITECTURES";
    return "cannot load " + std::string(what) + ": " + describe(e);
}

BlockShape most_resident(const void* kernel, std::initializer_list<int> candidates,
                         std::size_t smem, bool prefer_larger, const char* who) {
    BlockShape best;
    for (const int threads : candidates) {
        int per_sm = 0;
        check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem),
              (std::string("cudaOccupancyMaxActiveBlocksPerMultiprocessor(") + who + ")").c_str());
        if (per_sm == 0) continue;
        const int resident = per_sm * threads, held = best.blocks_per_sm * best.threads;
        if (resident > held || (prefer_larger && resident == held)) best = {threads, per_sm};
    }
    return best;
}

std::uint64_t grid_blocks(std::uint64_t items, std::uint64_t per_block, std::uint64_t resident,
                          std::uint64_t at_least) {
    const std::uint64_t useful = std::max<std::uint64_t>(1, (items + per_block - 1) / per_block);
    return std::max(std::min(resident, useful), std::min(at_least, useful));
}

}  // namespace hs::cuda::detail
