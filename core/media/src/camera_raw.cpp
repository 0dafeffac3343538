// Camera raw files through LibRaw (the reentrant libraw_r): the Bayer mosaic as 2x2 quads at
// the sensor's depth, and LibRaw's linear 16-bit demosaic. LibRaw reports problems three ways,
// and each is an InputError here: return codes, a data callback for corrupt or missing data
// (whose default prints to standard error and lets decoding go on with what it has), and the
// process_warnings bits. Its memory callback is replaced too, so that nothing is printed.

#include <libraw/libraw.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <limits>
#include <numeric>
#include <optional>

#include "formats.hpp"
#include "histoscope/core/error.hpp"
#include "histoscope/media/media.hpp"

namespace hs::media {

namespace {

// Warnings that only say which way LibRaw went (another of a DNG's images, an external
// decoder): not problems of the file.
constexpr unsigned kInformational = LIBRAW_WARN_DNG_IMAGES_REORDERED |
                                    LIBRAW_WARN_RAWSPEED_PROCESSED | LIBRAW_WARN_DNGSDK_PROCESSED |
                                    LIBRAW_WARN_PARSEFUJI_PROCESSED |
                                    LIBRAW_WARN_DNG_STAGE2_APPLIED | LIBRAW_WARN_DNG_STAGE3_APPLIED;

std::string warnings_text(unsigned warnings) {
    static constexpr std::pair<unsigned, const char*> kNames[] = {
        {LIBRAW_WARN_BAD_CAMERA_WB, "the camera's white balance cannot be applied"},
        {LIBRAW_WARN_NO_METADATA, "metadata is missing"},
        {LIBRAW_WARN_NO_JPEGLIB, "its JPEG-compressed data needs a JPEG library LibRaw lacks"},
        {LIBRAW_WARN_NO_EMBEDDED_PROFILE, "no embedded colour profile"},
        {LIBRAW_WARN_NO_INPUT_PROFILE, "no input colour profile"},
        {LIBRAW_WARN_BAD_OUTPUT_PROFILE, "a bad output colour profile"},
        {LIBRAW_WARN_NO_BADPIXELMAP, "no bad pixel map"},
        {LIBRAW_WARN_BAD_DARKFRAME_FILE, "a bad dark frame"},
        {LIBRAW_WARN_BAD_DARKFRAME_DIM, "a dark frame of another size"},
        {LIBRAW_WARN_NO_JASPER, "its JPEG 2000 data needs a library LibRaw lacks"},
        {LIBRAW_WARN_RAWSPEED_PROBLEM, "RawSpeed failed"},
        {LIBRAW_WARN_RAWSPEED_UNSUPPORTED, "RawSpeed does not read it"},
        {LIBRAW_WARN_FALLBACK_TO_AHD, "the demosaic asked for is not available"},
    };
    std::string text;
    unsigned named = 0;
    for (const auto& [bit, name] : kNames)
        if (warnings & bit) {
            text += (text.empty() ? "" : "; ") + std::string(name);
            named |= bit;
        }
    if (const unsigned other = warnings & ~named) {
        char hex[32];
        std::snprintf(hex, sizeof hex, "0x%x", other);
        text += (text.empty() ? "warning " : "; warning ") + std::string(hex);
    }
    return text;
}

// A number as LibRaw's float holds it, without the float's noise (0.004f is 0.0040000002).
double tidy(float v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.6g", static_cast<double>(v));
    return std::strtod(text, nullptr);
}

// The camera's clock as LibRaw read it (mktime of the file's local time): back to that time.
std::string date_text(std::time_t t) {
    if (t <= 0) return {};
    std::tm tm{};
    if (localtime_r(&t, &tm) == nullptr) return {};
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S", &tm);
    return text;
}

int bits_for(std::uint32_t v) {
    return std::max(8, static_cast<int>(std::bit_width(v)));
}

// An uncompressed DNG's strips or tiles against the size its directory declares. Each piece
// but the last holds exactly the rows (a tile: the tile) it stands for: a piece short means
// photosites that LibRaw would read as zeros, a piece long that the directory does not give the
// size the photosites were written at (a width one short shears every row); both are corrupt.
// Data past the declared rows, in the last strip or in strips after it, leaves the rows read as
// they were written: it is not read, and a note says so.
struct DataSize {
    std::string problem, note;
};
DataSize data_size(const detail::TiffDirectory& d) {
    const std::uint64_t w = d.width, h = d.height, samples = std::max<std::uint64_t>(d.samples, 1);
    if (w == 0 || h == 0 || d.bits == 0 || d.bits > 32 || samples > 4 || d.counts.empty())
        return {};
    const bool tiled = d.tile_width > 0 && d.tile_length > 0;
    const auto bytes_of = [&](std::uint64_t width) { return (width * samples * d.bits + 7) / 8; };
    std::uint64_t pieces = 0, piece = 0, rows = 0;
    if (tiled) {
        piece = bytes_of(d.tile_width) * d.tile_length;
        pieces =
            ((w + d.tile_width - 1) / d.tile_width) * ((h + d.tile_length - 1) / d.tile_length);
    } else {
        rows = d.rows_per_strip == 0 || d.rows_per_strip > h ? h : d.rows_per_strip;
        piece = bytes_of(w) * rows;
        pieces = (h + rows - 1) / rows;
    }
    // The bytes of piece i's photosites.
    const auto takes = [&](std::uint64_t i) {
        return tiled || i + 1 < pieces ? piece : bytes_of(w) * (h - i * rows);
    };
    std::uint64_t held = 0, taken = 0;
    bool short_piece = d.counts.size() < pieces, long_piece = false;
    for (std::uint64_t i = 0; i < d.counts.size(); ++i) {
        held += d.counts[i];
        if (i >= pieces) continue;
        taken += takes(i);
        short_piece |= d.counts[i] < takes(i);
        long_piece |= d.counts[i] > takes(i) && (tiled || i + 1 < pieces);
    }
    for (std::uint64_t i = d.counts.size(); i < pieces; ++i) taken += takes(i);
    const std::string what = tiled ? "tiles" : "strips";
    const std::string declared =
        "its header declares " + std::to_string(w) + "x" + std::to_string(h) + " photosites";
    const std::string bits = std::to_string(d.bits) + " bits";
    if (short_piece)
        return {declared + ", which its " + what + "' " + std::to_string(held) +
                    " bytes cannot hold: uncompressed at " + bits + ", they take " +
                    std::to_string(taken) + " bytes",
                {}};
    if (long_piece)
        return {declared + ", but its " + what + " are not cut at their rows (uncompressed at " +
                    bits + ", " + std::to_string(held) + " bytes where they take " +
                    std::to_string(taken) +
                    "): the header does not give the size its data was written at",
                {}};
    if (held > taken)
        return {{},
                std::to_string(held - taken) + " bytes of its " + what + " lie past the " +
                    std::to_string(w) + "x" + std::to_string(h) +
                    " photosites its header declares: they are not read"};
    return {};
}

std::uint16_t rounded_code(double v) {
    return static_cast<std::uint16_t>(std::clamp(std::lround(v), 0L, 65535L));
}

// LibRaw with its two loops of float arithmetic rounding to the nearest code value. Its own
// truncate each product: a photosite at the white level, which the white balance's smallest
// multiplier scales to 65535 exactly, came out at 65534 (65534.996 truncated), and so did a
// clipped white's channels after the colour matrix (whose rows sum to one). The loops are
// LibRaw's otherwise, virtual so that a subclass may replace them.
class RoundingLibRaw final : public LibRaw {
  protected:
    void scale_colors_loop(float scale_mul[4]) override {
        const libraw_colordata_t& c = imgdata.color;
        const unsigned width = imgdata.sizes.iwidth;
        const std::size_t size = static_cast<std::size_t>(imgdata.sizes.iheight) * width;
        const bool pattern = c.cblack[4] != 0 && c.cblack[5] != 0;
        for (std::size_t i = 0; i < size; ++i)
            for (unsigned ch = 0; ch < 4; ++ch) {
                int v = imgdata.image[i][ch];
                if (v == 0) continue;
                if (pattern)
                    v -= static_cast<int>(c.cblack[6 + (i / width) % c.cblack[4] * c.cblack[5] +
                                                   (i % width) % c.cblack[5]]);
                v -= static_cast<int>(c.cblack[ch]);
                imgdata.image[i][ch] = rounded_code(v * static_cast<double>(scale_mul[ch]));
            }
    }

