#pragma once
// What the GPU engine tests share: finding an engine among the registered GPU engines, and the
// exact comparison of its counts with the CPU reference (every bin; the first differing bins of
// a channel are named).

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "histoscope/core/engine.hpp"
#include "histoscope/core/error.hpp"
#include "histoscope/cuda/register.hpp"

namespace hs::test {

// Why GPU tests skip here (empty when a device is present).
inline std::string no_gpu_reason() {
    return cuda::device_available() ? std::string()
                                    : "no CUDA device: " + cuda::query_devices().error;
}

// Registers the GPU engines into `registry` and returns `name`, failing the test when it is
// missing or unavailable (nullptr then).
inline HistogramEngine* gpu_engine(EngineRegistry& registry, std::string_view name) {
    if (registry.engines().empty()) cuda::register_engines(registry);
    HistogramEngine* engine = registry.find(name);
    if (engine == nullptr) {
        ADD_FAILURE() << "no engine '" << name << "' is registered";
        return nullptr;
    }
    if (const Availability a = engine->availability(); !a.available) {
        ADD_FAILURE() << name << " is not available: " << a.reason;
        return nullptr;
    }
    return engine;
}

inline std::size_t shared_optin() {
    const cuda::DeviceQuery q = cuda::query_devices();
    return q.devices.empty() ? 0 : q.devices.front().shared_per_block_optin;
}

// "WxHxC u8/8 stride S, SPEC", for SCOPED_TRACE.
inline std::string describe_request(const ImageView& v, const HistogramSpec& spec) {
    return std::to_string(v.width) + "x" + std::to_string(v.height) + "x" +
           std::to_string(v.channels) + " " + to_string(v.type) + "/" +
           std::to_string(v.bit_depth) + " stride " + std::to_string(v.stride) + ", " +
           spec.describe();
}

// Every count of `got` against `want`.
inline void expect_same_counts(const std::vector<ChannelHistogram>& got,
                               const std::vector<ChannelHistogram>& want) {
    EXPECT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < std::min(got.size(), want.size()); ++i) {
        const std::string name(channel_name(want[i].channel));
        EXPECT_EQ(got[i].channel, want[i].channel);
        if (got[i].counts.size() != want[i].counts.size()) {
            ADD_FAILURE() << name << ": " << got[i].counts.size() << " bins, expected "
                          << want[i].counts.size();
            continue;
        }
        std::size_t wrong = 0;
        for (std::size_t b = 0; b < want[i].counts.size(); ++b)
            if (got[i].counts[b] != want[i].counts[b] && ++wrong <= 3)
                ADD_FAILURE() << name << " bin " << b << ": gpu " << got[i].counts[b]
                              << ", reference " << want[i].counts[b];
        EXPECT_EQ(wrong, 0u) << name << ": bins that differ";
    }
}

// The engine must serve `request` and match the reference in every bin; the result, or nothing
// when it was refused or threw.
inline std::optional<HistogramResult> expect_exact(HistogramEngine& engine,
                                                   const HistogramRequest& request) {
    SCOPED_TRACE(std::string(engine.name()) + " " + describe_request(request.image, request.spec));
    if (const std::string why = engine.unsupported_reason(request); !why.empty()) {
        ADD_FAILURE() << "refused: " << why;
        return std::nullopt;
    }
    HistogramResult gpu;
    try {
        gpu = engine.compute(request);
    } catch (const Error& e) {
        ADD_FAILURE() << "compute threw: " << e.what();
        return std::nullopt;
    }
    expect_same_counts(gpu.channels,
                       reference_histogram(request.image, request.channels, request.spec));
    return gpu;
}

// A short benchmark of `request` (one warm-up, three timed runs): its last counts are exact.
inline void expect_benchmark_exact(HistogramEngine& engine, const HistogramRequest& request) {
    BenchOptions options;
    options.warmup_runs = 1;
    options.timed_runs = 3;
    const BenchTiming t = engine.benchmark(request, options);
    EXPECT_EQ(t.histogram_ms.size(), 3u);
    ASSERT_EQ(t.back_to_back_ms.size(), 1u);
    EXPECT_GT(t.back_to_back_ms.front(), 0.0);
    expect_same_counts(t.last, reference_histogram(request.image, request.channels, request.spec));
}

}  // namespace hs::test
