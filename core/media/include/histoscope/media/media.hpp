#pragma once
// Reading and writing media. The only part of Histoscope that touches OpenCV; raw frames
// work without it (HS_WITH_OPENCV=OFF), so a GPU host without OpenCV still reads --raw input.
//
// Every failure throws hs::InputError with one line naming the file and the problem
// (unreadable, corrupt, truncated, unsupported format, empty, wrong raw size) or
// hs::UsageError for a malformed raw format string. Nothing here prints.

#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "histoscope/core/engine.hpp"
#include "histoscope/core/image.hpp"

namespace hs::media {

// True when built with OpenCV (photo and video decoding available).
bool have_opencv();

// What decoding a photo or video may cost and tolerate. Sizes come from a file's header, which
// a hostile file can make anything: they are checked against max_pixels (and, where the
// format allows, against what the file's data can hold) before anything is decoded.
inline constexpr std::uint64_t kDefaultMaxPixels = std::uint64_t{1} << 30;  // 1 Gi pixels
struct DecodeOptions {
    std::uint64_t max_pixels = kDefaultMaxPixels;  // per image or video frame
    // Decoder warnings (corrupt JPEG data, a PNG that ends early, a video frame decoded with
    // errors) are errors unless this is set; then the partial image is returned, marked
    // corrupt, with a note saying what was wrong.
    bool allow_corrupt = false;
    // Threads of the video decoders that keep their reports whole with them (HEVC, VP9, FFV1,
    // ProRes: see video.cpp); 0: one per core. Others always decode on one thread.
    int decoder_threads = 0;
};

// --- raw frames: "WxHxC:u8" or "WxHxC:u16" with an optional declared depth "WxHxC:u16:12".
// 16-bit samples are little-endian. Interleaved, rows tightly packed.
using RawFormat = FrameFormat;                        // WIDTHxHEIGHTxCHANNELS:u8|u16[:DEPTH]|f32
RawFormat parse_raw_format(const std::string& text);  // throws UsageError
std::string to_string(const RawFormat& format);
// Of a float image with NaN or infinite samples, the note that says how many ("3 samples are
// NaN and 1 sample is infinite: the histograms count them apart, as non-finite"): they are
// data, not damage, but no bin holds them. "" otherwise (and for integer samples).
std::string non_finite_note(const ImageView& image);
// How many whole frames `bytes` bytes of input hold, and the bytes after them: the start of a
// frame cut short, which every raw reader reports as truncated (truncated_raw_frame), the
// whole frames before it read as they are. Throws InputError, naming the input as `what`, for
// an input that holds no whole frame (empty or shorter than one frame): the check every raw
// reader makes.
struct RawFrameCount {
    std::int64_t frames = 0;        // whole frames
    std::uint64_t extra_bytes = 0;  // of frame `frames`, cut short (0: none)
};
RawFrameCount raw_frame_count(std::uint64_t bytes, const RawFormat& format,
                              const std::string& what);
// What every raw reader says of frame `index` cut short after `got` of its bytes: "frame 3 is
// truncated: the file ends after 1000 of its 5529600 bytes" (`source`: "file" or "input").
std::string truncated_raw_frame(std::int64_t index, std::uint64_t got, const RawFormat& format,
                                const std::string& source);

// Frame `index` of a raw file or of standard input ("-"), and how many whole frames the input
// holds. The size is checked before anything is allocated for a file (of which only that frame
// is read), and as the data arrives on a pipe (memory follows the data: a frame declared huge
// costs nothing on a short input). Throws InputError for an input holding no whole frame, for
// the truncated frame (its message truncated_raw_frame's) or an index past it. An input that
// ends inside a frame after the one read says so in `truncated` (a note: the frames before it
// are whole).
//
// A stream input (a pipe, a FIFO, a device) cannot tell its size: with RawCount::All it is read
// to its end to count its frames (a device, which has no end, is refused); with
// RawCount::UpToFrame only up to the end of frame `index` (`frames` is then index + 1: what
// follows is neither read nor checked, so /dev/zero gives its first frame at once).
enum class RawCount { All, UpToFrame };
struct RawFrame {
    Image image;
    std::int64_t frames = 0;        // whole frames
    std::uint64_t extra_bytes = 0;  // after them, of a frame cut short
    std::string truncated;          // "" or the note that says so
};
RawFrame read_raw_frame(const std::string& path, const RawFormat& format, std::int64_t index,
                        RawCount count = RawCount::All);
// Every whole frame of the input (read_raw_frame's checks).
struct RawFrames {
    RawFormat format;
    std::vector<Image> frames;
    std::uint64_t extra_bytes = 0;  // after them, of a frame cut short
    std::string truncated;          // "" or the note that says so
};
RawFrames read_raw(const std::string& path, const RawFormat& format);

// Puts the 16-bit samples of `bytes` raw bytes (little-endian in the file) in host order, and
// refuses (InputError) a sample above the format's declared depth (u16:12 holding 5000).
void raw_to_host_samples(std::byte* data, std::size_t bytes, const RawFormat& format);

// Raw frames read one at a time (streams of any length: a file or standard input, "-").
class RawStreamReader {
  public:
    RawStreamReader(const std::string& path, const RawFormat& format);  // throws InputError
    ~RawStreamReader();
    RawStreamReader(const RawStreamReader&) = delete;
    RawStreamReader& operator=(const RawStreamReader&) = delete;

