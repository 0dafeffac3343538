#include "host_bandwidth.hpp"

#include <QElapsedTimer>
#include <QFile>
#include <QObject>
#include <QRegularExpression>
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <thread>
#include <vector>

namespace hs::ui {

double measure_host_read_bandwidth_gbs(int passes) {
    const std::size_t words = (std::size_t{128} << 20) / sizeof(std::uint64_t);
    std::vector<std::uint64_t> buffer(words);
    std::iota(buffer.begin(), buffer.end(), std::uint64_t{1});
    const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    double best = 0.0;
    std::vector<std::uint64_t> sums(threads);
    for (int pass = 0; pass < std::max(passes, 1); ++pass) {
        QElapsedTimer clock;
        clock.start();
        std::vector<std::thread> pool;
        for (unsigned t = 0; t < threads; ++t)
            pool.emplace_back([&, t] {
                const std::size_t begin = words * t / threads, end = words * (t + 1) / threads;
                std::uint64_t s = 0;
                for (std::size_t i = begin; i < end; ++i) s += buffer[i];
                sums[t] = s;
            });
        for (auto& th : pool) th.join();
        const double seconds = static_cast<double>(clock.nsecsElapsed()) / 1e9;
        if (seconds > 0.0)
            best =
                std::max(best, static_cast<double>(words * sizeof(std::uint64_t)) / seconds / 1e9);
    }
    // The sums are used so the reads cannot be optimized away.
    volatile std::uint64_t sink = std::accumulate(sums.begin(), sums.end(), std::uint64_t{0});
    (void)sink;
    return best;
}

QString cpu_description() {
    QString model = QObject::tr("unknown CPU");
    QFile info(QStringLiteral("/proc/cpuinfo"));
    if (info.open(QIODevice::ReadOnly | QIODevice::Text)) {
        const QRegularExpression line(QStringLiteral("^model name\\s*:\\s*(.+)$"),
                                      QRegularExpression::MultilineOption);
        const QRegularExpressionMatch m = line.match(QString::fromUtf8(info.readAll()));
        if (m.hasMatch()) model = m.captured(1).trimmed();
    }
    return QObject::tr("%1, %2 threads")
        .arg(model)
        .arg(std::max(1u, std::thread::hardware_concurrency()));
}

}  // namespace hs::ui
