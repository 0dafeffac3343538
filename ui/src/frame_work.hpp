#pragma once
// One frame's result from explicit inputs only: the original's histogram (the CPU reference
// when the engine fails), equalization and the result's histogram, exact statistics, and the
// pictures shown. It reads no controller state, so the controller runs it on its own thread
// (photos, paused video frames, the proxy of a large photo) and on the background thread (the
// full resolution of a large photo) alike.

#include <QElapsedTimer>
#include <QString>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "histoscope/core/engine.hpp"
#include "histoscope/core/stream.hpp"
#include "histoscope/ui/types.hpp"

namespace hs::ui {

struct FrameSpec {
    std::shared_ptr<const hs::Image> image;      // what is computed
    std::shared_ptr<const hs::Image> reference;  // match mode's reference, may be null
    int bins = 256;
    EqualizeSettings equalize;
    // When not empty: why equalization cannot run (no reference for match mode, ...); it is
    // not tried, and this is the result's equalize_note.
    QString equalize_refused;
    hs::HistogramEngine* engine = nullptr;
    QString engine_name;
    hs::HistogramEngine* fallback = nullptr;  // the CPU reference, for an engine that fails
    hs::EqualizeEngine* equalizer = nullptr;
    // The pictures.
    bool original_picture = true;  // false: the original is shown already
    int picture_factor = 1;        // pictures reduced by this much (a large photo's)
    bool full_pictures = false;    // also at full resolution (to zoom into a large photo)
    bool stretch_deep = true;      // deep images shown over stretched_display_range()
    unsigned clipping = 0;         // channels of the clipping overlays (0: none)
};

struct FrameOutcome {
    FrameResult result;  // all but the throughput and bandwidth (the controller adds them)
    std::shared_ptr<const hs::Image> equalized;
    QString histogram_error;        // what the engine said when it failed
    bool histogram_failed = false;  // nothing computed: the CPU reference failed too
    QString equalize_error;         // equalization failed
    bool cancelled = false;
};

FrameOutcome compute_frame(const FrameSpec& spec, const std::atomic<bool>* cancelled = nullptr);

// Why `reference` cannot serve match mode on `image` (another depth), or empty.
QString reference_problem(const hs::Image& image, const hs::Image& reference);

// A photo larger than a screen in either direction is previewed on a copy reduced by a whole
// factor to fit one, while its full resolution is computed in the background: that copy and
// its factor, or null and 1 for a photo that fits.
struct PreviewCopy {
    std::shared_ptr<const hs::Image> image;
    int factor = 1;
};
PreviewCopy preview_copy(const hs::Image& photo);

// A frame back from playback's frame stream, as the UI shows it: the histogram the stream
// computed of `image`, the equalized frame it returned and that frame's histogram by `engine`
// (when there is one; its failure is said in equalize_error), the pictures with the `clipping`
// overlays. The frame's time is its span on the device where the stream measured one, else the
// sum of its stages.
FrameOutcome streamed_frame(const std::shared_ptr<const hs::Image>& image, hs::FrameResult& result,
                            int bins, unsigned clipping, hs::HistogramEngine* engine,
                            double& total_ms);

// The channels histograms show: gray, or R, G, B (A for RGBA) and luma.
std::vector<hs::Channel> display_channels(const hs::ImageView& image);
hs::HistogramRequest histogram_request(const hs::ImageView& image, int bins);
// Throws UsageError when match mode has no reference.
hs::EqualizeRequest equalize_request(const hs::ImageView& image, const EqualizeSettings& settings,
                                     const hs::Image* reference);
HistogramData histogram_data(const hs::HistogramRequest& request,
                             const std::vector<hs::ChannelHistogram>& channels,
                             const QString& engine_name);
HistogramData histogram_of(hs::HistogramEngine& engine, const hs::HistogramRequest& request,
                           const QString& engine_name);
// One line for any failure: typed errors carry their own, bad_alloc gets a readable one.
QString describe(const std::exception& e);
QString qstr(std::string_view s);
double ms_of(const QElapsedTimer& clock);
std::uint64_t image_bytes(const hs::ImageView& image);  // of the samples, without padding

}  // namespace hs::ui