    void convert_to_rgb_loop(float out_cam[3][4]) override {
        auto* histogram = libraw_internal_data.output_data.histogram;
        std::memset(histogram, 0, sizeof(*histogram) * 4);
        const int colours = imgdata.idata.colors;
        const bool convert = libraw_internal_data.internal_output_params.raw_color == 0 &&
                             (colours == 3 || colours == 4);
        const std::size_t size =
            static_cast<std::size_t>(imgdata.sizes.height) * imgdata.sizes.width;
        for (std::size_t i = 0; i < size; ++i) {
            std::uint16_t* img = imgdata.image[i];
            if (convert) {
                double out[3] = {0.0, 0.0, 0.0};
                for (int o = 0; o < 3; ++o)
                    for (int ch = 0; ch < colours; ++ch)
                        out[o] += static_cast<double>(out_cam[o][ch]) * img[ch];
                for (int o = 0; o < 3; ++o) img[o] = rounded_code(out[o]);
            }
            for (int ch = 0; ch < colours; ++ch) ++histogram[ch][img[ch] >> 3];
        }
    }
};

}  // namespace

struct CameraRawReader::Impl {
    std::unique_ptr<LibRaw> raw = std::make_unique<RoundingLibRaw>();
    // The file's bytes, which LibRaw reads from (a file is read once, whole, as photos are).
    std::shared_ptr<const std::vector<std::uint8_t>> bytes;
    std::string name;
    DecodeOptions options;
    CameraRawInfo info;
    std::vector<std::string> notes;
    // Of the Cfa view only: its levels, depth and the photosites it leaves out.
    std::vector<std::string> mosaic_notes;
    bool corrupt = false;
    // What LibRaw's data callback reported: the first problem, in our words.
    std::string data_problem;
    // Only the file's name says camera raw (".nef"): its bytes carry no signature and are not
    // laid out as TIFF, so that LibRaw's failure to open it says what it is not.
    bool named_only = false;
    // A DNG's directories, as the file declares them.
    std::optional<detail::TiffLayout> layout;
    // The Cfa view: which kCfaColours entry each position of the 2x2 pattern is (y * 2 + x).
    int colour_at[4] = {0, 0, 0, 0};
    bool processed = false;