    const RawFormat& format() const { return format_; }
    // Reads the next frame into `dst` (format().frame_bytes() bytes, 16-bit samples in host
    // order) and returns the bytes read: frame_bytes() for a whole frame, 0 at the end, or
    // fewer when the stream ends inside a frame (a truncated frame; the end follows). Throws
    // InputError when reading fails.
    std::size_t read_into(std::byte* dst);
    // Up to `bytes` bytes as they come (fewer only at the end), in file order (16-bit samples
    // little-endian: see raw_to_host_samples).
    std::size_t read_some(std::byte* dst, std::size_t bytes);
    // Whether the next read starts without waiting for a writer: always for a file; for standard
    // input or a pipe, whether bytes are waiting (a read may still wait for the rest).
    bool ready() const;
    // Starts over at the first frame; false for standard input and other unseekable streams.
    bool rewind();
    // Goes to frame `index` (the next read returns it; past the end, the next read returns 0);
    // false for a negative index, standard input and other unseekable streams.
    bool seek(std::int64_t index);

  private:
    // A frame of a file large enough to be read in parts by several threads at once.
    bool large_from_file(std::size_t bytes) const;
    std::size_t read_parts(std::byte* dst, std::size_t bytes);

    std::FILE* file_ = nullptr;
    bool owned_ = false;
    bool regular_ = false;  // a regular file (standard input too when redirected from one)
    std::string name_;
    RawFormat format_;
};

// --- photos and video: files, and inputs that can be read only once
// Standard input ("-"), pipes (/dev/fd/N, a shell's <(...)), FIFOs, sockets and character devices
// can be neither sought nor read twice: they are read once, whole, into memory and probed and
// decoded from there, with the checks a file gets. Anything else is read from its file, and so
// is standard input redirected from a regular file (read from its start, as /dev/stdin).
bool is_stream_input(const std::string& path);
// The most bytes a stream input may hold: what an uncompressed image of options.max_pixels
// 16-bit RGBA pixels takes (8 bytes a pixel), plus 64 MiB for headers, metadata and container.
std::uint64_t stream_input_limit(const DecodeOptions& options);

// A photo or video to decode: a file, read where it lies each time, or the bytes of a stream
// input. Copies share the bytes.
class Source {
  public:
    // Reads a stream input whole, in chunks as the data arrives (memory follows the data), and
    // throws InputError when it cannot be read, is empty or a terminal, holds data that is no
    // image or video, declares more than options.max_pixels pixels in its header, or holds
    // more than stream_input_limit(options) bytes. A file is only named here.
    explicit Source(const std::string& path, const DecodeOptions& options = {});
    const std::string& path() const { return path_; }  // "/dev/stdin" for "-" from a file
    // How messages name it: "standard input" for "-", else the path in quotes.
    const std::string& name() const { return name_; }
    // The bytes of a stream input; nullptr for a file.
    const std::vector<std::uint8_t>* bytes() const { return bytes_.get(); }
    // The same, shared (kept alive by a reader that outlives the Source).
    std::shared_ptr<const std::vector<std::uint8_t>> shared_bytes() const { return bytes_; }

