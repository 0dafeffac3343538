// CLAHE as OpenCV 4.6 computes it (see 4 in equalize.hpp): tile histograms over the image
// padded with BORDER_REFLECT_101, clipping with redistribution, one LUT per tile, and bilinear
// interpolation between the four nearest tile LUTs in single-precision floats. Tile LUTs are
// computed one tile row at a time and at most two rows are kept, so 16-bit images with 64x64
// tiles do not need 64 * 64 * 65536 LUT entries at once.

#include <algorithm>
#include <array>
#include <cmath>

#include "histoscope/core/equalize.hpp"
#include "histoscope/core/error.hpp"

namespace hs {

namespace {

// Source coordinate of every padded coordinate 0..n+pad-1.
std::vector<int> padded_map(int n, int pad) {
    std::vector<int> map(static_cast<std::size_t>(n + pad));
    for (std::size_t p = 0; p < map.size(); ++p) map[p] = reflect101(static_cast<int>(p), n);
    return map;
}

// The LUTs of one row of tiles, computed on demand; two rows are kept.
class TileLutRows {
  public:
    TileLutRows(const Plane& in, const ClaheGrid& grid, int bit_depth)
        : in_(in),
          grid_(grid),
          levels_(std::size_t{1} << bit_depth),
          xmap_(padded_map(in.width, grid.pad_right)),
          ymap_(padded_map(in.height, grid.pad_bottom)),
          hist_(levels_) {}

    // Makes rows r1 and r2 resident and returns them.
    std::array<const std::vector<Lut>*, 2> rows(int r1, int r2) {
        const std::vector<Lut>& a = row(r1, r2);
        const std::vector<Lut>& b = row(r2, r1);
        return {&a, &b};
    }

  private:
    struct Slot {
        int index = -1;
        std::vector<Lut> luts;
    };

    // Row r, evicting a slot that does not hold `keep`.
    const std::vector<Lut>& row(int r, int keep) {
        for (const Slot& s : slots_)
            if (s.index == r) return s.luts;
        Slot& victim = slots_[0].index == keep ? slots_[1] : slots_[0];
        victim.index = r;
        victim.luts.resize(static_cast<std::size_t>(grid_.tiles_x));
        for (int tx = 0; tx < grid_.tiles_x; ++tx) {
            tile_histogram(tx, r);
            victim.luts[static_cast<std::size_t>(tx)] =
                clahe_tile_lut(hist_, grid_.clip_limit, grid_.lut_scale);
        }
        return victim.luts;
    }

    void tile_histogram(int tx, int ty) {
        std::fill(hist_.begin(), hist_.end(), 0);
        const auto width = static_cast<std::size_t>(in_.width);
        for (int yy = ty * grid_.tile_height; yy < (ty + 1) * grid_.tile_height; ++yy) {
            const std::uint16_t* src =
                &in_.samples[static_cast<std::size_t>(ymap_[static_cast<std::size_t>(yy)]) * width];
            for (int xx = tx * grid_.tile_width; xx < (tx + 1) * grid_.tile_width; ++xx)
                ++hist_[src[xmap_[static_cast<std::size_t>(xx)]]];
        }
    }

