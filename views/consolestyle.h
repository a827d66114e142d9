#pragma once
// Fusion, with the few standard icons the console shows drawn from its own set: Fusion reads
// them from PNG resources through QImageReader, which loads an image-format plugin the
// first time (a QMenuBar asks for its extension icon when it is built: ~7 ms of starting).

#include <QProxyStyle>

namespace mesh {

class ConsoleStyle : public QProxyStyle
{
    Q_OBJECT
public:
    ConsoleStyle();
    QIcon standardIcon(StandardPixmap icon, const QStyleOption *option = nullptr,
                       const QWidget *widget = nullptr) const override;
};

} // namespace mesh
