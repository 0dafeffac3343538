#pragma once
// File > Open Raw...: the format of a file of raw frames as the CLI's --raw names it
// (WxHxC:u8|u16[:DEPTH]): width, height, channels, the sample type and, for 16-bit samples, the
// depth they carry (10, 12, 16, ...). It shows the file's size and how many frames that format
// makes of it: its whole frames, and the bytes of a frame cut short after them (opened with
// the whole frames, the cut one reported as a failed frame). A size that holds no whole frame
// is said, and the format cannot be accepted. Parsing and the size check are hs::media's, the
// CLI's own.
//
// The format last used for a file is remembered (QSettings, by the file's absolute path) and
// offered again when the same file is opened.

#include <QDialog>
#include <QString>
#include <cstdint>

class QComboBox;
class QDialogButtonBox;
class QLabel;
class QSpinBox;

namespace hs::ui {

// The raw format remembered for `path` (empty when none), and remembering one.
QString remembered_raw_format(const QString& path);
void remember_raw_format(const QString& path, const QString& format);
// Whether opening `path` asks for its format: none is remembered for it and it holds raw frames
// by the rule the CLI follows (hs::media::holds_raw_frames: a .raw or .bin file whose first bytes
// are no camera raw file's and no photo's). A file that cannot be read asks nothing: opening it
// says why.
bool asks_raw_format(const QString& path);

class RawDialog : public QDialog {
    Q_OBJECT

  public:
    // Offers the format remembered for `path`, else the one used last for any file.
    explicit RawDialog(const QString& path, QWidget* parent = nullptr);

    const QString& path() const { return path_; }
    // Shows `format` ("640x480x3:u8"); false, changing nothing, when it is malformed.
    bool setFormat(const QString& format);
    QString format() const;       // the format the fields describe
    std::int64_t frames() const;  // the whole frames it makes of the file; 0 when it cannot be used
    QString problem() const;      // why it cannot be used, or empty
    QString summary() const;      // what it makes of the file, or the problem

    QComboBox* channelsCombo() const { return channels_; }
    QComboBox* typeCombo() const { return type_; }
    QSpinBox* depthSpin() const { return depth_; }
    QDialogButtonBox* buttons() const { return buttons_; }

  private:
    void typeChanged();  // u16 brings back the depth it had, u8 is 8-bit
    void update();

    QString path_;
    QSpinBox* width_;
    QSpinBox* height_;
    QComboBox* channels_;
    QComboBox* type_;
    QSpinBox* depth_;
    QLabel* size_label_;
    QLabel* frames_label_;
    QDialogButtonBox* buttons_;
    int deep_depth_ = 16;  // the depth of u16 samples while u8 is chosen
    std::int64_t frames_ = 0;
    QString problem_;
};

}  // namespace hs::ui
