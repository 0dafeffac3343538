// Photos: the file is read here (or a stream input's bytes taken from its Source), recognised
// by its magic bytes, its declared size checked against the limit and its structure checked for
// truncation (see formats.hpp) before any decoder sees it, so that a cut, hostile or
// unsupported file gives one clear InputError instead of a partial image, a decoder's warning
// or gigabytes of invented pixels. JPEG and PNG then go to libjpeg and libpng (codecs.hpp), PNM
// and PAM samples are taken as stored (formats.hpp), the other formats go to cv::imdecode:
// every decoder reads from memory, so files and stream inputs take one path.

#include <opencv2/core.hpp>
#include <opencv2/core/utils/logger.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <limits>
#include <mutex>
#include <sstream>

#include "codecs.hpp"
#include "histoscope/core/error.hpp"
#include "histoscope/media/atomic_file.hpp"
#include "histoscope/media/media.hpp"

namespace hs::media {

namespace detail {

void quiet_opencv() {
    static std::once_flag once;
    std::call_once(once,
                   [] { cv::utils::logging::setLogLevel(cv::utils::logging::LOG_LEVEL_SILENT); });
}

}  // namespace detail

namespace {

using detail::quiet_opencv;

constexpr std::uint64_t kOpenCvMaxPixels = std::uint64_t{1} << 30;

std::string depth_name(int depth) {
    switch (depth) {
        case CV_8S:
            return "8-bit signed";
        case CV_16S:
            return "16-bit signed";
        case CV_32S:
            return "32-bit signed";
        case CV_32F:
            return "32-bit float";
        case CV_64F:
            return "64-bit float";
        case CV_16F:
            return "16-bit float";
        default:
            return "depth " + std::to_string(depth);
    }
}

std::string one_line(std::string s) {
    std::replace(s.begin(), s.end(), '\n', ' ');
    while (!s.empty() && s.back() == ' ') s.pop_back();
    return s;
}

// What OpenCV's codecs print themselves: imdecode() catches its decoders' exceptions and writes
// them to std::cerr ("imdecode_(''): can't read data: OpenCV(4.6.0) ... error: (-2:Unspecified
// error) OpenCV TIFF: failed ... in function 'readData'") before returning an empty image.
// Captured for the scope of one call (a lock keeps two calls from swapping the buffer at once)
// and quoted inside our message instead.
class OpenCvChatter {
  public:
    OpenCvChatter() : lock_(mutex()), previous_(std::cerr.rdbuf(text_.rdbuf())) {}
    ~OpenCvChatter() { std::cerr.rdbuf(previous_); }
    OpenCvChatter(const OpenCvChatter&) = delete;
    OpenCvChatter& operator=(const OpenCvChatter&) = delete;
    // The complaint without OpenCV's framing, or "" when it said nothing.
    std::string detail() const {
        std::string said = one_line(text_.str());
        if (said.empty()) return {};
        // "... error: (-2:Unspecified error) WHAT in function 'readData'": WHAT.
        const auto error = said.find("error: (");
        const auto what = error == std::string::npos ? error : said.find(") ", error);
        if (what != std::string::npos) said = said.substr(what + 2);
        if (const auto at = said.find(" in function"); at != std::string::npos) said.resize(at);
        return said;
    }

