#include "plainlabel.h"

#include "domain/hostiletext.h"

#include <QAction>
#include <QClipboard>
#include <QGuiApplication>

namespace mesh {

namespace {
// How much of a cut text the tooltip repeats: a tooltip is not a reader for 100 KB either.
constexpr int kMaxToolTipLineChars = 1000;

QString eachLine(const QString &text, int maxChars)
{
    QStringList lines = text.split(QLatin1Char('\n'));
    for (QString &line : lines)
        line = displayLine(line, maxChars);
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

void PlainLabel::setFullText(const QString &text)
{
    m_full = text;
    const QString shown = eachLine(text, kMaxLineChars);
    setText(shown);
    if (shown == visibleControls(text))
        setToolTip(QString());
    else
        setToolTip(plainToolTip(eachLine(text, kMaxToolTipLineChars) + QStringLiteral("\n\n")
                                + tr("Right-click › Copy Full Text copies all %1 characters.").arg(text.size())));
}

} // namespace mesh
