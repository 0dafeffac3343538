// Float images (SampleType::F32): OpenEXR through OpenEXR's own library, float TIFF through
// libtiff directly (OpenCV would print libtiff's complaints and swap the channels through its
// BGR order), PFM read here. Every sample keeps its exact value (half floats widen exactly);
// NaN and infinities are kept as they are and counted in a note (the histograms count them
// apart as non-finite). The caller (image_io.cpp) has checked the header's size against the
// limit and the structure for truncation; what the libraries still report is an InputError.

#include <ImfChannelList.h>
#include <ImfFrameBuffer.h>
#include <ImfHeader.h>
#include <ImfIO.h>
#include <ImfInputFile.h>
#include <ImfVersion.h>
#include <tiffio.h>
#include <zlib.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <exception>
#include <limits>
#include <map>

#include "codecs.hpp"
#include "histoscope/core/error.hpp"

namespace hs::media::detail {

namespace {

// The note about non-finite samples, when there are any (media.hpp's non_finite_note()).
void note_non_finite(const Image& image, std::vector<std::string>& notes) {
    if (std::string note = non_finite_note(image.view()); !note.empty())
        notes.push_back(std::move(note));
}

// --- PFM

DecodedImage pfm(Bytes file, const PfmHeader& h) {
    DecodedImage out;
    const auto w = static_cast<int>(h.width), height = static_cast<int>(h.height);
    out.image = Image(w, height, h.channels, SampleType::F32, 32);
    const std::size_t row_bytes =
        static_cast<std::size_t>(w) * static_cast<std::size_t>(h.channels) * 4;
    const bool swap = h.little_endian != (std::endian::native == std::endian::little);
    for (int y = 0; y < height; ++y) {
        // Rows are stored from the bottom up.
        const std::uint8_t* src =
            file.data() + h.raster + static_cast<std::size_t>(height - 1 - y) * row_bytes;
        std::byte* dst = out.image.row(y);
        std::memcpy(dst, src, row_bytes);
        if (swap)
            for (std::size_t i = 0; i < row_bytes; i += 4) {
                std::uint32_t v;
                std::memcpy(&v, dst + i, 4);
                v = __builtin_bswap32(v);
                std::memcpy(dst + i, &v, 4);
            }
    }
    if (std::fabs(h.scale) != 1.0) {
        char scale[32];
        std::snprintf(scale, sizeof scale, "%g", std::fabs(h.scale));
        out.notes.push_back(std::string("PFM scale ") + scale +
                            " is recorded in the header; the samples are read as stored");
    }
    return out;
}

// --- OpenEXR

// The file's bytes as OpenEXR's input stream.
class MemoryStream final : public Imf::IStream {
  public:
    MemoryStream(Bytes bytes, const std::string& name)
        : Imf::IStream(name.c_str()), bytes_(bytes) {}
    bool read(char c[], int n) override {
        if (n < 0 || position_ > bytes_.size() ||
            static_cast<std::uint64_t>(n) > bytes_.size() - position_)
            throw std::runtime_error("the file ends early");
        std::memcpy(c, bytes_.data() + position_, static_cast<std::size_t>(n));
        position_ += static_cast<std::uint64_t>(n);
        return position_ < bytes_.size();
    }
    std::uint64_t tellg() override { return position_; }
    void seekg(std::uint64_t position) override { position_ = position; }
    void clear() override {}

