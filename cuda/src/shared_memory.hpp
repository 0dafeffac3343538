#pragma once
// Shared memory of a kernel launch. A block's static shared memory (the kernel's __shared__
// variables, fixed by the compiler) plus the dynamic bytes its launch asks for may not exceed
// the device's opt-in limit per block, and dynamic bytes beyond the kernel's current limit
// (48 KiB less the static bytes until raised) need cudaFuncSetAttribute first. Every engine
// sizes its dynamic shared memory with dynamic_smem_limit() and raises it with
// reserve_dynamic_smem(), and its capability check asks dynamic_smem_limit() too, so an
// engine refuses exactly what it cannot launch.

#include <cstddef>

namespace hs::cuda::detail {

// The most dynamic shared memory per block `kernel` can be launched with on the current device
// whose opt-in limit per block is `optin`: `optin` less the kernel's static shared memory
// (cudaFuncGetAttributes). Throws hs::DeviceError when the kernel's attributes cannot be read.
std::size_t dynamic_smem_limit(const void* kernel, std::size_t optin);

// Makes `kernel` launchable with `bytes` of dynamic shared memory per block: throws
// hs::UnsupportedError naming `who` when `bytes` exceed dynamic_smem_limit(), and raises the
// kernel's limit when `bytes` exceed its current one. The limit is raised to
// dynamic_smem_limit() whatever `bytes` are, so that concurrent callers cannot race each other
// into a smaller one.
void reserve_dynamic_smem(const void* kernel, std::size_t bytes, std::size_t optin,
                          const char* who);

template <typename... Args>
std::size_t dynamic_smem_limit(void (*kernel)(Args...), std::size_t optin) {
    return dynamic_smem_limit(reinterpret_cast<const void*>(kernel), optin);
}
template <typename... Args>
void reserve_dynamic_smem(void (*kernel)(Args...), std::size_t bytes, std::size_t optin,
                          const char* who) {
    reserve_dynamic_smem(reinterpret_cast<const void*>(kernel), bytes, optin, who);
}

}  // namespace hs::cuda::detail
