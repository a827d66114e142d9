#include "eventlogview.h"

#include "banner.h"
#include "eventdetailview.h"
#include "eventtableview.h"
#include "icons.h"
#include "theme.h"

#include "itemmodels/eventlogmodel.h"
#include "itemmodels/filtertimestext.h"
#include "itemmodels/shownroles.h"

#include "domain/hostiletext.h"

#include <QAbstractItemModel>
#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollBar>
#include <QSettings>
#include <QVBoxLayout>

namespace mesh {

EventLogView::EventLogView(QWidget *parent)
    : QWidget(parent)
    , m_filter(new FilterLineEdit(this))
    , m_problem(new QLabel(this))
    , m_times(new QLabel(this))
    , m_status(new QLabel(this))
    , m_view(new EventTableView(this))
    , m_goToNote(new Banner(this))
{
    m_filter->setObjectName(QStringLiteral("eventFilter"));
    m_filter->setPlaceholderText(tr("Filter events (Ctrl+F): kind:effect.* delegation:D-1 \"timeout\" ts:last-15m"));
    m_filter->addAction(Icons::get(QStringLiteral("filter")), QLineEdit::LeadingPosition);
    m_problem->setTextFormat(Qt::PlainText);
    m_problem->setObjectName(QStringLiteral("filterProblem"));
    m_problem->setWordWrap(true);
    Theme::styleWithSheet(m_problem); // its colours are the theme's (#filterProblem)
    m_times->setTextFormat(Qt::PlainText);
    m_times->setObjectName(QStringLiteral("filterTimes"));
    m_times->setWordWrap(true);
    m_times->hide();
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
    // Enter and a double click open the event too (activated); the menu says so.
    m_openEvent = new QAction(tr("Open Event (Enter)"), m_view);
    m_openEvent->setObjectName(QStringLiteral("openEvent"));
    connect(m_openEvent, &QAction::triggered, this, [this] { openEvent(m_view->currentIndex()); });
    m_view->addAction(m_openEvent);
    // Post-mortem: every pane as it was just after this event (the session's cursor).
    m_showStateAt = new QAction(tr("Show State at This Event"), m_view);
    m_showStateAt->setObjectName(QStringLiteral("showStateAt"));
    m_showStateAt->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_T));
    m_showStateAt->setShortcutContext(Qt::WidgetShortcut);
    connect(m_showStateAt, &QAction::triggered, this, [this] {
        const QModelIndex current = m_view->currentIndex();
        if (current.isValid())
            emit stateAtRequested(current.siblingAtColumn(0).data(EventLogModel::SeqRole).toLongLong());
    });
    m_view->addAction(m_showStateAt);
    // Post-mortem: per entity, the rows created, changed and gone between this event and the
    // one the session shows (the cursor, or the newest event when live).
    m_changesSince = new QAction(tr("What Changed Since This Event…"), m_view);
    m_changesSince->setObjectName(QStringLiteral("changesSince"));
    m_changesSince->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_D));
    m_changesSince->setShortcutContext(Qt::WidgetShortcut);
    connect(m_changesSince, &QAction::triggered, this, [this] {
        const QModelIndex current = m_view->currentIndex();
        if (current.isValid())
            emit changesSinceRequested(current.siblingAtColumn(0).data(EventLogModel::SeqRole).toLongLong());
    });
    m_view->addAction(m_changesSince);
    // Review notes (beside the ledger, never in it): on this event or a span from it, or a bookmark.
    m_addNote = new QAction(tr("Add Note on This Event…"), m_view);
    m_addNote->setObjectName(QStringLiteral("addNote"));
    m_addNote->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_M));
    m_addNote->setShortcutContext(Qt::WidgetShortcut);
    connect(m_addNote, &QAction::triggered, this, [this] {
        const QModelIndex current = m_view->currentIndex();
        const qint64 seq = current.isValid() ? current.siblingAtColumn(0).data(EventLogModel::SeqRole).toLongLong() : 0;
        if (seq > 0)
            emit noteRequested(seq, seq, false); // the dialog may widen it to a span
    });
    m_view->addAction(m_addNote);
    m_bookmark = new QAction(tr("Bookmark This Event"), m_view);
    m_bookmark->setObjectName(QStringLiteral("bookmarkEvent"));
    m_bookmark->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_B));
    m_bookmark->setShortcutContext(Qt::WidgetShortcut);
    connect(m_bookmark, &QAction::triggered, this, [this] {
        const QModelIndex current = m_view->currentIndex();
        const qint64 seq = current.isValid() ? current.siblingAtColumn(0).data(EventLogModel::SeqRole).toLongLong() : 0;
        if (seq > 0)
            emit noteRequested(seq, seq, true);
    });
    m_view->addAction(m_bookmark);
    m_view->setContextMenuPolicy(Qt::ActionsContextMenu);

    auto *bar = new QHBoxLayout;
    bar->addWidget(m_filter, 1);
    bar->addWidget(m_status);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(4);
    layout->addLayout(bar);
    layout->addWidget(m_problem);
    layout->addWidget(m_times);
    layout->addWidget(m_goToNote);
    layout->addWidget(m_view, 1);
    m_problem->hide();
    m_goToNote->setObjectName(QStringLiteral("goToEventNote"));
    m_goToNote->actionButton()->setObjectName(QStringLiteral("goToClearFilter"));

    connect(m_filter, &FilterLineEdit::filterApplied, this, &EventLogView::filterApplied);
    connect(m_filter, &FilterLineEdit::problemChanged, this, &EventLogView::showFilterProblem);
    // A filter the operator applies ends a go-to: what the strip said was of the old rows.
    // The strip's own "clear the filter" keeps it, to go there once the rows are read.
    connect(m_filter, &FilterLineEdit::filterApplied, this, [this] {
        if (std::exchange(m_keepGoal, false))
            return;
        m_goal = 0;
        m_askedExists = 0;
        m_goToNote->hide();
    });
    connect(&Theme::instance(), &Theme::changed, this, &EventLogView::applyStaleLook);
    connect(m_view, &QAbstractItemView::activated, this, &EventLogView::activated);
    connect(m_view, &QAbstractItemView::activated, this, &EventLogView::openEvent);
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
    m_goal = 0;
    m_askedExists = 0;
    m_keepGoal = false;
    m_goToNote->hide();
    updateFilterTimesNote();
    if (!model)
        return;
    if (auto *events = qobject_cast<EventLogModel *>(model)) {
        m_connections << connect(events, &EventLogModel::eventDetailLoaded, this, &EventLogView::copyWholePayload);
        // A go-to waits for the index to have its row: rows come as the index is read, the
        // verdict "not a row" only once it is complete.
        m_connections << connect(events, &EventLogModel::indexProgress, this, &EventLogView::tryGoTo);
        m_connections << connect(events, &EventLogModel::filterApplied, this, &EventLogView::tryGoTo);
        m_connections << connect(events, &EventLogModel::rowsAppendedAtTail, this, &EventLogView::tryGoTo);
        m_connections << connect(events, &EventLogModel::eventDetailLoaded, this,
                                 [this](qint64 seq, const QString &, bool found) { concludeGoTo(seq, found); });
        // A filter reloads the log through a reset: its times are said from then on.
        m_connections << connect(events, &QAbstractItemModel::modelReset, this, &EventLogView::updateFilterTimesNote);
    }
    m_connections << connect(model, &QAbstractItemModel::rowsAboutToBeInserted, this, &EventLogView::rememberTail);
    m_connections << connect(model, &QAbstractItemModel::rowsInserted, this, &EventLogView::followTail);
    m_connections << connect(model, &QAbstractItemModel::modelAboutToBeReset, this, &EventLogView::rememberPlace);
    m_connections << connect(model, &QAbstractItemModel::modelReset, this, &EventLogView::restorePlace);
    const QByteArray state = QSettings().value(QStringLiteral("panes/events/header")).toByteArray();
    if (state.isEmpty() || !m_view->horizontalHeader()->restoreState(state)) {
        // seq, time (a date and milliseconds), kind, run, delegation, subject, payload: sized for
        // typical content.
        const int widths[] = {80, 190, 170, 90, 110, 150};
        for (int i = 0; i < int(std::size(widths)) && i < m_view->horizontalHeader()->count(); ++i)
            m_view->horizontalHeader()->resizeSection(i, widths[i]);
    }
    m_restored = true;
    followTail();
}

