#pragma once
// One background thread for the controller's long work (the exact full-resolution result of a
// large photo): at most one job runs and one waits; a new job replaces the waiting one and asks
// the running one to stop (jobs check their flag between stages). The thread runs at a lower
// priority than the controller's, so the preview the controller computes meanwhile stays quick.
// busyChanged() is emitted on the owner's thread.

#include <QObject>
#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

namespace hs::ui {

class Background : public QObject {
    Q_OBJECT

  public:
    using Job = std::function<void(const std::atomic<bool>& cancelled)>;

    explicit Background(QObject* parent = nullptr);
    ~Background() override;  // cancels and joins

    void submit(Job job);
    // Asks the running job to stop and drops the waiting one.
    void cancel();
    // cancel(), then waits until no job runs.
    void cancelAndWait();
    bool busy() const;

  signals:
    void busyChanged(bool busy);

  private:
    void run();
    void setBusy(bool busy);  // from any thread

    mutable std::mutex mutex_;
    std::condition_variable wake_;
    std::condition_variable idle_;
    Job waiting_;
    std::shared_ptr<std::atomic<bool>> running_cancel_;  // the running job's flag
    bool running_ = false;
    bool quit_ = false;
    std::thread thread_;
};

}  // namespace hs::ui
