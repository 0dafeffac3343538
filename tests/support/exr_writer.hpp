#pragma once
// OpenEXR files written by OpenEXR's own library for the tests: any channels of half or float
// samples, any data window (offsets included) and display window, scan lines or tiles, any
// compression. Returns what a reader must give: the samples as floats (a half widened exactly).

#include <ImfChannelList.h>
#include <ImfFrameBuffer.h>
#include <ImfHeader.h>
#include <ImfOutputFile.h>
#include <ImfTiledOutputFile.h>
#include <half.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace hs::test {

struct ExrSpec {
    int width = 16, height = 8;
    int x0 = 0, y0 = 0;  // the data window's origin
    // The display window; empty: the data window.
    int display_x0 = 0, display_y0 = 0, display_width = 0, display_height = 0;
    std::vector<std::string> channels{"R", "G", "B"};
    Imf::PixelType type = Imf::HALF;
    Imf::Compression compression = Imf::ZIP_COMPRESSION;
    bool tiled = false;
};

// Writes `path`; `value(x, y, c)` gives channel c (of spec.channels) at data-window position
// (x, y) counted from the window's origin. Returns the samples as read back exactly, row by
// row, pixel by pixel, channel by channel in spec.channels' order.
inline std::vector<float> write_exr(const std::string& path, const ExrSpec& spec,
                                    const std::function<float(int, int, int)>& value) {
    const Imath::Box2i data(Imath::V2i(spec.x0, spec.y0),
                            Imath::V2i(spec.x0 + spec.width - 1, spec.y0 + spec.height - 1));
    const Imath::Box2i display =
        spec.display_width > 0 ? Imath::Box2i(Imath::V2i(spec.display_x0, spec.display_y0),
                                              Imath::V2i(spec.display_x0 + spec.display_width - 1,
                                                         spec.display_y0 + spec.display_height - 1))
                               : data;
    Imf::Header header(display, data, 1.0f, Imath::V2f(0, 0), 1.0f, Imf::INCREASING_Y,
                       spec.compression);
    const auto n = static_cast<std::size_t>(spec.width) * static_cast<std::size_t>(spec.height);
    const std::size_t c = spec.channels.size();
    std::vector<float> expected(n * c);
    std::vector<half> halves(n * c);
    for (int y = 0; y < spec.height; ++y)
        for (int x = 0; x < spec.width; ++x)
            for (std::size_t k = 0; k < c; ++k) {
                const std::size_t i =
                    (static_cast<std::size_t>(y) * static_cast<std::size_t>(spec.width) +
                     static_cast<std::size_t>(x)) *
                        c +
                    k;
                const float v = value(x, y, static_cast<int>(k));
                halves[i] = half(v);
                expected[i] = spec.type == Imf::HALF ? static_cast<float>(halves[i]) : v;
            }
    Imf::FrameBuffer buffer;
    for (std::size_t k = 0; k < c; ++k) {
        header.channels().insert(spec.channels[k], Imf::Channel(spec.type));
        const void* base = spec.type == Imf::HALF ? static_cast<const void*>(halves.data() + k)
                                                  : static_cast<const void*>(expected.data() + k);
        const std::size_t size = spec.type == Imf::HALF ? sizeof(half) : sizeof(float);
        buffer.insert(spec.channels[k],
                      Imf::Slice::Make(spec.type, base, data, c * size,
                                       c * size * static_cast<std::size_t>(spec.width)));
    }
    if (spec.tiled) {
        header.setTileDescription(Imf::TileDescription(8, 8, Imf::ONE_LEVEL));
        Imf::TiledOutputFile out(path.c_str(), header);
        out.setFrameBuffer(buffer);
        out.writeTiles(0, out.numXTiles() - 1, 0, out.numYTiles() - 1);
    } else {
        Imf::OutputFile out(path.c_str(), header);
        out.setFrameBuffer(buffer);
        out.writePixels(spec.height);
    }
    return expected;
}

}  // namespace hs::test