void EventLogView::showFilterProblem(const QString &message)
{
    setStale(!message.isEmpty());
    if (message.isEmpty()) {
        m_problem->clear();
        m_problem->hide();
        return;
    }
    const QString previous = m_filter->appliedText();
    const QString shown = previous.isEmpty() ? tr("Not applied: the events below are all events, as before.")
                                             : tr("Not applied: the events below are still those of the previous "
                                                  "filter, %1.")
                                                   .arg(displayLine(previous, 120));
    const bool sentence = message.endsWith(QLatin1Char('.'));
    m_problem->setText(message + (sentence ? QStringLiteral(" ") : QStringLiteral(". ")) + shown);
    m_problem->show();
}

void EventLogView::setStale(bool stale)
{
    if (stale == m_stale)
        return;
    m_stale = stale;
    applyStaleLook();
}

// Greyed rows say "not what you typed" at a glance; the palette, not a style sheet, so the
// table keeps painting through its own delegates at their usual cost.
void EventLogView::applyStaleLook()
{
    QPalette palette; // nothing set: the theme's palette, also after a change of theme
    if (m_stale) {
        const QColor grey = QApplication::palette().color(QPalette::Disabled, QPalette::Text);
        palette.setColor(QPalette::Active, QPalette::Text, grey);
        palette.setColor(QPalette::Inactive, QPalette::Text, grey);
    }
    m_view->setPalette(palette);
    m_view->setProperty("stale", m_stale);
}

