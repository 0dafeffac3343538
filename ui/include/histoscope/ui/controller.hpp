#pragma once
// The controller owns the engine registry, the loaded media and the frame path. It lives on a
// worker thread (see Worker); widgets reach it only through queued signals and receive value
// types back, so the UI thread never waits for a decoder or an engine.
//
// Every frame, a photo's or a video's, goes through one frame stream (StreamSession: the GPU
// frame pipeline when it can run the settings, else the CPU one), which counts the histograms,
// equalizes and makes the pictures at the view's size; results come back in order and leave as
// frameReady() for the window's presenter, which paints them when the playback clock says (a
// photo's at once). Video is read on its own thread (Playback's reader) into a bounded queue;
// this thread moves frames from that queue into the stream while it has room and the presenter
// is not too far behind (back-pressure from the paint all the way to the reader), so the
// stages of consecutive frames overlap and nothing waits for a paint.
//
// Requests coalesce: a settings change marks the frame dirty and posts one process() call;
// changes that arrive before it runs are folded into it, so the latest settings win and a
// moving slider never builds a queue. A photo's frame is computed again from the copy the stream
// holds (on a GPU, without a new upload). A large photo on the CPU stream is first computed on a
// reduced copy (a preview) while its full resolution follows. Which engines run is
// EngineChoice's (the registry's "auto", as in the CLI); the kernel comparison is
// benchmark_runner's.

#include <QObject>
#include <QString>
#include <QStringList>
#include <QVector>
#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "histoscope/core/engine.hpp"
#include "histoscope/core/image.hpp"
#include "histoscope/core/match_reference.hpp"
#include "histoscope/media/media.hpp"
#include "histoscope/ui/types.hpp"

namespace hs::ui {

class EngineChoice;
class Playback;
class PlaybackClock;
class StreamSession;
struct ReadFrame;
struct StreamDone;
struct StreamPlan;

// What the user chose: the settings every frame is computed with.
struct FrameSettings {
    QString engine = QStringLiteral("auto");     // "auto" or a registry name
    QString equalizer = QStringLiteral("auto");  // "auto" or a registry equalizer name
    int bins = 256;
    EqualizeSettings equalize;
    bool stretch_deep = true;  // deep images shown over a stretched display range
    unsigned clipping = 0;     // channels of the clipping overlays (0: none)
    double exposure = 0.0;     // float images shown at this exposure (EV), for viewing only
    ScopeSettings scopes;
    // What histograms, statistics and scopes count (full-resolution pixels; null: the frame).
    QRect region;
};

struct ControllerOptions {
    // Registry names of the histogram engines that run on a GPU ("auto" chooses among them).
    QStringList gpu_engines;
    // Why no GPU engine can run here, in a few words ("no NVIDIA driver"); empty when one can.
    QString gpu_absence;
    // The GPU the GPU engines run on (name, driver); empty without one.
    QString gpu_device;
    // The GPU's L2 cache in bytes (0 without one): benchmarks rotate over 4 times as much.
    std::size_t gpu_l2_bytes = 0;
    // The GPU's measured read bandwidth in GB/s; called on the worker thread when a GPU engine
    // runs, until it gives a value (0: not measured yet, asked again with the next frame). May
    // throw (then the percentage is not shown). Empty without CUDA.
    std::function<double()> gpu_read_bandwidth_gbs;
    // The floor of a benchmark case on the GPU (a read-only kernel over the same bytes), the
    // first row of a kernel comparison; empty without CUDA.
    hs::FloorTimer gpu_floor;
};

class Controller : public QObject {
    Q_OBJECT

  public:
    Controller(std::unique_ptr<hs::EngineRegistry> registry, ControllerOptions options,
               QObject* parent = nullptr);
    ~Controller() override;

    // Thread-safe: asks a running (or requested) benchmark to stop within about a second;
    // clearCancel() before requesting a new one.
    void requestCancel() { cancel_.store(true); }
    void clearCancel() { cancel_.store(false); }
    // The clock playback shows frames by (the presenter's), made once with the controller.
    std::shared_ptr<PlaybackClock> playbackClock() const;