  private:
    static std::mutex& mutex() {
        static std::mutex m;
        return m;
    }
    std::lock_guard<std::mutex> lock_;
    std::ostringstream text_;
    std::streambuf* previous_;
};

[[noreturn]] void unsupported_samples(const std::string& name, const std::string& type) {
    throw InputError(name + " has an unsupported sample type (" + type +
                     "): only 8-bit and 16-bit unsigned samples and 32-bit floats (OpenEXR, "
                     "PFM, float TIFF) can be read");
}

// What a TIFF's first page declares of its samples, judged before OpenCV sees them (its decoder
// asserts on 32-bit unsigned samples, in words of its own): "" when they are 8- or 16-bit
// unsigned, or fewer bits (bilevel, palette), or floats (float_images.cpp reads 16- and 32-bit
// ones and names the widths it does not), else their type ("32-bit unsigned").
std::string tiff_sample_problem(const detail::TiffLayout& layout) {
    const detail::TiffDirectory d = layout.first_page();
    const std::string bits = std::to_string(d.bits) + "-bit ";
    switch (d.sample_format) {
        case 1:
            return d.bits > 16 ? bits + "unsigned" : std::string();
        case 2:
            return bits + "signed";
        case 3:
            return {};
        default:
            return "sample format " + std::to_string(d.sample_format);
    }
}

// Decoded BGR(A)/gray Mat -> hs::Image in RGB(A)/gray order, written straight into the
// image's storage.
Image to_image(const cv::Mat& m, const std::string& name) {
    SampleType type;
    int depth;
    if (m.depth() == CV_8U) {
        type = SampleType::U8;
        depth = 8;
    } else if (m.depth() == CV_16U) {
        type = SampleType::U16;
        depth = 16;
    } else {
        unsupported_samples(name, depth_name(m.depth()));
    }
    const int in_channels = m.channels();
    if (in_channels < 1 || in_channels > 4)
        throw InputError(name + " has " + std::to_string(in_channels) +
                         " channels: only gray, gray+alpha, RGB and RGBA can be read");
    const int out_channels = in_channels == 2 ? 4 : in_channels;
    Image img(m.cols, m.rows, out_channels, type, depth);
    cv::Mat dst(m.rows, m.cols, CV_MAKETYPE(m.depth(), out_channels), img.data(), img.stride());
    switch (in_channels) {
        case 1:
            m.copyTo(dst);
            break;
        case 2: {
            const int from_to[] = {0, 0, 0, 1, 0, 2, 1, 3};  // gray, gray, gray, alpha
            cv::mixChannels(&m, 1, &dst, 1, from_to, 4);
            break;
        }
        case 3:
            cv::cvtColor(m, dst, cv::COLOR_BGR2RGB);
            break;
        default:
            cv::cvtColor(m, dst, cv::COLOR_BGRA2RGBA);
            break;
    }
    if (dst.data != reinterpret_cast<uchar*>(img.data()))
        throw std::logic_error("OpenCV reallocated a preallocated image");
    return img;
}

// The formats write_image() produces, and what each stores without loss of depth or alpha
// (OpenCV would silently convert 16-bit samples to 8 bits or drop the alpha channel).
struct Writer {
    std::vector<std::string> extensions;
    const char* name;
    bool deep;                  // stores 16-bit samples
    std::vector<int> channels;  // channel counts it stores
};

const std::vector<Writer>& writers() {
    static const std::vector<Writer> w{
        {{".png"}, "PNG", true, {1, 3, 4}},
        {{".tif", ".tiff"}, "TIFF", true, {1, 3, 4}},
        {{".jpg", ".jpeg", ".jpe"}, "JPEG", false, {1, 3}},
        {{".bmp", ".dib"}, "BMP", false, {1, 3}},
        {{".webp"}, "WebP", false, {1, 3}},
        {{".ppm"}, "PPM", true, {3}},
        {{".pgm"}, "PGM", true, {1}},
        {{".pnm"}, "PNM", true, {1, 3}},
    };
    return w;
}

// The depth of a PNM's samples, which the format stores unscaled from 0 to its maxval (OpenCV
// reads them so): a maxval of 2^d - 1 is depth d (a 10-bit PGM's 1023, 16-bit samples counted
// over 1024 code values, not 65536). Another maxval is read at the fewest bits that hold it, and
// a note says that the code values above it do not occur; 8-bit samples below 255 are counted
// as stored, with a note too.
int pnm_depth(std::uint64_t maxval, std::vector<std::string>& notes) {
    if (maxval == 0 || maxval == 255 || maxval == 65535) return 16;
    const int bits = std::max(8, static_cast<int>(std::bit_width(maxval)));
    const std::uint64_t top = (std::uint64_t{1} << bits) - 1;
    if (maxval != top)
        notes.push_back("the PNM's samples run from 0 to its maxval " + std::to_string(maxval) +
                        ", unscaled: they are counted over the " + std::to_string(bits) +
                        " bits that hold it (" + std::to_string(maxval + 1) + " to " +
                        std::to_string(top) + " do not occur)");
    return bits;
}

// The one path of every photo, from a file or a stream input: the checks, then the decoder.
LoadedImage decode_image(detail::Bytes bytes, const std::string& name,
                         const DecodeOptions& options) {
    if (bytes.empty()) throw InputError(name + " is empty");
    const detail::ImageFormat format = detail::sniff_image(bytes);
    if (format == detail::ImageFormat::Unknown)
        throw InputError(name + " is not an image format this build can read");
    if (format == detail::ImageFormat::Gif)
        throw InputError(
            name + ": GIF images are not supported by this build (OpenCV has no GIF decoder)");
    LoadedImage out;
    out.format = std::string(detail::format_name(format));
    if (format == detail::ImageFormat::Hdr)
        throw InputError(name + ": " + out.format +
                         " (RGBE) images are not read: float images are read from OpenEXR, PFM "
                         "and float TIFF files");

    std::string problem;
    bool float_tiff = false;
    if (format == detail::ImageFormat::Tiff) {
        const detail::TiffLayout layout = detail::tiff_layout(bytes);
        const detail::TiffDirectory page = layout.first_page();
        float_tiff = page.sample_format == 3;
        // SGI LogLuv: HDR in a lossy log encoding, which libtiff would turn into approximate
        // floats (OpenCV's default for float TIFF).
        if (page.compression == 34676 || page.compression == 34677)
            throw InputError(name +
                             ": TIFF of LogLuv (SGILOG) samples, a lossy HDR encoding, is not "
                             "read; a float TIFF holds IEEE floats (SampleFormat 3)");
        problem = layout.problem;
        if (const std::string type = tiff_sample_problem(layout); !type.empty())
            unsupported_samples(name, type);
        if (layout.pages > 1)
            out.notes.push_back("multi-page TIFF: using page 1 of " + std::to_string(layout.pages));
    } else {
        problem = detail::structure_problem(format, bytes);
    }
    // The size before anything is decoded: a header that declares too much costs nothing.
    const auto header = detail::image_header(format, bytes);
    if (!header)
        throw InputError(
            name + " is truncated or corrupt (" +
            (problem.empty() ? "its " + out.format + " header is incomplete" : problem) + ")");
    detail::check_pixel_limit(name, "its " + out.format + " header", header->width, header->height,
                              options.max_pixels);
    if (!header->impossible.empty())
        throw InputError(name + " is corrupt (" + header->impossible + ")");
    // libjpeg and libpng can return what precedes the damage; OpenCV's other decoders cannot.
    const bool partial_possible =
        format == detail::ImageFormat::Jpeg || format == detail::ImageFormat::Png;
    if (!problem.empty() && !(options.allow_corrupt && partial_possible))
        throw InputError(name + " is truncated or corrupt (" + problem + ")");

    if (format == detail::ImageFormat::Pfm || format == detail::ImageFormat::OpenExr ||
        float_tiff) {
        detail::DecodedImage decoded = format == detail::ImageFormat::Pfm
                                           ? detail::decode_pfm(bytes, name, options)
                                       : format == detail::ImageFormat::OpenExr
                                           ? detail::decode_exr(bytes, name, options)
                                           : detail::decode_float_tiff(bytes, name, options);
        out.image = std::move(decoded.image);
        out.notes.insert(out.notes.end(), decoded.notes.begin(), decoded.notes.end());
        return out;
    }

    if (partial_possible) {
        detail::DecodedImage decoded = format == detail::ImageFormat::Jpeg
                                           ? detail::decode_jpeg(bytes, name, options)
                                           : detail::decode_png(bytes, name, options);
        out.image = std::move(decoded.image);
        out.notes.insert(out.notes.end(), decoded.notes.begin(), decoded.notes.end());
        out.corrupt = decoded.corrupt;
        if (!problem.empty() && !out.corrupt) {
            out.corrupt = true;
            out.notes.push_back(problem + ": the image is partial");
        }
        return out;
    }

    // OpenCV refuses images over OPENCV_IO_MAX_IMAGE_PIXELS (2^30 unless set in the
    // environment) with an assertion; say so in our words when a raised limit meets it.
    if (header->width * header->height > kOpenCvMaxPixels)
        throw InputError(name + ": " + out.format + " images of more than " +
                         std::to_string(kOpenCvMaxPixels) +
                         " pixels cannot be decoded (OpenCV's limit)");
    if (bytes.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()))
        throw InputError(name + ": " + out.format +
                         " files of 2 GiB or more cannot be decoded (OpenCV's limit)");
    // PNM samples as stored, at the depth of their maxval (bitmaps are OpenCV's).
    if (format == detail::ImageFormat::Pnm || format == detail::ImageFormat::Pam)
        if (std::optional<Image> samples =
                detail::pnm_samples(bytes, pnm_depth(detail::pnm_maxval(bytes), out.notes))) {
            out.image = std::move(*samples);
            return out;
        }
    cv::Mat decoded;
    std::string said;
    try {
        // A header over the bytes, not a copy: cv::imdecode only reads them.
        const cv::Mat data(1, static_cast<int>(bytes.size()), CV_8U,
                           const_cast<std::uint8_t*>(bytes.data()));
        const OpenCvChatter chatter;
        decoded = cv::imdecode(data, cv::IMREAD_UNCHANGED);
        said = chatter.detail();
    } catch (const cv::Exception& e) {
        throw InputError(name + " could not be decoded as " + out.format + ": " + one_line(e.err));
    }
    if (decoded.empty())
        throw InputError(name + " could not be decoded as " + out.format +
                         " (corrupt, truncated or a variant OpenCV cannot read" +
                         (said.empty() ? "" : ": " + said) + ")");
    out.image = to_image(decoded, name);
    return out;
}

}  // namespace

