#pragma once
// Float TIFFs written by libtiff itself, for what tifffile cannot write without imagecodecs: LZW,
// the floating-point predictor, 16-bit (half) floats. Returns the samples a reader must give
// (a half widened exactly), pixel by pixel, in the file's channel order.

#include <half.h>
#include <tiffio.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace hs::test {

struct FloatTiffSpec {
    int width = 16, height = 8, channels = 3;
    int bits = 32;  // 32 or 16 (half)
    std::uint16_t compression = COMPRESSION_LZW;
    std::uint16_t predictor = 1;  // 1 none, 3 floating point
    std::uint32_t rows_per_strip = 5;
};

inline std::vector<float> write_float_tiff(const std::string& path, const FloatTiffSpec& spec,
                                           const std::function<float(int, int, int)>& value) {
    TIFF* tif = TIFFOpen(path.c_str(), "w");
    if (tif == nullptr) throw std::runtime_error("cannot write " + path);
    const auto c = static_cast<std::uint16_t>(spec.channels);
    TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, static_cast<std::uint32_t>(spec.width));
    TIFFSetField(tif, TIFFTAG_IMAGELENGTH, static_cast<std::uint32_t>(spec.height));
    TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, c);
    TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, static_cast<std::uint16_t>(spec.bits));
    TIFFSetField(tif, TIFFTAG_SAMPLEFORMAT, static_cast<std::uint16_t>(SAMPLEFORMAT_IEEEFP));
    TIFFSetField(tif, TIFFTAG_PLANARCONFIG, static_cast<std::uint16_t>(PLANARCONFIG_CONTIG));
    TIFFSetField(tif, TIFFTAG_PHOTOMETRIC,
                 static_cast<std::uint16_t>(c >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK));
    if (c == 2 || c == 4) {
        const std::uint16_t extra[] = {EXTRASAMPLE_UNASSALPHA};
        TIFFSetField(tif, TIFFTAG_EXTRASAMPLES, static_cast<std::uint16_t>(1), extra);
    }
    TIFFSetField(tif, TIFFTAG_COMPRESSION, spec.compression);
    if (spec.predictor != 1) TIFFSetField(tif, TIFFTAG_PREDICTOR, spec.predictor);
    TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, spec.rows_per_strip);
    std::vector<float> expected;
    const std::size_t n = static_cast<std::size_t>(spec.width) * c;
    std::vector<std::uint8_t> row(n * static_cast<std::size_t>(spec.bits / 8));
    for (int y = 0; y < spec.height; ++y) {
        for (int x = 0; x < spec.width; ++x)
            for (int k = 0; k < c; ++k) {
                const std::size_t i = static_cast<std::size_t>(x) * c + static_cast<std::size_t>(k);
                float v = value(x, y, k);
                if (spec.bits == 16) {
                    const half h(v);
                    const std::uint16_t bits = h.bits();
                    std::memcpy(row.data() + 2 * i, &bits, 2);
                    v = static_cast<float>(h);
                } else {
                    std::memcpy(row.data() + 4 * i, &v, 4);
                }
                expected.push_back(v);
            }
        if (TIFFWriteScanline(tif, row.data(), static_cast<std::uint32_t>(y), 0) < 0) {
            TIFFClose(tif);
            throw std::runtime_error("cannot write a row of " + path);
        }
    }
    TIFFClose(tif);
    return expected;
}

}  // namespace hs::test