    const Plane& in_;
    ClaheGrid grid_;
    std::size_t levels_;
    std::vector<int> xmap_, ymap_;
    std::vector<std::int64_t> hist_;
    std::array<Slot, 2> slots_;
};

}  // namespace

ClaheAxis clahe_axis(int n, int tile_size, int tiles) {
    ClaheAxis a;
    const auto size = static_cast<std::size_t>(n);
    a.tile1.resize(size);
    a.tile2.resize(size);
    a.weight2.resize(size);
    a.weight1.resize(size);
    const float inv = 1.0f / static_cast<float>(tile_size);
    for (std::size_t p = 0; p < size; ++p) {
        const float f = static_cast<float>(p) * inv - 0.5f;
        const int t1 = static_cast<int>(std::floor(f));
        a.weight2[p] = f - static_cast<float>(t1);
        a.weight1[p] = 1.0f - a.weight2[p];
        a.tile1[p] = std::max(t1, 0);
        a.tile2[p] = std::min(t1 + 1, tiles - 1);
    }
    return a;
}

int reflect101(int p, int n) {
    if (n == 1) return 0;
    while (p < 0 || p >= n) p = p < 0 ? -p : 2 * n - 2 - p;
    return p;
}

ClaheGrid clahe_grid(int width, int height, int bit_depth, double clip, int tiles_x, int tiles_y) {
    ClaheGrid g;
    g.tiles_x = tiles_x;
    g.tiles_y = tiles_y;
    if (width % tiles_x != 0 || height % tiles_y != 0) {
        g.pad_right = tiles_x - width % tiles_x;
        g.pad_bottom = tiles_y - height % tiles_y;
    }
    g.tile_width = (width + g.pad_right) / tiles_x;
    g.tile_height = (height + g.pad_bottom) / tiles_y;
    const std::int64_t area = std::int64_t{g.tile_width} * g.tile_height;
    const std::int64_t levels = std::int64_t{1} << bit_depth;
    g.lut_scale = static_cast<float>(levels - 1) / static_cast<float>(area);
    const double c = clip * static_cast<double>(area) / static_cast<double>(levels);
    g.clip_limit = c >= static_cast<double>(area)
                       ? area
                       : std::max(static_cast<std::int64_t>(c), std::int64_t{1});
    return g;
}

Lut clahe_tile_lut(std::vector<std::int64_t>& h, std::int64_t clip_limit, float lut_scale) {
    const auto levels = static_cast<std::int64_t>(h.size());
    std::int64_t clipped = 0;
    for (std::int64_t& c : h) {
        if (c > clip_limit) {
            clipped += c - clip_limit;
            c = clip_limit;
        }
    }
    const std::int64_t batch = clipped / levels;
    std::int64_t residual = clipped - batch * levels;
    for (std::int64_t& c : h) c += batch;
    if (residual != 0) {
        const std::int64_t step = std::max<std::int64_t>(levels / residual, 1);
        for (std::int64_t i = 0; i < levels && residual > 0; i += step, --residual)
            ++h[static_cast<std::size_t>(i)];
    }

    const auto max = static_cast<std::uint32_t>(levels - 1);
    Lut lut(h.size());
    std::int64_t sum = 0;
    for (std::size_t v = 0; v < h.size(); ++v) {
        sum += h[v];
        lut[v] = round_even_clamp(static_cast<float>(sum) * lut_scale, max);
    }
    return lut;
}

Plane clahe_plane(const Plane& in, int bit_depth, double clip, int tiles_x, int tiles_y) {
    const ClaheGrid grid = clahe_grid(in.width, in.height, bit_depth, clip, tiles_x, tiles_y);
    const ClaheAxis ax = clahe_axis(in.width, grid.tile_width, tiles_x);
    const ClaheAxis ay = clahe_axis(in.height, grid.tile_height, tiles_y);
    const auto max = static_cast<std::uint32_t>((1u << bit_depth) - 1u);
    if (!in.samples.empty() && *std::max_element(in.samples.begin(), in.samples.end()) > max)
        throw UsageError("a CLAHE plane has samples above its " + std::to_string(bit_depth) +
                         "-bit depth");
    TileLutRows luts(in, grid, bit_depth);
    Plane out(in.width, in.height);
    const auto width = static_cast<std::size_t>(in.width);
    for (std::size_t y = 0; y < static_cast<std::size_t>(in.height); ++y) {
        const auto rows = luts.rows(ay.tile1[y], ay.tile2[y]);
        const std::vector<Lut>& top = *rows[0];
        const std::vector<Lut>& bottom = *rows[1];
        const float ya = ay.weight2[y], ya1 = ay.weight1[y];
        for (std::size_t x = 0; x < width; ++x) {
            const std::size_t i = y * width + x;
            const std::uint16_t v = in.samples[i];
            const auto t1 = static_cast<std::size_t>(ax.tile1[x]);
            const auto t2 = static_cast<std::size_t>(ax.tile2[x]);
            const float xa = ax.weight2[x], xa1 = ax.weight1[x];
            const float r =
                (static_cast<float>(top[t1][v]) * xa1 + static_cast<float>(top[t2][v]) * xa) * ya1 +
                (static_cast<float>(bottom[t1][v]) * xa1 + static_cast<float>(bottom[t2][v]) * xa) *
                    ya;
            out.samples[i] = round_even_clamp(r, max);
        }
    }
    return out;
}

}  // namespace hs