LoadedImage read_image(const Source& source, const DecodeOptions& options) {
    quiet_opencv();
    if (const std::vector<std::uint8_t>* bytes = source.bytes())
        return decode_image(*bytes, source.name(), options);
    return decode_image(detail::read_file(source.path()), source.name(), options);
}

LoadedImage read_image(const std::string& path, const DecodeOptions& options) {
    return read_image(Source(path, options), options);
}

namespace {

// The extensions of writers(), as a message lists them: ".png, .tif, ... or .pnm".
std::string listed(const std::vector<std::string>& extensions) {
    std::string text;
    for (std::size_t i = 0; i < extensions.size(); ++i)
        text += (i == 0 ? "" : i + 1 == extensions.size() ? " or " : ", ") + extensions[i];
    return text;
}

// Whether `path` names a terminal: a picture written there would be bytes on a screen.
bool is_terminal(const std::string& path) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return false;
    const bool terminal = ::isatty(fd) != 0;
    static_cast<void>(::close(fd));
    return terminal;
}

// The writer of `path`'s extension. A name without one that is a device (-o /dev/null) or a pipe
// (-o /dev/stdout into one) is written as PNG; a terminal is refused, and so is any other name
// without an extension or with one no writer has. `offered`: what the message names (the
// photos' extensions, or the caller's: ".png" alone, or with ".raw"). UsageError, and (with an
// image) when the writer cannot store the image without loss.
const Writer& writer_for(const std::string& path, const ImageView* image,
                         const std::vector<std::string>& offered) {
    const std::string name = detail::quoted(path);
    std::string ext = std::filesystem::path(path).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    const auto& all = writers();
    const std::vector<std::string> named = offered.empty() ? image_output_extensions() : offered;
    if (ext.empty()) {
        struct stat st {};
        const bool direct =
            ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
        if (direct && S_ISCHR(st.st_mode) && is_terminal(path))
            throw UsageError(name +
                             " is a terminal: a picture goes to a file, a pipe or a device such "
                             "as /dev/null");
        if (!direct)
            throw UsageError(name +
                             " has no extension to choose the picture's format by: name it " +
                             listed(named));
        ext = ".png";
    }
    const auto writer = std::find_if(all.begin(), all.end(), [&](const Writer& w) {
        return std::find(w.extensions.begin(), w.extensions.end(), ext) != w.extensions.end();
    });
    if (writer == all.end())
        throw UsageError(name + ": cannot write '" + ext + "' files (use " + listed(named) + ")");
    if (image == nullptr) return *writer;
    if (is_float(image->type))
        throw UsageError(name +
                         ": float samples are not written; tone map a float image to 8 "
                         "or 16 bits first (histoscope-cli equalize)");
    if (image->type == SampleType::U16 && !writer->deep)
        throw UsageError(name + ": " + writer->name +
                         " cannot store 16-bit samples (use .png or .tif)");
    const auto& stored = writer->channels;
    if (std::find(stored.begin(), stored.end(), image->channels) == stored.end()) {
        if (image->channels == 4 && stored.back() == 3)
            throw UsageError(name + ": " + writer->name +
                             " cannot store an alpha channel (use .png or .tif)");
        throw UsageError(name + ": " + writer->name + " cannot store a " +
                         std::to_string(image->channels) + "-channel image");
    }
    return *writer;
}

