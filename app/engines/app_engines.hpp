#pragma once
// The engines the applications run, for histoscope-cli and the desktop application alike: the
// registry with the CPU reference, OpenCV and, when built with CUDA, every GPU engine (each
// reports itself unavailable on a machine without a GPU), and what the applications say about
// the GPU. The one place of the applications that reaches hs::cuda.

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "histoscope/core/bench.hpp"
#include "histoscope/core/engine.hpp"

namespace hs::app {

struct GpuInfo {
    std::string device;   // "NAME (sm_XY), driver CUDA a.b, runtime c.d"; empty without one
    std::string absence;  // why no GPU engine can run here ("no NVIDIA driver"); empty when one can
    std::size_t l2_bytes = 0;  // the device's L2 cache (0 without one): sizes benchmark rotation
};

struct Engines {
    std::unique_ptr<EngineRegistry> registry;
    // Registry names of the histogram engines that run on the GPU.
    std::vector<std::string> gpu_engines;
    // Registry names of the scope engines that run on the GPU.
    std::vector<std::string> gpu_scope_engines;
    // Asks the driver (the first call initializes CUDA, so it is not done before it is needed).
    std::function<GpuInfo()> query_gpu;
    // The GPU's read bandwidth in GB/s (median of 20 passes over 1 GiB); throws hs::DeviceError
    // without a GPU. Empty in a build without CUDA.
    std::function<double()> gpu_read_bandwidth_gbs;
    // The floor of a benchmark case on the GPU (a read-only kernel over the same bytes); empty
    // in a build without CUDA.
    FloorTimer gpu_floor;
};

Engines make_engines();

}  // namespace hs::app