  private:
    std::string path_, name_;
    std::shared_ptr<const std::vector<std::uint8_t>> bytes_;
};

// --- photos
struct LoadedImage {
    Image image;
    std::string format;              // "JPEG", "PNG", "TIFF", "BMP", "WebP", ...
    std::vector<std::string> notes;  // e.g. "multi-page TIFF: using page 1 of 3"
    bool corrupt = false;            // only with DecodeOptions::allow_corrupt (see notes)
};
// Reads a photo keeping its depth (8/16-bit) and alpha, channels in RGB(A) order. JPEG and PNG
// are decoded by libjpeg and libpng directly, the samples of PNM (but bitmaps) and PAM here,
// every other format by OpenCV; nothing is printed. A PNM's samples are read as stored, from 0
// to its maxval, at the depth of the fewest bits that hold the maxval (a note says which values
// do not occur when it is not 2^d - 1).
// A 16-bit PNG whose sBIT chunk gives all its channels one depth d of 8..15, and whose every
// sample is the bit replication of its top d bits (what write_image() writes), is read at depth
// d, each sample its top d bits; a note says when sBIT gives a depth the samples do not follow,
// a depth below 8, or different depths for its channels (read as 16-bit samples).
LoadedImage read_image(const Source& source, const DecodeOptions& options = {});
LoadedImage read_image(const std::string& path, const DecodeOptions& options = {});
// Writes 8/16-bit 1/3/4-channel images; the format follows the extension: .png and .tif/.tiff
// store everything; .jpg/.jpeg, .bmp and .webp store 8-bit gray or RGB; .ppm (RGB), .pgm (gray)
// and .pnm (either) store 8 or 16 bits; a device (/dev/null) or a pipe (/dev/stdout into one)
// named without an extension gets PNG. A terminal, another name without an extension, another
// extension, or an image the format cannot hold without loss of depth or alpha, is a
// UsageError naming the path; a failing write an InputError. 16-bit samples of a depth d below 16
// are written as their bit replications v << (16 - d) | v >> (2d - 16), so that other viewers show
// them at their brightness (an InputError for a sample above d, which has none); PNG records d in
// its sBIT chunk, TIFF and PNM keep no depth.
void write_image(const std::string& path, const ImageView& image);
// The extensions write_image() writes, one per format: ".png", ".tif", ".jpg", ... (none
// without OpenCV).
const std::vector<std::string>& image_output_extensions();
// The extension check of write_image(), before there is an image: UsageError. `offered`: the
// extensions its message names (default: image_output_extensions()), for a caller that writes
// some of them only (".png") or more (".raw" frames of its own).
void check_image_output(const std::string& path, const std::vector<std::string>& offered = {});
// And whether the format stores an image of `type` and `channels` (its depth, its alpha).
void check_image_output(const std::string& path, SampleType type, int channels);

// --- video
// How a video stream codes its pixels, as its decoder reports them (FFmpeg's names).
struct VideoCoding {
    std::string pixel_format;  // "yuv420p10le", "yuvj420p", "gbrp12le", "rgb24", ...
    int bit_depth = 8;         // the coded depth of its samples: 8, 10, 12, 16, ...
    // "ycbcr" (Y'CbCr planes: the channels y, cb, cr), "rgb", "gray", or "" for a layout
    // this reader takes through swscale (8-bit packed or paletted formats).
    std::string family;
    std::string chroma;  // Y'CbCr: "4:2:0", "4:2:2", "4:4:4", "4:4:0", "4:1:1"; else ""
    int chroma_shift_x = 0, chroma_shift_y = 0;  // log2 of the chroma subsampling
    bool alpha = false;                          // an alpha plane
    // Whether the frames carry that plane as their fourth channel (R, G, B, A): deep Y'CbCr and
    // R'G'B' streams do; 8-bit streams (converted as OpenCV converts them) and gray with alpha
    // leave it out.
    bool alpha_read = false;
    // The channels of the frames delivered: 1 for deep gray, 4 with alpha_read, else 3.
    int frame_channels() const {
        return bit_depth > 8 && family == "gray" ? 1 : alpha_read ? 4 : 3;
    }
    // The Y'CbCr matrix ("bt709", "bt470bg" = Rec.601, "smpte170m" = Rec.601, "bt2020nc",
    // ...). When the stream does not say, matrix_assumed is set and matrix is "bt709" for
    // frames taller than 576 lines, else "smpte170m", as players guess it.
    std::string matrix;
    bool matrix_assumed = false;
    // Code value range: limited ("tv": Y' 16..235, Cb/Cr 16..240 at 8 bits, times 2^(depth-8))
    // or full ("pc"). When the stream does not say, range_assumed is set and it is limited
    // (full for the yuvj formats, which are full range by definition).
    bool full_range = false;
    bool range_assumed = false;
    std::string transfer;   // "bt709", "smpte2084" (PQ), "arib-std-b67" (HLG), "unknown", ...
    std::string primaries;  // "bt709", "bt2020", "unknown", ...
    std::string range_name() const { return full_range ? "full" : "limited"; }
    // Y'CbCr at limited range: its Y' has a span, black to white, with room below and above it
    // (LumaExcursions counts what lies there).
    bool limited_luma() const { return family == "ycbcr" && !full_range; }
    // How the frames' R, G, B come from the coded samples: "opencv" (8-bit Y'CbCr: swscale with
    // its default Rec.601 coefficients and bicubic chroma, whatever `matrix` says, so that the
    // frames equal cv::VideoCapture's), "exact" (deep Y'CbCr: YCbCrToRgb with `matrix` and the
    // range) or "as coded" (R'G'B' and gray).
    std::string rgb_conversion() const {
        if (family == "rgb" || family == "gray") return "as coded";
        return bit_depth <= 8 ? "opencv" : "exact";
    }
};

// The coded planes of one frame: views into the decoder's frame (one channel each, u8 or u16
// at the coded depth; chroma at its subsampled size), valid until the reader reads or seeks.
struct VideoPlanes {
    ImageView y, cb, cr;
};

// Frames decoded by FFmpeg's libraries, numbered from the container (the timestamps and the
// index of the stream), not by counting what decoded: a frame that is missing or fails to
// decode is reported in its place and the numbers after it stay right. Nothing is printed.
//
// Frames come as R, G, B: 8-bit streams converted as OpenCV converts them (swscale, bicubic,
// its default Rec.601 coefficients), deeper ones (planar Y'CbCr, planar RGB or gray, 9 to 16
// bits) as 16-bit samples at the coded depth, converted by the exact integer formula of
// ycbcr_to_rgb() with the stream's matrix and range (chroma not interpolated: each Cb, Cr
// sample serves the pixels it covers). planes() gives the coded Y', Cb, Cr values themselves.
class VideoReader {
  public:
    // Both throw InputError. A stream input's bytes are read from memory, seekable as a file.
    explicit VideoReader(const Source& source, const DecodeOptions& options = {});
    explicit VideoReader(const std::string& path, const DecodeOptions& options = {});
    ~VideoReader();
    VideoReader(const VideoReader&) = delete;
    VideoReader& operator=(const VideoReader&) = delete;

