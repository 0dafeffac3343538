#include "frame_work.hpp"

#include <QObject>
#include <algorithm>
#include <new>
#include <numeric>
#include <string>

#include "histoscope/core/display.hpp"
#include "histoscope/core/error.hpp"
#include "histoscope/core/histogram.hpp"
#include "histoscope/core/scope_picture.hpp"
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

// A CFA mosaic's picture is R, G1, B of its quads: its fourth channel (G2) is no alpha.
QImage shared_picture(const hs::Image& picture, bool alpha = true) {
    return picture.empty() ? QImage() : picture_qimage(picture.view(), alpha);
}

QImage shared_mask(const hs::Image& mask) {
    return mask.empty() ? QImage() : clipping_qimage(mask.view());
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

std::vector<hs::Channel> display_channels(const hs::ImageView& image, bool cfa) {
    if (cfa) {
        std::vector<hs::Channel> out;
        for (const hs::media::CfaColour& c : hs::media::kCfaColours) out.push_back(c.channel);
        return out;
    }
    if (image.channels == 1) return {hs::Channel::Gray};
    // Float samples are linear light: their luminance is Rec.709's (Rec.601 luma is of
    // gamma-encoded code values).
    const hs::Channel luma = hs::is_float(image.type) ? hs::Channel::Luma709 : hs::Channel::Luma601;
    if (image.channels == 4)
        return {hs::Channel::R, hs::Channel::G, hs::Channel::B, hs::Channel::A, luma};
    return {hs::Channel::R, hs::Channel::G, hs::Channel::B, luma};
}

hs::HistogramSpec float_window_spec(int bins) {
    const int n = std::clamp(bins, 16, kMaxFloatWindowBins);
    // Thread-local: every frame and every result asks for the same edges.
    thread_local std::pair<int, hs::HistogramSpec> made{0, {}};
    if (made.first != n) {
        const std::int64_t span = kFloatStopsHigh - kFloatStopsLow;
        const std::int64_t g = std::gcd(span, std::int64_t{n});
        made = {n,
                hs::HistogramSpec::floating(hs::FloatBins::stops(
                    {kFloatStopsLow, 1}, {kFloatStopsHigh, 1}, {span / g, std::int64_t{n} / g}))};
    }
    return made.second;
}

hs::HistogramRequest histogram_request(const hs::ImageView& image, int bins, bool cfa) {
    hs::HistogramRequest request;
    request.image = image;
    request.channels = display_channels(image, cfa);
    if (hs::is_float(image.type)) {
        request.spec = float_window_spec(bins);
        return request;
    }
    const int levels = 1 << image.bit_depth;
    request.spec = hs::HistogramSpec::full_range(image, std::clamp(bins, 1, levels));
    return request;
}

hs::EqualizeRequest equalize_request(const hs::ImageView& image, const EqualizeSettings& settings,
                                     const hs::MatchReference* reference) {
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
        reference->apply(eq);
    }
    return eq;
}

QVector<LevelMarker> level_markers(const hs::media::CameraRawInfo& info) {
    QVector<LevelMarker> markers;
    const std::uint32_t* black = info.black;
    if (std::all_of(black, black + 4, [&](std::uint32_t b) { return b == black[0]; })) {
        markers.push_back({static_cast<double>(black[0]), QObject::tr("black %1").arg(black[0])});
    } else {
        // One marker per level, naming the colours at it.
        for (int i = 0; i < 4; ++i) {
            if (std::find(black, black + i, black[i]) != black + i) continue;
            QStringList names;
            for (int j = i; j < 4; ++j)
                if (black[j] == black[i])
                    names << QString::fromUtf8(hs::media::kCfaColours[j].name);
            markers.push_back(
                {static_cast<double>(black[i]),
                 QObject::tr("black %1 %2").arg(names.join(QLatin1Char(','))).arg(black[i])});
        }
    }
    markers.push_back({static_cast<double>(info.white), QObject::tr("white %1").arg(info.white)});
    return markers;
}