    static void on_data_error(void* self, const char*, const int offset) {
        auto* impl = static_cast<Impl*>(self);
        if (!impl->data_problem.empty()) return;
        impl->data_problem =
            offset < 0 ? "its data ends before LibRaw has read every photosite"
                       : "LibRaw reports corrupt data near offset " + std::to_string(offset);
    }
    static void on_memory_error(void* self, const char*, const char* where) {
        auto* impl = static_cast<Impl*>(self);
        if (impl->data_problem.empty())
            impl->data_problem = std::string("LibRaw ran out of memory") +
                                 (where ? std::string(" in ") + where : "");
    }

    // A LibRaw return code as our error (nothing for LIBRAW_SUCCESS).
    void check(int code, const char* stage) {
        if (code == LIBRAW_SUCCESS) return;
        const std::string said = libraw_strerror(code);
        // LibRaw's "Input/output error" (its reading ran past the bytes) of a text file named
        // .nef would name a camera raw file cut short.
        if (named_only && std::strcmp(stage, "open") == 0 && code != LIBRAW_UNSUFFICIENT_MEMORY &&
            code != LIBRAW_TOO_BIG && code < 0)
            throw InputError(name +
                             " is not a camera raw file LibRaw reads (nothing but its name "
                             "says it is one)");
        switch (code) {
            case LIBRAW_FILE_UNSUPPORTED:
                throw InputError(name + " is not a camera raw file LibRaw reads (" + said + ")");
            case LIBRAW_UNSUFFICIENT_MEMORY:
            case LIBRAW_TOO_BIG:
                throw InputError(name + " is too large to " + stage + " (LibRaw: " + said + ")");
            default:
                break;
        }
        if (code > 0)  // a system call's errno
            throw InputError("cannot read " + name + ": " + std::strerror(code));
        std::string why = data_problem.empty() ? "LibRaw: " + said : data_problem;
        // A file laid out as TIFF that LibRaw cannot open: where its structure ends says more
        // than LibRaw's "Input/output error".
        if (data_problem.empty() && std::strcmp(stage, "open") == 0 &&
            detail::sniff_image(*bytes) == detail::ImageFormat::Tiff)
            if (std::string cut = detail::tiff_layout(*bytes).problem; !cut.empty())
                why = std::move(cut);
        throw InputError(name + " is truncated or corrupt (" + why + ")");
    }

    // LibRaw's warnings and data reports after a stage: errors (or, for data, kept and noted
    // with allow_corrupt).
    void check_reports() {
        if (const unsigned w = raw->imgdata.process_warnings & ~kInformational)
            throw InputError(name + ": LibRaw warns: " + warnings_text(w));
        if (data_problem.empty()) return;
        if (!options.allow_corrupt)
            throw InputError(name + " is truncated or corrupt (" + data_problem + ")");
        if (!corrupt) notes.push_back(data_problem + ": kept because of --allow-corrupt");
        corrupt = true;
    }

