#include "shared_memory.hpp"

#include <cuda_runtime_api.h>

#include <string>

#include "cuda_check.hpp"
#include "histoscope/core/error.hpp"

namespace hs::cuda::detail {

namespace {

cudaFuncAttributes attributes(const void* kernel) {
    cudaFuncAttributes attr{};
    check(cudaFuncGetAttributes(&attr, kernel), "cudaFuncGetAttributes (shared memory)");
    return attr;
}

std::size_t limit_of(const cudaFuncAttributes& attr, std::size_t optin) {
    return attr.sharedSizeBytes < optin ? optin - attr.sharedSizeBytes : 0;
}

}  // namespace

std::size_t dynamic_smem_limit(const void* kernel, std::size_t optin) {
    return limit_of(attributes(kernel), optin);
}

void reserve_dynamic_smem(const void* kernel, std::size_t bytes, std::size_t optin,
                          const char* who) {
    const cudaFuncAttributes attr = attributes(kernel);
    const std::size_t limit = limit_of(attr, optin);
    if (bytes > limit)
        throw UnsupportedError(std::string(who) + ": " + std::to_string(bytes) +
                               " bytes of dynamic shared memory per block exceed the " +
                               std::to_string(limit) + " the device allows this kernel (" +
                               std::to_string(optin) + " less " +
                               std::to_string(attr.sharedSizeBytes) + " static)");
    if (bytes > static_cast<std::size_t>(attr.maxDynamicSharedSizeBytes))
        check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   static_cast<int>(limit)),
              (std::string("cudaFuncSetAttribute(") + who + " shared memory)").c_str());
}

}  // namespace hs::cuda::detail
