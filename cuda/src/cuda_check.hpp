#pragma once
// Turns CUDA runtime status codes into hs::DeviceError with one readable line. Every CUDA call
// of the library goes through check() (or check_alloc() for allocations, whose message names
// the bytes asked for). No macros: `what` names the operation for the message.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

#include "histoscope/core/error.hpp"

namespace hs::cuda::detail {

// "cudaErrorInvalidValue (invalid argument)".
inline std::string describe(cudaError_t status) {
    return std::string(cudaGetErrorName(status)) + " (" + cudaGetErrorString(status) + ")";
}

inline void check(cudaError_t status, const char* what) {
    if (status == cudaSuccess) return;
    // Clear a non-sticky error so that the next call does not report it again.
    static_cast<void>(cudaGetLastError());
    if (status == cudaErrorMemoryAllocation)
        throw DeviceError(std::string("GPU out of memory: ") + what);
    throw DeviceError(std::string("CUDA error in ") + what + ": " + describe(status));
}

// For allocations: out of memory says how many bytes were asked for.
inline void check_alloc(cudaError_t status, const char* what, std::size_t bytes) {
    if (status == cudaSuccess) return;
    static_cast<void>(cudaGetLastError());
    if (status == cudaErrorMemoryAllocation)
        throw DeviceError(std::string("GPU out of memory: ") + what + " (" + std::to_string(bytes) +
                          " bytes)");
    throw DeviceError(std::string("CUDA error allocating ") + what + " (" + std::to_string(bytes) +
                      " bytes): " + describe(status));
}

}  // namespace hs::cuda::detail
