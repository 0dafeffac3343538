// PNG through libpng, with error and warning handlers that record instead of printing.
//
// libpng reports fatal errors by longjmp to the png_jmpbuf set in run(), whose frame holds
// nothing with a destructor (everything lives in PngSession).

#include <png.h>

#include <algorithm>
#include <cctype>
#include <csetjmp>
#include <cstring>
#include <utility>
#include <vector>

#include "codecs.hpp"
#include "histoscope/core/error.hpp"

namespace hs::media::detail {

namespace {

struct PngSession {
    png_structp png = nullptr;
    png_infop info = nullptr;
    Bytes file;
    std::size_t offset = 0;
    std::string fatal;       // why libpng stopped
    std::string corruption;  // the first warning about the samples
    int rows_done = 0;
    bool interlaced = false;
    // A 16-bit image's sBIT chunk: the significant bits of each channel kept, by name.
    std::vector<std::pair<const char*, int>> significant_bits;
    bool gray_alpha = false;  // stored as gray+alpha, read as RGBA
    ~PngSession() {
        if (png != nullptr)
            png_destroy_read_struct(&png, info != nullptr ? &info : nullptr, nullptr);
    }
};

PngSession& session_of(png_structp png) {
    return *static_cast<PngSession*>(png_get_error_ptr(png));
}

void on_error(png_structp png, png_const_charp message) {
    session_of(png).fatal = message;
    png_longjmp(png, 1);
}

// Chunk warnings read "xxxx: ...". A chunk whose name starts in lower case is ancillary:
// colour profiles, gamma, text and times, which Histoscope does not use, so a problem there
// ("iCCP: known incorrect sRGB profile" is common) leaves the samples intact and is ignored.
// tRNS is the exception: it makes the alpha channel. Every other warning (e.g. "IDAT: Too much
// image data", a CRC error in a critical chunk) is about the samples.
void on_warning(png_structp png, png_const_charp message) {
    PngSession& s = session_of(png);
    const std::string text = message;
    const bool ancillary = text.size() > 5 && text[4] == ':' &&
                           std::islower(static_cast<unsigned char>(text[0])) != 0 &&
                           text.rfind("tRNS", 0) != 0;
    if (!ancillary && s.corruption.empty()) s.corruption = text;
}

void on_read(png_structp png, png_bytep data, png_size_t length) {
    PngSession& s = *static_cast<PngSession*>(png_get_io_ptr(png));
    if (length > s.file.size() - s.offset) png_error(png, "the file ends inside a chunk");
    std::memcpy(data, s.file.data() + s.offset, length);
    s.offset += length;
}

// Decodes into `out`; false when libpng gave up (fatal says why; rows read by then are in
// `out` when the image is not interlaced).
bool run(PngSession& s, Image& out, std::vector<png_bytep>& rows) {
    if (setjmp(png_jmpbuf(s.png)) != 0) return false;
    png_set_read_fn(s.png, &s, on_read);
    png_read_info(s.png, s.info);
    const png_byte color = png_get_color_type(s.png, s.info);
    const png_byte bits = png_get_bit_depth(s.png, s.info);
    // OpenCV's choices (grfmt_png.cpp): RGB and palette images gain alpha from a tRNS chunk,
    // gray+alpha becomes RGBA, gray ignores tRNS; 16-bit samples stay 16-bit.
    int channels = 1;
    if (color == PNG_COLOR_TYPE_RGB || color == PNG_COLOR_TYPE_PALETTE)
        channels = png_get_valid(s.png, s.info, PNG_INFO_tRNS) != 0 ? 4 : 3;
    else if (color == PNG_COLOR_TYPE_GRAY_ALPHA || color == PNG_COLOR_TYPE_RGB_ALPHA)
        channels = 4;
    s.gray_alpha = color == PNG_COLOR_TYPE_GRAY_ALPHA;
    const bool deep = bits == 16;
    if (deep) png_set_swap(s.png);  // PNG is big-endian; our samples are in host order
    if (png_color_8p sbit = nullptr; deep && png_get_sBIT(s.png, s.info, &sbit) != 0) {
        // One depth for every channel kept (an alpha made from tRNS is 0 or 65535, which are
        // replications at any depth).
        auto& kept = s.significant_bits;
        if ((color & PNG_COLOR_MASK_COLOR) != 0)
            kept = {{"r", sbit->red}, {"g", sbit->green}, {"b", sbit->blue}};
        else
            kept = {{"gray", sbit->gray}};
        if (channels == 4 && (color & PNG_COLOR_MASK_ALPHA) != 0)
            kept.emplace_back("a", sbit->alpha);
    }
    if (channels < 4)
        png_set_strip_alpha(s.png);
    else
        png_set_tRNS_to_alpha(s.png);
    if (color == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(s.png);
    if ((color & PNG_COLOR_MASK_COLOR) == 0 && bits < 8) png_set_expand_gray_1_2_4_to_8(s.png);
    if ((color & PNG_COLOR_MASK_COLOR) == 0 && channels > 1) png_set_gray_to_rgb(s.png);
    s.interlaced = png_set_interlace_handling(s.png) > 1;
    png_read_update_info(s.png, s.info);
    out = Image(static_cast<int>(png_get_image_width(s.png, s.info)),
                static_cast<int>(png_get_image_height(s.png, s.info)), channels,
                deep ? SampleType::U16 : SampleType::U8, deep ? 16 : 8);
    if (png_get_rowbytes(s.png, s.info) != out.stride())
        png_error(s.png, "unexpected row size after the transformations");
    if (s.interlaced) {
        rows.resize(static_cast<std::size_t>(out.height()));
        for (int y = 0; y < out.height(); ++y)
            rows[static_cast<std::size_t>(y)] = reinterpret_cast<png_bytep>(out.row(y));
        png_read_image(s.png, rows.data());
        s.rows_done = out.height();
    } else {
        for (; s.rows_done < out.height(); ++s.rows_done)
            png_read_row(s.png, reinterpret_cast<png_bytep>(out.row(s.rows_done)), nullptr);
    }
    png_read_end(s.png, nullptr);
    return true;
}

}  // namespace

DecodedImage decode_png(Bytes file, const std::string& name, const DecodeOptions& options) {
    PngSession s;
    s.file = file;
    s.offset = 8;
    s.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &s, on_error, on_warning);
    if (s.png == nullptr) throw std::bad_alloc();
    s.info = png_create_info_struct(s.png);
    if (s.info == nullptr) throw std::bad_alloc();
    png_set_sig_bytes(s.png, 8);  // the signature was recognised by the caller
    DecodedImage out;
    std::vector<png_bytep> rows;
    const bool finished = run(s, out.image, rows);
    const bool partial = !out.image.empty() && s.rows_done > 0 && !s.interlaced;
    if (!finished && !(options.allow_corrupt && partial))
        throw InputError(name + " could not be decoded as PNG (" + s.fatal + ")");
    // A depth of 8 to 15 bits recorded in sBIT for every channel, when every sample is that
    // depth's replication (what write_image() stores): the image at that depth, as it was
    // written. Else the samples are 16-bit data, whatever the chunk says, and a note says why.
    if (const auto& sbit = s.significant_bits; !sbit.empty()) {
        const int bits = sbit.front().second;
        const bool one =
            std::all_of(sbit.begin(), sbit.end(), [&](const auto& c) { return c.second == bits; });
        if (!one) {
            std::string each;
            for (const auto& [channel, b] : sbit)
                each += (each.empty() ? "" : ", ") + std::string(channel) + " " + std::to_string(b);
            out.notes.push_back(
                "the PNG's sBIT chunk gives its channels different significant "
                "bits (" +
                each +
                "), and an image has one depth: its samples are read as 16-bit "
                "samples");
        } else if (bits >= 8 && bits <= 15) {
            if (std::optional<Image> back = unreplicated(out.image.view(), bits))
                out.image = std::move(*back);
            else
                out.notes.push_back("the PNG's sBIT chunk says " + std::to_string(bits) +
                                    " significant bits, but its samples are not " +
                                    std::to_string(bits) +
                                    "-bit values scaled to 16 bits by bit replication: read as "
                                    "16-bit samples");
        } else if (bits != 16) {
            out.notes.push_back("the PNG's sBIT chunk says " + std::to_string(bits) +
                                " significant bits, and a depth is 8 to 16 bits: its samples are "
                                "read as 16-bit samples");
        }
    }
    // Images are gray, RGB or RGBA: said, or its r, g, b and luma would read as a colour
    // image's that happens to be gray.
    if (s.gray_alpha)
        out.notes.push_back(
            "gray+alpha PNG: read as RGBA, its gray in each of R, G and B (and in luma)");
    const std::string problem = finished ? s.corruption : s.fatal;
    if (problem.empty()) return out;
    if (!options.allow_corrupt) throw InputError(name + " is corrupt (" + problem + ")");
    out.corrupt = true;
    out.notes.push_back("corrupt PNG data (" + problem + "): " +
                        (finished ? std::string("decoded as libpng read it")
                                  : std::to_string(s.rows_done) + " of " +
                                        std::to_string(out.image.height()) +
                                        " rows decoded, the rest is black"));
    return out;
}

}  // namespace hs::media::detail
