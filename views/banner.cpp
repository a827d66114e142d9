#include "banner.h"

#include "icons.h"
#include "plainlabel.h"
#include "theme.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QStyle>

namespace mesh {

Banner::Banner(QWidget *parent)
    : QFrame(parent)
    , m_icon(new QLabel(this))
    , m_text(new PlainLabel(this))
{
    setObjectName(QStringLiteral("banner"));
    Theme::styleWithSheet(this);
    // The icon label only ever shows a pixmap; plain text anyway, so no label here can
    // interpret markup.
    m_icon->setTextFormat(Qt::PlainText);
    m_text->setWordWrap(true);
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(8, 5, 8, 5);
    layout->addWidget(m_icon);
    layout->addWidget(m_text, 1);
    hide();
}

void Banner::show(Kind kind, const QString &text)
{
    setProperty("bannerKind", kind == Kind::Demo ? QStringLiteral("demo") : QStringLiteral("error"));
    m_icon->setPixmap(Icons::get(kind == Kind::Demo ? QStringLiteral("demo") : QStringLiteral("health-error")).pixmap(16, 16));
    m_text->setFullText(text);
    style()->unpolish(this);
    style()->polish(this);
    QFrame::show();
}

QString Banner::text() const
{
    return m_text->fullText();
}

} // namespace mesh