// Records `depth` as every channel's significant bits in the PNG `encoded`: an sBIT chunk right
// after IHDR (PNG wants it before PLTE and IDAT), which readers of the format (ours included)
// take as the depth the 16-bit samples were replicated from.
void add_sbit(std::vector<uchar>& encoded, int channels, int depth, const std::string& name) {
    constexpr std::size_t kIhdrEnd = 8 + 4 + 4 + 13 + 4;  // signature, length, type, data, CRC
    if (encoded.size() < kIhdrEnd || std::memcmp(encoded.data() + 12, "IHDR", 4) != 0)
        throw InputError("cannot write " + name + ": the PNG encoder wrote no IHDR chunk first");
    // One byte per channel as the file stores them: gray (1), RGB (3) or RGBA (4).
    std::vector<uchar> chunk{0, 0, 0, static_cast<uchar>(channels), 's', 'B', 'I', 'T'};
    chunk.insert(chunk.end(), static_cast<std::size_t>(channels), static_cast<uchar>(depth));
    const uLong crc =
        crc32(crc32(0L, Z_NULL, 0), chunk.data() + 4, static_cast<uInt>(chunk.size() - 4));
    for (int shift = 24; shift >= 0; shift -= 8)
        chunk.push_back(static_cast<uchar>((crc >> shift) & 0xffu));
    encoded.insert(encoded.begin() + static_cast<std::ptrdiff_t>(kIhdrEnd), chunk.begin(),
                   chunk.end());
}

}  // namespace

