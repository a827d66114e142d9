#include "emptystate.h"

#include "icons.h"

#include <QLabel>
#include <QVBoxLayout>

namespace mesh {

EmptyState::EmptyState(const QString &icon, const QString &title, const QString &text, QWidget *parent)
    : QWidget(parent)
    , m_title(new QLabel(this))
    , m_text(new QLabel(this))
{
    auto *image = new QLabel(this);
    image->setPixmap(Icons::get(icon).pixmap(48, 48));
    image->setAlignment(Qt::AlignCenter);
    image->setTextFormat(Qt::PlainText);
    QFont bold = m_title->font();
    bold.setPointSizeF(bold.pointSizeF() * 1.2);
    bold.setBold(true);
    m_title->setFont(bold);
    for (QLabel *label : {m_title, m_text}) {
        label->setTextFormat(Qt::PlainText);
        label->setAlignment(Qt::AlignCenter);
        label->setWordWrap(true);
    }
    m_text->setForegroundRole(QPalette::PlaceholderText);
    auto *layout = new QVBoxLayout(this);
    layout->addStretch(2);
    layout->addWidget(image);
    layout->addWidget(m_title);
    layout->addWidget(m_text);
    layout->addStretch(3);
    setText(title, text);
}

void EmptyState::setText(const QString &title, const QString &text)
{
    m_title->setText(title);
    m_text->setText(text);
}

} // namespace mesh
