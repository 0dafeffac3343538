#pragma once
// Internal helpers of hs_media that need no OpenCV: reading files, recognising formats by their
// magic bytes, walking the structure of JPEG, PNG, TIFF, BMP, WebP and PNM files and reading
// the sizes their headers declare.
//
// The structural checks exist because decoders are lenient: libjpeg decodes a truncated JPEG
// into a partly grey image and only prints a warning, so a cut file would silently give a wrong
// histogram. Each check walks the container far enough to prove that every byte the decoder
// will need is present; it does not validate the compressed data itself.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "histoscope/media/media.hpp"

namespace hs::media::detail {

using Bytes = std::span<const std::uint8_t>;

// "'path'", the way every message names a file.
std::string quoted(const std::string& path);

// How long a FIFO is waited on for the program at its other end before it is refused: opening
// one blocks until there is one, which would otherwise be forever.
inline constexpr int kFifoWaitSeconds = 10;
// A descriptor of `path` open for reading (O_CLOEXEC). A FIFO waits at most kFifoWaitSeconds
// for a writer. Throws InputError "cannot read 'path': <reason>".
int open_for_reading(const std::string& path);
struct FileCloser {
    void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;
// The same as a stdio stream. Throws InputError "cannot read 'path': <reason>".
File open_file(const std::string& path);
// A descriptor of the FIFO `path` open for writing (blocking, O_CLOEXEC), once a program reads
// it, within kFifoWaitSeconds. Throws InputError "cannot write 'path': <reason>".
int open_fifo_for_writing(const std::string& path);

// The whole file (possibly empty). Throws InputError "cannot read 'path': <reason>".
std::vector<std::uint8_t> read_file(const std::string& path);
// At most `max_bytes` from the start of the file; same errors as read_file.
std::vector<std::uint8_t> read_file_head(const std::string& path, std::size_t max_bytes);
// At most `max_bytes` from the start of the source: of its bytes, or of its file.
std::vector<std::uint8_t> source_head(const Source& source, std::size_t max_bytes);

enum class ImageFormat {
    Unknown,
    Jpeg,
    Png,
    Tiff,
    Bmp,
    WebP,
    Gif,
    Pnm,  // PBM, PGM, PPM (P1..P6)
    Pam,  // P7
    Pfm,
    Jpeg2000,
    OpenExr,
    Hdr,
    SunRaster,
};

// Magic-byte detection; needs at most the first 16 bytes.
ImageFormat sniff_image(Bytes head);
// "JPEG", "PNG", "TIFF", ... ("" for Unknown).
std::string_view format_name(ImageFormat format);

// Structural checks. Each returns an empty string when the file is complete, otherwise the
// reason, e.g. "JPEG stream ends before its EOI marker".
std::string jpeg_problem(Bytes file);
std::string png_problem(Bytes file);
std::string bmp_problem(Bytes file);
std::string webp_problem(Bytes file);

// What a directory says of its image: the fields a camera raw DNG is judged by (0 or empty
// where the directory does not say; integer values only, at most kMaxTiffValues of a CFA or
// level tag).
struct TiffDirectory {
    std::uint64_t subfile_type = 0;  // NewSubfileType: 0 for a full-resolution image
    std::uint64_t width = 0, height = 0, photometric = 0, compression = 0;
    std::uint64_t samples = 0, bits = 0;  // SamplesPerPixel, the first BitsPerSample
    std::uint64_t sample_format = 1;      // the first SampleFormat: 1 unsigned, 2 signed, 3 float
    std::uint64_t rows_per_strip = 0, tile_width = 0, tile_length = 0;
    std::vector<std::uint64_t> offsets, counts;  // of its strips or tiles
    // CFARepeatPatternDim (rows, columns), CFAPattern (TIFF/EP's colour codes: 0 red, 1 green,
    // 2 blue, 3 cyan, 4 magenta, 5 yellow, 6 white), CFAPlaneColor, WhiteLevel, ActiveArea
    // (top, left, bottom, right).
    std::vector<std::uint64_t> cfa_dims, cfa_pattern, cfa_planes, white_levels, active_area;
};
inline constexpr std::size_t kMaxTiffValues = 64;

struct TiffLayout {
    int pages = 0;
    std::uint64_t width = 0, height = 0;  // of page 1 (0 when its directory lacks them)
    std::uint64_t data_bytes = 0;         // of page 1's strips or tiles
    std::string problem;  // empty when every directory and strip/tile lies inside the file
    std::vector<TiffDirectory> directories;  // every directory walked, pages first