HistogramData histogram_from_values(const hs::ImageView& shape,
                                    const std::vector<hs::ChannelHistogram>& values, int bins,
                                    const QString& engine_name, const CfaInfo& cfa) {
    const hs::HistogramRequest request = histogram_request(shape, bins, cfa != nullptr);
    const hs::HistogramSpec& spec = request.spec;
    HistogramData data;
    data.engine = engine_name;
    data.bins = spec.bins;
    data.lower = spec.lower;
    data.upper = spec.upper;
    data.pixels = shape.pixel_count();
    data.bytes = image_bytes(shape);
    const std::uint32_t max_code = shape.max_value();
    // Every frame of a stream asks for the same table (65536 entries at 16 bits): made once.
    // The spec is even bins over the depth's range: its bins and the depth make it.
    thread_local std::pair<std::pair<int, std::uint32_t>, std::vector<std::int32_t>> table;
    if (const std::pair key{spec.bins, max_code}; table.first != key)
        table = {key, hs::bin_table(spec, max_code)};
    const std::vector<std::int32_t>& bin = table.second;
    if (cfa) data.markers = level_markers(*cfa);
    for (const auto& channel : values) {
        if (cfa) {
            const int i = hs::media::cfa_index(channel.channel);
            ChannelLevels levels;
            levels.black = cfa->black[i];
            levels.white = cfa->white;
            const hs::media::LevelCounts n =
                hs::media::level_counts(channel.counts, levels.black, levels.white);
            levels.at_or_below_black = n.at_or_below_black;
            levels.at_or_above_white = n.at_or_above_white;
            data.levels.push_back(levels);
        }
        data.channel_names << qstr(cfa ? hs::media::cfa_channel_name(channel.channel)
                                       : hs::channel_name(channel.channel));
        data.stats.push_back(hs::stats_from_values(channel.counts, max_code, spec));
        std::vector<std::uint64_t> counts(static_cast<std::size_t>(spec.bins), 0);
        for (std::size_t v = 0; v < channel.counts.size() && v < bin.size(); ++v)
            if (bin[v] >= 0) counts[static_cast<std::size_t>(bin[v])] += channel.counts[v];
        data.counts.push_back(std::move(counts));
    }
    return data;
}

HistogramData histogram_from_floats(const hs::ImageView& counted,
                                    const std::vector<hs::ChannelHistogram>& histograms,
                                    const hs::HistogramSpec& spec, const QString& engine_name) {
    HistogramData data;
    data.engine = engine_name;
    data.bins = spec.bins;
    data.lower = kFloatStopsLow;
    data.upper = kFloatStopsHigh;
    data.unit = QStringLiteral("EV");
    data.pixels = counted.pixel_count();
    data.bytes = image_bytes(counted);
    // The statistics read every sample again: kept for the same frame, region and bins (an
    // exposure's change computes them once).
    struct Kept {
        const std::byte* data = nullptr;
        int width = 0, height = 0;
        int bins = 0;
        std::vector<hs::Channel> channels;
        std::vector<hs::FloatStats> stats;
    };
    thread_local Kept kept;
    std::vector<hs::Channel> channels;
    for (const auto& h : histograms) channels.push_back(h.channel);
    if (kept.data != counted.data || kept.width != counted.width || kept.height != counted.height ||
        kept.bins != spec.bins || kept.channels != channels) {
        kept = {counted.data, counted.width, counted.height, spec.bins, channels, {}};
        for (const hs::Channel c : channels)
            kept.stats.push_back(hs::compute_float_stats(counted, c, spec));
    }
    data.float_stats = kept.stats;
    for (const auto& h : histograms) {
        data.channel_names << qstr(hs::channel_name(h.channel));
        data.counts.push_back(h.counts);
    }
    return data;
}

