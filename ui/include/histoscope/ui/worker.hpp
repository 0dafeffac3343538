#pragma once
// Runs a Controller on its own QThread for the lifetime of this object.

#include <QThread>
#include <memory>

#include "histoscope/ui/controller.hpp"

namespace hs::ui {

class Worker {
  public:
    explicit Worker(std::unique_ptr<Controller> controller);
    ~Worker();  // cancels a benchmark, stops the thread, deletes the controller on it
    Worker(const Worker&) = delete;
    Worker& operator=(const Worker&) = delete;

    Controller* controller() const { return controller_; }

  private:
    QThread thread_;
    Controller* controller_;
};

}  // namespace hs::ui
