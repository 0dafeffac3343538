#include "histoscope/ui/compare_dialog.hpp"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

#include "histoscope/ui/controller.hpp"
#include "histoscope/ui/export.hpp"

namespace hs::ui {

namespace {

enum Column {
    Kernel,
    Status,
    Median,
    Min,
    EndToEnd,
    Gpix,
    PctBandwidth,
    Verified,
    BackToBack,
    FloorRatio,
    Note,
    Columns
};

QTableWidgetItem* number_item(double value, int decimals) {
    auto* item = new QTableWidgetItem(QString::number(value, 'f', decimals));
    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return item;
}

}  // namespace

CompareDialog::CompareDialog(Controller* controller, const QString& input, QWidget* parent)
    : QDialog(parent),
      controller_(controller),
      input_(input),
      runs_(new QSpinBox(this)),
      run_button_(new QPushButton(tr("Run"), this)),
      cancel_button_(new QPushButton(tr("Cancel"), this)),
      csv_button_(new QPushButton(tr("Export CSV..."), this)),
      json_button_(new QPushButton(tr("Export JSON..."), this)),
      progress_(new QProgressBar(this)),
      status_(new QLabel(this)),
      table_(new QTableWidget(0, Columns, this)),
      chart_(new QChart),
      splitter_(new QSplitter(Qt::Vertical, this)) {
    setWindowTitle(tr("Compare Kernels"));
    runs_->setRange(1, 1000);
    runs_->setValue(20);
    runs_->setToolTip(tr("Timed runs per engine (after 2 warm-up runs)"));
    table_->setHorizontalHeaderLabels({tr("Kernel"), tr("Status"), tr("Median ms"), tr("Min ms"),
                                       tr("End-to-end ms"), tr("Gpix/s"), tr("% read BW"),
                                       tr("Verified"), tr("Back to back ms"), tr("x floor"),
                                       tr("Note")});
    table_->horizontalHeaderItem(BackToBack)
        ->setToolTip(tr("Per run when the runs are queued one after the other, as frames are"));
    table_->horizontalHeaderItem(FloorRatio)
        ->setToolTip(tr("Median over the floor's: a GPU kernel that only reads the same bytes"));
    table_->verticalHeader()->hide();
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setAlternatingRowColors(true);

    chart_->setTitle(tr("Throughput (Gpix/s, higher is better)"));
    chart_->legend()->hide();
    chart_->setTheme(palette().color(QPalette::Window).lightness() < 128 ? QChart::ChartThemeDark
                                                                         : QChart::ChartThemeLight);
    auto* chart_view = new QChartView(chart_, this);
    chart_view->setRenderHint(QPainter::Antialiasing);
    const int em = fontMetrics().height();
    // Room for the axes' labels and titles whole (smaller, Qt Charts elides them).
    chart_view->setMinimumSize(em * 32, em * 14);
    table_->setMinimumHeight(em * 6);

    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Input: %1").arg(QFileInfo(input_).fileName()), this), 1);
    top->addWidget(new QLabel(tr("Timed runs"), this));
    top->addWidget(runs_);
    top->addWidget(run_button_);
    top->addWidget(cancel_button_);
    splitter_->setObjectName(QStringLiteral("compareSplitter"));
    splitter_->setChildrenCollapsible(false);
    splitter_->addWidget(chart_view);
    splitter_->addWidget(table_);
    splitter_->setStretchFactor(0, 3);
    splitter_->setStretchFactor(1, 2);
    auto* bottom = new QHBoxLayout;
    bottom->addWidget(status_, 1);
    bottom->addWidget(csv_button_);
    bottom->addWidget(json_button_);
    auto* close = new QPushButton(tr("Close"), this);
    bottom->addWidget(close);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(progress_);
    layout->addWidget(splitter_, 1);
    layout->addLayout(bottom);
    // First open: a chart as tall as the table or more; later, as the user left them.
    resize(em * 56, em * 40);
    splitter_->setSizes({em * 20, em * 14});
    QSettings settings;
    restoreGeometry(settings.value(QStringLiteral("compare/geometry")).toByteArray());
    splitter_->restoreState(settings.value(QStringLiteral("compare/splitter")).toByteArray());

    // Enter runs.
    run_button_->setDefault(true);
    connect(run_button_, &QPushButton::clicked, this, &CompareDialog::start);
    connect(cancel_button_, &QPushButton::clicked, this, &CompareDialog::cancel);
    connect(csv_button_, &QPushButton::clicked, this, [this] { exportAs(false); });
    connect(json_button_, &QPushButton::clicked, this, [this] { exportAs(true); });
    connect(close, &QPushButton::clicked, this, &QDialog::reject);
    connect(this, &CompareDialog::runRequested, controller_, &Controller::runBenchmark);
    connect(controller_, &Controller::benchmarkStarted, this, &CompareDialog::onStarted);
    connect(controller_, &Controller::benchmarkProgress, this, &CompareDialog::onProgress);
    connect(controller_, &Controller::benchmarkRow, this, &CompareDialog::onRow);
    connect(controller_, &Controller::benchmarkFinished, this, &CompareDialog::onFinished);
    connect(this, &QDialog::rejected, this, &CompareDialog::cancel);
    setRunning(false);
    // Wrapped: a long summary must not widen the dialog after each run.
    status_->setWordWrap(true);
    status_->setText(tr("Run times every available engine on the loaded image"));
}

int CompareDialog::chartBars() const {
    int bars = 0;
    for (QAbstractSeries* s : chart_->series())
        if (auto* bar = qobject_cast<QBarSeries*>(s))
            for (QBarSet* set : bar->barSets()) bars += static_cast<int>(set->count());
    return bars;
}

QString CompareDialog::statusText() const {
    return status_->text();
}

void CompareDialog::setRunning(bool running) {
    running_ = running;
    run_button_->setEnabled(!running);
    runs_->setEnabled(!running);
    cancel_button_->setEnabled(running);
    csv_button_->setEnabled(!running && !rows_.isEmpty());
    json_button_->setEnabled(!running && !rows_.isEmpty());
}

void CompareDialog::start() {
    if (running_) return;
    // The last run's results stay until the new run has its first row: a run cancelled before
    // that leaves them as they were.
    replaced_ = rows_.isEmpty();
    progress_->setValue(progress_->minimum());
    setRunning(true);
    status_->setText(tr("Starting..."));
    controller_->clearCancel();
    emit runRequested(runs_->value());
}

void CompareDialog::hideEvent(QHideEvent* event) {
    QSettings settings;
    settings.setValue(QStringLiteral("compare/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("compare/splitter"), splitter_->saveState());
    QDialog::hideEvent(event);
}

void CompareDialog::cancel() {
    if (!running_) return;
    controller_->requestCancel();
    status_->setText(tr("Cancelling..."));
}

void CompareDialog::onStarted(const BenchContext& context, int total_runs) {
    next_context_ = context;
    if (replaced_) context_ = context;
    progress_->setRange(0, std::max(total_runs, 1));
    progress_->setValue(0);
}

void CompareDialog::onProgress(int done, int total, const QString& engine) {
    progress_->setRange(0, std::max(total, 1));
    progress_->setValue(done);
    if (!engine.isEmpty() && status_->text() != tr("Cancelling..."))
        status_->setText(
            tr("Timing %1: run %2 of %3 in all...").arg(engine).arg(done + 1).arg(total));
}

void CompareDialog::onRow(const BenchRow& row) {
    if (!replaced_) {
        replaced_ = true;
        rows_.clear();
        table_->setRowCount(0);
        context_ = next_context_;
    }
    rows_.push_back(row);
    const int r = table_->rowCount();
    table_->insertRow(r);
    table_->setItem(r, Kernel, new QTableWidgetItem(QString::fromStdString(row.kernel)));
    const QString reason = QString::fromStdString(row.reason);
    auto* status = new QTableWidgetItem(QString::fromStdString(row.status));
    if (!reason.isEmpty()) status->setToolTip(reason);
    table_->setItem(r, Status, status);
    const bool ok = row.status == "ok";
    table_->setItem(r, Median, ok ? number_item(row.median_ms, 3) : new QTableWidgetItem);
    table_->setItem(r, Min, ok ? number_item(row.min_ms, 3) : new QTableWidgetItem);
    table_->setItem(r, EndToEnd,
                    ok ? number_item(row.end_to_end_median_ms, 3) : new QTableWidgetItem);
    table_->setItem(r, Gpix, ok ? number_item(row.gpix_s, 3) : new QTableWidgetItem);
    table_->setItem(
        r, PctBandwidth,
        ok && row.pct_read_bw > 0.0 ? number_item(row.pct_read_bw, 1) : new QTableWidgetItem);
    const QString good = row.floor ? tr("read all") : tr("exact");
    const QString bad = row.floor ? tr("MISSED BYTES") : tr("MISMATCH");
    auto* verified = new QTableWidgetItem(ok ? (row.verified ? good : bad) : QString());
    if (ok) verified->setForeground(row.verified ? QColor(90, 200, 110) : QColor(240, 80, 80));
    table_->setItem(r, Verified, verified);
    table_->setItem(
        r, BackToBack,
        ok && row.back_to_back_ms > 0 ? number_item(row.back_to_back_ms, 3) : new QTableWidgetItem);
    table_->setItem(r, FloorRatio,
                    row.floor_ratio > 0 ? number_item(row.floor_ratio, 2) : new QTableWidgetItem);
    auto* note = new QTableWidgetItem(reason);
    note->setToolTip(reason);
    table_->setItem(r, Note, note);
    rebuildChart();
}

void CompareDialog::onFinished(bool cancelled) {
    if (!running_) return;
    setRunning(false);
    // Cancelled: the bar starts over rather than stay where the run stopped.
    progress_->setValue(cancelled ? progress_->minimum() : progress_->maximum());
    if (cancelled && !replaced_) {
        status_->setText(tr("Cancelled before an engine was timed: the results of the run before "
                            "are shown (%1)")
                             .arg(summary()));
        emit finished(cancelled);
        return;
    }
    if (cancelled && rows_.isEmpty()) {
        status_->setText(tr("Cancelled before an engine was timed"));
        emit finished(cancelled);
        return;
    }
    status_->setText((cancelled ? tr("Cancelled: ") : QString()) + summary());
    emit finished(cancelled);
}

QString CompareDialog::summary() const {
    const auto verified = std::count_if(rows_.begin(), rows_.end(),
                                        [](const BenchRow& r) { return !r.floor && r.verified; });
    const auto timed = std::count_if(
        rows_.begin(), rows_.end(), [](const BenchRow& r) { return !r.floor && r.status == "ok"; });
    QString text = (timed == 1 ? tr("1 engine timed") : tr("%1 engines timed").arg(timed)) +
                   tr(", %1 verified exact against the CPU reference").arg(verified);
    // The input as the rows describe it (every row does; the floor's has no bins).
    const auto engine_row =
        std::find_if(rows_.begin(), rows_.end(), [](const BenchRow& r) { return !r.floor; });
    if (engine_row != rows_.end())
        text += tr("; %1 x %2, %3-bit, %4 bins, %5 runs")
                    .arg(engine_row->width)
                    .arg(engine_row->height)
                    .arg(engine_row->depth)
                    .arg(engine_row->bins)
                    .arg(context_.timed_runs);
    return text;
}

void CompareDialog::rebuildChart() {
    chart_->removeAllSeries();
    for (QAbstractAxis* axis : chart_->axes()) {
        chart_->removeAxis(axis);
        delete axis;
    }
    auto* set = new QBarSet(tr("Gpix/s"));
    QStringList categories;
    double max = 0.0;
    for (const BenchRow& r : rows_) {
        if (r.status != "ok") continue;
        *set << r.gpix_s;
        categories << QString::fromStdString(r.kernel);
        max = std::max(max, r.gpix_s);
    }
    auto* series = new QBarSeries;
    series->append(set);
    series->setLabelsVisible(true);
    series->setLabelsFormat(QStringLiteral("@value"));
    series->setLabelsPrecision(3);
    chart_->addSeries(series);
    auto* x = new QBarCategoryAxis;
    x->append(categories);
    // Round ticks: steps of 1, 2, 2.5 or 5 times a power of ten, about five of them, up to
    // above the fastest bar.
    const double top = max > 0.0 ? max * 1.1 : 1.0;
    const double rough = top / 5.0;
    const double scale = std::pow(10.0, std::floor(std::log10(rough)));
    double step = 10.0 * scale;
    for (const double m : {1.0, 2.0, 2.5, 5.0})
        if (m * scale >= rough) {
            step = m * scale;
            break;
        }
    const int steps = std::max(1, static_cast<int>(std::ceil(top / step - 1e-9)));
    auto* y = new QValueAxis;
    y->setRange(0.0, step * steps);
    y->setTickCount(steps + 1);
    y->setLabelFormat(QStringLiteral("%g"));
    y->setTitleText(tr("Gpix/s"));
    chart_->addAxis(x, Qt::AlignBottom);
    chart_->addAxis(y, Qt::AlignLeft);
    series->attachAxis(x);
    series->attachAxis(y);
}

void CompareDialog::exportAs(bool json) {
    const QString path = QFileDialog::getSaveFileName(
        this, json ? tr("Export JSON") : tr("Export CSV"),
        json ? QStringLiteral("kernels.json") : QStringLiteral("kernels.csv"),
        json ? tr("JSON (*.json)") : tr("CSV (*.csv)"));
    if (path.isEmpty()) return;
    const QString error = write_text_file(
        path, json ? benchmark_json(rows_, context_) : benchmark_csv(rows_, context_), input_);
    if (!error.isEmpty()) QMessageBox::warning(this, tr("Export failed"), error);
}

}  // namespace hs::ui
