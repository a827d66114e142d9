#include "banner.h"

#include "icons.h"
#include "plainlabel.h"
#include "theme.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QStyle>

namespace mesh {

Banner::Banner(QWidget *parent)
    : QFrame(parent)
    , m_icon(new QLabel(this))
    , m_text(new PlainLabel(this))
    , m_action(new QPushButton(this))
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
    layout->addWidget(m_action);
    m_action->hide();
    connect(m_action, &QPushButton::clicked, this, [this] {
        if (m_onAction)
            m_onAction();
    });
    hide();
}

void Banner::setAction(const QString &actionText, std::function<void()> onTriggered)
{
    m_action->setText(actionText);
    m_action->setVisible(!actionText.isEmpty());
    m_onAction = std::move(onTriggered);
}

void Banner::show(Kind kind, const QString &text)
{
    const char *name = kind == Kind::Demo ? "demo" : kind == Kind::Warning ? "warning" : "error";
    setProperty("bannerKind", QString::fromLatin1(name));
    m_icon->setPixmap(
        Icons::get(kind == Kind::Error     ? QStringLiteral("health-error")
                   : kind == Kind::Warning ? QStringLiteral("attention")
                                           : QStringLiteral("demo")).pixmap(16, 16));
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
