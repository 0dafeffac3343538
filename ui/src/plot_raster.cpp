#include "plot_raster.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>

namespace hs::ui {

namespace {

QRgb add_saturating(QRgb a, QRgb b) {
    return qRgb(std::min(255, qRed(a) + qRed(b)), std::min(255, qGreen(a) + qGreen(b)),
                std::min(255, qBlue(a) + qBlue(b)));
}

struct Event {
    int x;
    std::uint16_t bit;
};

}  // namespace

void paint_plot(QImage& image, const PlotRaster& plot) {
    const std::vector<PlotFill>& fills = plot.fills;
    if (image.format() != QImage::Format_RGB32)
        throw std::invalid_argument("paint_plot needs a Format_RGB32 image");
    if (fills.size() > 5) throw std::invalid_argument("paint_plot draws at most 5 fills");
    const int width = image.width(), height = image.height();
    const int plot_top = std::clamp(plot.top, 0, height);
    const int plot_bottom = std::clamp(plot.bottom, plot_top, height);
    const QRgb bg = plot.background | 0xff000000u;
    for (int y = 0; y < height; ++y)
        if (y < plot_top || y >= plot_bottom) {
            auto* row = reinterpret_cast<QRgb*>(image.scanLine(y));
            std::fill(row, row + width, bg);
        }
    const int rows = plot_bottom - plot_top;
    if (rows == 0 || width == 0) return;
    std::vector<std::pair<int, int>> lanes;
    for (auto [left, right] : plot.lanes) {
        left = std::clamp(left, 0, width);
        right = std::clamp(right, left, width);
        if (right > left) lanes.emplace_back(left, right);
    }

    // The colour of every combination of fills and outlines covering a pixel: bit 2i is fill
    // i, bit 2i + 1 its outline.
    std::vector<QRgb> palette(std::size_t{1} << (2 * fills.size()));
    for (std::size_t mask = 0; mask < palette.size(); ++mask) {
        QRgb c = bg;
        for (std::size_t i = 0; i < fills.size(); ++i) {
            if (mask & (std::size_t{1} << (2 * i))) c = add_saturating(c, fills[i].fill);
            if (mask & (std::size_t{1} << (2 * i + 1))) c = add_saturating(c, fills[i].edge);
        }
        palette[mask] = c;
    }

    // Where each bit toggles, bucketed by row (a counting sort: the first pass counts, the
    // second places).
    std::vector<int> offsets(static_cast<std::size_t>(rows) + 2, 0);
    std::vector<Event> events;
    auto clamp_row = [&](int y) { return std::clamp(y, plot_top, plot_bottom); };
    for (int pass = 0; pass < 2; ++pass) {
        std::vector<int> next;
        if (pass == 1) {
            for (std::size_t r = 1; r < offsets.size(); ++r) offsets[r] += offsets[r - 1];
            events.resize(static_cast<std::size_t>(offsets.back()));
            next.assign(offsets.begin(), offsets.end() - 1);
        }
        auto add = [&](int y, int x, std::uint16_t bit) {
            if (y >= plot_bottom) return;
            const auto r = static_cast<std::size_t>(y - plot_top);
            if (pass == 0)
                ++offsets[r + 1];
            else
                events[static_cast<std::size_t>(next[r]++)] = {x, bit};
        };
        for (std::size_t i = 0; i < fills.size(); ++i) {
            const PlotFill& f = fills[i];
            const auto n = static_cast<int>(f.top.size());
            for (int c = 0; c < n; ++c) {
                const int x = f.left + c;
                if (x < 0 || x >= width) continue;
                const int top = clamp_row(f.top[static_cast<std::size_t>(c)]);
                if (top >= plot_bottom) continue;
                if (f.fill != 0) add(top, x, static_cast<std::uint16_t>(1u << (2 * i)));
                if (f.edge == 0) continue;
                int end = top + std::max(1, f.edge_rows);
                if (c > 0) end = std::max(end, clamp_row(f.top[static_cast<std::size_t>(c - 1)]));
                if (c + 1 < n)
                    end = std::max(end, clamp_row(f.top[static_cast<std::size_t>(c + 1)]));
                const auto bit = static_cast<std::uint16_t>(1u << (2 * i + 1));
                add(top, x, bit);
                add(std::min(end, plot_bottom), x, bit);
            }
        }
    }

    std::vector<std::uint16_t> mask(static_cast<std::size_t>(width), 0);
    std::vector<QRgb> state(static_cast<std::size_t>(width), bg);
    for (int r = 0; r < rows; ++r) {
        for (int e = offsets[static_cast<std::size_t>(r)];
             e < offsets[static_cast<std::size_t>(r) + 1]; ++e) {
            const Event& ev = events[static_cast<std::size_t>(e)];
            const auto x = static_cast<std::size_t>(ev.x);
            mask[x] = static_cast<std::uint16_t>(mask[x] ^ ev.bit);
            state[x] = palette[mask[x]];
        }
        auto* row = reinterpret_cast<QRgb*>(image.scanLine(plot_top + r));
        std::memcpy(row, state.data(), static_cast<std::size_t>(width) * sizeof(QRgb));
        if (std::find(plot.grid_rows.begin(), plot.grid_rows.end(), plot_top + r) !=
            plot.grid_rows.end())
            for (const auto& [left, right] : lanes)
                for (int x = left; x < right; ++x) row[x] = add_saturating(row[x], plot.grid);
    }
    // Borders: the rows just outside the plot and the columns just outside each lane.
    const QRgb frame = plot.frame | 0xff000000u;
    for (const auto& [left, right] : lanes) {
        for (const int y : {plot_top - 1, plot_bottom})
            if (y >= 0 && y < height) {
                auto* row = reinterpret_cast<QRgb*>(image.scanLine(y));
                std::fill(row + std::max(left - 1, 0), row + std::min(right + 1, width), frame);
            }
        for (int y = std::max(plot_top - 1, 0); y <= std::min(plot_bottom, height - 1); ++y) {
            auto* row = reinterpret_cast<QRgb*>(image.scanLine(y));
            if (left > 0) row[left - 1] = frame;
            if (right < width) row[right] = frame;
        }
    }
}

}  // namespace hs::ui
