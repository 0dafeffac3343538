#include "histoscope/ui/photo_reader.hpp"

#include <QBuffer>
#include <QImage>
#include <QImageReader>
#include <cstring>

#include "histoscope/core/error.hpp"

namespace hs::ui {

namespace {

// Formats Qt reads for us when OpenCV cannot.
bool qt_reads(const QByteArray& format) {
    return format == "gif";
}

// Qt decodes GIFs to an alpha format whether or not a pixel is transparent.
bool has_transparency(const QImage& image) {
    if (!image.hasAlphaChannel()) return false;
    const QImage argb = image.convertToFormat(QImage::Format_ARGB32);
    for (int y = 0; y < argb.height(); ++y) {
        const auto* row = reinterpret_cast<const QRgb*>(argb.constScanLine(y));
        for (int x = 0; x < argb.width(); ++x)
            if (qAlpha(row[x]) != 255) return true;
    }
    return false;
}

hs::Image to_image(const QImage& decoded) {
    int channels = 3;
    QImage::Format format = QImage::Format_RGB888;
    if (has_transparency(decoded)) {
        channels = 4;
        format = QImage::Format_RGBA8888;  // not premultiplied: the samples as stored
    } else if (decoded.isGrayscale()) {
        channels = 1;
        format = QImage::Format_Grayscale8;
    }
    const QImage image = decoded.convertToFormat(format);
    hs::Image out(image.width(), image.height(), channels, hs::SampleType::U8, 8);
    const auto row_bytes =
        static_cast<std::size_t>(image.width()) * static_cast<std::size_t>(channels);
    for (int y = 0; y < image.height(); ++y)
        std::memcpy(out.row(y), image.constScanLine(y), row_bytes);
    return out;
}

}  // namespace

hs::media::LoadedImage read_photo(const hs::media::Source& source) {
    try {
        return hs::media::read_image(source);
    } catch (const hs::InputError&) {
        // A stream input's bytes, which cannot be read again.
        QBuffer buffer;
        QImageReader reader;
        if (const std::vector<std::uint8_t>* bytes = source.bytes()) {
            buffer.setData(QByteArray::fromRawData(reinterpret_cast<const char*>(bytes->data()),
                                                   static_cast<qsizetype>(bytes->size())));
            buffer.open(QIODevice::ReadOnly);
            reader.setDevice(&buffer);
        } else {
            reader.setFileName(QString::fromStdString(source.path()));
        }
        const QString format = QString::fromLatin1(reader.format()).toUpper();
        if (!qt_reads(reader.format())) throw;  // hs::media's message stands
        const int frames = reader.imageCount();
        QImage decoded;
        if (!reader.read(&decoded) || decoded.isNull())
            throw hs::InputError(source.name() + ": " + reader.errorString().toStdString());
        hs::media::LoadedImage loaded;
        loaded.image = to_image(decoded);
        // (reader.format() is empty once the image is read.)
        loaded.format = format.toStdString() + " (Qt)";
        if (frames > 1)
            loaded.notes.push_back("animated " + format.toStdString() + ": showing frame 1 of " +
                                   std::to_string(frames));
        return loaded;
    }
}

hs::media::LoadedImage read_photo(const QString& path) {
    return read_photo(hs::media::Source(path.toStdString()));
}

}  // namespace hs::ui
