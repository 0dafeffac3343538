#pragma once
// Which engines compute a frame, for the controller's thread: the histogram engine the user
// picked, or with "auto" the registry's own "auto" engine (the one the CLI's --kernel auto
// uses, which picks among the GPU engines), else the CPU reference with the reason; the
// equalizer likewise; and the read bandwidth of the device an engine runs on, measured once,
// for the roofline.

#include <QString>
#include <QVector>
#include <functional>
#include <memory>
#include <optional>

#include "histoscope/core/engine.hpp"
#include "histoscope/ui/controller.hpp"
#include "histoscope/ui/types.hpp"

namespace hs::ui {

// The registry's histogram engines and equalizers as the combos list them.
QVector<EngineInfo> list_engines(const hs::EngineRegistry& registry);
QVector<EngineInfo> list_equalizers(const hs::EngineRegistry& registry);

class EngineChoice {
  public:
    // `host_measured` hears every measurement of the host's read bandwidth (kept with the
    // machine's settings, so that later starts need not measure under whatever load).
    EngineChoice(hs::EngineRegistry& registry, const ControllerOptions& options,
                 std::function<void(double gbs)> host_measured)
        : registry_(registry), options_(options), host_measured_(std::move(host_measured)) {}

    // The engine for `request` when the user asked for `requested`; `status` says which one
    // and why (the status bar and its tooltip).
    hs::HistogramEngine* histogram(const QString& requested, const hs::HistogramRequest& request,
                                   EngineStatus& status) const;
    hs::EqualizeEngine* equalizer(const QString& requested,
                                  const hs::EqualizeRequest& request) const;

    // GB/s of the device `engine` runs on, and that device in words; 0 when unknown.
    double readBandwidthGbs(const QString& engine, QString& device);
    // The throughput of a frame's histogram and its share of the read bandwidth (measured once
    // per device, outside the frame's time).
    void addThroughput(FrameTiming& timing, const HistogramData& histogram);
    void setHostBandwidth(double gbs) { host_bw_ = gbs; }
    bool hasHostBandwidth() const { return host_bw_.has_value(); }
    // Measures the host's read bandwidth again (best of several passes).
    double remeasureHostBandwidth();

  private:
    hs::EngineRegistry& registry_;
    const ControllerOptions& options_;
    std::function<void(double)> host_measured_;
    std::optional<double> gpu_bw_;
    std::optional<double> host_bw_;
};

}  // namespace hs::ui
