#pragma once
// What the CLI commands read: a photo, one frame of a video, or one frame of raw data.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "histoscope/core/image.hpp"
#include "histoscope/media/media.hpp"
#include "json.hpp"
#include "options.hpp"

namespace hs::cli {

struct Input {
    std::string name;    // path, or "-" for standard input
    std::string kind;    // "image", "video", "raw" or "camera_raw"
    std::string format;  // "JPEG", "PNG", codec FourCC for video, the raw format string, "DNG"
    Image image;         // the selected frame (empty for a video read without wants.rgb)
    FrameFormat shape;   // the image's shape (also when it is empty)
    std::int64_t frame = 0;
    std::int64_t frames = 1;        // raw: whole frames
    std::uint64_t extra_bytes = 0;  // raw: the bytes after them, of a frame cut short
    double fps = 0.0;
    bool fps_nominal = false;          // video: fps is the stream's nominal rate, not its average
    std::int64_t frames_in_file = -1;  // video, when asked for: the frames the file holds
    bool corrupt = false;              // decoded with errors (only with --allow-corrupt)
    std::vector<std::string> notes;
    // Video: how its pixels are coded, whether its frames were counted (the container stores no
    // count), and the frame's Y', Cb, Cr planes when asked for (InputWants::planes).
    std::optional<media::VideoCoding> coding;
    bool frames_counted = false;
    std::vector<Image> planes;
    // A camera raw file: what LibRaw read of it, and the view of it that `image` is.
    std::optional<media::CameraRawInfo> camera_raw;
    media::CameraRawView camera_view = media::CameraRawView::Cfa;
    // The image is a camera raw file's CFA mosaic: its channels are r, g1, g2, b
    // (media::kCfaColours).
    bool cfa() const { return camera_raw && camera_view == media::CameraRawView::Cfa; }
};

// What a command needs of a video frame: R, G, B (the image) and/or the coded planes.
struct InputWants {
    bool rgb = true;
    bool planes = false;
    // Of a camera raw file, the view read when --camera-raw does not name one (the mosaic falls
    // back to the demosaiced image, with a note, for a sensor without a 2x2 Bayer mosaic), and
    // whether the command takes the mosaic at all (equalize and scope work on the demosaiced
    // image).
    media::CameraRawView camera_raw = media::CameraRawView::Cfa;
    bool cfa = true;
    // Of a video from its frame 0, the first frame that can be read (info describes a clip
    // whose first frames are damaged, and notes them); else the frame asked for, or an error.
    bool first_good = false;
    // The options that chose the frame and give raw frames their format, as messages name them.
    const char* frame_option = "--frame";
    const char* raw_option = "--raw";
};

// The photo or video at `path` (a file, "-", a pipe, a FIFO, ...). A stream input is read once,
// on the first call for its path, and its bytes kept for the process: a command probes its
// input before it decodes it, and a pipe can be read only once.
const media::Source& input_source(const std::string& path, const media::DecodeOptions& options);

// The input `input` names (its one file, or --raw FMT [FILE|-]), its frame `frame` for a video
// or raw stream, decoded as --max-pixels, --allow-corrupt and --camera-raw say.
// `count_frames_in_file` also counts the frames a video's file holds and notes when they differ
// from what it reports, and reads raw frames from a pipe to its end to count them (else only up to
// the frame asked for). Without wants.rgb, a video frame's image is left empty (its planes are what
// is asked for); a photo or raw frame always has its image, and wants.planes is a UsageError for
// them; of a camera raw file, wants.rgb false leaves the image empty (its shape is known without
// decoding).
Input load_input(const InputOptions& input, std::int64_t frame, bool count_frames_in_file = false,
                 const InputWants& wants = {});

// What every command's JSON says first about its input: {"input", "kind", "format", "width",
// "height", "depth", "sample_type"}.
Json input_json(const std::string& name, const std::string& kind, const std::string& format,
                const ImageView& shape);

}  // namespace hs::cli