    // Opens the bytes with LibRaw: LibRaw's own checks, then ours of the sizes declared.
    void open(const std::string& source_name,
              std::shared_ptr<const std::vector<std::uint8_t>> data) {
        name = source_name;
        bytes = std::move(data);
        raw->set_dataerror_handler(&Impl::on_data_error, this);
        raw->set_memerror_handler(&Impl::on_memory_error, this);
        if (bytes->empty()) throw InputError(name + " is empty");
        // LibRaw only reads the buffer.
        check(raw->open_buffer(const_cast<std::uint8_t*>(bytes->data()), bytes->size()), "open");
        check_reports();
        check_declared_size(bytes->size());
    }

    // The sizes the file declares, before LibRaw allocates anything for its photosites.
    void check_declared_size(std::uint64_t file_bytes) {
        const libraw_image_sizes_t& s = raw->imgdata.sizes;
        const std::uint64_t w = s.raw_width, h = s.raw_height;
        if (w == 0 || h == 0) throw InputError(name + " declares no photosites");
        detail::check_pixel_limit(name, "its camera raw header", w, h, options.max_pixels);
        const std::uint64_t photosites = w * h;
        const auto* internal = raw->get_internal_data_pointer();
        const unsigned bps = internal->unpacker_data.tiff_bps;
        const bool flat_dng = raw->imgdata.idata.dng_version != 0 &&
                              internal->unpacker_data.tiff_compress == 1 && bps >= 8 && bps <= 16;
        if (const detail::TiffDirectory* dir = raw_directory(); dir != nullptr && flat_dng) {
            const DataSize size = data_size(*dir);
            if (!size.problem.empty())
                throw InputError(name + " is corrupt (" + size.problem + ")");
            if (!size.note.empty()) notes.push_back(size.note);
        }
        const std::uint64_t needed = flat_dng ? photosites * bps / 8 : photosites / 512;
        if (needed > file_bytes)
            throw InputError(
                name + " is corrupt (its header declares " + std::to_string(w) + "x" +
                std::to_string(h) + " photosites, which " + std::to_string(file_bytes) +
                " bytes cannot hold: " +
                (flat_dng ? "uncompressed, they take " + std::to_string(needed) + " bytes"
                          : std::string("no raw codec spends less than one bit per 8x8 block")) +
                ")");
        // LibRaw's own cap on the memory of the photosites: ours instead, as for photos (8
        // bytes a pixel).
        const std::uint64_t mb = std::min<std::uint64_t>(
            std::numeric_limits<unsigned>::max(),
            std::max<std::uint64_t>(
                LIBRAW_MAX_ALLOC_MB_DEFAULT,
                std::min(options.max_pixels, std::uint64_t{1} << 50) * 8 >> 20));
        raw->imgdata.params.max_raw_memory_mb = static_cast<unsigned>(mb);
    }

    void read_info(const std::string& format) {
        const libraw_data_t& d = raw->imgdata;
        info.format = d.idata.dng_version != 0 ? "DNG" : format;
        info.make = d.idata.make;
        info.model = d.idata.model;
        info.iso = tidy(d.other.iso_speed);
        info.exposure_s = tidy(d.other.shutter);
        info.aperture = tidy(d.other.aperture);
        info.focal_length_mm = tidy(d.other.focal_len);
        info.date = date_text(d.other.timestamp);
        info.raw_width = d.sizes.raw_width;
        info.raw_height = d.sizes.raw_height;
        info.visible = {d.sizes.left_margin, d.sizes.top_margin, d.sizes.width, d.sizes.height};
        info.demosaiced_channels = d.idata.colors == 1 ? 1 : 3;
        info.mosaic_problem = mosaic_problem();
        if (info.mosaic_problem.empty()) read_pattern();
    }

    // The directory of the DNG's raw image that LibRaw reads (its data starts where LibRaw's
    // does), or null.
    const detail::TiffDirectory* raw_directory() const {
        if (!layout) return nullptr;
        const auto start =
            static_cast<std::uint64_t>(raw->get_internal_data_pointer()->unpacker_data.data_offset);
        for (const detail::TiffDirectory& d : layout->directories)
            if (!d.offsets.empty() && d.offsets.front() == start) return &d;
        return nullptr;
    }

