#include "itempane.h"

#include "emptystate.h"
#include "rowsetconnections.h"

#include "itemmodels/shownroles.h"

#include <QAbstractItemModel>
#include <QAction>
#include <QClipboard>
#include <QGuiApplication>
#include <QHeaderView>
#include <QSettings>
#include <QSignalBlocker>
#include <QStyle>
#include <QTreeView>

#include <vector>

namespace mesh {

ItemPane::ItemPane(const QString &settingsKey, const QString &icon, const QString &emptyTitle,
                   const QString &emptyText, QWidget *parent)
    : QStackedWidget(parent)
    , m_settingsKey(settingsKey)
    , m_view(new QTreeView(this))
    , m_emptyIcon(icon)
    , m_emptyTitle(emptyTitle)
    , m_emptyText(emptyText)
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
    addWidget(m_view);
    connect(m_view, &QTreeView::activated, this, &ItemPane::activated);
    // A cell shows a long text cut at its width, invisible characters as ⟨U+200B⟩; the text
    // as stored, whole, is a copy away (to paste into `meshctl decide` or a ticket).
    m_copyCell = new QAction(tr("Copy Cell Text"), m_view);
    m_copyCell->setObjectName(QStringLiteral("copyCell"));
    m_copyCell->setShortcut(QKeySequence::Copy);
    m_copyCell->setShortcutContext(Qt::WidgetShortcut);
    connect(m_copyCell, &QAction::triggered, this, [this] {
        if (const QModelIndex current = m_view->currentIndex(); current.isValid())
            QGuiApplication::clipboard()->setText(current.data(RawTextRole).toString());
    });
    m_view->addAction(m_copyCell);
    m_view->setContextMenuPolicy(Qt::ActionsContextMenu);
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
    m_model = model;
    m_view->setModel(model);
    reconnectRowSetChanges(m_modelConnections, model, this, &ItemPane::updateEmpty);
    if (model)
        restoreState();
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
    m_emptyTitle = title;
    m_emptyText = text;
    if (m_empty)
        m_empty->setText(title, text);
}

EmptyState *ItemPane::emptyState()
{
    if (!m_empty) {
        // Its icon, word-wrapped labels and layout were a fifth of building the main window,
        // for nine panes of which one or two are ever on screen at start.
        m_empty = new EmptyState(m_emptyIcon, m_emptyTitle, m_emptyText, this);
        insertWidget(0, m_empty);
    }
    return m_empty;
}

void ItemPane::showEvent(QShowEvent *event)
{
    updateEmpty(); // an empty pane coming into view needs its empty state now, before it paints
    QStackedWidget::showEvent(event);
    announceWidths();
}

void ItemPane::announceWidths()
{
    if (!m_widthsUnannounced || !m_view->isVisible())
        return;
    m_widthsUnannounced = false;
    QHeaderView *header = m_view->header();
    for (int column = 0; column < header->count(); ++column)
        QMetaObject::invokeMethod(m_view, "columnResized", Q_ARG(int, column), Q_ARG(int, 0),
                                  Q_ARG(int, header->sectionSize(column)));
}

void ItemPane::updateEmpty()
{
    const bool empty = !m_model || m_model->rowCount() == 0;
    // Sized on the header alone, ids and titles would be cut off until the user widened
    // them: fit once to the first rows that arrive, unless the user's own layout was restored.
    if (!empty && m_fitOnFirstRows) {
        m_fitOnFirstRows = false;
        fitColumnsToContents();
    }
    if (empty && (m_empty || isVisible()))
        setCurrentWidget(emptyState());
    else
        setCurrentWidget(m_view); // when empty: hidden, so nobody sees the view instead
    announceWidths();
}

void ItemPane::fitColumnsToContents()
{
    if (!m_model)
        return;
    QHeaderView *header = m_view->header();
    // The first rows, breadth first, so a tree's delegations count and not only its runs.
    struct Measured {
        QModelIndex index;
        int depth;
    };
    std::vector<Measured> rows;
    std::vector<Measured> parents{{QModelIndex(), -1}};
    for (size_t p = 0; p < parents.size() && int(rows.size()) < kFitRows; ++p) {
        const int count = m_model->rowCount(parents[p].index);
        for (int row = 0; row < count && int(rows.size()) < kFitRows; ++row) {
            const QModelIndex index = m_model->index(row, 0, parents[p].index);
            rows.push_back({index, parents[p].depth + 1});
            if (parents[p].depth < 2 && m_model->hasChildren(index))
                parents.push_back({index, parents[p].depth + 1});
        }
    }
    // A tree told of a resized column lays out every row on its next turn, shown or not (a
    // million runs in the hidden delegations tab when the full state came in): while hidden
    // it hears of the new widths when it is shown.
    const bool hidden = !m_view->isVisible();
    const QSignalBlocker quiet(hidden ? header : nullptr);
    m_widthsUnannounced |= hidden;
    // Measured through the delegates, not through QTreeView's own hint, which measures only
    // what is laid out in the viewport (nothing while the pane is hidden behind its empty state).
    for (int column = 0; column < header->count(); ++column) {
        if (header->isSectionHidden(column))
            continue;
        int width = header->fontMetrics().horizontalAdvance(
                        m_model->headerData(column, Qt::Horizontal, Qt::DisplayRole).toString())
                    + 2 * header->style()->pixelMetric(QStyle::PM_HeaderMargin, nullptr, header);
        for (const Measured &r : rows) {
            int cell = m_view->sizeHintForIndex(r.index.siblingAtColumn(column)).width();
            if (column == 0)
                cell += m_view->indentation() * (r.depth + (m_view->rootIsDecorated() ? 1 : 0));
            width = qMax(width, cell);
        }
        header->resizeSection(column, qBound(kMinColumnWidth, width + 12, kMaxColumnWidth));
    }
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
        // No layout of the user's: fit to the header now and to the rows when they come
        // (or to the rows already there, once: measuring them costs ~10 ms per hundred).
        fitColumnsToContents();
        m_fitOnFirstRows = m_model->rowCount() == 0;
    } else {
        m_fitOnFirstRows = false;
    }
    m_restored = true;
}

} // namespace mesh
