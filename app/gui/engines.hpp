#pragma once
// The application's engines: the registry and the controller options that histoscope starts
// with, shared with the UI tests so they exercise exactly what the application runs (the
// engines themselves are app_engines.hpp's, the same as the CLI's).

#include <memory>

#include "histoscope/core/engine.hpp"
#include "histoscope/ui/controller.hpp"

namespace hs::gui {

struct Engines {
    std::unique_ptr<hs::EngineRegistry> registry;
    hs::ui::ControllerOptions options;
};

// The CPU reference, OpenCV and, when built with CUDA, every GPU engine (each reports itself
// unavailable on a machine without a GPU), with the GPU engines' names and the device's
// read-bandwidth measurement in the options.
Engines make_engines();

}  // namespace hs::gui
