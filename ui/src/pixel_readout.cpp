#include "histoscope/ui/pixel_readout.hpp"

#include <QStringList>
#include <cmath>

#include "histoscope/core/channels.hpp"
#include "histoscope/media/media.hpp"

namespace hs::ui {

namespace {

// Four significant digits, as a float's value reads best (0.1804, 2.25, 1.5e-05, 6.55e+04).
QString float_text(double v) {
    if (std::isnan(v)) return QStringLiteral("NaN");
    if (std::isinf(v)) return v > 0 ? QStringLiteral("+inf") : QStringLiteral("-inf");
    return QString::number(v, 'g', 4);
}

QString float_readout(const hs::ImageView& image, int x, int y, double exposure) {
    QStringList parts, eight_bit;
    const auto add = [&](const QString& name, float v, bool alpha = false) {
        parts << QStringLiteral("%1 %2").arg(name, float_text(v));
        eight_bit << QString::number(alpha ? hs::displayed_float_alpha(v)
                                           : hs::displayed_float(v, exposure));
    };
    float y709;
    if (image.channels == 1) {
        y709 = image.sample_f32(x, y, 0);
        add(QStringLiteral("gray"), y709);
    } else {
        const float r = image.sample_f32(x, y, 0), g = image.sample_f32(x, y, 1),
                    b = image.sample_f32(x, y, 2);
        add(QStringLiteral("R"), r);
        add(QStringLiteral("G"), g);
        add(QStringLiteral("B"), b);
        if (image.channels == 4) add(QStringLiteral("A"), image.sample_f32(x, y, 3), true);
        y709 = hs::luminance709(r, g, b);
        parts << QStringLiteral("Y %1").arg(float_text(y709));
    }
    if (std::isfinite(y709) && y709 > 0.0f)
        parts << QStringLiteral("(%1 EV)").arg(
            QString::asprintf("%+.2f", std::log2(static_cast<double>(y709))));
    return parts.join(QStringLiteral("  ")) +
           QStringLiteral("  (8-bit %1)").arg(eight_bit.join(QLatin1Char(' ')));
}

}  // namespace

QString pixel_readout(const hs::ImageView& image, int x, int y,
                      std::optional<hs::DisplayRange> shown, bool cfa, double exposure) {
    if (image.data == nullptr || x < 0 || y < 0 || x >= image.width || y >= image.height) return {};
    if (hs::is_float(image.type)) return float_readout(image, x, y, exposure);
    QStringList parts, eight_bit;
    const std::uint32_t max = image.max_value();
    const hs::DisplayRange range = shown.value_or(hs::full_display_range(image));
    auto add = [&](const QString& name, std::uint32_t v, bool alpha = false) {
        parts << QStringLiteral("%1 %2").arg(name).arg(v);
        eight_bit << QString::number(alpha ? hs::displayed_alpha(v, max)
                                           : hs::displayed_colour(v, range));
    };
    if (cfa && image.channels == 4) {
        // Shown as R, G1, B of the quad; G2 is in no picture (its 8-bit value as G1's would be).
        for (const hs::media::CfaColour& c : hs::media::kCfaColours)
            add(QString::fromUtf8(c.name).toUpper(),
                image.sample(x, y, hs::channel_offset(c.channel, 4)));
    } else if (image.channels == 1) {
        add(QStringLiteral("gray"), image.sample(x, y, 0));
    } else {
        const std::uint32_t r = image.sample(x, y, 0), g = image.sample(x, y, 1),
                            b = image.sample(x, y, 2);
        add(QStringLiteral("R"), r);
        add(QStringLiteral("G"), g);
        add(QStringLiteral("B"), b);
        if (image.channels == 4) add(QStringLiteral("A"), image.sample(x, y, 3), true);
        add(QStringLiteral("luma"), hs::luma(hs::kLuma601, r, g, b));
    }
    QString text = parts.join(QStringLiteral("  "));
    if (image.bit_depth > 8)
        text += QStringLiteral("  (8-bit %1)").arg(eight_bit.join(QLatin1Char(' ')));
    return text;
}

}  // namespace hs::ui