  public slots:
    void listEngines();
    void openFile(const QString& path);
    // Raw frames of `format` ("WxHxC:u8|u16[:DEPTH]|f32", the CLI's --raw): one frame shows like a
    // photo, several play like a video at `fps` (0: 25 fps); path "-": standard input, live.
    void openRaw(const QString& path, const QString& format, double fps = 0.0);
    // How camera raw files are opened: "cfa" (their CFA mosaic, the default) or "rgb" (their
    // demosaiced image); the camera raw file open is opened again in the new view.
    void setCameraRawView(const QString& view);
    void setEngine(const QString& name);     // "auto" or a registry name
    void setEqualizer(const QString& name);  // "auto" or a registry equalizer name
    void setBins(int bins);
    void setEqualize(const hs::ui::EqualizeSettings& settings);
    // How pictures are shown: deep images over a stretched display range; the clipping
    // overlays of these channels (bit 0 R or gray, 1 G, 2 B; 0 for none).
    void setDisplay(bool stretch_deep, unsigned clipping);
    // The exposure (EV) float images are shown at: 2^EV times their linear light, clamped,
    // sRGB-encoded (display.hpp). Their histograms, statistics and samples do not change.
    void setExposure(double ev);
    // The scopes computed with every frame.
    void setScopes(const hs::ui::ScopeSettings& scopes);
    // The rectangle histograms, statistics and scopes count (null: the whole frame; one that
    // reaches outside a frame counts the part inside).
    void setRegion(const QRect& region);
    // The pictures reduced by `factor` for the view's size and zoom (1: full resolution).
    void setDisplayFactor(int factor);
    // The window reads the equalized samples under the pointer: results carry the
    // full-resolution equalized frame while this is on (a GPU otherwise downloads only the
    // pictures).
    void setPixelPicker(bool equalized_samples);
    // The image that match mode matches: a photo, a video's first frame or a camera raw file's
    // demosaiced image, of any depth (matched across depths as hs::MatchReference says). One
    // that cannot be read is refused and the last good one stays.
    void setReference(const QString& path);
    // Writes the equalized image (the original when equalization is off) at the input's depth,
    // once the result of the settings sent before is there.
    void saveImage(const QString& path);
    void play();
    void pause();
    void togglePlay();
    void setLoop(bool on);
    // false: play every frame as fast as the frame path goes (its throughput), not by the clock.
    void setPaced(bool paced);
    void step(int frames);    // pauses; +1 next frame, -1 previous frame
    void seek(qint64 frame);  // from 0; a playing clip goes on from there
    // The presenter took `count` results (playback session `session`): the last shown (frame
    // `index`; -1: none), `dropped` of them overtaken on the clock.
    void framesConsumed(quint64 session, qint64 index, int count, int dropped);
    // The host's read bandwidth (the CPU engines' roofline) as measured before on this
    // machine; without one it is measured when first needed.
    void setHostBandwidth(double gbs);
    // Measures it again (best of several passes) and says so through hostBandwidthMeasured().
    void remeasureHostBandwidth();
    // Times every available engine on the current frame (`runs` timed runs each); the
    // others get a row saying why not.
    void runBenchmark(int runs);

  signals:
    void enginesListed(const QVector<hs::ui::EngineInfo>& engines,
                       const QVector<hs::ui::EngineInfo>& equalizers);
    void mediaLoaded(const hs::ui::MediaInfo& info);
    void loadFailed(const QString& path, const QString& message);
    void frameReady(const hs::ui::PresentedFrame& result);
    void engineStatusChanged(const hs::ui::EngineStatus& status);
    void playbackChanged(const hs::ui::PlaybackState& state);
    // Work the user waits for (opening a file, a large photo's full resolution): what it is,
    // or not busy.
    void busyChanged(bool busy, const QString& what);
    void referenceLoaded(const QString& path);
    // The reference `path` could not be read (errorOccurred() said why): the last good one, if
    // any, stays.
    void referenceRefused(const QString& path);
    void imageSaved(const QString& path);
    void errorOccurred(const QString& message);  // a request of the user's failed
    // Something the user should know that needs no answer (a frame dropped because it did not
    // decode, match mode waiting for a reference): the status bar, never a dialog.
    void notice(const QString& message);
    void hostBandwidthMeasured(double gbs);
    void benchmarkStarted(const hs::ui::BenchContext& context, int total_runs);
    void benchmarkProgress(int runs_done, int total_runs, const QString& engine);
    void benchmarkRow(const hs::ui::BenchRow& row);
    void benchmarkFinished(bool cancelled);

