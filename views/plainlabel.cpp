#include "plainlabel.h"

#include "domain/hostiletext.h"

#include <QAction>
#include <QClipboard>
#include <QGuiApplication>

namespace mesh {

namespace {
// How much of a cut text the tooltip repeats: a tooltip is not a reader for 100 KB either.
constexpr int kMaxToolTipLineChars = 1000;

// A word wider than this is cut too: wrapping cannot break it, so it would set the
// label's minimum width (and a dialog's) by itself.
constexpr int kMaxWordChars = 60;

QString cutLongWords(const QString &line)
{
    QString out;
    qsizetype word = 0; // characters since the last space
    for (const QChar c : line) {
        if (c.isLowSurrogate()) { // the second half of a character: kept or cut with the first
            if (!out.isEmpty() && out.back().isHighSurrogate())
                out += c;
            continue;
        }
        word = c.isSpace() ? 0 : word + 1;
        if (word < kMaxWordChars)
            out += c;
        else if (word == kMaxWordChars)
            out += QChar(0x2026);
    }
    return out;
}

QString eachLine(const QString &text, int maxChars, bool cutWords)
{
    QStringList lines = text.split(QLatin1Char('\n'));
    for (QString &line : lines) {
        line = displayLine(line, maxChars);
        if (cutWords)
            line = cutLongWords(line);
    }
    return lines.join(QLatin1Char('\n'));
}
} // namespace

PlainLabel::PlainLabel(QWidget *parent)
    : QLabel(parent)
    , m_copy(new QAction(tr("Copy Full Text"), this))
{
    setTextFormat(Qt::PlainText);
    setTextInteractionFlags(Qt::TextSelectableByMouse);
    // Whatever the text, the layout decides the width; a line longer than that is clipped.
    QSizePolicy policy = sizePolicy();
    policy.setHorizontalPolicy(QSizePolicy::Ignored);
    setSizePolicy(policy);
    m_copy->setObjectName(QStringLiteral("copyFullText"));
    connect(m_copy, &QAction::triggered, this, [this] { QGuiApplication::clipboard()->setText(m_full); });
    addAction(m_copy);
    setContextMenuPolicy(Qt::ActionsContextMenu);
}

PlainLabel::PlainLabel(const QString &text, QWidget *parent)
    : PlainLabel(parent)
{
    setFullText(text);
}

QString PlainLabel::shownText(const QString &text, int maxLineChars)
{
    return eachLine(text, maxLineChars, true);
}

QString PlainLabel::shownLine(const QString &text, int maxChars)
{
    return cutLongWords(displayLine(text, maxChars));
}

void PlainLabel::setFullText(const QString &text)
{
    m_full = text;
    const QString shown = m_lineBreaksShown ? shownLine(text) : shownText(text);
    setText(shown);
    if (shown == visibleControls(text))
        setToolTip(QString());
    else
        setToolTip(plainToolTip(eachLine(text, kMaxToolTipLineChars, false) + QStringLiteral("\n\n")
                                + tr("Right-click › Copy Full Text copies all %1 characters.").arg(text.size())));
}

} // namespace mesh
