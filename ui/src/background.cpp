#include "background.hpp"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace hs::ui {

Background::Background(QObject* parent) : QObject(parent) {
    thread_ = std::thread([this] {
        // Below the controller's thread (threads the job starts inherit it); not being allowed
        // to is harmless.
        (void)setpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid)), 10);
        run();
    });
}

Background::~Background() {
    {
        std::lock_guard lock(mutex_);
        quit_ = true;
        waiting_ = nullptr;
        if (running_cancel_) running_cancel_->store(true);
    }
    wake_.notify_all();
    thread_.join();
}

void Background::submit(Job job) {
    {
        std::lock_guard lock(mutex_);
        waiting_ = std::move(job);
        if (running_cancel_) running_cancel_->store(true);
    }
    setBusy(true);
    wake_.notify_all();
}

void Background::cancel() {
    bool idle = false;
    {
        std::lock_guard lock(mutex_);
        waiting_ = nullptr;
        if (running_cancel_) running_cancel_->store(true);
        idle = !running_;
    }
    if (idle) setBusy(false);
}

void Background::cancelAndWait() {
    cancel();
    std::unique_lock lock(mutex_);
    idle_.wait(lock, [this] { return !running_ && !waiting_; });
}

bool Background::busy() const {
    std::lock_guard lock(mutex_);
    return running_ || waiting_;
}

void Background::setBusy(bool busy) {
    QMetaObject::invokeMethod(
        this, [this, busy] { emit busyChanged(busy); }, Qt::QueuedConnection);
}

void Background::run() {
    std::unique_lock lock(mutex_);
    for (;;) {
        wake_.wait(lock, [this] { return quit_ || waiting_; });
        if (quit_) return;
        Job job = std::move(waiting_);
        waiting_ = nullptr;
        running_cancel_ = std::make_shared<std::atomic<bool>>(false);
        const auto cancelled = running_cancel_;
        running_ = true;
        lock.unlock();
        try {
            job(*cancelled);
        } catch (...) {
            // Jobs report their own failures; nothing may escape the thread.
        }
        lock.lock();
        running_ = false;
        running_cancel_.reset();
        if (!waiting_) {
            idle_.notify_all();
            setBusy(false);
        }
    }
}

}  // namespace hs::ui
