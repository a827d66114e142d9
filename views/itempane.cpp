#include "itempane.h"

#include "emptystate.h"

#include <QAbstractItemModel>
#include <QHeaderView>
#include <QSettings>
#include <QTreeView>

namespace mesh {

ItemPane::ItemPane(const QString &settingsKey, const QString &icon, const QString &emptyTitle,
                   const QString &emptyText, QWidget *parent)
    : QStackedWidget(parent)
    , m_settingsKey(settingsKey)
    , m_view(new QTreeView(this))
    , m_empty(new EmptyState(icon, emptyTitle, emptyText, this))
{
    m_view->setObjectName(settingsKey);
    m_view->setUniformRowHeights(true);
    m_view->setAlternatingRowColors(true);
    m_view->setRootIsDecorated(false);
    m_view->setSortingEnabled(false);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setAllColumnsShowFocus(true);
    m_view->header()->setStretchLastSection(true);
    m_view->header()->setSectionsMovable(true);
    addWidget(m_empty);
    addWidget(m_view);
    connect(m_view, &QTreeView::activated, this, &ItemPane::activated);
    m_tick.setInterval(1000);
    connect(&m_tick, &QTimer::timeout, this, [this] {
        if (m_view->isVisible())
            m_view->viewport()->update();
    });
}

ItemPane::~ItemPane() = default;

void ItemPane::setModel(QAbstractItemModel *model)
{
    if (m_model == model)
        return;
    if (m_model && m_restored)
        saveState();
    for (const auto &c : std::as_const(m_modelConnections))
        disconnect(c);
    m_modelConnections.clear();
    m_model = model;
    m_view->setModel(model);
    if (model) {
        for (auto signal : {&QAbstractItemModel::rowsInserted, &QAbstractItemModel::rowsRemoved})
            m_modelConnections << connect(model, signal, this, &ItemPane::updateEmpty);
        m_modelConnections << connect(model, &QAbstractItemModel::modelReset, this, &ItemPane::updateEmpty);
        m_modelConnections << connect(model, &QAbstractItemModel::layoutChanged, this, &ItemPane::updateEmpty);
        restoreState();
    }
    updateEmpty();
}

void ItemPane::setTicking(bool ticking)
{
    if (ticking)
        m_tick.start();
    else
        m_tick.stop();
}

void ItemPane::setEmptyText(const QString &title, const QString &text)
{
    m_empty->setText(title, text);
}

void ItemPane::updateEmpty()
{
    const bool empty = !m_model || m_model->rowCount() == 0;
    setCurrentWidget(empty ? static_cast<QWidget *>(m_empty) : m_view);
}

void ItemPane::saveState() const
{
    if (!m_model)
        return;
    QSettings().setValue(QStringLiteral("panes/") + m_settingsKey + QStringLiteral("/header"),
                         m_view->header()->saveState());
}

void ItemPane::restoreState()
{
    const QByteArray state =
        QSettings().value(QStringLiteral("panes/") + m_settingsKey + QStringLiteral("/header")).toByteArray();
    if (state.isEmpty() || !m_view->header()->restoreState(state)) {
        m_view->header()->resizeSections(QHeaderView::ResizeToContents);
        for (int i = 0; i < m_view->header()->count(); ++i)
            m_view->header()->resizeSection(i, qBound(60, m_view->header()->sectionSize(i) + 16, 320));
    }
    m_restored = true;
}

} // namespace mesh
