#pragma once
// The controller owns the engine registry, the loaded media and the frame pipeline (histogram
// of the original, equalization, histogram of the result, statistics, timing). It lives on a
// worker thread (see Worker); widgets reach it only through queued signals and receive value
// types back, so the UI thread never waits for a decoder or an engine.
//
// Requests coalesce: a settings change marks the frame dirty and posts one process() call;
// changes that arrive before it runs are folded into it, so the latest settings win and a
// moving slider never builds a queue. A photo larger than a screen is computed at once on a
// reduced copy (a preview, by the CPU reference) and at full resolution on a background thread
// (Background), whose result replaces the preview unless settings changed meanwhile; a busy
// signal says while work is pending. Video plays on this thread through Playback (clock,
// dropped frames, seeking, looping); while a video plays, its frames go through a frame stream
// (StreamSession) and each result is shown as it comes back; pausing waits for the frames in
// flight. Which engines run is EngineChoice's (the registry's "auto", as in the CLI); the
// kernel comparison is benchmark_runner's.

#include <QObject>
#include <QString>
#include <QStringList>
#include <QVector>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "histoscope/core/engine.hpp"
#include "histoscope/core/image.hpp"
#include "histoscope/core/stream.hpp"
#include "histoscope/ui/types.hpp"

namespace hs::ui {

class Background;
class EngineChoice;
class Playback;
class StreamSession;
struct FrameOutcome;
struct FrameSpec;
struct StreamedFrame;

// What the user chose: the settings every frame is computed with.
struct FrameSettings {
    QString engine = QStringLiteral("auto");     // "auto" or a registry name
    QString equalizer = QStringLiteral("auto");  // "auto" or a registry equalizer name
    int bins = 256;
    EqualizeSettings equalize;
    bool stretch_deep = true;  // deep images shown over a stretched display range
    unsigned clipping = 0;     // channels of the clipping overlays (0: none)
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
    // The GPU's measured read bandwidth in GB/s; called once, on the worker thread, when a GPU
    // engine first runs. May throw (then the percentage is not shown). Empty without CUDA.
    std::function<double()> gpu_read_bandwidth_gbs;
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
    // Thread-safe: the UI has drawn a frameReady() result. Video playback skips frames while
    // the UI still has one to draw, so results never queue up in the UI thread.
    void frameShown() {
        int pending = unshown_.load();
        while (pending > 0 && !unshown_.compare_exchange_weak(pending, pending - 1)) {
        }
    }

  public slots:
    void listEngines();
    void openFile(const QString& path);
    // Raw frames of `format` ("WxHxC:u8|u16[:DEPTH]", the CLI's --raw): one frame shows like a
    // photo, several play like a video.
    void openRaw(const QString& path, const QString& format);
    void setEngine(const QString& name);     // "auto" or a registry name
    void setEqualizer(const QString& name);  // "auto" or a registry equalizer name
    void setBins(int bins);
    void setEqualize(const hs::ui::EqualizeSettings& settings);
    // How pictures are shown: deep images over a stretched display range; the clipping
    // overlays of these channels (bit 0 R or gray, 1 G, 2 B; 0 for none).
    void setDisplay(bool stretch_deep, unsigned clipping);
    // The image that match mode matches; one of another depth than the image is refused and
    // the last good one stays.
    void setReference(const QString& path);
    // Writes the equalized image (the original when equalization is off); for a large photo,
    // once its full resolution is computed.
    void saveImage(const QString& path);
    void play();
    void pause();
    void togglePlay();
    void setLoop(bool on);
    void step(int frames);    // pauses; +1 next frame, -1 previous frame
    void seek(qint64 frame);  // from 0; a playing clip goes on from there
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
    void frameReady(const hs::ui::FrameResult& result);
    void engineStatusChanged(const hs::ui::EngineStatus& status);
    void playbackChanged(const hs::ui::PlaybackState& state);
    // Work the user waits for (opening a file, a large photo's full resolution): what it is,
    // or not busy.
    void busyChanged(bool busy, const QString& what);
    void referenceLoaded(const QString& path);
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
    void open(const QString& path, const QString& raw_format);
    void scheduleProcess();
    void process();
    void showFrame(hs::Image& frame);  // a video frame from playback
    // Reports what failed and emits the result.
    void finishFrame(FrameOutcome& outcome, EngineStatus status, double total_ms, bool preview);
    // Playback: queues the frame in source_ on the frame stream and shows the results that are
    // ready; false when no stream can run, and the frame is processed alone.
    bool submitToStream();
    void showStreamed(StreamedFrame& frame);
    void drainStream();  // shows every frame still in flight
    void closeStream();
    // The common tail of a frame: throughput, bandwidth, sequence, frameReady().
    void emitFrame(FrameResult& out, double total_ms);
    void reportError(const QString& message);
    void updateBusy();

    std::unique_ptr<hs::EngineRegistry> registry_;
    ControllerOptions options_;
    std::unique_ptr<EngineChoice> choice_;

    // The media: the photo or the current video frame, a large photo's reduced copy, the result.
    std::shared_ptr<hs::Image> source_;
    std::shared_ptr<const hs::Image> proxy_;
    int proxy_factor_ = 1;
    std::shared_ptr<const hs::Image> equalized_;
    QString path_;
    Playback* playback_;
    std::shared_ptr<const hs::Image> reference_;
    std::uint64_t reference_generation_ = 0;  // counts the references loaded

    FrameSettings settings_;

    // Pipeline state.
    bool process_posted_ = false;
    bool original_dirty_ = true;
    bool full_original_dirty_ = true;  // a large photo's full-resolution original is not shown
    std::uint64_t sequence_ = 0;
    QString last_error_;

    // The background work of large photos: the settings generation its result must match.
    Background* background_;
    std::uint64_t generation_ = 0;
    bool exact_ = true;     // the result shown is not a preview
    QString pending_save_;  // saved once it is
    QString opening_;       // the file being opened
    QString busy_;          // what busyChanged() last said

    std::unique_ptr<StreamSession> stream_;  // playback's frame stream

    std::atomic<bool> cancel_{false};
    std::atomic<int> unshown_{0};
};

}  // namespace hs::ui
