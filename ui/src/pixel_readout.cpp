#include "histoscope/ui/pixel_readout.hpp"

#include <QStringList>

#include "histoscope/core/channels.hpp"

namespace hs::ui {

QString pixel_readout(const hs::ImageView& image, int x, int y) {
    if (image.data == nullptr || x < 0 || y < 0 || x >= image.width || y >= image.height) return {};
    QStringList parts, eight_bit;
    const std::uint32_t max = image.max_value();
    auto add = [&](const QString& name, std::uint32_t v) {
        parts << QStringLiteral("%1 %2").arg(name).arg(v);
        eight_bit << QString::number((v * 255u + max / 2u) / max);
    };
    if (image.channels == 1) {
        add(QStringLiteral("gray"), image.sample(x, y, 0));
    } else {
        const std::uint32_t r = image.sample(x, y, 0), g = image.sample(x, y, 1),
                            b = image.sample(x, y, 2);
        add(QStringLiteral("R"), r);
        add(QStringLiteral("G"), g);
        add(QStringLiteral("B"), b);
        if (image.channels == 4) add(QStringLiteral("A"), image.sample(x, y, 3));
        add(QStringLiteral("luma"), hs::luma(hs::kLuma601, r, g, b));
    }
    QString text = parts.join(QStringLiteral("  "));
    if (image.bit_depth > 8)
        text += QStringLiteral("  (8-bit %1)").arg(eight_bit.join(QLatin1Char(' ')));
    return text;
}

}  // namespace hs::ui
