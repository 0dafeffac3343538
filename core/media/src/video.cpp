// Video through cv::VideoCapture, preferring the FFmpeg backend: it reads files directly,
// whereas CAP_ANY would also try GStreamer and the image-sequence reader, which print warnings
// for every file they cannot open.

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>
#include <opencv2/videoio/registry.hpp>

#include <cmath>

#include "formats.hpp"
#include "histoscope/core/error.hpp"
#include "histoscope/media/atomic_file.hpp"
#include "histoscope/media/media.hpp"

namespace hs::media {

namespace {

int backend() {
    static const int api =
        cv::videoio_registry::hasBackend(cv::CAP_FFMPEG) ? cv::CAP_FFMPEG : cv::CAP_ANY;
    return api;
}

bool open_capture(cv::VideoCapture& cap, const std::string& path) {
    try {
        return cap.open(path, backend()) && cap.isOpened();
    } catch (const cv::Exception&) {
        return false;
    }
}

std::string fourcc_string(double value) {
    const auto code = static_cast<std::uint32_t>(static_cast<std::int64_t>(value));
    std::string s;
    for (int i = 0; i < 4; ++i) {
        const auto c = static_cast<char>((code >> (8 * i)) & 0xFFu);
        if (c == '\0') break;
        s += (c >= 32 && c < 127) ? c : '?';
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    return s;
}

}  // namespace

struct VideoReader::Impl {
    std::string path;
    std::string name;  // quoted path
    cv::VideoCapture cap;
    int width = 0, height = 0;
    std::int64_t frames = 0;  // frames the stream holds (0 when unknown)
    double fps = 0.0;
    std::string codec;
    std::int64_t next = 0;  // index of the frame read() returns next
    int failures_in_a_row = 0;
    cv::Mat decoded;  // OpenCV's BGR(A) frame, its buffer reused from frame to frame