    // Why a DNG's own CFA tags declare no 2x2 Bayer mosaic of R, G and B, or "". LibRaw reads
    // its pattern as 8 rows by 2 columns of at most four planes named R, G, B, G: a colour it
    // has no name for (white, cyan, ...) comes out as one it has, a 4x4 pattern as some 2x2 one,
    // and CFAPlaneColor's planes in another order under the wrong names.
    std::string dng_pattern_problem() const {
        const detail::TiffDirectory* dir = raw_directory();
        if (dir == nullptr || dir->cfa_pattern.empty()) return {};
        static constexpr char kLetters[] = "RGBCMYW";
        static constexpr const char* kNames[] = {"red",     "green",  "blue", "cyan",
                                                 "magenta", "yellow", "white"};
        std::string declared;
        for (const std::uint64_t code : dir->cfa_pattern)
            declared += code < 7 ? kLetters[code] : '?';
        if (dir->cfa_dims.size() == 2 && (dir->cfa_dims[0] != 2 || dir->cfa_dims[1] != 2))
            return "its colour pattern repeats every " + std::to_string(dir->cfa_dims[0]) + "x" +
                   std::to_string(dir->cfa_dims[1]) + " photosites (" + declared + "), not 2x2";
        if (declared.size() != 4)
            return "its CFAPattern holds " + std::to_string(declared.size()) +
                   " colours, not the 4 of a 2x2 pattern";
        for (const std::uint64_t code : dir->cfa_pattern)
            if (code > 2)
                return "its colour pattern " + declared + " has " +
                       (code < 7 ? std::string(kNames[code])
                                 : "unknown (" + std::to_string(code) + ")") +
                       " photosites: not a Bayer mosaic of R, G and B";
        // What LibRaw makes of it at the visible area's top left, against the file's pattern,
        // whose phase LibRaw takes from the top left of the ActiveArea (where the raw image's
        // masked borders end).
        const libraw_data_t& d = raw->imgdata;
        const std::uint64_t top = dir->active_area.size() == 4 ? dir->active_area[0] : 0;
        const std::uint64_t left = dir->active_area.size() == 4 ? dir->active_area[1] : 0;
        std::string read(4, ' '), expected(4, ' ');
        for (std::size_t p = 0; p < 4; ++p) {
            read[p] = d.idata.cdesc[raw->FC(static_cast<int>(p / 2), static_cast<int>(p % 2))];
            const std::uint64_t y = (p / 2 + d.sizes.top_margin + 2 - top % 2) % 2;
            const std::uint64_t x = (p % 2 + d.sizes.left_margin + 2 - left % 2) % 2;
            expected[p] = declared[static_cast<std::size_t>(y * 2 + x)];
        }
        if (read != expected)
            return "LibRaw reads its colour pattern as " + read + " where the file declares " +
                   expected;
        return {};
    }

    // Why the sensor's data is no 2x2 Bayer mosaic, or "".
    std::string mosaic_problem() const {
        const libraw_data_t& d = raw->imgdata;
        const unsigned filters = d.idata.filters;
        if (d.idata.is_foveon) return "a Foveon sensor records every colour at every photosite";
        if (filters == 9) return "its sensor is X-Trans (a 6x6 colour pattern)";
        if (std::string dng = dng_pattern_problem(); !dng.empty()) return dng;
        if (raw->is_floating_point()) return "its samples are floating point";
        if (filters == 0) return "it holds no colour mosaic (linear or already demosaiced data)";
        if (filters < 1000) return "its colour pattern is not a 2x2 Bayer mosaic";
        if (d.rawdata.ioparams.fuji_width != 0)
            return "its sensor's photosites lie on a 45-degree grid (Fuji SuperCCD)";
        if (d.idata.colors != 3)
            return "its colour pattern has " + std::to_string(d.idata.colors) + " colours (" +
                   d.idata.cdesc + "), not R, G, B";
        // LibRaw's pattern is 8 rows by 2 columns: a 2x2 Bayer mosaic repeats every 2 rows.
        for (int row = 2; row < 8; ++row)
            for (int col = 0; col < 2; ++col)
                if (raw->FC(row, col) != raw->FC(row % 2, col))
                    return "its colour pattern is not a 2x2 Bayer mosaic";
        // RGGB, BGGR, GRBG or GBRG: one red, one blue, the greens on a diagonal.
        char letters[4];
        for (int p = 0; p < 4; ++p) letters[p] = d.idata.cdesc[raw->FC(p / 2, p % 2)];
        const bool diagonal = (letters[0] == 'G' && letters[3] == 'G' &&
                               ((letters[1] == 'R' && letters[2] == 'B') ||
                                (letters[1] == 'B' && letters[2] == 'R'))) ||
                              (letters[1] == 'G' && letters[2] == 'G' &&
                               ((letters[0] == 'R' && letters[3] == 'B') ||
                                (letters[0] == 'B' && letters[3] == 'R')));
        if (!diagonal)
            return "its colour pattern " + std::string(letters, 4) +
                   " is none of RGGB, BGGR, GRBG and GBRG";
        return {};
    }