std::vector<hs::ScopeSpec> scope_specs(const hs::ImageView& image, const ScopeSettings& settings) {
    std::vector<hs::ScopeSpec> specs;
    const auto columns = [&](hs::ScopeSpec& s) {
        s.columns = std::min(image.width, kScopeColumns);
        return s;
    };
    if (settings.waveform) {
        hs::ScopeSpec s;
        s.channel = hs::Channel::Gray;
        if (image.channels >= 3)
            s.channel = hs::parse_channel(settings.waveform_channel.toStdString())
                            .value_or(hs::Channel::Luma601);
        specs.push_back(columns(s));
    }
    if (image.channels < 3) return specs;
    if (settings.parade) {
        hs::ScopeSpec s{hs::ScopeKind::Parade};
        specs.push_back(columns(s));
    }
    if (settings.vectorscope) {
        hs::ScopeSpec s{hs::ScopeKind::Vectorscope};
        s.matrix = settings.rec709 ? hs::ChromaMatrix::Rec709 : hs::ChromaMatrix::Rec601;
        specs.push_back(s);
    }
    return specs;
}

std::optional<hs::Region> frame_region(const QRect& region, int width, int height, int reduced_by) {
    if (region.isNull() || region.isEmpty()) return std::nullopt;
    const int f = std::max(reduced_by, 1);
    // Every reduced pixel the region touches.
    const QRect scaled(QPoint(region.left() / f, region.top() / f),
                       QPoint(region.right() / f, region.bottom() / f));
    const QRect inside = scaled.intersected(QRect(0, 0, width, height));
    if (inside.isEmpty()) return std::nullopt;
    return hs::Region{inside.x(), inside.y(), inside.width(), inside.height()};
}

PreviewCopy preview_copy(const hs::Image& photo) {
    // About the size of a screen.
    constexpr int kPreviewSize = 2048;
    const int factor = (std::max(photo.width(), photo.height()) + kPreviewSize - 1) / kPreviewSize;
    if (factor <= 1) return {};
    return {std::make_shared<hs::Image>(hs::downscale(photo.view(), factor)), factor};
}

