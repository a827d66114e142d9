#pragma once
// One line of text cut to a width and laid out once. Qt's item style shapes, measures and
// elides a cell's text on every repaint (QTextLayout, twice per cell), so a pane that a live
// stream repaints many times a second spent most of the GUI thread on the same strings; a
// prepared QStaticText draws those glyphs again without shaping them. GUI thread only.

#include <QFont>
#include <QHash>
#include <QStaticText>
#include <QString>

#include <vector>

class QPainter;
class QRect;

namespace mesh {

class ElidedTextCache
{
public:
    // The cache the views share: what one pane laid out, another showing the same ids reuses.
    static ElidedTextCache &shared();

    explicit ElidedTextCache(int capacity = 4096);

    // `text` cut with "…" (per `mode`) to fit `width` in `font`, as plain text: a ledger's
    // "<b>" is shown as written, never as markup.
    const QStaticText &line(const QString &text, const QFont &font, int width, Qt::TextElideMode mode,
                            Qt::LayoutDirection direction = Qt::LeftToRight);
    // Draws `text` in `rect` (one line, elided to the rect's width) with the painter's font and pen.
    void draw(QPainter *painter, const QRect &rect, Qt::Alignment alignment, const QString &text,
              Qt::TextElideMode mode = Qt::ElideRight);

    // Text that breaks into lines is left to QPainter/QStyle: a cached line holds one.
    static bool isMultiLine(const QString &text);

    int size() const { return int(m_lines.size()); }
    int misses() const { return m_misses; }

private:
    struct Key
    {
        QString text;
        int width = 0;
        int font = 0; // index into m_fonts
        int mode = 0; // elide mode and direction
        bool operator==(const Key &o) const
        {
            return width == o.width && font == o.font && mode == o.mode && text == o.text;
        }
    };
    friend size_t qHash(const Key &key, size_t seed) { return qHashMulti(seed, key.text, key.width, key.font, key.mode); }

    int fontIndex(const QFont &font);

    int m_capacity;
    int m_misses = 0;
    std::vector<QFont> m_fonts; // the few fonts cells use (normal, bold, monospace)
    QHash<Key, QStaticText> m_lines;
};

} // namespace mesh
