#pragma once
// Programmatic dependent launch (Hopper and later): a kernel launched with launch_dependent()
// may start while the kernel before it on the stream is still finishing, so that its prologue
// (zeroing shared memory) overlaps the other's tail, as frames of a stream follow each other.
// Such a kernel calls wait_for_previous_grid() before it touches global memory (the wait
// returns once the previous grid has finished and its writes are visible) and
// allow_next_grid() once a successor may start taking the SMs its blocks leave. Both are no-ops
// when the kernel was launched without the attribute, and on older architectures.

#include <cuda_runtime.h>

#include <utility>

#include "cuda_check.hpp"

namespace hs::cuda::detail {

__device__ __forceinline__ void wait_for_previous_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

__device__ __forceinline__ void allow_next_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// Launches `kernel` on `stream` allowed to overlap the end of the kernel before it; `what`
// names the launch in errors.
template <typename... Params, typename... Args>
void launch_dependent(void (*kernel)(Params...), unsigned blocks, unsigned threads,
                      std::size_t smem, cudaStream_t stream, const char* what, Args&&... args) {
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(blocks);
    config.blockDim = dim3(threads);
    config.dynamicSmemBytes = smem;
    config.stream = stream;
    cudaLaunchAttribute attribute = {};
    attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attribute.val.programmaticStreamSerializationAllowed = 1;
    config.attrs = &attribute;
    config.numAttrs = 1;
    check(cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...), what);
}

}  // namespace hs::cuda::detail
