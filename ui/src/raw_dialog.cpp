#include "histoscope/ui/raw_dialog.hpp"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QStringList>
#include <exception>

#include "frame_work.hpp"
#include "histoscope/core/error.hpp"
#include "histoscope/media/media.hpp"

namespace hs::ui {

namespace {

// Most recent first: (absolute path, format) pairs.
const QString kFormatsKey = QStringLiteral("raw/formats");
constexpr int kMaxRemembered = 64;

QString absolute(const QString& path) {
    return QDir::cleanPath(QFileInfo(path).absoluteFilePath());
}

QList<QStringList> remembered() {
    QList<QStringList> out;
    for (const QVariant& entry : QSettings().value(kFormatsKey).toList())
        if (const QStringList pair = entry.toStringList(); pair.size() == 2) out << pair;
    return out;
}

}  // namespace

QString remembered_raw_format(const QString& path) {
    const QString key = absolute(path);
    for (const QStringList& pair : remembered())
        if (pair[0] == key) return pair[1];
    return {};
}

bool asks_raw_format(const QString& path) {
    if (!remembered_raw_format(path).isEmpty()) return false;
    try {
        return hs::media::holds_raw_frames(path.toStdString());
    } catch (const hs::InputError&) {
        return false;
    }
}

void remember_raw_format(const QString& path, const QString& format) {
    const QString key = absolute(path);
    QVariantList entries{QStringList{key, format}};
    for (const QStringList& pair : remembered())
        if (pair[0] != key && entries.size() < kMaxRemembered) entries << pair;
    QSettings().setValue(kFormatsKey, entries);
}

RawDialog::RawDialog(const QString& path, QWidget* parent)
    : QDialog(parent),
      path_(path),
      width_(new QSpinBox(this)),
      height_(new QSpinBox(this)),
      channels_(new QComboBox(this)),
      type_(new QComboBox(this)),
      depth_(new QSpinBox(this)),
      size_label_(new QLabel(this)),
      frames_label_(new QLabel(this)),
      buttons_(new QDialogButtonBox(QDialogButtonBox::Open | QDialogButtonBox::Cancel, this)) {
    setObjectName(QStringLiteral("rawDialog"));
    setWindowTitle(tr("Open Raw - %1").arg(QFileInfo(path).fileName()));
    // The bounds are the CLI's (hs::media::parse_raw_format checks them again).
    for (QSpinBox* side : {width_, height_}) {
        side->setRange(1, 65536);
        side->setAccelerated(true);
    }
    width_->setValue(640);
    height_->setValue(480);
    channels_->addItem(tr("1 (gray)"), 1);
    channels_->addItem(tr("3 (RGB)"), 3);
    channels_->addItem(tr("4 (RGBA)"), 4);
    channels_->setCurrentIndex(1);
    type_->addItem(tr("u8 (8-bit samples)"), QStringLiteral("u8"));
    type_->addItem(tr("u16 (16-bit little-endian samples)"), QStringLiteral("u16"));
    depth_->setRange(8, 16);
    depth_->setValue(8);
    depth_->setSuffix(tr(" bits"));
    depth_->setToolTip(tr("The bits the 16-bit samples carry (10 or 12 for many sensors)"));
    frames_label_->setWordWrap(true);
    frames_label_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* size_row = new QHBoxLayout;
    size_row->addWidget(width_);
    size_row->addWidget(new QLabel(QStringLiteral("x"), this));
    size_row->addWidget(height_);
    size_row->addStretch();
    auto* form = new QFormLayout(this);
    form->addRow(tr("File"), new QLabel(QFileInfo(path).fileName(), this));
    form->addRow(tr("Size (pixels)"), size_row);
    form->addRow(tr("Channels"), channels_);
    form->addRow(tr("Samples"), type_);
    form->addRow(tr("Depth"), depth_);
    form->addRow(tr("File size"), size_label_);
    form->addRow(tr("Frames"), frames_label_);
    form->addRow(buttons_);

    connect(buttons_, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);
    for (QSpinBox* spin : {width_, height_, depth_})
        connect(spin, &QSpinBox::valueChanged, this, &RawDialog::update);
    connect(channels_, &QComboBox::currentIndexChanged, this, &RawDialog::update);
    connect(type_, &QComboBox::currentIndexChanged, this, &RawDialog::typeChanged);

    // This file's format, else the one used last (dumps tend to come from the same pipeline).
    QString offered = remembered_raw_format(path);
    if (const QList<QStringList> all = remembered(); offered.isEmpty() && !all.isEmpty())
        offered = all.front()[1];
    if (offered.isEmpty() || !setFormat(offered)) update();
}

bool RawDialog::setFormat(const QString& text) {
    hs::media::RawFormat f;
    try {
        f = hs::media::parse_raw_format(text.toStdString());
    } catch (const std::exception&) {
        return false;
    }
    {
        const QSignalBlocker a(width_), b(height_), c(channels_), d(type_), e(depth_);
        width_->setValue(f.width);
        height_->setValue(f.height);
        channels_->setCurrentIndex(channels_->findData(f.channels));
        type_->setCurrentIndex(f.type == hs::SampleType::U8 ? 0 : 1);
        depth_->setValue(f.bit_depth);
        if (f.type == hs::SampleType::U16) deep_depth_ = f.bit_depth;
    }
    update();
    return true;
}

QString RawDialog::format() const {
    const bool deep = type_->currentData().toString() == QLatin1String("u16");
    QString text = QStringLiteral("%1x%2x%3:%4")
                       .arg(width_->value())
                       .arg(height_->value())
                       .arg(channels_->currentData().toInt())
                       .arg(type_->currentData().toString());
    if (deep && depth_->value() != 16) text += QStringLiteral(":%1").arg(depth_->value());
    return text;
}

std::int64_t RawDialog::frames() const {
    return frames_;
}

QString RawDialog::problem() const {
    return problem_;
}

QString RawDialog::summary() const {
    return frames_label_->text();
}

void RawDialog::typeChanged() {
    const QSignalBlocker block(depth_);
    if (type_->currentData().toString() == QLatin1String("u16")) {
        depth_->setValue(deep_depth_);
    } else {
        deep_depth_ = depth_->value();
        depth_->setValue(8);
    }
    update();
}

void RawDialog::update() {
    depth_->setEnabled(type_->currentData().toString() == QLatin1String("u16"));
    const QFileInfo file(path_);
    const QLocale locale;
    frames_ = 0;
    problem_.clear();
    if (!file.isFile() || !file.isReadable()) {
        size_label_->setText(QStringLiteral("-"));
        problem_ = tr("%1 cannot be read").arg(file.fileName());
    } else {
        const auto bytes = static_cast<std::uint64_t>(file.size());
        size_label_->setText(tr("%1 bytes").arg(locale.toString(static_cast<qulonglong>(bytes))));
        try {
            const hs::media::RawFormat f = hs::media::parse_raw_format(format().toStdString());
            const hs::media::RawFrameCount count = hs::media::raw_frame_count(bytes, f, "the file");
            frames_ = count.frames;
            const QString frame_bytes = locale.toString(static_cast<qulonglong>(f.frame_bytes()));
            QString text =
                frames_ == 1
                    ? tr("1 frame of %1 bytes: opens like a photo").arg(frame_bytes)
                    : tr("%1 frames of %2 bytes each: plays like a video")
                          .arg(locale.toString(static_cast<qlonglong>(frames_)), frame_bytes);
            // The whole frames open as the CLI reads them; the one cut short is said here and
            // when it is reached.
            if (count.extra_bytes > 0)
                text += tr(", then %1 bytes of a truncated frame %2")
                            .arg(locale.toString(static_cast<qulonglong>(count.extra_bytes)),
                                 locale.toString(static_cast<qlonglong>(frames_)));
            frames_label_->setText(text);
        } catch (const std::exception& e) {
            problem_ = describe(e);
        }
    }
    if (!problem_.isEmpty()) frames_label_->setText(problem_);
    frames_label_->setStyleSheet(problem_.isEmpty() ? QString()
                                                    : QStringLiteral("color: #ff8a80;"));
    buttons_->button(QDialogButtonBox::Open)->setEnabled(problem_.isEmpty());
}

}  // namespace hs::ui
