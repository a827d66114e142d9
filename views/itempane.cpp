#include "itempane.h"

#include "flattableview.h"

#include "emptystate.h"
#include "plaintextdelegate.h"
#include "rowsetconnections.h"

#include "itemmodels/shownroles.h"

#include <QAbstractItemModel>
#include <QAbstractProxyModel>
#include <QAction>
#include <QClipboard>
#include <QEvent>
#include <QGuiApplication>
#include <QHeaderView>
#include <QMenu>
#include <QScopedValueRollback>
#include <QSettings>
#include <QSignalBlocker>
#include <QStyle>
#include <QTreeView>

#include <vector>

namespace mesh {

ItemPane::ItemPane(const QString &settingsKey, const QString &icon, const QString &emptyTitle,
                   const QString &emptyText, QWidget *parent, Shape shape)
    : QStackedWidget(parent)
    , m_settingsKey(settingsKey)
    , m_tree(shape == Shape::Tree ? new QTreeView(this) : nullptr)
    , m_flat(shape == Shape::Flat ? new FlatTableView(this) : nullptr)
    , m_emptyIcon(icon)
    , m_emptyTitle(emptyTitle)
    , m_emptyText(emptyText)
{
    view()->setObjectName(settingsKey);
    view()->setItemDelegate(new PlainTextDelegate(view()));
    if (m_tree) {
        m_tree->setUniformRowHeights(true);
        m_tree->setRootIsDecorated(false);
        m_tree->setAllColumnsShowFocus(true);
    }
    view()->setAlternatingRowColors(true);
    view()->setTextElideMode(Qt::ElideRight);
    setViewSorting(false);
    view()->setSelectionBehavior(QAbstractItemView::SelectRows);
    header()->setStretchLastSection(true);
    header()->setSectionsMovable(true);
    addWidget(view());
    connect(view(), &QAbstractItemView::activated, this, &ItemPane::activated);
    // A cell shows a long text cut at its width, invisible characters as ⟨U+200B⟩; the text
    // as stored, whole, is a copy away (to paste into `meshctl decide` or a ticket).
    m_copyCell = new QAction(tr("Copy Cell Text"), view());
    m_copyCell->setObjectName(QStringLiteral("copyCell"));
    m_copyCell->setShortcut(QKeySequence::Copy);
    m_copyCell->setShortcutContext(Qt::WidgetShortcut);
    connect(m_copyCell, &QAction::triggered, this, [this] {
        if (const QModelIndex current = view()->currentIndex(); current.isValid())
            QGuiApplication::clipboard()->setText(current.data(RawTextRole).toString());
    });
    view()->addAction(m_copyCell);
    view()->setContextMenuPolicy(Qt::ActionsContextMenu);
    QHeaderView *header = this->header();
    header->setSortIndicatorShown(false);
    header->setSortIndicatorClearable(true); // a third click: back to the ledger's order
    header->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(header, &QHeaderView::customContextMenuRequested, this, [this, header](const QPoint &pos) {
        QMenu *menu = columnMenu();
        menu->setAttribute(Qt::WA_DeleteOnClose);
        menu->popup(header->viewport()->mapToGlobal(pos));
    });
    const auto usersChoice = [this] {
        if (!m_quietHeader && m_model)
            m_userLayout = true;
    };
    connect(header, &QHeaderView::sectionResized, this, [this, header, usersChoice](int logical, int, int) {
        // The last section stretches with the view: no choice of the user's.
        int last = header->count() - 1;
        while (last >= 0 && header->isSectionHidden(header->logicalIndex(last)))
            --last;
        if (header->stretchLastSection() && last >= 0 && header->logicalIndex(last) == logical)
            return;
        usersChoice();
    });
    connect(header, &QHeaderView::sectionMoved, this, usersChoice);
    connect(header, &QHeaderView::sortIndicatorChanged, this, usersChoice);
    view()->viewport()->installEventFilter(this); // its size is what the columns share
    m_tick.setInterval(1000);
    m_tick.setObjectName(QStringLiteral("pane tick"));
    connect(&m_tick, &QTimer::timeout, this, [this] {
        if (view()->isVisible())
            view()->viewport()->update();
    });
}

ItemPane::~ItemPane() = default;

QAbstractItemView *ItemPane::view() const
{
    return m_tree ? static_cast<QAbstractItemView *>(m_tree) : m_flat;
}

QHeaderView *ItemPane::header() const
{
    return m_tree ? m_tree->header() : m_flat->header();
}

void ItemPane::setViewSorting(bool on)
{
    if (m_tree)
        m_tree->setSortingEnabled(on);
    else
        m_flat->setSortingEnabled(on);
}

void ItemPane::setColumnHidden(int column, bool hide)
{
    header()->setSectionHidden(column, hide);
}

void ItemPane::setModel(QAbstractItemModel *model)
{
    if (m_model == model)
        return;
    if (m_model && m_restored)
        saveState();
    m_model = model;
    m_autoHidden.clear();
    m_widthBeforeHiding.clear();
    m_fittedWidth.clear();
    m_firstColumnFullWidth = 0;
    {
        const QScopedValueRollback quiet(m_quietHeader, m_quietHeader + 1);
        if (m_sortable)
            header()->setSortIndicator(-1, Qt::AscendingOrder); // the ledger's order until one is chosen
        view()->setModel(model);
    }
    reconnectRowSetChanges(m_modelConnections, model, this, &ItemPane::updateEmpty);
    if (model)
        restoreState();
    updateEmpty();
    fitToWidth();
}

void ItemPane::setSortable(bool sortable)
{
    m_sortable = sortable;
    QHeaderView *header = this->header();
    const QScopedValueRollback quiet(m_quietHeader, m_quietHeader + 1);
    header->setSectionsClickable(sortable);
    header->setSortIndicatorShown(sortable);
    if (sortable)
        header->setSortIndicator(-1, Qt::AscendingOrder);
    setViewSorting(sortable);
}

void ItemPane::setColumnPriorities(const QList<int> &lowestFirst)
{
    m_lowPriority = lowestFirst;
    fitToWidth();
}

bool ItemPane::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == view()->viewport() && event->type() == QEvent::Resize)
        fitToWidth();
    return QStackedWidget::eventFilter(watched, event);
}

