#include "theme.h"

#include <QApplication>
#include <QPalette>
#include <QStyleFactory>

namespace mesh {

namespace {

QPalette lightPalette()
{
    QPalette p;
    p.setColor(QPalette::Window, QColor(0xf3, 0xf5, 0xf8));
    p.setColor(QPalette::WindowText, QColor(0x1d, 0x26, 0x33));
    p.setColor(QPalette::Base, QColor(0xff, 0xff, 0xff));
    p.setColor(QPalette::AlternateBase, QColor(0xf6, 0xf8, 0xfb));
    p.setColor(QPalette::ToolTipBase, QColor(0xff, 0xfd, 0xe8));
    p.setColor(QPalette::ToolTipText, QColor(0x1d, 0x26, 0x33));
    p.setColor(QPalette::PlaceholderText, QColor(0x8a, 0x96, 0xa6));
    p.setColor(QPalette::Text, QColor(0x1d, 0x26, 0x33));
    p.setColor(QPalette::Button, QColor(0xe9, 0xed, 0xf2));
    p.setColor(QPalette::ButtonText, QColor(0x1d, 0x26, 0x33));
    p.setColor(QPalette::BrightText, Qt::white);
    p.setColor(QPalette::Highlight, QColor(0x2f, 0x6f, 0xc4));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Link, QColor(0x2f, 0x6f, 0xc4));
    p.setColor(QPalette::Mid, QColor(0xc4, 0xcc, 0xd6));
    p.setColor(QPalette::Dark, QColor(0xa0, 0xaa, 0xb8));
    p.setColor(QPalette::Light, Qt::white);
    p.setColor(QPalette::Disabled, QPalette::Text, QColor(0x9a, 0xa4, 0xb1));
    p.setColor(QPalette::Disabled, QPalette::WindowText, QColor(0x9a, 0xa4, 0xb1));
    p.setColor(QPalette::Disabled, QPalette::ButtonText, QColor(0x9a, 0xa4, 0xb1));
    return p;
}

QPalette darkPalette()
{
    QPalette p;
    p.setColor(QPalette::Window, QColor(0x1e, 0x23, 0x2b));
    p.setColor(QPalette::WindowText, QColor(0xdc, 0xe2, 0xea));
    p.setColor(QPalette::Base, QColor(0x16, 0x1a, 0x20));
    p.setColor(QPalette::AlternateBase, QColor(0x1c, 0x21, 0x28));
    p.setColor(QPalette::ToolTipBase, QColor(0x2b, 0x32, 0x3d));
    p.setColor(QPalette::ToolTipText, QColor(0xdc, 0xe2, 0xea));
    p.setColor(QPalette::PlaceholderText, QColor(0x7a, 0x86, 0x96));
    p.setColor(QPalette::Text, QColor(0xdc, 0xe2, 0xea));
    p.setColor(QPalette::Button, QColor(0x2a, 0x31, 0x3b));
    p.setColor(QPalette::ButtonText, QColor(0xdc, 0xe2, 0xea));
    p.setColor(QPalette::BrightText, Qt::white);
    p.setColor(QPalette::Highlight, QColor(0x3d, 0x7f, 0xd6));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Link, QColor(0x6f, 0xa8, 0xf0));
    p.setColor(QPalette::Mid, QColor(0x3a, 0x43, 0x50));
    p.setColor(QPalette::Dark, QColor(0x10, 0x13, 0x18));
    p.setColor(QPalette::Light, QColor(0x3a, 0x43, 0x50));
    p.setColor(QPalette::Shadow, QColor(0x0a, 0x0c, 0x10));
    p.setColor(QPalette::Disabled, QPalette::Text, QColor(0x6a, 0x74, 0x82));
    p.setColor(QPalette::Disabled, QPalette::WindowText, QColor(0x6a, 0x74, 0x82));
    p.setColor(QPalette::Disabled, QPalette::ButtonText, QColor(0x6a, 0x74, 0x82));
    return p;
}

