#pragma once
// Synthetic benchmark inputs with known distributions (deterministic for a given seed):
//   uniform      every sample uniform over [0, 2^depth)
//   degenerate   every sample the same value (2^(depth-1)): all counts in one bin
//   gauss:SIGMA  normal around the middle of the range, standard deviation SIGMA, clamped
//   ramp         sample = (pixel index + channel) mod 2^depth

#include <cstdint>
#include <string>

#include "histoscope/core/image.hpp"

namespace hs {

struct SyntheticSpec {
    enum class Kind { Uniform, Degenerate, Gauss, Ramp } kind = Kind::Uniform;
    double sigma = 0.0;  // Gauss only
    std::uint64_t pixels = 0;
    int channels = 1;
    SampleType type = SampleType::U8;
    int bit_depth = 8;
    std::uint64_t seed = 1;

    // Parses "uniform", "degenerate", "gauss:SIGMA", "ramp" (throws UsageError).
    static Kind parse_kind(const std::string& text, double& sigma);
    std::string describe() const;
};

// An image of spec.pixels pixels: 4096 pixels wide (narrower when fewer pixels), the last row
// cut short is avoided by rounding the pixel count up to whole rows.
Image make_synthetic(const SyntheticSpec& spec);

}  // namespace hs
