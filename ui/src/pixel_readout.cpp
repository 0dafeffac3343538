#include "histoscope/ui/pixel_readout.hpp"

#include <QStringList>

#include "histoscope/core/channels.hpp"
#include "histoscope/media/media.hpp"

namespace hs::ui {

QString pixel_readout(const hs::ImageView& image, int x, int y,
                      std::optional<hs::DisplayRange> shown, bool cfa) {
    if (image.data == nullptr || x < 0 || y < 0 || x >= image.width || y >= image.height) return {};
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
