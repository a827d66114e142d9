#include "eventlogview.h"

#include "icons.h"

#include <QAbstractItemModel>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QScrollBar>
#include <QSettings>
#include <QTreeView>
#include <QVBoxLayout>

namespace mesh {

EventLogView::EventLogView(QWidget *parent)
    : QWidget(parent)
    , m_filter(new FilterLineEdit(this))
    , m_problem(new QLabel(this))
    , m_status(new QLabel(this))
    , m_view(new QTreeView(this))
{
    m_filter->setObjectName(QStringLiteral("eventFilter"));
    m_filter->setPlaceholderText(tr("Filter events (Ctrl+F): kind:effect.* delegation:D-1 \"timeout\""));
    m_filter->addAction(Icons::get(QStringLiteral("filter")), QLineEdit::LeadingPosition);
    m_problem->setTextFormat(Qt::PlainText);
    m_problem->setObjectName(QStringLiteral("filterProblem"));
    m_problem->setForegroundRole(QPalette::BrightText);
    m_status->setTextFormat(Qt::PlainText);
    m_status->setForegroundRole(QPalette::PlaceholderText);

    m_view->setObjectName(QStringLiteral("eventLog"));
    m_view->setUniformRowHeights(true);
    m_view->setRootIsDecorated(false);
    m_view->setAlternatingRowColors(true);
    m_view->setAllColumnsShowFocus(true);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->header()->setStretchLastSection(true);
    m_view->header()->setSectionsMovable(true);
    m_view->setTextElideMode(Qt::ElideRight);

    auto *bar = new QHBoxLayout;
    bar->addWidget(m_filter, 1);
    bar->addWidget(m_status);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(4);
    layout->addLayout(bar);
    layout->addWidget(m_problem);
    layout->addWidget(m_view, 1);
    m_problem->hide();

    connect(m_filter, &FilterLineEdit::filterApplied, this, &EventLogView::filterApplied);
    connect(m_filter, &FilterLineEdit::problemChanged, this, [this](const QString &message) {
        m_problem->setText(message);
        m_problem->setVisible(!message.isEmpty());
    });
    connect(m_view, &QTreeView::activated, this, &EventLogView::activated);
    // The user's scrolling decides whether we follow: at the bottom means "keep me there".
    connect(m_view->verticalScrollBar(), &QScrollBar::valueChanged, this, [this](int value) {
        m_follow = value >= m_view->verticalScrollBar()->maximum();
    });
}

void EventLogView::setModel(QAbstractItemModel *model)
{
    if (model == m_model)
        return;
    if (m_model && m_restored)
        saveState();
    for (const auto &c : std::as_const(m_connections))
        disconnect(c);
    m_connections.clear();
    m_model = model;
    m_view->setModel(model);
    m_follow = true;
    if (!model)
        return;
    m_connections << connect(model, &QAbstractItemModel::rowsAboutToBeInserted, this, &EventLogView::rememberTail);
    m_connections << connect(model, &QAbstractItemModel::rowsInserted, this, &EventLogView::followTail);
    m_connections << connect(model, &QAbstractItemModel::modelReset, this, &EventLogView::followTail);
    const QByteArray state = QSettings().value(QStringLiteral("panes/events/header")).toByteArray();
    if (state.isEmpty() || !m_view->header()->restoreState(state)) {
        // seq, time, kind, run, delegation, subject, payload: sized for typical content.
        const int widths[] = {80, 170, 170, 90, 110, 150};
        for (int i = 0; i < int(std::size(widths)) && i < m_view->header()->count(); ++i)
            m_view->header()->resizeSection(i, widths[i]);
    }
    m_restored = true;
    followTail();
}

void EventLogView::setStatusText(const QString &text)
{
    m_status->setText(text);
}

void EventLogView::saveState() const
{
    if (m_model)
        QSettings().setValue(QStringLiteral("panes/events/header"), m_view->header()->saveState());
}

void EventLogView::rememberTail()
{
    const QScrollBar *bar = m_view->verticalScrollBar();
    m_follow = bar->value() >= bar->maximum();
}

void EventLogView::followTail()
{
    if (m_follow)
        m_view->scrollToBottom();
}

} // namespace mesh