    int width() const;
    int height() const;
    // As the container reports it: the entries of its index that carry data (AVI headers also
    // count empty "dropped frame" chunks, which decode to nothing), else the header's count,
    // else 0.
    std::int64_t frame_count() const;
    // The frames whose data is in the file: index entries inside it, or, without an index,
    // the packets a pass over the file finds. Differs from frame_count() for a truncated file.
    std::int64_t frames_in_file() const;
    // True when the container stores no frame count (Matroska, WebM, MPEG-TS): frame_count()
    // is then counted by a pass over the file's packets when it opens. The frames are numbered
    // by the ranks of their timestamps. A hole between them (a variable frame rate leaves some)
    // is no frame, unless frames were lost there: where the demuxer reported damage, before
    // the first packet when it reported damage before it (back to the start the container
    // places), and after the last when the packets end before the duration the container
    // declares (a cut file); those take the times of the stream's rate (README, "Frame counts").
    bool frames_counted() const;
    // Why such a file holds fewer frames than it was made with (lost ones, or a cut), else "".
    std::string missing_frames() const;
    // The stream's nominal frame rate (its container's or its codec's) where every frame's time
    // lies on its grid (fps_nominal()), else the average rate of its frames' times. (Without an
    // index or a pass over its packets to give the times, the average FFmpeg gives.)
    double fps() const;
    bool fps_nominal() const;
    std::string codec() const;  // FourCC, e.g. "FMP4", "avc1"
    // How the stream codes its pixels (from its first frame when the header does not say).
    const VideoCoding& coding() const;
    // The frames read_frame() delivers: 8-bit RGB for 8-bit streams; for deeper ones 16-bit
    // samples at the coded depth, RGB or (gray streams) one channel.
    FrameFormat frame_format() const;
    // Whether read_frame() converts frames to R, G, B (default true). Off, `out` is left alone
    // and the frame is in planes() only (Y'CbCr streams): no conversion is paid for.
    void set_rgb(bool convert);
    // Whether read_frame() also keeps the planes (default false). On, a stream that is not
    // Y'CbCr coded is refused (InputError) and every frame's planes are checked for samples
    // above the coded depth (a Failed frame).
    void set_planes(bool keep);
    // The Y', Cb, Cr planes of the frame read_frame() delivered last (set_planes(true)).
    VideoPlanes planes() const;
    void seek(std::int64_t frame);  // throws InputError when out of range
    // Next frame in RGB order (8-bit), or std::nullopt at the end; throws InputError (with
    // failure()) for a frame that is missing or fails to decode.
    std::optional<Image> read();

