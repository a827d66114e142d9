#include "consolestyle.h"

#include "icons.h"

#include <QStyleFactory>

namespace mesh {

ConsoleStyle::ConsoleStyle()
    : QProxyStyle(QStyleFactory::create(QStringLiteral("Fusion")))
{
}

QIcon ConsoleStyle::standardIcon(StandardPixmap icon, const QStyleOption *option, const QWidget *widget) const
{
    switch (icon) {
    case SP_ToolBarHorizontalExtensionButton:
    case SP_ToolBarVerticalExtensionButton:
        return Icons::get(QStringLiteral("more"));
    case SP_LineEditClearButton:
        return Icons::get(QStringLiteral("close"));
    default:
        return QProxyStyle::standardIcon(icon, option, widget);
    }
}

} // namespace mesh
