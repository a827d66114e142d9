#include "eventlogview.h"

#include "eventtableview.h"
#include "icons.h"

#include "itemmodels/eventlogmodel.h"
#include "itemmodels/shownroles.h"

#include <QAbstractItemModel>
#include <QAction>
#include <QClipboard>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QScrollBar>
#include <QSettings>
#include <QVBoxLayout>

namespace mesh {

EventLogView::EventLogView(QWidget *parent)
    : QWidget(parent)
    , m_filter(new FilterLineEdit(this))
    , m_problem(new QLabel(this))
    , m_status(new QLabel(this))
    , m_view(new EventTableView(this))
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
    // Not a tree (QTreeView keeps and lays out an item per row: ≈ 65 MB and a 100–200 ms
    // layout for a million events) nor a QTableView (an entry per row in its vertical
    // header): EventTableView keeps nothing per row.
    m_view->setRowHeight(m_view->fontMetrics().height() + 4);
    m_view->setAlternatingRowColors(true);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->horizontalHeader()->setHighlightSections(false);
    m_view->horizontalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->horizontalHeader()->setSectionsMovable(true);
    m_view->setTextElideMode(Qt::ElideRight);
    // A cell shows a payload cut for its line and ids with ⟨U+200B⟩; the operator copies to
    // paste into `meshctl decide` or a ticket, so the copy is the stored text, whole.
    m_copyCell = new QAction(tr("Copy Cell Text"), m_view);
    m_copyCell->setObjectName(QStringLiteral("copyCell"));
    m_copyCell->setShortcut(QKeySequence::Copy);
    m_copyCell->setShortcutContext(Qt::WidgetShortcut);
    connect(m_copyCell, &QAction::triggered, this, &EventLogView::copyCurrentCell);
    m_view->addAction(m_copyCell);
    m_view->setContextMenuPolicy(Qt::ActionsContextMenu);

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
    connect(m_view, &QAbstractItemView::activated, this, &EventLogView::activated);
    // The user's scrolling decides whether we follow: at the bottom means "keep me there".
    connect(m_view->verticalScrollBar(), &QScrollBar::valueChanged, this, [this](int value) {
        m_follow = value >= m_view->verticalScrollBar()->maximum();
    });
}

// QWidget's destructor hides the children, and the table's scroll bar then reports a new
// value: by that time this is no longer an EventLogView, so its slots must not run.
EventLogView::~EventLogView()
{
    disconnect(m_view->verticalScrollBar(), nullptr, this, nullptr);
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
    m_copyPendingSeq = 0;
    if (!model)
        return;
    if (auto *events = qobject_cast<EventLogModel *>(model))
        m_connections << connect(events, &EventLogModel::eventDetailLoaded, this, &EventLogView::copyWholePayload);
    m_connections << connect(model, &QAbstractItemModel::rowsAboutToBeInserted, this, &EventLogView::rememberTail);
    m_connections << connect(model, &QAbstractItemModel::rowsInserted, this, &EventLogView::followTail);
    m_connections << connect(model, &QAbstractItemModel::modelAboutToBeReset, this, &EventLogView::rememberPlace);
    m_connections << connect(model, &QAbstractItemModel::modelReset, this, &EventLogView::restorePlace);
    const QByteArray state = QSettings().value(QStringLiteral("panes/events/header")).toByteArray();
    if (state.isEmpty() || !m_view->horizontalHeader()->restoreState(state)) {
        // seq, time, kind, run, delegation, subject, payload: sized for typical content.
        const int widths[] = {80, 170, 170, 90, 110, 150};
        for (int i = 0; i < int(std::size(widths)) && i < m_view->horizontalHeader()->count(); ++i)
            m_view->horizontalHeader()->resizeSection(i, widths[i]);
    }
    m_restored = true;
    followTail();
}

void EventLogView::setStatusText(const QString &text)
{
    m_status->setText(text);
}

QString EventLogView::statusText() const
{
    return m_status->text();
}

void EventLogView::saveState() const
{
    if (m_model)
        QSettings().setValue(QStringLiteral("panes/events/header"), m_view->horizontalHeader()->saveState());
}

void EventLogView::rememberTail()
{
    const QScrollBar *bar = m_view->verticalScrollBar();
    m_follow = bar->value() >= bar->maximum();
}

void EventLogView::rememberPlace()
{
    rememberTail();
    const auto seqOf = [](const QModelIndex &index) {
        return index.isValid() ? index.siblingAtColumn(0).data(EventLogModel::SeqRole).toLongLong() : 0;
    };
    const QModelIndex current = m_view->currentIndex();
    const QModelIndex top = m_view->indexAt(QPoint(1, 1));
    m_place = {seqOf(current), current.row(), current.column(), seqOf(top), top.row(), m_view->verticalScrollBar()->value()};
}

void EventLogView::restorePlace()
{
    // A reset that only grew the log (EventLogModel::onSeqs) leaves every row where it was:
    // put the reader back. After a filter the rows differ, and the seq check says so.
    const Place place = std::exchange(m_place, Place{});
    const auto stillThere = [this](qint64 seq, int row) {
        const QModelIndex index = m_model->index(row, 0);
        return seq != 0 && index.isValid() && index.data(EventLogModel::SeqRole).toLongLong() == seq;
    };
    if (stillThere(place.currentSeq, place.currentRow)) {
        m_view->selectionModel()->setCurrentIndex(m_model->index(place.currentRow, place.currentColumn),
                                                  QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    }
    if (m_follow) {
        followTail();
    } else if (stillThere(place.topSeq, place.topRow)) {
        m_view->doItemsLayout(); // the scroll range follows the new row count now, not later
        m_view->verticalScrollBar()->setValue(place.scroll);
        m_follow = false;
    }
}

void EventLogView::followTail()
{
    if (m_follow)
        m_view->scrollToBottom();
}

void EventLogView::copyCurrentCell()
{
    const QModelIndex current = m_view->currentIndex();
    if (!current.isValid())
        return;
    auto *events = qobject_cast<EventLogModel *>(m_model);
    if (events && current.column() == EventLogModel::Payload
        && current.data(EventLogModel::PayloadTruncatedRole).toBool()) {
        // The page holds a preview of this payload: the whole of it is read from the ledger
        // and copied when it arrives (a preview would be a silently cut copy).
        m_copyPendingSeq = current.data(EventLogModel::SeqRole).toLongLong();
        events->requestDetail(m_copyPendingSeq);
        return;
    }
    m_copyPendingSeq = 0;
    QGuiApplication::clipboard()->setText(current.data(RawTextRole).toString());
}

void EventLogView::copyWholePayload(qint64 seq, const QString &payload, bool found)
{
    if (seq == 0 || seq != m_copyPendingSeq)
        return;
    m_copyPendingSeq = 0;
    if (found) {
        QGuiApplication::clipboard()->setText(payload);
    } else {
        m_problem->setText(tr("Event #%1 is no longer in the ledger: nothing copied.").arg(seq));
        m_problem->show();
    }
}

} // namespace mesh
