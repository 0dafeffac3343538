#include "histoscope/core/scope_picture.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "histoscope/core/error.hpp"

namespace hs {

namespace {

struct Rgb {
    int r, g, b;
};

constexpr Rgb kGraticule{48, 48, 48};
constexpr Rgb kTarget{110, 110, 110};

Rgb plane_colour(const std::string& name) {
    if (name == "r") return {255, 72, 72};
    if (name == "g") return {72, 255, 72};
    if (name == "b") return {96, 140, 255};
    return {255, 255, 255};
}

// Brightness 0..1 of `count` on a scope whose largest count is `top`.
class LogScale {
  public:
    explicit LogScale(std::uint64_t top) : scale_(top > 0 ? 1.0 / std::log1p(top) : 0.0) {}
    double operator()(std::uint64_t count) const {
        return count == 0 ? 0.0 : std::log1p(static_cast<double>(count)) * scale_;
    }

  private:
    double scale_;
};

void put(Image& img, int x, int y, Rgb c) {
    std::uint8_t* px = img.row_as<std::uint8_t>(y) + 3 * static_cast<std::size_t>(x);
    px[0] = static_cast<std::uint8_t>(std::clamp(c.r, 0, 255));
    px[1] = static_cast<std::uint8_t>(std::clamp(c.g, 0, 255));
    px[2] = static_cast<std::uint8_t>(std::clamp(c.b, 0, 255));
}

// A bin's colour at brightness `v` over the background `under`.
Rgb lit(Rgb colour, double v, Rgb under) {
    const auto mix = [v](int c, int u) { return static_cast<int>(std::lround(u + (c - u) * v)); };
    return {mix(colour.r, under.r), mix(colour.g, under.g), mix(colour.b, under.b)};
}

std::uint64_t largest(const std::vector<ScopePlane>& planes) {
    std::uint64_t top = 0;
    for (const auto& p : planes)
        for (auto c : p.counts) top = std::max(top, c);
    return top;
}

Image waveform_picture(const std::vector<ScopePlane>& planes) {
    const int w = planes.front().width, h = planes.front().height;
    const int n = static_cast<int>(planes.size());
    Image img(n * w + (n - 1) * kScopeGap, h, 3, SampleType::U8);
    const LogScale scale(largest(planes));
    // Graticule rows at 0, 25, 50, 75 and 100 % (row 0 is the top level).
    std::vector<bool> grid(static_cast<std::size_t>(h), false);
    for (int q = 0; q <= 4; ++q)
        grid[static_cast<std::size_t>(h - 1 - std::min(h - 1, q * h / 4))] = true;
    for (int i = 0; i < n; ++i) {
        const ScopePlane& p = planes[static_cast<std::size_t>(i)];
        const Rgb colour = plane_colour(p.name);
        const int x0 = i * (w + kScopeGap);
        for (int x = 0; x < w; ++x)
            for (int level = 0; level < h; ++level) {
                const int row = h - 1 - level;
                const Rgb under = grid[static_cast<std::size_t>(row)] ? kGraticule : Rgb{0, 0, 0};
                put(img, x0 + x, row, lit(colour, scale(p.at(x, level)), under));
            }
    }
    return img;
}

Image vectorscope_picture(const ScopePlane& p, ChromaMatrix matrix) {
    const int s = p.width;
    Image img(s, s, 3, SampleType::U8);
    const LogScale scale(p.counts.empty() ? 0
                                          : *std::max_element(p.counts.begin(), p.counts.end()));
    const double centre = (s - 1) / 2.0;
    // The background: axes and the circle of the largest chroma.
    const auto under = [&](int x, int y) {
        const double dx = x - centre, dy = y - centre;
        const double r = std::sqrt(dx * dx + dy * dy);
        const bool axis = x == s / 2 || y == s / 2;
        const bool circle = std::fabs(r - s / 2.0) < 0.75;
        return axis || circle ? kGraticule : Rgb{0, 0, 0};
    };
    const ChromaWeights w = chroma_weights(matrix);
    for (int x = 0; x < s; ++x)
        for (int y = 0; y < s; ++y) {
            // The colour of the bin's centre chroma at mid luma (8-bit, inverse of chroma()).
            const double cb = (x + 0.5) * 256.0 / s - 128.0, cr = (y + 0.5) * 256.0 / s - 128.0;
            const double kr = w.r2y / 16384.0, kb = w.b2y / 16384.0, kg = 1.0 - kr - kb;
            const double r = 128.0 + cr * 16384.0 / w.cr;
            const double b = 128.0 + cb * 16384.0 / w.cb;
            const double g = (128.0 - kr * r - kb * b) / kg;
            const Rgb colour{static_cast<int>(std::lround(std::clamp(r, 40.0, 255.0))),
                             static_cast<int>(std::lround(std::clamp(g, 40.0, 255.0))),
                             static_cast<int>(std::lround(std::clamp(b, 40.0, 255.0)))};
            put(img, x, s - 1 - y, lit(colour, scale(p.at(x, y)), under(x, s - 1 - y)));
        }
    // Targets of the 75 % colour bars: a small square outline around each.
    constexpr std::array<std::array<std::uint32_t, 3>, 6> kBars{
        {{191, 0, 0}, {191, 191, 0}, {0, 191, 0}, {0, 191, 191}, {0, 0, 191}, {191, 0, 191}}};
    const int half = std::max(1, s / 64);
    for (const auto& bar : kBars) {
        const Chroma c = chroma(w, bar[0], bar[1], bar[2], 8);
        const int tx = static_cast<int>(scope_bin(c.cb, static_cast<std::uint32_t>(s), 8));
        const int ty = s - 1 - static_cast<int>(scope_bin(c.cr, static_cast<std::uint32_t>(s), 8));
        for (int d = -half; d <= half; ++d)
            for (const auto& [x, y] : {std::pair{tx + d, ty - half}, std::pair{tx + d, ty + half},
                                       std::pair{tx - half, ty + d}, std::pair{tx + half, ty + d}})
                if (x >= 0 && y >= 0 && x < s && y < s && img.view().sample(x, y, 0) < kTarget.r)
                    put(img, x, y, kTarget);
    }
    return img;
}

}  // namespace

Image scope_picture(const std::vector<ScopePlane>& planes, const ScopeSpec& spec) {
    if (planes.empty()) throw UsageError("a scope picture needs at least one plane");
    if (spec.kind == ScopeKind::Vectorscope)
        return vectorscope_picture(planes.front(), spec.matrix);
    return waveform_picture(planes);
}

}  // namespace hs