    // For streams that go on past bad frames: the next frame into `out` (Ok), a frame that is
    // missing or failed to decode (Failed: failure() says why, and the next call goes on with
    // the next frame), or the end (End), once every frame the container declares
    // (frame_count()) was delivered or reported: the frames a file cut short lacks are Failed,
    // each in its place. A frame decoded with errors, or depending on a damaged one, is Failed
    // too, unless DecodeOptions::allow_corrupt: then it is Ok and corrupt() says so. Frames are
    // numbered in presentation order, and Failed, kept and their reasons are the same on any
    // number of decoder threads. Never throws for bad data. `out` keeps its storage when it already
    // has the frame's shape (no allocation per frame).
    enum class FrameStatus { Ok, Failed, End };
    FrameStatus read_frame(Image& out);
    // The same, the frame written packed into `dst` (frame_format().frame_bytes() bytes): no
    // copy on the way to a stream's input buffer. InputError for a frame of another size than
    // the stream declares.
    FrameStatus read_frame_into(std::byte* dst);
    // The first frame from here that can be read, into `out` (Ok), or End when none can
    // (failure() then says why, when some failed); the reasons of the frames that failed
    // before it, in order, into `failed`: what opening a clip shows and describes, its damaged
    // start said rather than refused.
    FrameStatus read_first_good(Image& out, std::vector<std::string>& failed);
    // Index of the frame the next read returns.
    std::int64_t position() const;
    // The presentation time of frame `frame`, in seconds after frame 0's: the container's
    // (its index, or the pass over its packets) where it gives one; past it, and without one,
    // a frame period (1 / fps()) a frame.
    double frame_time(std::int64_t frame) const;
    // Whether the frame delivered last was decoded with errors (only with allow_corrupt).
    bool corrupt() const;
    // Why the last Failed frame failed, or why the last corrupt frame is corrupt.
    const std::string& failure() const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// The exact integer conversion of deep Y'CbCr code values to R', G', B' code values of the same
// depth (full range), for a matrix ("bt709", "bt470bg", "smpte170m", "bt2020nc", "smpte240m",
// "fcc") and a range. With Kr, Kb the matrix's weights, Kg = 1 - Kr - Kb, M = 2^depth - 1,
// limited range Y0 = 16 * 2^(depth-8), SY = 219 * 2^(depth-8), SC = 224 * 2^(depth-8), full
// range Y0 = 0, SY = SC = M, C0 = 2^(depth-1), and every coefficient rounded to 20 fraction bits
// (q(x) = round(x * 2^20)):
//   y = q(M / SY) * (Y - Y0), cb = Cb - C0, cr = Cr - C0,
//   R = clamp((y + q(2 (1-Kr) M / SC) cr + 2^19) >> 20, 0, M)
//   G = clamp((y - q(2 (1-Kb) Kb/Kg M / SC) cb - q(2 (1-Kr) Kr/Kg M / SC) cr + 2^19) >> 20, 0, M)
//   B = clamp((y + q(2 (1-Kb) M / SC) cb + 2^19) >> 20, 0, M)
// in 64-bit integers (>> rounds towards minus infinity). Throws InputError for another matrix.
struct YCbCrToRgb {
    std::int64_t y0 = 0, c0 = 0, max = 0;
    std::int64_t y = 0, cr_r = 0, cb_g = 0, cr_g = 0, cb_b = 0;  // the q() coefficients
    static YCbCrToRgb make(const std::string& matrix, bool full_range, int bit_depth);
    void convert(std::uint32_t Y, std::uint32_t Cb, std::uint32_t Cr, std::uint32_t rgb[3]) const;
};

// A limited-range frame's coded Y' samples outside its nominal span: below black
// (Y' < 16 * 2^(depth-8): 16 at 8 bits, 64 at 10) and above white (Y' > 235 * 2^(depth-8):
// 235, 940). Footroom and headroom that limited range leaves on purpose (undershoots of sharp
// edges, superwhites), which its conversion to R', G', B' clamps to 0 and the maximum.
struct LumaExcursions {
    std::uint32_t black = 0, white = 0;  // the nominal span, at the depth
    std::uint64_t below = 0, above = 0;  // samples outside it
    std::uint64_t samples = 0;           // of the Y' plane
};
// Of the Y' plane `y` (one channel) of a frame coded at `bit_depth` (8 to 16).
LumaExcursions luma_excursions(const ImageView& y, int bit_depth);

// Writes frames of one format to a video file with FFmpeg's encoders and muxers. 8-bit RGB as
// OpenCV's writer did: .mp4 (MPEG-4 Part 2, "mp4v"), .avi (Motion JPEG), .mkv (MPEG-4 Part 2,
// "XVID"); an odd last column or row is left out (4:2:0). Deeper frames (u16: gray, R, G, B or
// R, G, B, A of 9 to 16 bits) only to .mkv, losslessly as FFV1 (version 3, every frame a key
// frame) in planar gray or G, B, R(, A) of the first depth FFV1 has at least theirs (9, 10, 12,
// 14 or 16 bits; 10, 12 or 16 with alpha), so that they read back sample for sample. Every byte
// goes through an AtomicFile
// that close() commits once the encoder is drained and the container's trailer written, each
// step checked: a write that fails (a full disk) throws InputError, and a writer destroyed
// without close() leaves an existing file untouched. Throws InputError too when the file cannot
// be opened for the format or a frame does not match.
class VideoWriter {
  public:
    // `colour`: the transfer and primaries to record (FFmpeg's names, as VideoCoding has them:
    // an equalized HDR clip stays PQ or HLG for players); empty or unknown ones are left
    // unspecified.
    struct Colour {
        std::string transfer, primaries;
    };
    VideoWriter(const std::string& path, const FrameFormat& format, double fps,
                const Colour& colour = {});
    // 8-bit RGB frames of width x height.
    VideoWriter(const std::string& path, int width, int height, double fps);
    ~VideoWriter();
    VideoWriter(const VideoWriter&) = delete;
    VideoWriter& operator=(const VideoWriter&) = delete;
    // The next frame, a frame period after the one written before (the first at 0).
    void write(const ImageView& rgb);
    // A frame at its presentation time, `seconds` after the clip's start, on the grid of the
    // writer's rate (rounded to it, and at least a period after the frame before). Farther
    // than a period from the frame before, it leaves a gap (the frames that failed between
    // them): .mp4 and .mkv hold it, the frame before staying on screen until this one; in .avi,
    // whose frames all last one period, the frame before is repeated up to this one (the first
    // frame from 0).
    void write(const ImageView& rgb, double seconds);
    void close();

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};
// True for the extensions VideoWriter writes.
bool is_video_path(const std::string& path);
// Why VideoWriter would refuse frames of `format` for `path` (its extension, the frames' type,
// channels or depth), or "": its constructor's check, for callers that judge an output before
// the first frame is read.
std::string video_output_problem(const std::string& path, const FrameFormat& format);

// --- camera raw files, read by LibRaw
// Recognised by content where the format has a signature of its own (DNG: a TIFF whose first
// directory holds DNGVersion; CR2, CR3, CRW, ORF, RW2, RAF, X3F, MRW), and a TIFF whose first
// directory says CFA or linear raw data, or holds both a camera's Make and SubIFDs (where NEF
// and its kin keep the raw image behind a preview); else by the extension of a file laid out as
// TIFF or of no layout known here (NEF, ARW, PEF, SRW, ...: camera_raw_extensions()).
//
// Two views of one file:
// - Cfa: the photosites of LibRaw's visible area as the sensor recorded them (no black level
//   subtracted, no scaling), for 2x2 Bayer mosaics only. Each whole 2x2 quad is one pixel of a
//   4-channel image of half the width and height, u16 at the sensor's depth, its channels in
//   the order R, G1, B, G2 whatever the sensor's pattern (G1: the green on the rows of red, G2:
//   on the rows of blue), so that channels 0..2 are an RGB picture of the sensor at half size
//   for every path that reads them as R, G, B, and G2 is the fourth (hs::Channel A). Users see
//   them as r, g1, g2, b (kCfaColours). A last odd column or row holds photosites of no whole
//   quad: they are left out, counted in CameraRawInfo::left_out and said in a note.
// - Rgb: LibRaw's demosaic (AHD) of the same file into linear 16-bit R, G, B: the camera's
//   as-shot white balance, sRGB primaries, gamma 1 (linear), no automatic brightening, clipped
//   highlights, the camera's orientation applied: 65535 is the white level after white balance
//   (the scaling and the colour matrix round to the nearest code value, so that where the
//   photosites of every colour are at or above the white level each channel is 65535).
//   An ordinary 3-channel u16 image of depth 16 (one channel for monochrome sensors).
enum class CameraRawView { Cfa, Rgb };
std::string_view to_string(CameraRawView view);  // "cfa", "rgb"
// "cfa" or "rgb"; UsageError otherwise.
CameraRawView parse_camera_raw_view(std::string_view text);

// The CFA colours in the order they are listed to users, and the channel of the Cfa view's
// image each one is in.
struct CfaColour {
    const char* name;  // "r", "g1", "g2", "b"
    Channel channel;   // R, G, A, B: the image's channels 0, 1, 3, 2
};
inline constexpr CfaColour kCfaColours[4] = {
    {"r", Channel::R}, {"g1", Channel::G}, {"g2", Channel::A}, {"b", Channel::B}};
// Index into kCfaColours of the image channel `c` (R, G, B or A); -1 for any other.
int cfa_index(Channel c);
// "r", "g1", "g2", "b" for the image channel `c` (channel_name() for any other).
std::string_view cfa_channel_name(Channel c);
// A --channels list of the Cfa view: names of kCfaColours, each once, in any order, and "all"
// (the four) alone or among them (hs::expand_all). UsageError names what a mosaic has instead
// (r, g, b, a, luma, ...).
std::vector<Channel> parse_cfa_channels(std::string_view list);

// The extensions (lower case, with the dot) of camera raw files LibRaw reads. ".raw" is left
// out: it names the raw frames of --raw (a camera raw file so named is told by its content).
const std::vector<std::string>& camera_raw_extensions();

struct CameraRawInfo {
    std::string format;  // "DNG", "CR2", "NEF", ...
    std::string make, model;
    // As the file records them; 0 when it does not.
    double iso = 0.0;
    double exposure_s = 0.0;
    double aperture = 0.0;  // f-number
    double focal_length_mm = 0.0;
    std::string date;  // the camera's clock, "YYYY-MM-DD HH:MM:SS"; "" when not recorded
    int raw_width = 0, raw_height = 0;  // the sensor's readout, masked borders included
    Region visible;                     // LibRaw's visible area: the photosites of both views
    // What Rgb gives: the visible area after the orientation and any pixel aspect are applied.
    int demosaiced_width = 0, demosaiced_height = 0;
    int demosaiced_channels = 3;  // 1 for a monochrome sensor
    // "RGGB", "BGGR", "GRBG" or "GBRG" (the top-left quad of the visible area) for a 2x2 Bayer
    // mosaic of R, G and B; else "" and mosaic_problem says what the sensor is instead
    // (X-Trans, Foveon, a linear DNG, a DNG whose CFA tags name white or cyan photosites, ...).
    std::string cfa_pattern;
    std::string mosaic_problem;
    // The fewest bits that hold the white level, at least 8: 12 for 4095, 14 for 16383, 14
    // for a white level of 15000; more when photosites lie above the white level (some
    // cameras record past it), so that every sample fits (a note says so).
    int sensor_depth = 0;
    // Per CFA colour, in kCfaColours' order (r, g1, g2, b): LibRaw's black level (its common
    // level, the colour's own and the repeating pattern's at that quad position; the lowest,
    // with a note, where the pattern varies within a colour) and its white level (maximum).
    std::uint32_t black[4] = {0, 0, 0, 0};
    std::uint32_t white = 0;
    std::int64_t left_out = 0;  // photosites of a last odd column or row (in no whole quad)
    std::int64_t quads() const {
        return static_cast<std::int64_t>(visible.width / 2) * (visible.height / 2);
    }
};

// "1/250 s", "2.5 s": an exposure time as cameras show it ("" for 0).
std::string exposure_text(double seconds);
// The shot as the file records it: "ISO 400, 1/250 s, f/5.6, 35 mm, 2024-05-17 10:20:30" (what
// it does not record left out; "" when it records none of them).
std::string shot_text(const CameraRawInfo& info);

// A camera raw file, opened and unpacked by LibRaw (not demosaiced until demosaiced() is
// asked for). Every failure is an InputError naming the file: LibRaw's error codes, its reports
// of corrupt or missing data and its processing warnings (LibRaw's process_warnings: a white
// balance it could not apply, a decoder it lacks, ...) are errors here, as decoder warnings
// are for photos. The sizes the file declares are checked against options.max_pixels before
// anything is allocated for the photosites, and against what its data can hold: every byte of
// an uncompressed DNG's photosites (each strip or tile exactly the rows it stands for; bytes
// past the declared rows are noted), at least one bit per 8x8 block of photosites for any other
// (no codec LibRaw reads spends less), as JPEG's bound. With options.allow_corrupt, data LibRaw
// reports corrupt is kept, marked corrupt, with a note.
class CameraRawReader {
  public:
    explicit CameraRawReader(const Source& source, const DecodeOptions& options = {});
    ~CameraRawReader();
    CameraRawReader(const CameraRawReader&) = delete;
    CameraRawReader& operator=(const CameraRawReader&) = delete;