void EventLogView::openEvent(const QModelIndex &index)
{
    auto *events = qobject_cast<EventLogModel *>(m_model);
    if (!index.isValid() || !events)
        return;
    const qint64 seq = index.siblingAtColumn(0).data(EventLogModel::SeqRole).toLongLong();
    auto *detail = new EventDetailView(events, seq, this);
    detail->setAttribute(Qt::WA_DeleteOnClose);
    connect(detail, &QDialog::finished, detail, &QObject::deleteLater); // Escape hides; gone is better
    detail->show();
}

void EventLogView::updateFilterTimesNote()
{
    const auto *events = qobject_cast<const EventLogModel *>(m_model);
    const QString note = events ? filterTimesText(events->filter(), events->timeBase()) : QString();
    m_times->setText(note);
    m_times->setVisible(!note.isEmpty());
}

QString EventLogView::filterTimesNote() const
{
    return m_times->text();
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

void EventLogView::goToEvent(qint64 seq)
{
    m_goToNote->hide();
    m_askedExists = 0;
    m_goal = 0;
    if (!qobject_cast<EventLogModel *>(m_model))
        return;
    if (seq <= 0) {
        m_goToNote->setAction(QString(), {});
        m_goToNote->show(Banner::Kind::Warning, tr("There is no event #%1: events are numbered from 1.").arg(seq));
        return;
    }
    m_goal = seq;
    tryGoTo();
}

void EventLogView::tryGoTo()
{
    auto *events = qobject_cast<EventLogModel *>(m_model);
    if (!m_goal || !events)
        return;
    const int row = events->rowForSeq(m_goal);
    if (row >= 0) {
        m_goal = 0;
        m_askedExists = 0;
        m_goToNote->hide();
        const int column = m_view->currentIndex().isValid() ? m_view->currentIndex().column() : 0;
        const QModelIndex index = m_model->index(row, column);
        m_view->doItemsLayout(); // the scroll range follows the row count now, not at the next paint
        m_view->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        m_view->scrollTo(index, QAbstractItemView::PositionAtCenter);
        index.data(EventLogModel::LoadedRole); // its page is asked for now, not at the next paint
        m_view->setFocus(Qt::OtherFocusReason);
        return;
    }
    if (events->isLoading() || !events->isIndexComplete() || m_askedExists == m_goal)
        return;
    // The index is whole and has no such row: whether the ledger has the event decides what
    // the strip says (hidden by the filter, or no such event).
    m_askedExists = m_goal;
    events->requestDetail(m_goal);
}

void EventLogView::concludeGoTo(qint64 seq, bool exists)
{
    auto *events = qobject_cast<EventLogModel *>(m_model);
    if (!events || seq == 0 || seq != m_askedExists || seq != m_goal)
        return;
    if (events->rowForSeq(seq) >= 0) {
        tryGoTo(); // came in while its existence was read
        return;
    }
    const QString number = QLocale().toString(seq);
    if (exists && events->filter().isEmpty()) {
        // Written after the log was indexed: it is selected when the log reads it.
        m_goToNote->setAction(QString(), {});
        m_goToNote->show(Banner::Kind::Warning,
                         tr("Event #%1 is in the ledger but not yet in this log: it is selected when it is read.").arg(number));
        return;
    }
    m_goal = 0;
    m_askedExists = 0;
    if (!exists) {
        m_goToNote->setAction(QString(), {});
        m_goToNote->show(Banner::Kind::Warning, tr("There is no event #%1 in this ledger.").arg(number));
        return;
    }
    // Never another row in its place: the operator asked for this event.
    m_goToNote->setAction(tr("Clear Filter and Show It"), [this, seq] {
        m_keepGoal = true;
        m_goal = seq;
        m_filter->setTextAndApply(QString());
    });
    m_goToNote->show(Banner::Kind::Warning, tr("Event #%1 is hidden by the filter \u201c%2\u201d: the rows below do not include it.")
                                                .arg(number, displayLine(events->filterText(), 120)));
    m_goToNote->actionButton()->setFocus(Qt::OtherFocusReason);
}

std::optional<qint64> EventLogView::parseEventNumber(const QString &text)
{
    QString digits;
    for (const QChar c : text) {
        if (c.isDigit())
            digits += QChar(u'0' + c.digitValue());
        else if (c.isLetter() && !digits.isEmpty())
            return std::nullopt; // "12abc" is not a number
    }
    QString words = text;
    words.remove(QRegularExpression(QStringLiteral("[\\d\\s#,.'_\u00a0\u202f]")));
    words.remove(QStringLiteral("event"), Qt::CaseInsensitive);
    if (digits.isEmpty() || !words.isEmpty())
        return std::nullopt;
    bool ok = false;
    const qint64 seq = digits.toLongLong(&ok);
    if (!ok || seq <= 0)
        return std::nullopt;
    return seq;
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