  private:
    Bytes bytes_;
    std::uint64_t position_ = 0;
};

std::string channel_names(const std::vector<std::string>& names) {
    std::string s;
    for (std::size_t i = 0; i < names.size() && i < 8; ++i) s += (i ? ", " : "") + names[i];
    if (names.size() > 8) s += ", ... (" + std::to_string(names.size()) + " in all)";
    return s;
}

DecodedImage exr(Bytes file, const std::string& name, const ExrHeader& header) {
    if (header.deep)
        throw InputError(name + ": OpenEXR deep images (several samples per pixel) are not read");
    DecodedImage out;
    if (header.multipart && header.parts > 1)
        out.notes.push_back("multi-part OpenEXR: using part 1 of " + std::to_string(header.parts));
    MemoryStream stream(file, name);
    Imf::InputFile input(stream);
    const Imf::Header& h = input.header();
    const Imath::Box2i window = h.dataWindow();
    std::map<std::string, Imf::Channel> all;
    std::vector<std::string> names;
    for (auto it = h.channels().begin(); it != h.channels().end(); ++it) {
        all.emplace(it.name(), it.channel());
        names.emplace_back(it.name());
    }
    const auto has = [&](const char* c) { return all.count(c) != 0; };
    // What is read, into which of the image's channels.
    std::vector<std::string> read;
    if (has("R") && has("G") && has("B")) {
        read = {"R", "G", "B"};
        if (has("A")) read.emplace_back("A");
    } else if (has("Y")) {
        if (has("RY") || has("BY"))
            throw InputError(name +
                             ": OpenEXR luminance/chroma images (channels Y, RY, BY) are not "
                             "read; only R, G, B (A) and Y (A) images are");
        read = {"Y"};
        if (has("A")) read.emplace_back("A");
    } else if (names.size() == 1) {
        read = names;
        out.notes.push_back("OpenEXR channel '" + names.front() + "' is read as gray");
    } else {
        throw InputError(name + ": OpenEXR image has neither R, G, B nor Y channels (it has " +
                         channel_names(names) + ")");
    }
    for (const std::string& c : read) {
        const Imf::Channel& ch = all.at(c);
        if (ch.type != Imf::HALF && ch.type != Imf::FLOAT)
            throw InputError(name + ": OpenEXR channel '" + c +
                             "' holds 32-bit unsigned integers; only half and float channels "
                             "are read");
        if (ch.xSampling != 1 || ch.ySampling != 1)
            throw InputError(name + ": OpenEXR channel '" + c + "' is subsampled (" +
                             std::to_string(ch.xSampling) + "x" + std::to_string(ch.ySampling) +
                             "); only full-resolution channels are read");
    }
    std::vector<std::string> left;
    for (const std::string& c : names)
        if (std::find(read.begin(), read.end(), c) == read.end()) left.push_back(c);
    if (!left.empty()) out.notes.push_back("OpenEXR channels not read: " + channel_names(left));

    const bool gray_alpha = read.size() == 2;  // Y, A: stored as gray, gray, gray, alpha
    const int channels = gray_alpha ? 4 : static_cast<int>(read.size());
    const std::int64_t w = std::int64_t{window.max.x} - window.min.x + 1;
    const std::int64_t ht = std::int64_t{window.max.y} - window.min.y + 1;
    out.image = Image(static_cast<int>(w), static_cast<int>(ht), channels, SampleType::F32, 32);
    const std::size_t x_stride = static_cast<std::size_t>(channels) * sizeof(float);
    Imf::FrameBuffer buffer;
    for (std::size_t i = 0; i < read.size(); ++i) {
        const std::size_t target = gray_alpha && i == 1 ? 3 : i;
        buffer.insert(
            read[i], Imf::Slice::Make(Imf::FLOAT, out.image.data() + target * sizeof(float), window,
                                      x_stride, out.image.stride()));
    }
    input.setFrameBuffer(buffer);
    if (!input.isComplete())
        throw InputError(name +
                         " is truncated or corrupt (OpenEXR: the pixel data of some "
                         "lines or tiles is missing)");
    input.readPixels(window.min.y, window.max.y);
    if (gray_alpha)
        for (int y = 0; y < out.image.height(); ++y) {
            auto* p = out.image.row_as<float>(y);
            for (int x = 0; x < out.image.width(); ++x, p += 4) p[1] = p[2] = p[0];
        }
    const Imath::Box2i display = h.displayWindow();
    if (display != window)
        out.notes.push_back("OpenEXR data window " + std::to_string(w) + "x" + std::to_string(ht) +
                            " at (" + std::to_string(window.min.x) + ", " +
                            std::to_string(window.min.y) + ") of the display window " +
                            std::to_string(std::int64_t{display.max.x} - display.min.x + 1) + "x" +
                            std::to_string(std::int64_t{display.max.y} - display.min.y + 1) +
                            " at (" + std::to_string(display.min.x) + ", " +
                            std::to_string(display.min.y) + "): the data window's pixels are read");
    return out;
}

// --- TIFF

struct TiffMemory {
    Bytes bytes;
    std::uint64_t position = 0;
    std::vector<std::string> errors;
};

tmsize_t tiff_read(thandle_t h, void* buffer, tmsize_t size) {
    auto* m = static_cast<TiffMemory*>(h);
    if (size < 0 || m->position >= m->bytes.size()) return 0;
    const auto n =
        std::min<std::uint64_t>(static_cast<std::uint64_t>(size), m->bytes.size() - m->position);
    std::memcpy(buffer, m->bytes.data() + m->position, static_cast<std::size_t>(n));
    m->position += n;
    return static_cast<tmsize_t>(n);
}
tmsize_t tiff_write(thandle_t, void*, tmsize_t) {
    return 0;
}
toff_t tiff_seek(thandle_t h, toff_t offset, int whence) {
    auto* m = static_cast<TiffMemory*>(h);
    const std::uint64_t base = whence == SEEK_CUR   ? m->position
                               : whence == SEEK_END ? m->bytes.size()
                                                    : 0;
    m->position = base + offset;
    return m->position;
}
int tiff_close(thandle_t) {
    return 0;
}
toff_t tiff_size(thandle_t h) {
    return static_cast<TiffMemory*>(h)->bytes.size();
}
int tiff_map(thandle_t, void**, toff_t*) {
    return 0;
}
void tiff_unmap(thandle_t, void*, toff_t) {}

void keep(void* user, const char* module, const char* format, va_list args, bool warning) {
    char text[512];
    std::vsnprintf(text, sizeof text, format, args);
    // Tags libtiff does not know are metadata the histograms do not use; every other warning
    // (about the image's structure or data) is an error, as decoder warnings are for photos.
    if (warning && std::strstr(text, "Unknown field with tag") != nullptr) return;
    auto* m = static_cast<TiffMemory*>(user);
    m->errors.push_back(module != nullptr && *module != 0 ? std::string(module) + ": " + text
                                                          : std::string(text));
}

// Both return 1 (handled): libtiff's global handlers, which print, stay silent.
int tiff_error(TIFF*, void* user, const char* module, const char* format, va_list args) {
    keep(user, module, format, args, false);
    return 1;
}
int tiff_warning(TIFF*, void* user, const char* module, const char* format, va_list args) {
    keep(user, module, format, args, true);
    return 1;
}

// Deflate data (compression 8 or 32946) of strip or tile `index` checked whole with zlib: it must
// end where its stream ends, its Adler-32 must hold and it must give `expected` bytes. libtiff
// stops inflating where the rows it wants end, so damage after them, or in the checksum, would
// pass unseen; here it is said.
std::string deflate_problem(TIFF* tif, bool tiled, std::uint32_t index, std::size_t expected) {
    const auto raw_size = static_cast<tmsize_t>(TIFFGetStrileByteCount(tif, index));
    if (raw_size <= 0) return "its deflate data has no size";
    std::vector<std::uint8_t> raw(static_cast<std::size_t>(raw_size));
    const tmsize_t got = tiled ? TIFFReadRawTile(tif, index, raw.data(), raw_size)
                               : TIFFReadRawStrip(tif, index, raw.data(), raw_size);
    if (got != raw_size) return "its deflate data cannot be read";
    z_stream z{};
    if (inflateInit(&z) != Z_OK) return "zlib cannot start";
    std::vector<std::uint8_t> out(std::max<std::size_t>(expected, 1) + 1);
    z.next_in = raw.data();
    z.avail_in = static_cast<uInt>(raw.size());
    z.next_out = out.data();
    z.avail_out = static_cast<uInt>(out.size());
    const int state = inflate(&z, Z_FINISH);
    const std::size_t produced = out.size() - z.avail_out;
    const std::string message = z.msg != nullptr ? z.msg : "";
    inflateEnd(&z);
    const std::string what = std::string(tiled ? "tile " : "strip ") + std::to_string(index);
    if (state != Z_STREAM_END) {
        std::string why = message;
        if (why.empty())
            why = produced == out.size() ? "it holds more than the " + std::to_string(expected) +
                                               " bytes of its pixels"
                                         : "it ends early";
        return "the deflate data of " + what + " is corrupt: " + why;
    }
    if (produced != expected)
        return "the deflate data of " + what + " holds " + std::to_string(produced) +
               " bytes, not " + std::to_string(expected);
    return {};
}

// Widens an IEEE half float exactly.
float half_to_float(std::uint16_t h) {
    const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
    const std::uint32_t exponent = (h >> 10) & 0x1Fu, fraction = h & 0x3FFu;
    if (exponent == 0x1F) return std::bit_cast<float>(sign | 0x7F800000u | fraction << 13);
    if (exponent != 0) return std::bit_cast<float>(sign | (exponent + 112) << 23 | fraction << 13);
    const float magnitude = std::ldexp(static_cast<float>(fraction), -24);  // subnormal or zero
    return sign != 0 ? -magnitude : magnitude;
}

}  // namespace

DecodedImage decode_pfm(Bytes file, const std::string& name, const DecodeOptions&) {
    const PfmHeader h = pfm_header(file);
    if (!h.problem.empty()) throw InputError(name + " is truncated or corrupt (" + h.problem + ")");
    DecodedImage out = pfm(file, h);
    note_non_finite(out.image, out.notes);
    return out;
}

DecodedImage decode_exr(Bytes file, const std::string& name, const DecodeOptions&) {
    const ExrHeader h = exr_header(file);
    if (!h.problem.empty()) throw InputError(name + " is truncated or corrupt (" + h.problem + ")");
    DecodedImage out;
    try {
        out = exr(file, name, h);
    } catch (const InputError&) {
        throw;
    } catch (const std::bad_alloc&) {
        throw;
    } catch (const std::exception& e) {
        std::string what = e.what();
        std::replace(what.begin(), what.end(), '\n', ' ');
        // OpenEXR names the file as the stream was named (`name`): the message names it once.
        const std::string named = " from image file \"" + name + "\"";
        if (const auto at = what.find(named); at != std::string::npos) what.erase(at, named.size());
        throw InputError(name + " could not be decoded as OpenEXR (" + what + ")");
    }
    note_non_finite(out.image, out.notes);
    return out;
}

DecodedImage decode_float_tiff(Bytes file, const std::string& name, const DecodeOptions&) {
    TiffMemory memory{file, 0, {}};
    TIFFOpenOptions* options = TIFFOpenOptionsAlloc();
    TIFFOpenOptionsSetErrorHandlerExtR(options, tiff_error, &memory);
    TIFFOpenOptionsSetWarningHandlerExtR(options, tiff_warning, &memory);
    TIFF* tif = TIFFClientOpenExt(name.c_str(), "rm", &memory, tiff_read, tiff_write, tiff_seek,
                                  tiff_close, tiff_size, tiff_map, tiff_unmap, options);
    TIFFOpenOptionsFree(options);
    const auto failed = [&](const std::string& fallback) {
        return InputError(name + " could not be decoded as TIFF (" +
                          (memory.errors.empty() ? fallback : memory.errors.front()) + ")");
    };
    if (tif == nullptr) throw failed("libtiff cannot open it");
    struct Closer {
        TIFF* t;
        ~Closer() { TIFFClose(t); }
    } closer{tif};
    std::uint32_t width = 0, height = 0;
    std::uint16_t bits = 0, format = 0, samples = 0, planar = 0, photometric = 0;
    TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &width);
    TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &height);
    TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &bits);
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLEFORMAT, &format);
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &samples);
    TIFFGetFieldDefaulted(tif, TIFFTAG_PLANARCONFIG, &planar);
    if (!TIFFGetField(tif, TIFFTAG_PHOTOMETRIC, &photometric))
        photometric = samples >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK;
    if (!memory.errors.empty()) throw failed("");
    if (format != SAMPLEFORMAT_IEEEFP || (bits != 32 && bits != 16))
        throw InputError(name + ": TIFF of " + std::to_string(bits) +
                         "-bit float samples; only 16-bit and 32-bit floats are read");
    const bool colour = photometric == PHOTOMETRIC_RGB && (samples == 3 || samples == 4);
    const bool gray = photometric == PHOTOMETRIC_MINISBLACK && (samples == 1 || samples == 2);
    if (!colour && !gray)
        throw InputError(name + ": float TIFF with " + std::to_string(samples) +
                         " samples per pixel of photometric interpretation " +
                         std::to_string(photometric) +
                         "; only gray (with alpha) and RGB (with alpha) are read");
    if (width == 0 || height == 0 || width > (1u << 20) || height > (1u << 20))
        throw InputError(name + ": TIFF image of " + std::to_string(width) + "x" +
                         std::to_string(height) + " pixels cannot be read");
    DecodedImage out;
    const int channels = samples == 2 ? 4 : samples;
    out.image =
        Image(static_cast<int>(width), static_cast<int>(height), channels, SampleType::F32, 32);
    const bool separate = planar == PLANARCONFIG_SEPARATE;
    const int planes = separate ? samples : 1;
    // Samples per pixel in one plane's buffer.
    const std::size_t per_pixel = separate ? 1u : static_cast<std::size_t>(samples);
    const std::size_t sample_bytes = bits / 8;
    // The sample (of plane `plane`, `k`-th in a pixel of the buffer) goes to channel:
    const auto target = [&](int plane, int k) {
        const int s = separate ? plane : k;
        return samples == 2 ? (s == 0 ? 0 : 3) : s;
    };
    const auto put = [&](const std::uint8_t* src, std::uint32_t x0, std::uint32_t y,
                         std::uint32_t count, int plane) {
        auto* row = out.image.row_as<float>(static_cast<int>(y));
        for (std::uint32_t i = 0; i < count; ++i)
            for (std::size_t k = 0; k < per_pixel; ++k) {
                const std::uint8_t* s =
                    src + (static_cast<std::size_t>(i) * per_pixel + k) * sample_bytes;
                float v;
                if (bits == 32) {
                    std::memcpy(&v, s, 4);
                } else {
                    std::uint16_t half;
                    std::memcpy(&half, s, 2);
                    v = half_to_float(half);
                }
                row[static_cast<std::size_t>(x0 + i) * static_cast<std::size_t>(channels) +
                    static_cast<std::size_t>(target(plane, static_cast<int>(k)))] = v;
            }
    };
    std::uint16_t compression = COMPRESSION_NONE;
    TIFFGetFieldDefaulted(tif, TIFFTAG_COMPRESSION, &compression);
    const bool deflate =
        compression == COMPRESSION_ADOBE_DEFLATE || compression == COMPRESSION_DEFLATE;
    if (TIFFIsTiled(tif)) {
        std::uint32_t tw = 0, th = 0;
        TIFFGetField(tif, TIFFTAG_TILEWIDTH, &tw);
        TIFFGetField(tif, TIFFTAG_TILELENGTH, &th);
        const tmsize_t size = TIFFTileSize(tif);
        if (tw == 0 || th == 0 || size <= 0) throw failed("its tiles have no size");
        std::vector<std::uint8_t> tile(static_cast<std::size_t>(size));
        for (int plane = 0; plane < planes; ++plane)
            for (std::uint32_t ty = 0; ty < height; ty += th)
                for (std::uint32_t tx = 0; tx < width; tx += tw) {
                    const std::uint32_t t =
                        TIFFComputeTile(tif, tx, ty, 0, static_cast<std::uint16_t>(plane));
                    if (TIFFReadEncodedTile(tif, t, tile.data(), size) != size)
                        throw failed("tile " + std::to_string(t) + " cannot be read");
                    if (deflate)
                        if (std::string why =
                                deflate_problem(tif, true, t, static_cast<std::size_t>(size));
                            !why.empty())
                            throw InputError(name + " is corrupt (" + why + ")");
                    const std::uint32_t cols = std::min(tw, width - tx);
                    for (std::uint32_t r = 0; r < th && ty + r < height; ++r)
                        put(tile.data() +
                                static_cast<std::size_t>(r) * tw * per_pixel * sample_bytes,
                            tx, ty + r, cols, plane);
                }
    } else {
        std::uint32_t rows_per_strip = 0;
        TIFFGetFieldDefaulted(tif, TIFFTAG_ROWSPERSTRIP, &rows_per_strip);
        rows_per_strip = std::min(std::max(rows_per_strip, 1u), height);
        const tmsize_t size = TIFFStripSize(tif);
        const tmsize_t row_bytes = TIFFScanlineSize(tif);
        if (size <= 0 || row_bytes <= 0) throw failed("its strips have no size");
        std::vector<std::uint8_t> strip(static_cast<std::size_t>(size));
        for (int plane = 0; plane < planes; ++plane)
            for (std::uint32_t y0 = 0; y0 < height; y0 += rows_per_strip) {
                const std::uint32_t rows = std::min(rows_per_strip, height - y0);
                const std::uint32_t s =
                    TIFFComputeStrip(tif, y0, static_cast<std::uint16_t>(plane));
                const tmsize_t want = row_bytes * static_cast<tmsize_t>(rows);
                if (TIFFReadEncodedStrip(tif, s, strip.data(), want) != want)
                    throw failed("strip " + std::to_string(s) + " cannot be read");
                if (deflate)
                    if (std::string why =
                            deflate_problem(tif, false, s, static_cast<std::size_t>(want));
                        !why.empty())
                        throw InputError(name + " is corrupt (" + why + ")");
                for (std::uint32_t r = 0; r < rows; ++r)
                    put(strip.data() +
                            static_cast<std::size_t>(r) * static_cast<std::size_t>(row_bytes),
                        0, y0 + r, width, plane);
            }
    }
    if (!memory.errors.empty()) throw failed("");
    if (samples == 2)
        for (std::uint32_t y = 0; y < height; ++y) {
            auto* p = out.image.row_as<float>(static_cast<int>(y));
            for (std::uint32_t x = 0; x < width; ++x, p += 4) p[1] = p[2] = p[0];
        }
    if (bits == 16) out.notes.push_back("TIFF of 16-bit (half) floats, widened exactly to 32 bits");
    note_non_finite(out.image, out.notes);
    return out;
}

}  // namespace hs::media::detail
