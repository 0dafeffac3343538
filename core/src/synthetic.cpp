#include "histoscope/core/synthetic.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <sstream>

#include "histoscope/core/error.hpp"

namespace hs {

namespace {

// SplitMix64: fast, well distributed, and reproducible everywhere.
struct SplitMix64 {
    std::uint64_t state;
    std::uint64_t next() {
        std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    double uniform01() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
};

}  // namespace

SyntheticSpec::Kind SyntheticSpec::parse_kind(const std::string& text, double& sigma) {
    if (text == "uniform") return Kind::Uniform;
    if (text == "degenerate") return Kind::Degenerate;
    if (text == "ramp") return Kind::Ramp;
    if (text.rfind("gauss:", 0) == 0) {
        try {
            std::size_t used = 0;
            sigma = std::stod(text.substr(6), &used);
            if (used == text.size() - 6 && sigma > 0 && std::isfinite(sigma)) return Kind::Gauss;
        } catch (const std::exception&) {
        }
    }
    throw UsageError(
        "--synthetic expects uniform, degenerate, gauss:SIGMA (SIGMA > 0) or ramp, not '" + text +
        "'");
}

std::string SyntheticSpec::describe() const {
    std::ostringstream os;
    switch (kind) {
        case Kind::Uniform:
            os << "uniform";
            break;
        case Kind::Degenerate:
            os << "degenerate";
            break;
        case Kind::Gauss:
            os << "gauss:" << sigma;
            break;
        case Kind::Ramp:
            os << "ramp";
            break;
    }
    os << " " << pixels << "px x" << channels << " " << to_string(type) << "/" << bit_depth;
    return os.str();
}

Image make_synthetic(const SyntheticSpec& spec) {
    if (spec.pixels == 0) throw UsageError("--pixels must be at least 1");
    if (spec.pixels > (std::uint64_t{1} << 34)) throw UsageError("--pixels is larger than 2^34");
    if (is_float(spec.type))
        throw UsageError("synthetic inputs are made of 8-bit or 16-bit samples, not floats");
    const std::uint64_t width = std::min<std::uint64_t>(spec.pixels, 4096);
    const std::uint64_t height = (spec.pixels + width - 1) / width;
    Image img(static_cast<int>(width), static_cast<int>(height), spec.channels, spec.type,
              spec.bit_depth);
    const std::uint32_t levels = 1u << spec.bit_depth;
    const double mid = static_cast<double>(levels / 2);
    SplitMix64 rng{spec.seed};
    std::uint64_t index = 0;
    for (int y = 0; y < img.height(); ++y)
        for (int x = 0; x < img.width(); ++x, ++index)
            for (int c = 0; c < spec.channels; ++c) {
                std::uint32_t v = 0;
                switch (spec.kind) {
                    case SyntheticSpec::Kind::Uniform:
                        v = static_cast<std::uint32_t>(rng.next() >> 32) & (levels - 1);
                        break;
                    case SyntheticSpec::Kind::Degenerate:
                        v = levels / 2;
                        break;
                    case SyntheticSpec::Kind::Ramp:
                        v = static_cast<std::uint32_t>((index + static_cast<std::uint64_t>(c)) %
                                                       levels);
                        break;
                    case SyntheticSpec::Kind::Gauss: {
                        // Box-Muller.
                        const double u1 = std::max(rng.uniform01(), 1e-300), u2 = rng.uniform01();
                        const double z =
                            std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
                        v = static_cast<std::uint32_t>(std::clamp(std::round(mid + spec.sigma * z),
                                                                  0.0,
                                                                  static_cast<double>(levels - 1)));
                        break;
                    }
                }
                img.set_sample(x, y, c, v);
            }
    return img;
}

}  // namespace hs