    void read_pattern() {
        const libraw_data_t& d = raw->imgdata;
        char letters[5] = {};
        for (int p = 0; p < 4; ++p) letters[p] = d.idata.cdesc[raw->FC(p / 2, p % 2)];
        info.cfa_pattern = letters;
        const int red_row = static_cast<int>(info.cfa_pattern.find('R')) / 2;
        for (int p = 0; p < 4; ++p) {
            const char c = letters[p];
            colour_at[p] = c == 'R' ? 0 : c == 'B' ? 3 : p / 2 == red_row ? 1 : 2;
        }
    }

    // The black level of every quad position (LibRaw's common level, the colour's own, and the
    // repeating pattern's), per colour; a note where the pattern varies within one.
    // Returns the highest black level of any position.
    std::uint32_t read_black_levels() {
        const libraw_colordata_t& c = raw->imgdata.color;
        const unsigned rows = c.cblack[4], cols = c.cblack[5];
        const bool pattern = rows > 0 && cols > 0 && 6 + rows * cols <= LIBRAW_CBLACK_SIZE;
        // Over a whole period of both the quad and the pattern.
        const unsigned period_y = pattern ? std::lcm(2u, rows) : 2u;
        const unsigned period_x = pattern ? std::lcm(2u, cols) : 2u;
        std::uint32_t lo[4], hi[4];
        std::fill(std::begin(lo), std::end(lo), std::numeric_limits<std::uint32_t>::max());
        std::fill(std::begin(hi), std::end(hi), 0u);
        for (unsigned y = 0; y < period_y; ++y)
            for (unsigned x = 0; x < period_x; ++x) {
                const int colour = info.cfa_pattern.empty() ? 0 : colour_at[(y % 2) * 2 + x % 2];
                const auto fc =
                    static_cast<unsigned>(raw->FC(static_cast<int>(y), static_cast<int>(x)));
                std::uint32_t level = c.black + c.cblack[fc];
                if (pattern) level += c.cblack[6 + (y % rows) * cols + x % cols];
                lo[colour] = std::min(lo[colour], level);
                hi[colour] = std::max(hi[colour], level);
            }
        for (int i = 0; i < 4; ++i) {
            info.black[i] = lo[i] == std::numeric_limits<std::uint32_t>::max() ? c.black : lo[i];
            if (hi[i] > lo[i] && lo[i] != std::numeric_limits<std::uint32_t>::max())
                mosaic_notes.push_back("the black level of " + std::string(kCfaColours[i].name) +
                                       " varies from " + std::to_string(lo[i]) + " to " +
                                       std::to_string(hi[i]) +
                                       " over the sensor: the lowest is given");
        }
        if (info.cfa_pattern.empty())
            for (auto& b : info.black) b = c.black;
        return *std::max_element(std::begin(hi), std::end(hi));
    }

    void unpack() {
        check(raw->unpack(), "unpack");
        check_reports();
        const libraw_data_t& d = raw->imgdata;
        // Some decoders set the levels as they read the photosites.
        info.white = d.color.maximum;
        // LibRaw reads a DNG's WhiteLevel of 0 as none, and takes 65535 instead.
        if (const detail::TiffDirectory* dir = raw_directory())
            for (const std::uint64_t white : dir->white_levels)
                if (white == 0)
                    throw InputError(name +
                                     " is corrupt (its WhiteLevel is 0, which no black level lies "
                                     "below)");
        // No photosite value lies between such levels: the demosaic's scaling divides by their
        // difference.
        if (const std::uint32_t black = read_black_levels(); black >= info.white)
            throw InputError(name + " is corrupt (its black level " + std::to_string(black) +
                             " is not below its white level " + std::to_string(info.white) + ")");
        // The sensor's depth: the white level's bits, or more where photosites lie above it.
        info.sensor_depth = bits_for(info.white);
        if (d.rawdata.raw_image != nullptr) {
            const Region& v = info.visible;
            const std::size_t pitch = d.sizes.raw_pitch / 2;
            std::uint32_t most = 0;
            for (int y = 0; y < v.height; ++y) {
                const std::uint16_t* row =
                    d.rawdata.raw_image + static_cast<std::size_t>(v.y + y) * pitch + v.x;
                most = std::max<std::uint32_t>(most, *std::max_element(row, row + v.width));
            }
            if (bits_for(most) > info.sensor_depth) {
                info.sensor_depth = bits_for(most);
                mosaic_notes.push_back("photosites reach " + std::to_string(most) +
                                       ", above the white level " + std::to_string(info.white) +
                                       ": counted over " + std::to_string(info.sensor_depth) +
                                       " bits");
            }
        }
        if (info.sensor_depth > 16)
            throw InputError(name + ": its white level " + std::to_string(info.white) +
                             " needs more than 16 bits");
        if (info.mosaic_problem.empty()) {
            const Region& v = info.visible;
            info.left_out = static_cast<std::int64_t>(v.width) * v.height - 4 * info.quads();
            if (info.quads() == 0)
                info.mosaic_problem = "its visible area (" + std::to_string(v.width) + "x" +
                                      std::to_string(v.height) + ") holds no whole 2x2 quad";
            else if (info.left_out > 0)
                mosaic_notes.push_back(
                    "the visible area is " + std::to_string(v.width) + "x" +
                    std::to_string(v.height) + " photosites: its last " +
                    (v.width % 2 && v.height % 2 ? "column and row hold "
                     : v.width % 2               ? "column holds "
                                                 : "row holds ") +
                    std::to_string(info.left_out) +
                    " photosites of no whole 2x2 quad, which the CFA histograms leave out");
        }
    }

