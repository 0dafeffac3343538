#pragma once
// Value types the controller emits across threads (queued connections copy them). Nothing
// here refers to an engine or to the loaded media: the UI thread owns copies only.

#include <QImage>
#include <QMetaType>
#include <QRect>
#include <QString>
#include <QStringList>
#include <QVector>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "histoscope/core/bench.hpp"
#include "histoscope/core/display.hpp"
#include "histoscope/core/image.hpp"
#include "histoscope/core/stats.hpp"
#include "histoscope/media/media.hpp"

namespace hs::ui {

// What was loaded.
struct MediaInfo {
    QString path;
    QString format;      // decoder ("JPEG", "PNG", ...), the video's FourCC, or "Raw"
    QString raw_format;  // raw frames: their format ("640x480x3:u8"); empty otherwise
    bool video = false;
    int width = 0;
    int height = 0;
    int channels = 0;
    int bit_depth = 8;
    bool floating = false;  // float samples (OpenEXR, PFM, float TIFF): linear light
    // Video: how its pixels are coded ("yuv420p10le, bt709, limited range"); empty otherwise.
    QString coding;
    std::int64_t frames = 1;  // video: as the container reports it; raw: as the size holds
                              // (a frame cut short at the end included)
    double fps = 0.0;         // video and raw streams: the rate they play at (0: as they come)
    bool live = false;        // raw frames on standard input: no count, no seeking
    QStringList notes;
    // A camera raw file: the view shown ("cfa": its CFA mosaic as 2x2 quads, channels r, g1,
    // g2, b at the sensor's depth; "rgb": LibRaw's linear 16-bit demosaic), empty for other
    // media; the camera ("Make Model"), the shot ("ISO 400, 1/250 s, f/5.6, 35 mm, date"), the
    // CFA pattern ("" when the sensor has no 2x2 Bayer mosaic: mosaic_problem says why), and the
    // levels (black per r, g1, g2, b; white).
    QString camera_raw_view;
    QString camera;
    QString shot;
    QString cfa_pattern;
    QString mosaic_problem;
    QVector<std::uint32_t> black_levels;
    std::uint32_t white_level = 0;
};

// One engine of the registry as the kernel combos show it.
struct EngineInfo {
    QString name;
    QString description;
    bool available = true;
    QString reason;  // why not available
};

struct StageTiming {
    QString name;  // "upload", "histogram", "lut", "apply", "download", ... as engines name them
    double ms = 0.0;
};

// A level marked on a histogram's axis: a vertical line at a code value, labelled ("black 256",
// "white 4095").
struct LevelMarker {
    double value = 0.0;
    QString label;
};

// A camera raw mosaic's channel: its black and white levels and the photosites at or below the
// one and at or above the other (the statistics' rows of a CFA view).
struct ChannelLevels {
    std::uint32_t black = 0, white = 0;
    std::uint64_t at_or_below_black = 0, at_or_above_white = 0;
};

// One histogram computation: counts per channel, their exact stats and the engine's timing.
struct HistogramData {
    QString engine;  // the engine that ran ("auto" resolved)
    int bins = 0;
    std::int64_t lower = 0;
    std::int64_t upper = 0;
    // What lower and upper count: "" code values; "EV" stops of a float image's linear light
    // (the bins' edges are then 2^EV, float_bins.hpp).
    QString unit;
    QStringList channel_names;  // "r", "g", "b", "luma", "gray"; "r", "g1", ...
    std::vector<std::vector<std::uint64_t>> counts;  // [channel][bin]
    std::vector<hs::Stats> stats;                    // [channel]
    // Float samples: their statistics instead (stats is then empty), with the samples in no
    // bin: below range, above range, non-finite.
    std::vector<hs::FloatStats> float_stats;  // [channel]
    // A camera raw file's CFA mosaic: each channel's levels and counts at them, and the levels
    // marked on the axis; empty otherwise.
    std::vector<ChannelLevels> levels;  // [channel]
    QVector<LevelMarker> markers;
    QVector<StageTiming> stages;  // what the engine measured itself
    double total_ms = 0.0;        // wall time of compute()
    std::uint64_t pixels = 0;
    std::uint64_t bytes = 0;  // bytes of image data the engine read

