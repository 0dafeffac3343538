#pragma once
// What histoscope's controller starts with: the engine registry and the controller options,
// shared with the UI tests so they exercise exactly what the application runs (the engines
// themselves are app_engines.hpp's hs::app::Engines, the same as the CLI's).

#include <memory>

#include "histoscope/core/engine.hpp"
#include "histoscope/ui/controller.hpp"

namespace hs::gui {

struct ControllerSetup {
    std::unique_ptr<hs::EngineRegistry> registry;
    hs::ui::ControllerOptions options;
};

// The CPU reference, OpenCV and, when built with CUDA, every GPU engine (each reports itself
// unavailable on a machine without a GPU), with the GPU engines' names and the device's
// read-bandwidth measurement in the options.
ControllerSetup make_controller_setup();

}  // namespace hs::gui