    Image mosaic() const {
        if (!info.mosaic_problem.empty())
            throw InputError(name + " has no 2x2 Bayer mosaic to count: " + info.mosaic_problem +
                             " (--camera-raw rgb reads its demosaiced image)");
        const libraw_data_t& d = raw->imgdata;
        if (d.rawdata.raw_image == nullptr)
            throw InputError(name + ": LibRaw gave no mosaic of one sample per photosite");
        const Region& v = info.visible;
        Image out(v.width / 2, v.height / 2, 4, SampleType::U16, info.sensor_depth);
        const std::size_t pitch = d.sizes.raw_pitch / 2;
        // Each quad position's channel of the image (R, G1, B, G2 at 0, 1, 2, 3).
        int offset[4];
        for (int p = 0; p < 4; ++p)
            offset[p] = channel_offset(kCfaColours[colour_at[p]].channel, 4);
        for (int qy = 0; qy < out.height(); ++qy) {
            std::uint16_t* dst = out.row_as<std::uint16_t>(qy);
            for (int dy = 0; dy < 2; ++dy) {
                const std::uint16_t* src =
                    d.rawdata.raw_image + static_cast<std::size_t>(v.y + 2 * qy + dy) * pitch + v.x;
                const int o0 = offset[dy * 2], o1 = offset[dy * 2 + 1];
                for (int qx = 0; qx < out.width(); ++qx) {
                    dst[4 * qx + o0] = src[2 * qx];
                    dst[4 * qx + o1] = src[2 * qx + 1];
                }
            }
        }
        return out;
    }

    // Why LibRaw cannot demosaic the sensor's data, or "": its X-Trans demosaic refuses, as
    // corrupt data ("Input/output error"), a sensor smaller than its tile of 512x512 photosites
    // and a 6x6 pattern of other proportions than 6 to 10 red, 16 to 24 green and 6 to 10 blue
    // photosites.
    std::string demosaic_problem() const {
        const libraw_data_t& d = raw->imgdata;
        if (d.idata.filters != 9) return {};
        if (d.sizes.width < LIBRAW_AHD_TILE || d.sizes.height < LIBRAW_AHD_TILE)
            return "its X-Trans sensor is " + std::to_string(d.sizes.width) + "x" +
                   std::to_string(d.sizes.height) +
                   " photosites, and LibRaw demosaics X-Trans only from " +
                   std::to_string(LIBRAW_AHD_TILE) + "x" + std::to_string(LIBRAW_AHD_TILE) +
                   " photosites (its tile) up";
        int count[4] = {};
        for (const auto& row : d.idata.xtrans)
            for (const char colour : row) ++count[colour & 3];
        if (count[0] < 6 || count[0] > 10 || count[1] < 16 || count[1] > 24 || count[2] < 6 ||
            count[2] > 10 || count[3] != 0)
            return "its X-Trans pattern holds " + std::to_string(count[0]) + " red, " +
                   std::to_string(count[1]) + " green and " + std::to_string(count[2]) +
                   " blue photosites of 36, and LibRaw demosaics X-Trans only with 6 to 10 red, "
                   "16 to 24 green and 6 to 10 blue";
        return {};
    }

