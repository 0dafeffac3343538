#include "histoscope/ui/types.hpp"

namespace hs::ui {

double HistogramData::histogram_ms() const {
    for (const StageTiming& s : stages)
        if (s.name == QLatin1String("histogram")) return s.ms;
    return total_ms;
}

double HistogramData::bin_lower(int bin) const {
    // Stops: lower + bin * step EV (the float bins' edges are the smallest floats at or above
    // 2^that), as even bins of code values.
    if (bins <= 0) return 0.0;
    return static_cast<double>(lower) + static_cast<double>(upper - lower) *
                                            static_cast<double>(bin) / static_cast<double>(bins);
}

void register_metatypes() {
    qRegisterMetaType<MediaInfo>();
    qRegisterMetaType<EngineInfo>();
    qRegisterMetaType<QVector<EngineInfo>>();
    qRegisterMetaType<HistogramData>();
    qRegisterMetaType<EqualizeSettings>();
    qRegisterMetaType<ScopeSettings>();
    qRegisterMetaType<FrameTiming>();
    qRegisterMetaType<PresentedFrame>();
    qRegisterMetaType<PlaybackState>();
    qRegisterMetaType<BenchRow>();
    qRegisterMetaType<BenchContext>();
    qRegisterMetaType<EngineStatus>();
}

}  // namespace hs::ui