    const CameraRawInfo& info() const;
    // The Cfa view; InputError (saying what the sensor is) when it has no 2x2 Bayer mosaic.
    Image mosaic() const;
    // The Rgb view (LibRaw's processing, once).
    Image demosaiced();
    // The view asked for.
    Image view(CameraRawView view);
    // What a user of `view` is told: the file's notes (data kept with --allow-corrupt, bytes
    // past the declared size) and, of the Cfa view, the mosaic's (a black level that varies,
    // photosites above the white level that deepen it, photosites of no whole quad), which say
    // nothing of the demosaiced image.
    std::vector<std::string> notes(CameraRawView view) const;
    bool corrupt() const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// Photosites at or below a black level and at or above a white level ("clipped"), from a value
// histogram (value_counts[v]: the samples equal to v).
struct LevelCounts {
    std::uint64_t at_or_below_black = 0;
    std::uint64_t at_or_above_white = 0;
};
LevelCounts level_counts(const std::vector<std::uint64_t>& value_counts, std::uint32_t black,
                         std::uint32_t white);

// --- any input
enum class MediaKind { Image, Video, Raw, CameraRaw };
// Decides from the input's first bytes (and, failing that, whether a video decoder opens it
// and decodes a frame with `options`: their size limit, and with allow_corrupt a frame decoded
// from damaged data, which the reader then delivers, makes it a video too); a camera raw file
// also by its name's extension (see CameraRawReader). Raw: a file named as raw frames
// (raw_frames_name()) whose first bytes are no camera raw file's and no photo's: frames without
// a header, whose format the caller must be given (--raw, the Open Raw dialog).
MediaKind probe(const Source& source, const DecodeOptions& options = {});
// The path's Source: a stream input is consumed by probing it (probe its Source instead).
MediaKind probe(const std::string& path);
// ".raw" and ".bin", in any case: the names of raw frames, which carry no header.
bool raw_frames_name(const std::string& path);
// Whether probe() would say Raw, without consuming a stream input: a regular file's first bytes
// are read, a stream input (a pipe, a FIFO) is judged by its name alone. False for a path that
// does not exist or is no raw frames name. Both applications ask for the format of such a file,
// so that a DNG or a Panasonic .RAW named so is the camera raw file to both, and frames of
// pixels are raw frames to both.
bool holds_raw_frames(const std::string& path);
// The UsageError for raw frames given without their format: "NAME holds raw frames, which carry
// no header: give their format with OPTION WxHxC:u8|u16[:DEPTH]|f32". A stream input so named is
// refused with it (OPTION --raw) from its first bytes (Source), rather than read to its end.
[[noreturn]] void raw_format_needed(const std::string& name, const std::string& option = "--raw");

// Adds the engines that live in media (the "opencv" engine: cv::calcHist), when built with
// OpenCV.
void register_engines(EngineRegistry& registry);

}  // namespace hs::media