    bool empty() const { return counts.empty(); }
    // The engine's "histogram" stage when it reports one, else its total.
    double histogram_ms() const;
    double bin_lower(int bin) const;  // real-valued lower edge of `bin`
};

// Equalization as the user set it. Mode Off shows the original only.
struct EqualizeSettings {
    enum class Mode { Off, Global, Clahe, Match };
    Mode mode = Mode::Off;
    bool luma = true;       // luminance (YCrCb) or each of R, G, B
    double strength = 1.0;  // 0..1
    double clip = 2.0;      // CLAHE clip limit
    int tiles_x = 8;        // CLAHE tile grid
    int tiles_y = 8;
    friend bool operator==(const EqualizeSettings&, const EqualizeSettings&) = default;
};

// The scopes the user shows (the Scopes panel): each one shown is computed with every frame, in
// the frame stream, over the region when there is one.
struct ScopeSettings {
    bool histogram = false;  // the histogram in the panel (drawn from the frame's histograms)
    bool waveform = false;
    bool parade = false;
    bool vectorscope = false;
    QString waveform_channel = QStringLiteral("luma");  // "luma", "luma709", "r", "g", "b"
    bool rec709 = false;                                // the vectorscope's chroma matrix
    friend bool operator==(const ScopeSettings&, const ScopeSettings&) = default;
};

// One scope of a frame as the panel draws it: core's scope_picture (one pixel per bin, log
// brightness, graticule) and what it shows.
struct ScopeImage {
    QString kind;              // "waveform", "parade", "vectorscope"
    QString title;             // "Waveform (luma)", "RGB parade", "Vectorscope (Rec.601)"
    QString detail;            // the spec: "waveform luma, 256 levels x 512 columns"
    QImage picture;            // as qimage_convert's picture_qimage() paints it
    std::uint64_t pixels = 0;  // counted (the region's, or the frame's)
};

// Timing of one processed frame, per stage as the engines measured it, plus throughput.
struct FrameTiming {
    QString engine;     // histogram engine that ran
    QString equalizer;  // equalization engine that ran (empty when equalization is off)
    // What the engine counted, a count per code value of the frame's depth (the stream's
    // histograms), and the bins the plot shows, summed from them; of a float frame `values` is 0
    // and `bins` the float bins counted themselves.
    int values = 0;
    int bins = 0;
    // Stages in pipeline order: reading the frame (playback), the frame stream's (a GPU's:
    // upload, histogram, lut, apply, histogram (equalized), pictures, download; the CPU's:
    // histogram, equalize, histogram (equalized), pictures), then "results" (the histograms,
    // statistics and pictures made ready for the window on the controller's thread).
    QVector<StageTiming> stages;
    double histogram_ms = 0.0;  // the original's histogram stage (what Gpix/s is based on)
    double total_ms = 0.0;      // the whole frame on the worker thread
    double gpix_per_s = 0.0;
    double gb_per_s = 0.0;
    double read_bandwidth_gbs = 0.0;  // of the device the engine ran on; 0 when unknown
    double pct_read_bw = 0.0;         // gb_per_s / read_bandwidth_gbs * 100, 0 when unknown
    QString bandwidth_device;         // "GPU", "CPU (N threads)"
    std::int64_t frame = -1;          // video frame number, -1 for a photo
    bool preview = false;             // of a large photo's reduced copy
    QString stream;                   // the frame stream engine ("gpu", "cpu")
    std::int64_t dropped = 0;         // video: frames dropped so far
    // What `frame` numbers: "video" (a clip's frames), "raw" (a raw file's), "live" (raw frames
    // as they arrive on standard input); empty for a photo.
    QString frame_kind;
    // The frame path's own stages in milliseconds: reading (decoding) the frame (playback),
    // the frame stream's device span (a GPU's, upload to download; else its stages' sum), and
    // making the results ready for the window.
    double read_ms = 0.0;
    double upload_ms = 0.0;
    double stream_ms = 0.0;
    double results_ms = 0.0;
};

// Everything the window shows for one frame (a photo, a video frame, or a settings change),
// made on the controller's thread from the frame stream's hs::FrameResult and painted when the
// presenter says.
struct PresentedFrame {
    std::uint64_t sequence = 0;  // increases with every result
    // Computed on a reduced copy of a large photo, at once; the exact result follows.
    bool preview = false;
    // The pictures as the frame stream made them (histoscope/core/display.hpp): the frame
    // reduced by `factor` for the view's size (each pixel the rounded mean of the block it
    // stands for), 8 bits per sample over its display range, ready to paint (RGB32, ARGB32
    // premultiplied with alpha, or Grayscale8).
    QImage original;
    QImage equalized;  // null when equalization is off or failed
    int factor = 1;    // of the full-resolution frame's pixels per picture pixel, each way
    // Clipping overlays at the size of the pictures (transparent, blue, red); null when off.
    QImage original_clipping;
    QImage equalized_clipping;
    // The ranges the pictures show their samples over (display.hpp), for the pixel picker.
    hs::DisplayRange original_range{0, 255};
    hs::DisplayRange equalized_range{0, 255};
    double exposure = 0.0;  // a float frame's pictures: the exposure (EV) they show
    QString display_note;   // how deep data is stretched for viewing, when it is
    QString equalize_note;  // why there is no equalized picture, when there is none
    // The settings asked for equalization (so a note above says why it could not run).
    bool equalize_wanted = false;
    // The samples under the pixel picker, at full resolution, when the window asked for them
    // (Controller::setPixelPicker); null otherwise. `result_factor` > 1: a preview, computed on
    // a copy reduced this much (`result`, when there is one, is that copy equalized).
    std::shared_ptr<const hs::Image> source;
    std::shared_ptr<const hs::Image> result;
    int result_factor = 1;
    HistogramData original_histogram;
    HistogramData equalized_histogram;  // empty when equalization is off
    // The histograms, statistics and scopes count this rectangle of the frame (full-resolution
    // pixels; null: the whole frame).
    QRect region;
    // A limited-range video frame's coded Y' below black and above white (the whole frame's),
    // where its stream codes Y'CbCr at limited range; none otherwise.
    std::optional<hs::media::LumaExcursions> excursions;
    QVector<ScopeImage> scopes;  // the scopes shown, in the panel's order
    FrameTiming timing;
    // Playback: the play session it belongs to and its place on that session's clock (the
    // presenter shows it when it falls due); tick -1: show it at once (photos, paused frames).
    std::uint64_t session = 0;
    std::int64_t tick = -1;
};

struct PlaybackState {
    bool video = false;
    bool playing = false;
    bool loop = false;
    bool live = false;          // standard input: frames as they arrive, no seeking
    bool paced = true;          // frames shown by the clock (false: as fast as they come)
    std::uint64_t session = 0;  // the play session now (a play, a seek or a step starts one)
    std::int64_t frame = 0;     // the frame shown, from 0
    std::int64_t frames = 0;    // as the container reports it, corrected where the clip ends early
    double fps = 0.0;
    // Frames skipped to keep up with the clock since the last seek, in all and by the stage
    // that dropped them: the reader (read after a later frame fell due), the frame stream's
    // submission (taken from the reader's queue late), the presenter (ready, but a later one
    // fell due before it could be painted).
    std::int64_t dropped = 0;
    std::int64_t dropped_read = 0;
    std::int64_t dropped_process = 0;
    std::int64_t dropped_paint = 0;
    std::int64_t failed = 0;  // frames that could not be read or processed, since the last seek
};

// The kernel comparison's context and rows: core's benchmark types (histoscope/core/bench.hpp),
// the same that `histoscope-cli bench` reports.
using BenchContext = hs::BenchContext;
using BenchRow = hs::BenchRow;

// Why the engine the user picked is (or is not) the one that runs.
struct EngineStatus {
    QString requested;  // "auto" or a registry name
    QString resolved;   // the engine that runs
    QString message;    // a few words for the status bar
    QString detail;     // the whole story (the engines' own reasons), for its tooltip
};

}  // namespace hs::ui

Q_DECLARE_METATYPE(hs::ui::MediaInfo)
Q_DECLARE_METATYPE(hs::ui::EngineInfo)
Q_DECLARE_METATYPE(hs::ui::HistogramData)
Q_DECLARE_METATYPE(hs::ui::EqualizeSettings)
Q_DECLARE_METATYPE(hs::ui::ScopeSettings)
Q_DECLARE_METATYPE(hs::ui::FrameTiming)
Q_DECLARE_METATYPE(hs::ui::PresentedFrame)
Q_DECLARE_METATYPE(hs::ui::PlaybackState)
Q_DECLARE_METATYPE(hs::ui::BenchRow)
Q_DECLARE_METATYPE(hs::ui::BenchContext)
Q_DECLARE_METATYPE(hs::ui::EngineStatus)

namespace hs::ui {
// Registers the types above for queued connections (call once before connecting threads).
void register_metatypes();
}  // namespace hs::ui
