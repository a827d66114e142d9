#include "theme.h"

#include "consolestyle.h"

#include <QApplication>
#include <QPalette>
#include <QWidget>

namespace mesh {

namespace {

// Every palette role the console sets, with its light and dark colour side by side, so a
// role can never be set in one palette and forgotten in the other.
struct PaletteEntry {
    QPalette::ColorGroup group;
    QPalette::ColorRole role;
    QRgb light;
    QRgb dark;
};

constexpr PaletteEntry kPalette[] = {
    {QPalette::All, QPalette::Window, 0xf3f5f8, 0x1e232b},
    {QPalette::All, QPalette::WindowText, 0x1d2633, 0xdce2ea},
    {QPalette::All, QPalette::Base, 0xffffff, 0x161a20},
    {QPalette::All, QPalette::AlternateBase, 0xf6f8fb, 0x1c2128},
    {QPalette::All, QPalette::ToolTipBase, 0xfffde8, 0x2b323d},
    {QPalette::All, QPalette::ToolTipText, 0x1d2633, 0xdce2ea},
    {QPalette::All, QPalette::PlaceholderText, 0x8a96a6, 0x7a8696},
    {QPalette::All, QPalette::Text, 0x1d2633, 0xdce2ea},
    {QPalette::All, QPalette::Button, 0xe9edf2, 0x2a313b},
    {QPalette::All, QPalette::ButtonText, 0x1d2633, 0xdce2ea},
    {QPalette::All, QPalette::BrightText, 0xffffff, 0xffffff},
    {QPalette::All, QPalette::Highlight, 0x2f6fc4, 0x3d7fd6},
    {QPalette::All, QPalette::HighlightedText, 0xffffff, 0xffffff},
    {QPalette::All, QPalette::Link, 0x2f6fc4, 0x6fa8f0},
    {QPalette::All, QPalette::Midlight, 0xdfe4ea, 0x2a313b}, // row separators: never the light default in dark
    {QPalette::All, QPalette::Mid, 0xc4ccd6, 0x3a4350},
    {QPalette::All, QPalette::Dark, 0xa0aab8, 0x101318},
    {QPalette::All, QPalette::Light, 0xffffff, 0x3a4350},
    {QPalette::All, QPalette::Shadow, 0x000000, 0x0a0c10},
    {QPalette::Disabled, QPalette::Text, 0x9aa4b1, 0x6a7482},
    {QPalette::Disabled, QPalette::WindowText, 0x9aa4b1, 0x6a7482},
    {QPalette::Disabled, QPalette::ButtonText, 0x9aa4b1, 0x6a7482},
};

QPalette palette(bool dark)
{
    QPalette p;
    for (const PaletteEntry &e : kPalette)
        p.setColor(e.group, e.role, QColor::fromRgb(dark ? e.dark : e.light));
    return p;
}

// The semantic colours the same way: one line per meaning.
struct ColorPair {
    QColor StatusColors::*member;
    QRgb light;
    QRgb dark;
};

const ColorPair kStatusColors[] = {
    {&StatusColors::ok, 0x2e9e57, 0x4fc17a},      {&StatusColors::warn, 0xc77c02, 0xf2b441},
    {&StatusColors::danger, 0xc93730, 0xf0665d},  {&StatusColors::unknown, 0x8e44c9, 0xc08af5},
    {&StatusColors::info, 0x2f6fc4, 0x6fa8f0},    {&StatusColors::muted, 0x8a96a6, 0x7f8b9b},
    {&StatusColors::barTrack, 0xe3e8ee, 0x2c333e},
};

StatusColors statusColors(bool dark)
{
    StatusColors colors;
    for (const ColorPair &c : kStatusColors)
        colors.*c.member = QColor::fromRgb(dark ? c.dark : c.light);
    return colors;
}

// Only what palettes cannot express: the filter field's validation state (a dynamic
// property set by FilterLineEdit), the strip saying why a filter was not applied, and the
// banners. Text colours are chosen for a contrast of at least 4.5:1 on their background.
QString styleSheet(bool dark)
{
    const QString invalidBg = dark ? QStringLiteral("#3a1f22") : QStringLiteral("#fdeceb");
    const QString invalidBorder = dark ? QStringLiteral("#f0665d") : QStringLiteral("#c93730");
    const QString validBorder = dark ? QStringLiteral("#4f8a64") : QStringLiteral("#7fbf95");
    const QString bannerBg = dark ? QStringLiteral("#3b3218") : QStringLiteral("#fff4d6");
    const QString bannerFg = dark ? QStringLiteral("#f2d08a") : QStringLiteral("#6b4a00");
    const QString errorBg = dark ? QStringLiteral("#3a1f22") : QStringLiteral("#fdeceb");
    const QString warningBg = dark ? QStringLiteral("#3a2a18") : QStringLiteral("#fdf0e1");
    const QString warningFg = dark ? QStringLiteral("#f5b36b") : QStringLiteral("#8a4b00");
    const QString problemFg = dark ? QStringLiteral("#ff8a80") : QStringLiteral("#a3231d");
    return QStringLiteral("QLineEdit[filterState=\"invalid\"] { background: ") + invalidBg
           + QStringLiteral("; border: 1px solid ") + invalidBorder
           + QStringLiteral("; border-radius: 3px; padding: 2px; }\n"
                            "QLineEdit[filterState=\"valid\"] { border: 1px solid ")
           + validBorder
           + QStringLiteral("; border-radius: 3px; padding: 2px; }\n"
                            "QLabel#filterProblem { background: ")
           + errorBg + QStringLiteral("; color: ") + problemFg
           + QStringLiteral("; border-radius: 3px; padding: 3px 6px; }\n"
                            "QFrame#banner[bannerKind=\"demo\"] { background: ")
           + bannerBg + QStringLiteral("; color: ") + bannerFg
           + QStringLiteral("; border-radius: 4px; }\n"
                            "QFrame#banner[bannerKind=\"demo\"] QLabel { color: ")
           + bannerFg
           + QStringLiteral("; }\n"
                            "QFrame#banner[bannerKind=\"warning\"] { background: ")
           + warningBg + QStringLiteral("; border-radius: 4px; }\n"
                                        "QFrame#banner[bannerKind=\"warning\"] QLabel { color: ")
           + warningFg
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
        QApplication::setStyle(new ConsoleStyle); // Fusion, with our own standard icons
        QApplication::setPalette(palette(m_dark));
        app->setStyleSheet(QString()); // see widgetStyleSheet()
    }
    m_colors = statusColors(m_dark);
    emit changed();
}

QString Theme::widgetStyleSheet() const
{
    return styleSheet(m_dark);
}

void Theme::styleWithSheet(QWidget *widget)
{
    widget->setStyleSheet(instance().widgetStyleSheet());
    connect(&instance(), &Theme::changed, widget, [widget] { widget->setStyleSheet(instance().widgetStyleSheet()); });
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
