#pragma once
// The scripted run of the desktop application (histoscope --screenshot): screenshots of the
// real window (after playing a video or a stream of raw frames to its end, when asked), and of
// Compare Kernels after a run with every engine, taken without a person,
// e.g. under QT_QPA_PLATFORM=offscreen on the GPU host (scripts/gpu.sh gui). It only listens to
// the controller, so it works whatever opened the input.

#include <QString>

namespace hs::ui {
class Controller;
class MainWindow;
}  // namespace hs::ui

namespace hs::gui {

struct ScriptedRun {
    QString window_png;    // the main window, once the first histogram is drawn (or played)
    bool play = false;     // play the opened video or raw stream to its last frame first
    bool unpaced = false;  // play every frame as fast as the frame path goes, not by the clock
    // Play this many frames (looping the input) instead of to the last frame; 0: to the end.
    int frames = 0;
    // A photo: after its window is saved, time re-renders after changes of the equalization
    // (strength, CLAHE): from the change sent to the new picture painted.
    bool rerender = false;
    QString compare_png;  // Compare Kernels after its run; empty: no run
    int timeout_s = 300;  // for the whole run
};

// Sizes of the windows the scripted run saves, in pixels (what its test checks).
constexpr int kScriptedWindowWidth = 1600;
constexpr int kScriptedWindowHeight = 1000;
constexpr int kScriptedCompareWidth = 1200;
constexpr int kScriptedCompareHeight = 800;

// Sizes `window` and arms the run: the application exits 0 once every PNG asked for is written,
// or prints one `error:` line and exits 3 if the input fails to load, playing is asked of an
// input that is not a video or a stream, playback stops before the last frame or reports an
// error, an engine of Compare Kernels fails or is not verified, a PNG cannot be written, or the
// run takes longer than timeout_s. With `play`, two lines sum up the playback: frames shown,
// dropped (by the stage that dropped them) and failed, the histogram engine and frame stream
// that ran, the frames per second shown; then the median and 99th percentile of each stage of a
// frame shown (read, upload, the frame stream's work, the results made ready for the window,
// the window's update and paint). The window is saved while it plays, at the middle frame.
// Live input (standard input) plays from the start on its own: the run waits for its end. A
// photo's line gives the time from its decoding to its first picture painted. Call before the
// input is opened.
void arm_scripted_run(const ScriptedRun& run, hs::ui::MainWindow& window,
                      hs::ui::Controller& controller);

}  // namespace hs::gui