  private:
    void open(const QString& path, const QString& raw_format, double fps);
    void scheduleProcess();
    // A photo's frame, or the paused video frame shown, computed again with the settings.
    void process();
    void schedulePump();
    // Playback: takes the results that are ready, then moves frames from the reader into the
    // stream while it has room and the presenter keeps up.
    void pump();
    void submitPlayed(ReadFrame& frame);
    // Opens or reconfigures the stream for `plan` and says which engines run it.
    void configureStream(const StreamPlan& plan, EngineStatus status);
    // Says which engines run the stream, and whether it plays or not (again whenever that
    // changes: a pause or the clip's end).
    void announceEngines();
    void collect();
    void deliver(StreamDone& done);
    void discardStreams();  // forgets the frames in flight (a pause, a seek, new media)
    void saveNow(const QString& path, const std::shared_ptr<const hs::Image>& image);
    void reportError(const QString& message);
    void updateBusy();

    std::unique_ptr<hs::EngineRegistry> registry_;
    ControllerOptions options_;
    std::unique_ptr<EngineChoice> choice_;

    // The media: the photo or the video frame shown, a large photo's reduced copy.
    std::shared_ptr<const hs::Image> source_;
    std::optional<hs::media::LumaExcursions> source_excursions_;  // of source_, a video frame's
    std::shared_ptr<const hs::Image> proxy_;
    int proxy_factor_ = 1;
    QString path_;
    QString frame_kind_;  // what its frames are (FrameTiming::frame_kind)
    Playback* playback_;
    std::shared_ptr<const hs::MatchReference> reference_;
    hs::media::CameraRawView camera_raw_view_ = hs::media::CameraRawView::Cfa;
    bool camera_raw_ = false;  // the media is a camera raw file
    // The frame is a camera raw file's CFA mosaic (see FrameOptions::cfa); null otherwise.
    std::shared_ptr<const hs::media::CameraRawInfo> cfa_;
    std::uint64_t reference_generation_ = 0;  // counts the references loaded

    FrameSettings settings_;
    int display_factor_ = 1;
    bool picker_equalized_ = false;
    bool cpu_only_ = false;  // a GPU engine failed on this media: the CPU stream and reference

    std::unique_ptr<StreamSession> stream_;   // every frame
    std::unique_ptr<StreamSession> preview_;  // a large photo's reduced copy (CPU stream)
    // The results sent to the presenter and not yet taken: their frames and equalized frames
    // (the one shown last becomes source_ and equalized_ when playback stops).
    struct Sent {
        std::shared_ptr<const hs::Image> source, equalized;
        std::optional<hs::media::LumaExcursions> excursions;  // of source
        std::uint64_t generation = 0;
        bool preview = false;
    };
    std::deque<Sent> sent_;

    bool process_posted_ = false;
    bool pump_posted_ = false;
    std::uint64_t sequence_ = 0;
    std::uint64_t generation_ = 0;        // settings computed (each process() is one)
    std::uint64_t shown_generation_ = 0;  // of the last full (not preview) result shown
    QString last_error_;
    // The equalized frame of that result, when it came: a photo's last, a clip's on screen.
    std::shared_ptr<const hs::Image> equalized_;
    QString pending_save_;  // saved once the equalized frame of the current settings is there
    QString opening_;       // the file being opened
    QString busy_;          // what busyChanged() last said
    EngineStatus engines_;  // the engines of the stream's plan (announceEngines() adds the rest)
    bool announced_playing_ = false;

    std::atomic<bool> cancel_{false};
};

}  // namespace hs::ui
