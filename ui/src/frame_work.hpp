#pragma once
// What a frame's computation needs around the frame stream: the requests the window's settings
// make (the channels shown, the histogram of one bin per code value, the equalization), and the
// result of the stream made ready for the window (results()): the histograms at the bins the
// user chose, summed from the stream's per-value counts (exactly what counting at those bins
// gives), exact statistics from the same counts (no pass over the frame), the pictures as
// QImages, the timing. It reads no controller state.

#include <QElapsedTimer>
#include <QRect>
#include <QString>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "histoscope/core/engine.hpp"
#include "histoscope/core/match_reference.hpp"
#include "histoscope/core/scopes.hpp"
#include "histoscope/core/stream.hpp"
#include "histoscope/media/media.hpp"
#include "histoscope/ui/types.hpp"

namespace hs::ui {

// A camera raw file's CFA mosaic (media::CameraRawReader's Cfa view): what its frames' results
// name and mark. Null for every other frame.
using CfaInfo = std::shared_ptr<const hs::media::CameraRawInfo>;

// The channels histograms show: gray, or R, G, B (A for RGBA images) and luma (of a float
// image luma709, its luminance); of a CFA mosaic (`cfa`), r, g1, g2, b (the image's channels
// R, G, A, B: media::kCfaColours).
std::vector<hs::Channel> display_channels(const hs::ImageView& image, bool cfa = false);
// The histograms of the channels shown with `bins` even bins over the depth's full range; of a
// float image, `bins` stops over -16..+16 EV (float_window_spec()).
hs::HistogramRequest histogram_request(const hs::ImageView& image, int bins, bool cfa = false);
inline constexpr int kFloatStopsLow = -16, kFloatStopsHigh = 16;
inline constexpr int kMaxFloatWindowBins = 4096;
// The float bins of the window: `bins` (clamped to 16..kMaxFloatWindowBins) stops over
// [kFloatStopsLow, kFloatStopsHigh) EV.
hs::HistogramSpec float_window_spec(int bins);
// Throws UsageError when match mode has no reference.
hs::EqualizeRequest equalize_request(const hs::ImageView& image, const EqualizeSettings& settings,
                                     const hs::MatchReference* reference);
// Histograms of `bins` even bins and their exact statistics, from `values`: one histogram per
// channel of one bin per code value of `shape`'s depth. Of a CFA mosaic (`cfa`), the channels
// are named r, g1, g2, b, each with its levels and the photosites at them, and the black and
// white levels are marked.
HistogramData histogram_from_values(const hs::ImageView& shape,
                                    const std::vector<hs::ChannelHistogram>& values, int bins,
                                    const QString& engine_name, const CfaInfo& cfa = nullptr);
// The histograms of a float frame as the stream counted them with `spec` (float_window_spec),
// with the exact float statistics of `counted` (the frame or its region), kept for the next
// call on the same frame and region (an exposure's change computes them once).
HistogramData histogram_from_floats(const hs::ImageView& counted,
                                    const std::vector<hs::ChannelHistogram>& histograms,
                                    const hs::HistogramSpec& spec, const QString& engine_name);
// The markers of a CFA mosaic's levels: "black 256" (or one per value, "black r 512", when the
// colours' levels differ) and "white 4095".
QVector<LevelMarker> level_markers(const hs::media::CameraRawInfo& info);

// The scopes `settings` show for frames like `image` (those it can have: a gray image has no
// parade or vectorscope), of at most kScopeColumns columns (the panel's resolution).
inline constexpr int kScopeColumns = 512;
std::vector<hs::ScopeSpec> scope_specs(const hs::ImageView& image, const ScopeSettings& settings);
// The part of a `width` x `height` frame that `region` (full-resolution pixels of a frame
// `reduced_by` times larger) covers, or none for a null region or one outside the frame.
std::optional<hs::Region> frame_region(const QRect& region, int width, int height, int reduced_by);

// A photo larger than a screen in either direction is previewed on a copy reduced by a whole
// factor to fit one while the CPU frame stream computes its full resolution: that copy and its
// factor, or null and 1 for a photo that fits.
struct PreviewCopy {
    std::shared_ptr<const hs::Image> image;
    int factor = 1;
};
PreviewCopy preview_copy(const hs::Image& photo);

// The settings a result is shown with besides those the stream computed it with.
struct ResultContext {
    int bins = 256;                     // the histograms' bins in the window
    QString engine;                     // the histogram engine the user's choice resolved to
    QString stream;                     // the frame stream engine
    QString equalizer;                  // the stream's equalizer ("" without equalization)
    QString equalize_note;              // why there is no equalized frame, when there is none
    bool equalize_wanted = false;       // the settings ask for one (equalization is not off)
    double exposure = 0.0;              // a float frame's pictures: the exposure they show
    std::vector<hs::ScopeSpec> scopes;  // what the stream's scopes are
    QRect region;                       // the region, in full-resolution pixels (null: none)
    std::optional<hs::Region> counted;  // and in the computed frame's pixels
    CfaInfo cfa = nullptr;              // the frame is a camera raw file's CFA mosaic
};

// What a frame stream's result is shown with besides the result itself.
struct FrameTag {
    std::uint64_t session = 0;                // playback session (0 for a photo)
    std::int64_t index = -1;                  // the frame's number (-1 for a photo)
    QString frame_kind;                       // what it numbers (FrameTiming::frame_kind)
    std::int64_t tick = -1;                   // its tick on the playback clock (-1: shown at once)
    std::shared_ptr<const hs::Image> image;   // the frame computed
    std::shared_ptr<const hs::Image> source;  // the full-resolution frame, for the pixel picker
    std::optional<hs::media::LumaExcursions> excursions;  // of `source` (ReadFrame's)
    bool preview = false;                                 // `image` is a large photo's reduced copy
    int preview_factor = 1;
    double read_ms = 0.0;
    std::uint64_t generation = 0;  // of the settings it was computed with
    ResultContext context;         // and shown with (the stream's names added on submission)
};

// The window's result of frame `tag` from the stream's `r` (its pictures and counts are moved
// out of it).
PresentedFrame results(hs::FrameResult& r, const FrameTag& tag);

// One line for any failure: typed errors carry their own, bad_alloc gets a readable one.
QString describe(const std::exception& e);
QString qstr(std::string_view s);
double ms_of(const QElapsedTimer& clock);
std::uint64_t image_bytes(const hs::ImageView& image);  // of the samples, without padding

}  // namespace hs::ui