    Image demosaiced() {
        if (const std::string problem = demosaic_problem(); !problem.empty())
            throw InputError(name + " cannot be demosaiced: " + problem);
        libraw_output_params_t& p = raw->imgdata.params;
        p.output_bps = 16;
        p.gamm[0] = 1.0;  // linear: no transfer curve
        p.gamm[1] = 1.0;
        p.no_auto_bright = 1;
        p.use_camera_wb = 1;
        p.output_color = 1;  // sRGB primaries
        p.highlight = 0;     // clip
        // Scaled by the white level the file declares. LibRaw's default takes the brightest
        // photosite for it instead when that lies above 75 % of it: a picture whose brightest
        // photosite is 3800 of 4095 would have it at 65535, as if clipped.
        p.adjust_maximum_thr = 0.0f;
        if (!processed) {
            check(raw->dcraw_process(), "demosaic");
            check_reports();
            processed = true;
        }
        int code = LIBRAW_SUCCESS;
        std::unique_ptr<libraw_processed_image_t, void (*)(libraw_processed_image_t*)> made(
            raw->dcraw_make_mem_image(&code), &LibRaw::dcraw_clear_mem);
        check(code, "demosaic");
        if (!made || made->type != LIBRAW_IMAGE_BITMAP || made->bits != 16 ||
            (made->colors != 1 && made->colors != 3))
            throw InputError(name + ": LibRaw's demosaic gave no 16-bit gray or RGB image");
        const int channels = made->colors;
        Image out(made->width, made->height, channels, SampleType::U16, 16);
        const std::size_t row_bytes = out.view().row_bytes();
        if (made->data_size < row_bytes * static_cast<std::size_t>(made->height))
            throw InputError(name + ": LibRaw's demosaic gave fewer samples than its size");
        for (int y = 0; y < out.height(); ++y)
            std::memcpy(out.row(y), made->data + static_cast<std::size_t>(y) * row_bytes,
                        row_bytes);
        return out;
    }
};

CameraRawReader::CameraRawReader(const Source& source, const DecodeOptions& options)
    : impl_(std::make_unique<Impl>()) {
    impl_->options = options;
    std::shared_ptr<const std::vector<std::uint8_t>> bytes = source.shared_bytes();
    if (!bytes)
        bytes = std::make_shared<const std::vector<std::uint8_t>>(detail::read_file(source.path()));
    const detail::Bytes all(*bytes);
    const detail::Bytes head = all.first(std::min(all.size(), detail::kCameraRawHead));
    const std::string format = detail::camera_raw_format(head, source.path()).value_or("raw");
    // (Without a path, camera_raw_format() judges the bytes alone.)
    impl_->named_only = !detail::camera_raw_format(head, "") &&
                        detail::sniff_image(head) != detail::ImageFormat::Tiff;
    // A DNG is a TIFF: every directory it points to, and every strip or tile, lies inside the
    // file (LibRaw reads what is missing as zeros: a cut EXIF gives a wrong focal length).
    if (format == "DNG" && !impl_->named_only) {
        impl_->layout = detail::tiff_layout(all, true);
        if (!impl_->layout->problem.empty())
            throw InputError(source.name() + " is truncated or corrupt (" + impl_->layout->problem +
                             ")");
    }
    impl_->open(source.name(), bytes);
    impl_->read_info(format);
    // The demosaiced size without demosaicing: a second LibRaw opened on the same bytes (its
    // size adjustment is meant for information only, and cannot precede processing).
    {
        Impl sizes;
        sizes.options = options;
        sizes.open(source.name(), bytes);
        sizes.check(sizes.raw->adjust_sizes_info_only(), "size");
        impl_->info.demosaiced_width = sizes.raw->imgdata.sizes.iwidth;
        impl_->info.demosaiced_height = sizes.raw->imgdata.sizes.iheight;
    }
    impl_->unpack();
}

CameraRawReader::~CameraRawReader() = default;

const CameraRawInfo& CameraRawReader::info() const {
    return impl_->info;
}

Image CameraRawReader::mosaic() const {
    return impl_->mosaic();
}

Image CameraRawReader::demosaiced() {
    return impl_->demosaiced();
}

Image CameraRawReader::view(CameraRawView view) {
    return view == CameraRawView::Cfa ? mosaic() : demosaiced();
}

std::vector<std::string> CameraRawReader::notes(CameraRawView view) const {
    std::vector<std::string> out = impl_->notes;
    if (view == CameraRawView::Cfa)
        out.insert(out.end(), impl_->mosaic_notes.begin(), impl_->mosaic_notes.end());
    return out;
}

bool CameraRawReader::corrupt() const {
    return impl_->corrupt;
}

}  // namespace hs::media