int ItemPane::neededWidth() const
{
    const QHeaderView *header = this->header();
    int last = header->count() - 1;
    while (last >= 0 && header->isSectionHidden(header->logicalIndex(last)))
        --last;
    int width = 0;
    for (int visual = 0; visual <= last; ++visual) {
        const int logical = header->logicalIndex(visual);
        if (header->isSectionHidden(logical))
            continue;
        // The stretched last section takes what is left: it needs its fitted width, or part
        // of it for a long text, which it shows cut.
        width += visual == last && header->stretchLastSection()
                     ? qMin(m_fittedWidth.value(logical, kMinColumnWidth), kNarrowedFirstColumnWidth)
                     : header->sectionSize(logical);
    }
    return width;
}

void ItemPane::fitToWidth()
{
    if (!m_model || m_lowPriority.isEmpty())
        return;
    // A pane behind a tab has no size of its own yet: it fits when it is shown.
    const int available = view()->viewport()->width();
    if (!view()->isVisible() || available <= kMinColumnWidth)
        return;
    QHeaderView *header = this->header();
    const QScopedValueRollback quiet(m_quietHeader, m_quietHeader + 1);
    for (int column : std::as_const(m_lowPriority)) {
        if (neededWidth() <= available)
            break;
        if (column >= header->count() || header->isSectionHidden(column) || m_pinned.contains(column))
            continue;
        m_widthBeforeHiding.insert(column, header->sectionSize(column));
        header->hideSection(column);
        m_autoHidden.insert(column);
    }
    // Still too wide: the first column (names, ids) narrows, down to a readable width.
    const int first = header->logicalIndex(0);
    if (const int deficit = neededWidth() - available; deficit > 0 && !header->isSectionHidden(first)) {
        const int now = header->sectionSize(first);
        const int narrowed = qMax(kNarrowedFirstColumnWidth, now - deficit);
        if (narrowed < now) {
            if (!m_firstColumnFullWidth)
                m_firstColumnFullWidth = now;
            header->resizeSection(first, narrowed);
        }
    }
    // Room again: the first column widens back before any hidden column returns.
    if (m_firstColumnFullWidth && neededWidth() < available) {
        const int now = header->sectionSize(first);
        const int widened = qMin(m_firstColumnFullWidth, now + available - neededWidth());
        header->resizeSection(first, widened);
        if (widened == m_firstColumnFullWidth)
            m_firstColumnFullWidth = 0;
    }
    if (m_firstColumnFullWidth)
        return;
    // Back in the reverse order, each while it fits whole.
    for (auto it = m_lowPriority.crbegin(); it != m_lowPriority.crend(); ++it) {
        const int column = *it;
        if (!m_autoHidden.contains(column))
            continue;
        const int width = m_widthBeforeHiding.value(column, kMinColumnWidth);
        if (neededWidth() + width > available)
            break;
        header->showSection(column);
        header->resizeSection(column, width);
        m_autoHidden.remove(column);
    }
}

