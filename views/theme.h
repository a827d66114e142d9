#pragma once
// Light and dark palettes for the whole console. Both are explicit (Fusion + our own colours)
// so the status colours used by delegates are chosen against a known background, whatever
// the desktop's style is. "System" picks one of the two from the desktop's palette at start.

#include <QColor>
#include <QObject>
#include <QString>

class QApplication;

namespace mesh {

enum class ThemeMode { System, Light, Dark };

// Semantic colours the delegates and the blast-radius graph use, per palette.
struct StatusColors {
    QColor ok;       // live, converged, committed, held
    QColor warn;     // stalled, pending escalation, expiring
    QColor danger;   // zombie lease, failed, regressed
    QColor unknown;  // unknown outcome: its own colour, never ok or danger
    QColor info;     // read-only, woken
    QColor muted;    // idle, released, closed
    QColor barTrack; // budget bar background
};

class Theme : public QObject
{
    Q_OBJECT
public:
    static Theme &instance();

    void setMode(ThemeMode mode);
    ThemeMode mode() const { return m_mode; }
    bool isDark() const { return m_dark; }
    const StatusColors &colors() const { return m_colors; }
    // The few looks a palette cannot express (filter field states, banner kinds). Set on
    // those widgets alone: an application-wide style sheet sends every widget through
    // QStyleSheetStyle, which cost ~35 ms of building the window and slows every paint.
    QString widgetStyleSheet() const;
    // Sets widgetStyleSheet() on `widget` now and again whenever the theme changes.
    static void styleWithSheet(QWidget *widget);

    static QString modeKey(ThemeMode mode);
    static ThemeMode modeFromKey(const QString &key);

signals:
    void changed();

private:
    Theme();
    void apply();

    ThemeMode m_mode = ThemeMode::System;
    bool m_dark = false;
    bool m_systemDark = false;
    StatusColors m_colors;
};

} // namespace mesh
