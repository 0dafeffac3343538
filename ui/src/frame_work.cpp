#include "frame_work.hpp"

#include <QElapsedTimer>
#include <QObject>
#include <algorithm>
#include <new>

#include "histoscope/core/error.hpp"
#include "histoscope/core/histogram.hpp"
#include "histoscope/core/stats.hpp"
#include "histoscope/ui/qimage_convert.hpp"

namespace hs::ui {

namespace {

hs::EqualizeMode core_mode(EqualizeSettings::Mode mode) {
    switch (mode) {
        case EqualizeSettings::Mode::Clahe:
            return hs::EqualizeMode::Clahe;
        case EqualizeSettings::Mode::Match:
            return hs::EqualizeMode::Match;
        default:
            return hs::EqualizeMode::Global;
    }
}

// The pictures of one image: reduced by the spec's factor, and at full resolution when asked.
struct Pictures {
    QImage shown, full, clipping;
    QString note;
};

Pictures pictures_of(const hs::ImageView& image, const FrameSpec& spec) {
    Pictures p;
    const DisplayRange range =
        spec.stretch_deep ? stretched_display_range(image) : full_display_range(image);
    if (range != full_display_range(image))
        p.note = QObject::tr("display %1..%2 of 0..%3 (view only)")
                     .arg(range.lo)
                     .arg(range.hi)
                     .arg(image.max_value());
    if (spec.picture_factor > 1) {
        p.shown = to_qimage(downscale(image, spec.picture_factor).view(), range);
        if (spec.full_pictures) p.full = to_qimage(image, range);
    } else {
        p.shown = to_qimage(image, range);
    }
    if (spec.clipping != 0)
        p.clipping = clipping_overlay(image, spec.picture_factor, spec.clipping);
    return p;
}

}  // namespace

QString qstr(std::string_view s) {
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

double ms_of(const QElapsedTimer& clock) {
    return static_cast<double>(clock.nsecsElapsed()) / 1e6;
}

std::uint64_t image_bytes(const hs::ImageView& image) {
    return static_cast<std::uint64_t>(image.row_bytes()) * static_cast<std::uint64_t>(image.height);
}

QString describe(const std::exception& e) {
    if (dynamic_cast<const std::bad_alloc*>(&e) != nullptr) return QObject::tr("out of memory");
    return QString::fromUtf8(e.what());
}

std::vector<hs::Channel> display_channels(const hs::ImageView& image) {
    if (image.channels == 1) return {hs::Channel::Gray};
    if (image.channels == 4)
        return {hs::Channel::R, hs::Channel::G, hs::Channel::B, hs::Channel::A,
                hs::Channel::Luma601};
    return {hs::Channel::R, hs::Channel::G, hs::Channel::B, hs::Channel::Luma601};
}

hs::HistogramRequest histogram_request(const hs::ImageView& image, int bins) {
    hs::HistogramRequest request;
    request.image = image;
    request.channels = display_channels(image);
    const int levels = 1 << image.bit_depth;
    request.spec = hs::HistogramSpec::full_range(image, std::clamp(bins, 1, levels));
    return request;
}

hs::EqualizeRequest equalize_request(const hs::ImageView& image, const EqualizeSettings& settings,
                                     const hs::Image* reference) {
    hs::EqualizeRequest eq;
    eq.image = image;
    eq.mode = core_mode(settings.mode);
    eq.space = settings.luma ? hs::EqualizeSpace::Luma : hs::EqualizeSpace::Rgb;
    eq.strength = std::clamp(settings.strength, 0.0, 1.0);
    eq.clip = settings.clip;
    eq.tiles_x = std::clamp(settings.tiles_x, 1, std::min(64, image.width));
    eq.tiles_y = std::clamp(settings.tiles_y, 1, std::min(64, image.height));
    if (eq.mode == hs::EqualizeMode::Match) {
        if (reference == nullptr)
            throw hs::UsageError(
                "match mode needs a reference image: choose one with Reference...");
        eq.reference = reference->view();
    }
    return eq;
}

HistogramData histogram_data(const hs::HistogramRequest& request,
                             const std::vector<hs::ChannelHistogram>& channels,
                             const QString& engine_name) {
    HistogramData data;
    data.engine = engine_name;
    data.bins = request.spec.bins;
    data.lower = request.spec.lower;
    data.upper = request.spec.upper;
    data.pixels = request.image.pixel_count();
    data.bytes = image_bytes(request.image);
    // Statistics are exact from the full-resolution value histogram: the counts themselves
    // when there is one bin per code value, otherwise a separate pass.
    const std::uint32_t max_code = request.image.max_value();
    const bool per_value = request.spec.bins == static_cast<int>(max_code) + 1;
    for (const auto& channel : channels) {
        data.channel_names << qstr(hs::channel_name(channel.channel));
        data.stats.push_back(per_value
                                 ? hs::stats_from_values(channel.counts, max_code, request.spec)
                                 : hs::compute_stats(request.image, channel.channel, request.spec));
        data.counts.push_back(channel.counts);
    }
    return data;
}

HistogramData histogram_of(hs::HistogramEngine& engine, const hs::HistogramRequest& request,
                           const QString& engine_name) {
    const hs::HistogramResult result = engine.compute(request);
    HistogramData data = histogram_data(request, result.channels, engine_name);
    data.total_ms = result.total_ms;
    for (const auto& stage : result.stages)
        data.stages.push_back({QString::fromStdString(stage.name), stage.ms});
    return data;
}

QString reference_problem(const hs::Image& image, const hs::Image& reference) {
    if (reference.bit_depth() == image.bit_depth()) return {};
    return QObject::tr(
               "the reference is %1-bit and this image %2-bit: a reference must have the "
               "image's depth")
        .arg(reference.bit_depth())
        .arg(image.bit_depth());
}

PreviewCopy preview_copy(const hs::Image& photo) {
    // About the size of a screen.
    constexpr int kPreviewSize = 2048;
    const int factor = (std::max(photo.width(), photo.height()) + kPreviewSize - 1) / kPreviewSize;
    if (factor <= 1) return {};
    return {std::make_shared<hs::Image>(downscale(photo.view(), factor)), factor};
}

FrameOutcome compute_frame(const FrameSpec& spec, const std::atomic<bool>* cancelled) {
    FrameOutcome out;
    auto stop = [&] {
        out.cancelled = cancelled != nullptr && cancelled->load();
        return out.cancelled;
    };
    FrameResult& r = out.result;
    FrameTiming& timing = r.timing;
    const hs::ImageView view = spec.image->view();
    const hs::HistogramRequest request = histogram_request(view, spec.bins);

    // 1. The original's histogram; the CPU reference when the engine fails.
    hs::HistogramEngine* engine = spec.engine;
    QString engine_name = spec.engine_name;
    try {
        r.original_histogram = histogram_of(*engine, request, engine_name);
    } catch (const std::exception& e) {
        out.histogram_error = describe(e);
        if (spec.fallback == nullptr || spec.fallback == engine) {
            out.histogram_failed = true;
            return out;
        }
        engine = spec.fallback;
        engine_name = qstr(engine->name());
        try {
            r.original_histogram = histogram_of(*engine, request, engine_name);
        } catch (const std::exception& e2) {
            out.histogram_error = describe(e2);
            out.histogram_failed = true;
            return out;
        }
    }
    timing.engine = engine_name;
    timing.bins = request.spec.bins;
    for (const StageTiming& s : r.original_histogram.stages) timing.stages.push_back(s);
    if (stop()) return out;

    // 2. Equalization and the result's histogram.
    if (spec.equalize.mode == EqualizeSettings::Mode::Off) {
        r.equalize_note = QObject::tr("Equalization is off: choose a mode below");
    } else if (!spec.equalize_refused.isEmpty()) {
        r.equalize_note = spec.equalize_refused;
    } else {
        try {
            const hs::EqualizeRequest eq =
                equalize_request(view, spec.equalize, spec.reference.get());
            hs::EqualizeResult result = spec.equalizer->equalize(eq);
            timing.equalizer = qstr(spec.equalizer->name());
            for (const auto& s : result.stages)
                timing.stages.push_back({QString::fromStdString(s.name), s.ms});
            auto equalized = std::make_shared<hs::Image>(std::move(result.image));
            if (stop()) return out;
            QElapsedTimer clock;
            clock.start();
            r.equalized_histogram =
                histogram_of(*engine, histogram_request(equalized->view(), spec.bins), engine_name);
            timing.stages.push_back({QStringLiteral("histogram (equalized)"), ms_of(clock)});
            out.equalized = std::move(equalized);
        } catch (const std::exception& e) {
            out.equalize_error = describe(e);
        }
    }
    if (!out.equalize_error.isEmpty())
        r.equalize_note = QObject::tr("Equalization: %1").arg(out.equalize_error);
    if (stop()) return out;

    // 3. The pictures.
    if (spec.original_picture) {
        Pictures p = pictures_of(view, spec);
        r.original = std::move(p.shown);
        r.original_full = std::move(p.full);
        r.original_clipping = std::move(p.clipping);
        r.display_note = p.note;
    }
    if (out.equalized) {
        Pictures p = pictures_of(out.equalized->view(), spec);
        r.equalized = std::move(p.shown);
        r.equalized_full = std::move(p.full);
        r.equalized_clipping = std::move(p.clipping);
    }
    r.result = out.equalized;
    return out;
}

FrameOutcome streamed_frame(const std::shared_ptr<const hs::Image>& image, hs::FrameResult& result,
                            int bins, unsigned clipping, hs::HistogramEngine* engine,
                            double& total_ms) {
    FrameOutcome outcome;
    FrameResult& out = outcome.result;
    FrameTiming& timing = out.timing;
    const hs::HistogramRequest request = histogram_request(image->view(), bins);
    const QString engine_name = qstr(result.histogram_engine);
    out.original_histogram = histogram_data(request, result.channels, engine_name);
    for (const auto& st : result.stages)
        out.original_histogram.stages.push_back({QString::fromStdString(st.name), st.ms});
    out.original = to_qimage(image->view());
    out.source = image;
    if (clipping != 0) out.original_clipping = clipping_overlay(image->view(), 1, clipping);
    timing.engine = engine_name;
    timing.bins = request.spec.bins;
    double total = 0.0, span = -1.0;
    for (const auto& st : result.stages) {
        timing.stages.push_back({QString::fromStdString(st.name), st.ms});
        if (st.name == "gpu_total")
            span = st.ms;
        else
            total += st.ms;
    }
    total_ms = span >= 0.0 ? span : total;
    if (result.equalized.empty()) return outcome;
    auto equalized = std::make_shared<hs::Image>(std::move(result.equalized));
    out.equalized = to_qimage(equalized->view());
    if (clipping != 0) out.equalized_clipping = clipping_overlay(equalized->view(), 1, clipping);
    if (engine != nullptr) {
        try {
            QElapsedTimer clock;
            clock.start();
            out.equalized_histogram =
                histogram_of(*engine, histogram_request(equalized->view(), bins), engine_name);
            timing.stages.push_back({QStringLiteral("histogram (equalized)"), ms_of(clock)});
        } catch (const std::exception& e) {
            outcome.equalize_error = describe(e);
        }
    }
    out.result = equalized;
    outcome.equalized = std::move(equalized);
    return outcome;
}

}  // namespace hs::ui