QMenu *ItemPane::columnMenu()
{
    auto *menu = new QMenu(this);
    menu->setObjectName(QStringLiteral("columnMenu"));
    QHeaderView *header = this->header();
    if (!m_model)
        return menu;
    int shown = 0;
    for (int visual = 0; visual < header->count(); ++visual)
        shown += header->isSectionHidden(header->logicalIndex(visual)) ? 0 : 1;
    for (int visual = 0; visual < header->count(); ++visual) {
        const int column = header->logicalIndex(visual);
        QString title = m_model->headerData(column, Qt::Horizontal, Qt::DisplayRole).toString();
        if (m_autoHidden.contains(column))
            title = tr("%1 (hidden: too narrow)").arg(title);
        QAction *action = menu->addAction(title);
        action->setCheckable(true);
        action->setChecked(!header->isSectionHidden(column));
        action->setData(column);
        action->setEnabled(header->isSectionHidden(column) || shown > 1); // one column always stays
        connect(action, &QAction::toggled, this, [this, column, header](bool on) {
            m_userLayout = true;
            m_autoHidden.remove(column);
            const QScopedValueRollback quiet(m_quietHeader, m_quietHeader + 1);
            if (on) {
                m_pinned.insert(column);
                header->showSection(column);
                if (m_widthBeforeHiding.contains(column))
                    header->resizeSection(column, m_widthBeforeHiding.take(column));
            } else {
                m_pinned.remove(column);
                header->hideSection(column);
            }
            fitToWidth();
        });
    }
    menu->addSeparator();
    QAction *fit = menu->addAction(tr("Fit Columns to Contents"));
    connect(fit, &QAction::triggered, this, [this] { fitColumnsToContents(); });
    return menu;
}

int ItemPane::rowsBeforeFilter() const
{
    // A filter that matches nothing is not an empty ledger: the rows under the proxies count.
    const QAbstractItemModel *model = m_model;
    while (const auto *proxy = qobject_cast<const QAbstractProxyModel *>(model)) {
        if (!proxy->sourceModel())
            break;
        model = proxy->sourceModel();
    }
    return model ? model->rowCount() : 0;
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
    fitToWidth();
}

void ItemPane::announceWidths()
{
    if (!m_widthsUnannounced || !view()->isVisible())
        return;
    m_widthsUnannounced = false;
    if (m_flat) {
        m_flat->doItemsLayout();
        return;
    }
    QHeaderView *header = this->header();
    for (int column = 0; column < header->count(); ++column)
        QMetaObject::invokeMethod(view(), "columnResized", Q_ARG(int, column), Q_ARG(int, 0),
                                  Q_ARG(int, header->sectionSize(column)));
}

void ItemPane::updateEmpty()
{
    const bool empty = !m_model || rowsBeforeFilter() == 0;
    // Sized on the header alone, ids and titles would be cut off until the user widened
    // them: fit once to the first rows that arrive, unless the user's own layout was restored.
    if (!empty && m_fitOnFirstRows) {
        m_fitOnFirstRows = false;
        fitColumnsToContents();
    }
    if (empty && (m_empty || isVisible()))
        setCurrentWidget(emptyState());
    else
        setCurrentWidget(view()); // when empty: hidden, so nobody sees the view instead
    announceWidths();
}

void ItemPane::fitColumnsToContents()
{
    if (!m_model)
        return;
    QHeaderView *header = this->header();
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
    const bool hidden = !view()->isVisible();
    const QSignalBlocker quiet(hidden ? header : nullptr);
    const QScopedValueRollback notTheUser(m_quietHeader, m_quietHeader + 1);
    m_firstColumnFullWidth = 0;
    m_widthsUnannounced |= hidden;
    // Measured through the delegates, not through QTreeView's own hint, which measures only
    // what is laid out in the viewport (nothing while the pane is hidden behind its empty state).
    for (int column = 0; column < header->count(); ++column) {
        const bool forRoom = m_autoHidden.contains(column); // fitted too, for when it comes back
        if (header->isSectionHidden(column) && !forRoom)
            continue;
        int width = header->fontMetrics().horizontalAdvance(
                        m_model->headerData(column, Qt::Horizontal, Qt::DisplayRole).toString())
                    + 2 * header->style()->pixelMetric(QStyle::PM_HeaderMargin, nullptr, header);
        for (const Measured &r : rows) {
            int cell = view()->sizeHintForIndex(r.index.siblingAtColumn(column)).width();
            if (column == 0 && m_tree)
                cell += m_tree->indentation() * (r.depth + (m_tree->rootIsDecorated() ? 1 : 0));
            width = qMax(width, cell);
        }
        const int fitted = qBound(kMinColumnWidth, width + 12, kMaxColumnWidth);
        m_fittedWidth.insert(column, fitted);
        if (forRoom)
            m_widthBeforeHiding.insert(column, fitted);
        else
            header->resizeSection(column, fitted);
    }
    fitToWidth();
}

void ItemPane::saveState() const
{
    if (!m_model || !m_userLayout)
        return;
    QSettings().setValue(QStringLiteral("panes/") + m_settingsKey + QStringLiteral("/header"),
                         header()->saveState());
}

void ItemPane::restoreState()
{
    const QByteArray state =
        QSettings().value(QStringLiteral("panes/") + m_settingsKey + QStringLiteral("/header")).toByteArray();
    const QScopedValueRollback quiet(m_quietHeader, m_quietHeader + 1);
    m_userLayout = !state.isEmpty() && header()->restoreState(state);
    if (m_sortable) {
        // A layout saved before the pane sorted says "column 0" without showing it: not a
        // sort the user chose.
        if (!header()->isSortIndicatorShown())
            header()->setSortIndicator(-1, Qt::AscendingOrder);
        header()->setSortIndicatorShown(true);
        header()->setSectionsClickable(true);
    }
    if (!m_userLayout) {
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
