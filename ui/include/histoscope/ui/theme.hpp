#pragma once
// The application's look: Fusion with a dark palette (photo work wants a neutral dark
// surround), and the compiled-in resources (icons).

#include <QRgb>

class QApplication;

namespace hs::ui {

// The plots' and scopes' own colours: dark like a scope's whatever the palette, so that the
// channels' colours add up as light.
inline constexpr QRgb kPlotBackground = qRgb(24, 25, 28);
inline constexpr QRgb kPlotText = qRgb(200, 201, 206);

void apply_dark_theme(QApplication& app);
void init_resources();

}  // namespace hs::ui