    // The next frame into `out` (reallocated only when its shape differs); false at the end.
    // Throws InputError for a frame that fails to decode before the reported end.
    bool decode_into(Image& out);
};

VideoReader::VideoReader(const std::string& path) : impl_(std::make_unique<Impl>()) {
    Impl& v = *impl_;
    v.path = path;
    v.name = detail::quoted(path);
    // Missing, unreadable and empty files get the precise reason rather than "cannot open".
    if (detail::read_file_head(path, 1).empty()) throw InputError(v.name + " is empty");
    if (!open_capture(v.cap, path)) throw InputError("cannot open " + v.name + " as a video");
    v.width = static_cast<int>(v.cap.get(cv::CAP_PROP_FRAME_WIDTH));
    v.height = static_cast<int>(v.cap.get(cv::CAP_PROP_FRAME_HEIGHT));
    v.fps = v.cap.get(cv::CAP_PROP_FPS);
    v.codec = fourcc_string(v.cap.get(cv::CAP_PROP_FOURCC));
    const double reported = v.cap.get(cv::CAP_PROP_FRAME_COUNT);
    v.frames = std::isfinite(reported) && reported > 0 ? std::llround(reported) : 0;
    // AVI stream headers count dropped frames (empty chunks) that no decoder returns; the
    // index says how many frames carry data.
    if (const auto avi = detail::avi_video_frames(path)) v.frames = *avi;
}

VideoReader::~VideoReader() = default;

int VideoReader::width() const {
    return impl_->width;
}
int VideoReader::height() const {
    return impl_->height;
}
std::int64_t VideoReader::frame_count() const {
    return impl_->frames;
}
double VideoReader::fps() const {
    return impl_->fps;
}
std::string VideoReader::codec() const {
    return impl_->codec;
}

void VideoReader::seek(std::int64_t frame) {
    Impl& v = *impl_;
    if (frame < 0 || (v.frames > 0 && frame >= v.frames))
        throw InputError("cannot seek " + v.name + " to frame " + std::to_string(frame) +
                         ": it has " + std::to_string(v.frames) + " frames (0.." +
                         std::to_string(v.frames - 1) + ")");
    bool ok = false;
    try {
        ok = v.cap.set(cv::CAP_PROP_POS_FRAMES, static_cast<double>(frame));
    } catch (const cv::Exception&) {
        ok = false;
    }
    if (!ok) throw InputError("cannot seek " + v.name + " to frame " + std::to_string(frame));
    v.next = frame;
}

std::optional<Image> VideoReader::read() {
    Image img;
    if (!impl_->decode_into(img)) return std::nullopt;
    return img;
}

bool VideoReader::Impl::decode_into(Image& out) {
    bool ok = false;
    try {
        ok = cap.read(decoded) && !decoded.empty();
    } catch (const cv::Exception&) {
        ok = false;
    }
    if (!ok) {
        if (frames > 0 && next < frames)
            throw InputError("frame " + std::to_string(next) + " of " + name +
                             " could not be decoded (the video reports " + std::to_string(frames) +
                             " frames)");
        return false;
    }
    if (decoded.depth() != CV_8U)
        throw InputError("frame " + std::to_string(next) + " of " + name +
                         " is not 8-bit (OpenCV depth " + std::to_string(decoded.depth()) + ")");
    if (out.empty() || out.width() != decoded.cols || out.height() != decoded.rows ||
        out.channels() != 3 || out.type() != SampleType::U8 ||
        out.stride() != static_cast<std::size_t>(decoded.cols) * 3)
        out = Image(decoded.cols, decoded.rows, 3, SampleType::U8, 8);
    cv::Mat dst(decoded.rows, decoded.cols, CV_8UC3, out.data(), out.stride());
    switch (decoded.channels()) {
        case 1:
            cv::cvtColor(decoded, dst, cv::COLOR_GRAY2RGB);
            break;
        case 3:
            cv::cvtColor(decoded, dst, cv::COLOR_BGR2RGB);
            break;
        case 4:
            cv::cvtColor(decoded, dst, cv::COLOR_BGRA2RGB);
            break;
        default:
            throw InputError("frame " + std::to_string(next) + " of " + name + " has " +
                             std::to_string(decoded.channels()) + " channels");
    }
    if (dst.data != reinterpret_cast<uchar*>(out.data()))
        throw std::logic_error("OpenCV reallocated a preallocated frame");
    ++next;
    return true;
}

VideoReader::FrameStatus VideoReader::read_frame(Image& out) {
    Impl& v = *impl_;
    constexpr int kMaxFailuresInARow = 16;
    if (v.failures_in_a_row >= kMaxFailuresInARow) return FrameStatus::End;
    try {
        // `out` is reused when the frame has its shape: no allocation per frame.
        if (!v.decode_into(out)) return FrameStatus::End;
        v.failures_in_a_row = 0;
        return FrameStatus::Ok;
    } catch (const InputError&) {
        // Decoding throws only for frames before the reported end: skip this one.
        ++v.next;
        ++v.failures_in_a_row;
        return FrameStatus::Failed;
    } catch (const cv::Exception&) {
        ++v.next;
        ++v.failures_in_a_row;
        return FrameStatus::Failed;
    }
}

std::int64_t VideoReader::position() const {
    return impl_->next;
}

struct VideoWriter::Impl {
    std::string name;
    std::unique_ptr<AtomicFile> file;  // the encoder writes its temporary file
    cv::VideoWriter writer;
    int width = 0, height = 0;
    cv::Mat bgr;
};

VideoWriter::VideoWriter(const std::string& path, int width, int height, double fps)
    : impl_(std::make_unique<Impl>()) {
    Impl& w = *impl_;
    w.name = detail::quoted(path);
    w.width = width;
    w.height = height;
    const std::string ext = path.size() >= 4 ? path.substr(path.size() - 4) : std::string();
    int fourcc = 0;
    if (ext == ".mp4")
        fourcc = cv::VideoWriter::fourcc('m', 'p', '4', 'v');
    else if (ext == ".avi")
        fourcc = cv::VideoWriter::fourcc('M', 'J', 'P', 'G');
    else if (ext == ".mkv")
        fourcc = cv::VideoWriter::fourcc('X', 'V', 'I', 'D');
    else
        throw InputError("cannot write video " + w.name +
                         ": the extension must be .mp4, .avi or .mkv");
    if (!(fps > 0.0) || !std::isfinite(fps)) fps = 25.0;
    w.file = std::make_unique<AtomicFile>(path);
    bool ok = false;
    try {
        ok = w.writer.open(w.file->temporary_path(), backend(), fourcc, fps,
                           cv::Size(width, height), true);
    } catch (const cv::Exception&) {
        ok = false;
    }
    if (!ok || !w.writer.isOpened())
        throw InputError("cannot open " + w.name + " for writing video");
}

// Without close(), the AtomicFile discards the temporary file: a half-written video never
// replaces anything.
VideoWriter::~VideoWriter() = default;

void VideoWriter::write(const ImageView& rgb) {
    Impl& w = *impl_;
    if (rgb.width != w.width || rgb.height != w.height || rgb.channels != 3 ||
        rgb.type != SampleType::U8)
        throw InputError("cannot write a " + std::to_string(rgb.width) + "x" +
                         std::to_string(rgb.height) + "x" + std::to_string(rgb.channels) +
                         " frame to " + w.name + " (" + std::to_string(w.width) + "x" +
                         std::to_string(w.height) + " 8-bit RGB)");
    const cv::Mat src(rgb.height, rgb.width, CV_8UC3,
                      const_cast<std::byte*>(rgb.data),  // NOLINT: read only
                      rgb.stride);
    cv::cvtColor(src, w.bgr, cv::COLOR_RGB2BGR);
    w.writer.write(w.bgr);
}

void VideoWriter::close() {
    Impl& w = *impl_;
    if (!w.writer.isOpened()) return;
    w.writer.release();
    w.file->commit();
}

bool is_video_path(const std::string& path) {
    const std::string ext = path.size() >= 4 ? path.substr(path.size() - 4) : std::string();
    return ext == ".mp4" || ext == ".avi" || ext == ".mkv";
}

namespace detail {

// True when OpenCV opens `path` as a video and decodes its first frame.
bool video_decodes(const std::string& path) {
    cv::VideoCapture cap;
    if (!open_capture(cap, path)) return false;
    cv::Mat frame;
    try {
        return cap.read(frame) && !frame.empty();
    } catch (const cv::Exception&) {
        return false;
    }
}

}  // namespace detail

}  // namespace hs::media