const std::vector<std::string>& image_output_extensions() {
    static const std::vector<std::string> extensions = [] {
        std::vector<std::string> out;
        for (const Writer& w : writers()) out.push_back(w.extensions.front());
        return out;
    }();
    return extensions;
}

void check_image_output(const std::string& path, const std::vector<std::string>& offered) {
    static_cast<void>(writer_for(path, nullptr, offered));
}

void check_image_output(const std::string& path, SampleType type, int channels) {
    ImageView shape;
    shape.type = type;
    shape.channels = channels;
    static_cast<void>(writer_for(path, &shape, {}));
}

void write_image(const std::string& path, const ImageView& given) {
    quiet_opencv();
    validate(given);
    const std::string name = detail::quoted(path);
    const Writer* writer = &writer_for(path, &given, {});
    const std::string ext = writer->extensions.front();

    // Samples of 8 to 15 bits in 16-bit ones go out as their bit replications (codecs.hpp):
    // written as they are, a 10-bit frame's largest value (1023) is 1.6% of the 16-bit range and
    // every other viewer shows the picture nearly black.
    ImageView image = given;
    Image replicated;
    const bool deep = given.type == SampleType::U16 && given.bit_depth < 16;
    if (deep) {
        try {
            replicated = detail::replicated_to_16_bits(given);
        } catch (const InputError& e) {
            throw InputError("cannot write " + name + ": " + e.what());
        }
        image = replicated.view();
    }

    const int depth = image.type == SampleType::U8 ? CV_8U : CV_16U;
    const cv::Mat view(image.height, image.width, CV_MAKETYPE(depth, image.channels),
                       const_cast<std::byte*>(image.data), image.stride);
    cv::Mat bgr;
    if (image.channels == 3)
        cv::cvtColor(view, bgr, cv::COLOR_RGB2BGR);
    else if (image.channels == 4)
        cv::cvtColor(view, bgr, cv::COLOR_RGBA2BGRA);
    else
        bgr = view;

    std::vector<uchar> encoded;
    bool ok = false;
    try {
        const OpenCvChatter chatter;
        ok = cv::imencode(ext, bgr, encoded);
    } catch (const cv::Exception& e) {
        throw InputError("cannot write " + name + " as " + writer->name + ": " + one_line(e.err));
    }
    if (!ok || encoded.empty())
        throw InputError("cannot write " + name + ": the " + std::string(writer->name) +
                         " encoder failed");
    if (deep && ext == ".png") add_sbit(encoded, given.channels, given.bit_depth, name);
    write_file_atomically(path, {reinterpret_cast<const char*>(encoded.data()), encoded.size()});
}

}  // namespace hs::media
