#pragma once
// The application's look: Fusion with a dark palette (photo work wants a neutral dark
// surround), and the compiled-in resources (icons).

class QApplication;

namespace hs::ui {

void apply_dark_theme(QApplication& app);
void init_resources();

}  // namespace hs::ui
