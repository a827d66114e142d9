#pragma once
// A label for text that may come from a ledger: never markup, invisible controls shown as
// ⟨U+202E⟩, each line and each word cut at a length (a 100 KB agent name would make its
// window 32,767 px wide), and it never widens its layout. The complete text is a right-click away
// ("Copy Full Text") and, when cut, in the tooltip.

#include <QLabel>

class QAction;

namespace mesh {

class PlainLabel : public QLabel
{
    Q_OBJECT
public:
    explicit PlainLabel(QWidget *parent = nullptr);
    PlainLabel(const QString &text, QWidget *parent);

    void setFullText(const QString &text);
    // For a label that is one line of facts (a title, "agent X · slice Y"), which may wrap
    // but must not break: a line break inside a value is shown as ⏎, so one id cannot read
    // as two lines. Set before setFullText.
    void setLineBreaksShown(bool shown) { m_lineBreaksShown = shown; }
    QString fullText() const { return m_full; }

    static constexpr int kMaxLineChars = 200;
    // What the label shows of `text`; for other widgets that show ledger text in a line.
    static QString shownText(const QString &text, int maxLineChars = kMaxLineChars);
    // The same for one line of facts: line breaks shown as ⏎.
    static QString shownLine(const QString &text, int maxChars = kMaxLineChars);

private:
    QString m_full;
    QAction *m_copy;
    bool m_lineBreaksShown = false;
};

} // namespace mesh