    // Page 1's directory (an empty one when none was read: SampleFormat 1, the rest 0).
    TiffDirectory first_page() const {
        return directories.empty() ? TiffDirectory{} : directories.front();
    }
};
// `sub_directories`: also every directory the pages point to (SubIFDs, EXIF, GPS,
// interoperability), as a DNG must hold them.
TiffLayout tiff_layout(Bytes file, bool sub_directories = false);

// PNM (P1..P6) and PAM (P7): empty when every sample the header declares is in the file and
// none exceeds the header's maxval. Decoders clamp such samples to maxval (then scale them),
// which would count a 300 in a file of maxval 10 as white.
std::string pnm_problem(Bytes file);

// PFM (Portable Float Map): "PF" (RGB) or "Pf" (gray), whitespace, width, whitespace, height,
// whitespace, the scale (its sign the byte order: negative little-endian), one whitespace byte,
// then width x height x channels 32-bit floats, rows from the bottom up. `problem` is set for a
// malformed header (then nothing else is), a raster cut short or bytes after it.
struct PfmHeader {
    std::uint64_t width = 0, height = 0;
    int channels = 0;
    bool little_endian = false;
    double scale = 0.0;
    std::size_t raster = 0;  // offset of the first sample
    bool complete_header = false;
    std::string problem;
};
PfmHeader pfm_header(Bytes file);

// OpenEXR: the magic and version, then part 0's header attributes, read far enough to know the
// image's size before the library allocates anything for it, and to prove that its chunk
// offset table is in the file. `problem` names what is malformed or missing.
struct ExrChannel {
    std::string name;
    int type = 0;  // 0 UINT, 1 HALF, 2 FLOAT
    int x_sampling = 1, y_sampling = 1;
};
struct ExrHeader {
    bool complete = false;  // the header (part 0's, and a multi-part file's others) was read
    std::int64_t x0 = 0, y0 = 0, width = 0, height = 0;  // dataWindow
    std::int64_t display_x0 = 0, display_y0 = 0, display_width = 0, display_height = 0;
    int compression =
        0;  // 0 none, 1 RLE, 2 ZIPS, 3 ZIP, 4 PIZ, 5 PXR24, 6 B44, 7 B44A, 8 DWAA, 9 DWAB
    bool tiled = false, multipart = false, deep = false;
    int parts = 1;
    std::vector<ExrChannel> channels;
    std::string problem;
};
ExrHeader exr_header(Bytes file);
// "zip", "piz", ... the name of an OpenEXR compression.
std::string exr_compression_name(int compression);

// The maxval a PNM (P2, P3, P5, P6) or PAM header declares: the largest value of its samples,
// which are stored unscaled. 0 for a bitmap (P1, P4), which has none, or a broken header.
std::uint64_t pnm_maxval(Bytes file);
// The samples of a PNM (P2, P3, P5, P6) or PAM (P7) file whose pnm_problem() is empty, as
// stored: unscaled, from 0 to the maxval, 8-bit up to a maxval of 255, else 16-bit of
// `deep_depth` bits; gray, RGB or RGBA (a PAM of gray and alpha as R, G, B, A). std::nullopt
// for a bitmap (P1, P4). (OpenCV scales the samples of an ASCII file of maxval below 255 to
// 0..255 and leaves a binary one's as stored.)
std::optional<Image> pnm_samples(Bytes file, int deep_depth);

// Structural problem of `file` in `format` (empty when complete or not checked).
std::string structure_problem(ImageFormat format, Bytes file);

// What a header declares, read before anything is decoded so that a hostile header cannot make
// a decoder allocate and fill gigabytes for a few bytes of file.
struct ImageHeader {
    std::uint64_t width = 0, height = 0;
    // Set when the file's data cannot hold the image the header declares, however well it
    // compresses: JPEG's Huffman coding spends at least one bit per 8x8 block of the first
    // scan, deflate (PNG) at most expands 1032 times; a float TIFF's strips hold every byte
    // uncompressed, at least one in 4096 through deflate, LZW or PackBits; an uncompressed
    // OpenEXR file every byte of its pixels.
    std::string impossible;
};
// std::nullopt when the header is not there to read (the file is cut inside it).
std::optional<ImageHeader> image_header(ImageFormat format, Bytes file);

// Throws InputError when `width` x `height` is more than `max_pixels`; `what` says whose size
// it is ("its JPEG header", "its video stream").
void check_pixel_limit(const std::string& name, const std::string& what, std::uint64_t width,
                       std::uint64_t height, std::uint64_t max_pixels);

// The camera raw format of an input whose first bytes are `head` (at least kCameraRawHead of
// them when it has that many) and whose name is `path` ("" for none): "DNG", "CR2", "NEF", ...
// (see media.hpp, camera raw files); std::nullopt when it is none.
inline constexpr std::size_t kCameraRawHead = std::size_t{1} << 16;
std::optional<std::string> camera_raw_format(Bytes head, const std::string& path);

// Empty when this build opens `source` as a video and decodes a frame of it with `options`;
// why not for an input FFmpeg recognises as a video container; std::nullopt for anything else
// (always, without OpenCV). Lives next to VideoReader.
std::optional<std::string> video_problem(const Source& source, const DecodeOptions& options);
// Whether FFmpeg recognises any container in `head`, the first bytes of an input (always false
// without OpenCV): what lets a stream input that is neither be refused before it is read whole.
bool may_be_video(Bytes head);

// The InputError for an input that is neither an image nor a video this build reads.
[[noreturn]] void not_media(const std::string& name);

}  // namespace hs::media::detail
