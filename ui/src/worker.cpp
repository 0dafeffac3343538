#include "histoscope/ui/worker.hpp"

namespace hs::ui {

Worker::Worker(std::unique_ptr<Controller> controller) : controller_(controller.release()) {
    register_metatypes();
    thread_.setObjectName(QStringLiteral("histoscope-controller"));
    controller_->moveToThread(&thread_);
    QObject::connect(&thread_, &QThread::finished, controller_, &QObject::deleteLater);
    thread_.start();
}

Worker::~Worker() {
    controller_->requestCancel();
    thread_.quit();
    thread_.wait();
}

}  // namespace hs::ui