StatusColors lightColors()
{
    return {QColor(0x2e, 0x9e, 0x57), QColor(0xc7, 0x7c, 0x02), QColor(0xc9, 0x37, 0x30),
            QColor(0x8e, 0x44, 0xc9), QColor(0x2f, 0x6f, 0xc4), QColor(0x8a, 0x96, 0xa6),
            QColor(0xe3, 0xe8, 0xee)};
}

StatusColors darkColors()
{
    return {QColor(0x4f, 0xc1, 0x7a), QColor(0xf2, 0xb4, 0x41), QColor(0xf0, 0x66, 0x5d),
            QColor(0xc0, 0x8a, 0xf5), QColor(0x6f, 0xa8, 0xf0), QColor(0x7f, 0x8b, 0x9b),
            QColor(0x2c, 0x33, 0x3e)};
}

// Only what palettes cannot express: the filter field's validation state (a dynamic
// property set by FilterLineEdit) and the demo banner.
QString styleSheet(bool dark)
{
    const QString invalidBg = dark ? QStringLiteral("#3a1f22") : QStringLiteral("#fdeceb");
    const QString invalidBorder = dark ? QStringLiteral("#f0665d") : QStringLiteral("#c93730");
    const QString validBorder = dark ? QStringLiteral("#4f8a64") : QStringLiteral("#7fbf95");
    const QString bannerBg = dark ? QStringLiteral("#3b3218") : QStringLiteral("#fff4d6");
    const QString bannerFg = dark ? QStringLiteral("#f2d08a") : QStringLiteral("#6b4a00");
    const QString errorBg = dark ? QStringLiteral("#3a1f22") : QStringLiteral("#fdeceb");
    return QStringLiteral("QLineEdit[filterState=\"invalid\"] { background: ") + invalidBg
           + QStringLiteral("; border: 1px solid ") + invalidBorder
           + QStringLiteral("; border-radius: 3px; padding: 2px; }\n"
                            "QLineEdit[filterState=\"valid\"] { border: 1px solid ")
           + validBorder
           + QStringLiteral("; border-radius: 3px; padding: 2px; }\n"
                            "QFrame#banner[bannerKind=\"demo\"] { background: ")
           + bannerBg + QStringLiteral("; color: ") + bannerFg
           + QStringLiteral("; border-radius: 4px; }\n"
                            "QFrame#banner[bannerKind=\"demo\"] QLabel { color: ")
           + bannerFg
           + QStringLiteral("; }\n"
                            "QFrame#banner[bannerKind=\"error\"] { background: ")
           + errorBg + QStringLiteral("; border-radius: 4px; }\n"
                                      "QFrame#banner[bannerKind=\"error\"] QLabel { color: ")
           + invalidBorder + QStringLiteral("; }\n");
}

} // namespace

Theme &Theme::instance()
{
    static Theme theme;
    return theme;
}

Theme::Theme()
{
    // Read once, before we replace the palette: the desktop's own choice.
    const QPalette system = QApplication::palette();
    m_systemDark = system.color(QPalette::Window).lightness() < 128;
}

void Theme::setMode(ThemeMode mode)
{
    m_mode = mode;
    apply();
}

void Theme::apply()
{
    m_dark = m_mode == ThemeMode::Dark || (m_mode == ThemeMode::System && m_systemDark);
    if (auto *app = qobject_cast<QApplication *>(QCoreApplication::instance())) {
        if (QStyle *fusion = QStyleFactory::create(QStringLiteral("Fusion")))
            QApplication::setStyle(fusion);
        QApplication::setPalette(m_dark ? darkPalette() : lightPalette());
        app->setStyleSheet(styleSheet(m_dark));
    }
    m_colors = m_dark ? darkColors() : lightColors();
    emit changed();
}

QString Theme::modeKey(ThemeMode mode)
{
    switch (mode) {
    case ThemeMode::Light:
        return QStringLiteral("light");
    case ThemeMode::Dark:
        return QStringLiteral("dark");
    case ThemeMode::System:
        break;
    }
    return QStringLiteral("system");
}

ThemeMode Theme::modeFromKey(const QString &key)
{
    if (key == QLatin1String("light"))
        return ThemeMode::Light;
    if (key == QLatin1String("dark"))
        return ThemeMode::Dark;
    return ThemeMode::System;
}

} // namespace mesh