PresentedFrame results(hs::FrameResult& r, const FrameTag& tag) {
    const ResultContext& context = tag.context;
    QElapsedTimer clock;
    clock.start();
    PresentedFrame out;
    // What the histograms counted: the region, or the whole frame.
    const hs::ImageView shape =
        context.counted ? hs::crop(tag.image->view(), *context.counted) : tag.image->view();
    out.preview = tag.preview;
    out.session = tag.session;
    out.tick = tag.tick;
    const bool floating = hs::is_float(shape.type);
    out.original_histogram =
        floating
            ? histogram_from_floats(shape, r.channels, float_window_spec(context.bins),
                                    context.engine)
            : histogram_from_values(shape, r.channels, context.bins, context.engine, context.cfa);
    if (!r.equalized_channels.empty())
        out.equalized_histogram =
            histogram_from_values(shape, r.equalized_channels, context.bins, context.engine);
    out.equalize_note = context.equalize_note;
    out.equalize_wanted = context.equalize_wanted;
    out.region = context.region;
    out.excursions = tag.excursions;
    for (std::size_t i = 0; i < r.scopes.size() && i < context.scopes.size(); ++i) {
        const hs::ScopeSpec& spec = context.scopes[i];
        ScopeImage scope;
        scope.picture = picture_qimage(hs::scope_picture(r.scopes[i], spec).view());
        scope.kind = qstr(hs::scope_kind_name(spec.kind));
        const hs::ScopePlane& first = r.scopes[i].front();
        scope.detail = qstr(spec.describe(first.width));
        for (std::uint64_t n : first.counts) scope.pixels += n;
        switch (spec.kind) {
            case hs::ScopeKind::Waveform:
                scope.title =
                    QObject::tr("Waveform (%1)")
                        .arg(spec.channel == hs::Channel::Luma601 ? QObject::tr("luma Rec.601")
                             : spec.channel == hs::Channel::Luma709
                                 ? QObject::tr("luma Rec.709")
                                 : qstr(hs::channel_name(spec.channel)));
                break;
            case hs::ScopeKind::Parade:
                scope.title = QObject::tr("RGB parade");
                break;
            case hs::ScopeKind::Vectorscope:
                scope.title =
                    QObject::tr("Vectorscope (Rec.%1)").arg(qstr(hs::matrix_name(spec.matrix)));
                break;
        }
        out.scopes.push_back(std::move(scope));
    }
    if (r.pictures) {
        const hs::FramePictures& p = *r.pictures;
        out.factor = p.factor * tag.preview_factor;
        out.original = shared_picture(p.original, context.cfa == nullptr);
        out.equalized = shared_picture(p.equalized);
        out.original_range = p.original_range;
        out.equalized_range = p.equalized_range;
        out.original_clipping = shared_mask(p.original_clipping);
        out.equalized_clipping = shared_mask(p.equalized_clipping);
        // Each picture is stretched over its own range: the note says both when they differ,
        // or a narrow equalized result would look as full as the original beside it.
        const hs::DisplayRange full{0, shape.max_value()};
        const bool equalized = !p.equalized.empty();
        out.exposure = context.exposure;
        if (floating) {
            out.display_note = QObject::tr("linear light at %1 EV, sRGB (view only)")
                                   .arg(QString::asprintf("%+.1f", context.exposure));
        } else if (p.original_range != full || (equalized && p.equalized_range != full)) {
            const bool two = equalized && p.equalized_range != p.original_range;
            QString note =
                (two ? QObject::tr("display original %1..%2") : QObject::tr("display %1..%2"))
                    .arg(p.original_range.lo)
                    .arg(p.original_range.hi);
            if (two)
                note += QObject::tr(", equalized %1..%2")
                            .arg(p.equalized_range.lo)
                            .arg(p.equalized_range.hi);
            out.display_note = note + QObject::tr(" of 0..%1 (view only)").arg(full.hi);
        }
    }
    out.source = tag.source;
    // A preview's reduction, whether or not an equalized frame came with it (its notes say it).
    out.result_factor = tag.preview_factor;
    if (!r.equalized.empty())
        out.result = std::make_shared<const hs::Image>(std::move(r.equalized));

    FrameTiming& timing = out.timing;
    timing.engine = context.engine;
    timing.equalizer = context.equalizer;
    timing.stream = context.stream;
    // What the stream counted: a count per code value, or (a float frame) the window's float
    // bins themselves.
    timing.values = floating ? 0 : static_cast<int>(shape.max_value()) + 1;
    timing.bins = out.original_histogram.bins;
    timing.frame = tag.index;
    if (tag.index >= 0) timing.frame_kind = tag.frame_kind;
    timing.preview = tag.preview;
    timing.read_ms = tag.read_ms;
    if (tag.read_ms > 0.0) timing.stages.push_back({QStringLiteral("read"), tag.read_ms});
    double sum = 0.0, span = -1.0;
    for (const auto& st : r.stages) {
        const QString name = QString::fromStdString(st.name);
        if (st.name == "gpu_total") {
            span = st.ms;
            continue;
        }
        timing.stages.push_back({name, st.ms});
        sum += st.ms;
        if (st.name == "upload") timing.upload_ms = st.ms;
        // The engine's own stages of the original's histogram, for its throughput.
        if (st.name == "histogram")
            out.original_histogram.stages.push_back({QStringLiteral("histogram"), st.ms});
    }
    timing.stream_ms = span >= 0.0 ? span : sum;
    out.original_histogram.total_ms = timing.stream_ms;
    timing.results_ms = ms_of(clock);
    timing.stages.push_back({QStringLiteral("results"), timing.results_ms});
    timing.total_ms = timing.read_ms + timing.stream_ms + timing.results_ms;
    return out;
}

}  // namespace hs::ui
