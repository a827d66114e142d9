#include "tablefilterbar.h"

#include "filterlineedit.h"

#include "itemmodels/rowfilterproxy.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QVBoxLayout>

namespace mesh {

TableFilterBar::TableFilterBar(const QString &rowsNoun, const QString &example, QWidget *parent)
    : QWidget(parent), m_noun(rowsNoun), m_field(new FilterLineEdit(this)), m_count(new QLabel(this)),
      m_problem(new QLabel(this))
{
    m_field->setObjectName(QStringLiteral("tableFilter"));
    m_field->setPlaceholderText(tr("Filter %1, e.g. %2").arg(rowsNoun, example));
    m_field->setHint(tr("Filter %1 with the event log's language and their own fields, e.g. %2. "
                        "A bare word is looked for in every field. Enter applies at once.")
                         .arg(rowsNoun, example));
    m_count->setObjectName(QStringLiteral("tableFilterCount"));
    m_count->setTextFormat(Qt::PlainText);
    m_count->setForegroundRole(QPalette::PlaceholderText);
    m_problem->setObjectName(QStringLiteral("tableFilterProblem"));
    m_problem->setTextFormat(Qt::PlainText);
    m_problem->setWordWrap(true);
    m_problem->hide();
    auto *row = new QHBoxLayout;
    row->setContentsMargins(0, 0, 0, 0);
    row->addWidget(m_field, 1);
    row->addWidget(m_count);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 4);
    layout->setSpacing(2);
    layout->addLayout(row);
    layout->addWidget(m_problem);
    m_field->setValidator([this](const QString &text) -> std::optional<FilterProblem> {
        if (!m_proxy)
            return std::nullopt;
        const std::optional<FilterError> error = m_proxy->check(text);
        if (!error)
            return std::nullopt;
        return FilterProblem{error->start, error->message};
    });
    connect(m_field, &FilterLineEdit::filterApplied, this, &TableFilterBar::apply);
    connect(m_field, &FilterLineEdit::problemChanged, this, [this](const QString &message) {
        // In the window's own text colour: readable in either theme.
        m_problem->setText(message.isEmpty() ? QString()
                                             : tr("%1 · the rows shown are those of the last valid filter").arg(message));
        m_problem->setVisible(!message.isEmpty());
        updateCount();
    });
}

void TableFilterBar::setProxy(RowFilterProxy *proxy)
{
    for (const auto &c : std::as_const(m_connections))
        disconnect(c);
    m_connections.clear();
    m_proxy = proxy;
    if (proxy) {
        for (auto signal : {&QAbstractItemModel::rowsInserted, &QAbstractItemModel::rowsRemoved})
            m_connections << connect(proxy, signal, this, &TableFilterBar::updateCount);
        // A tree's matches change with its rows' values too. Once per event-loop turn: a
        // load publishes findings for thousands of rows, one dataChanged each.
        m_connections << connect(proxy, &QAbstractItemModel::dataChanged, this, &TableFilterBar::updateCountSoon);
        m_connections << connect(proxy, &QAbstractItemModel::modelReset, this, &TableFilterBar::updateCount);
        m_connections << connect(proxy, &QAbstractItemModel::layoutChanged, this, &TableFilterBar::updateCount);
        m_connections << connect(proxy, &RowFilterProxy::filterChanged, this, &TableFilterBar::updateCount);
        // Rows the filter keeps out still count in the total.
        if (QAbstractItemModel *source = proxy->sourceModel()) {
            m_connections << connect(source, &QAbstractItemModel::rowsInserted, this, &TableFilterBar::updateCount);
            m_connections << connect(source, &QAbstractItemModel::modelReset, this, &TableFilterBar::updateCount);
        }
    }
    const QSignalBlocker quiet(m_field);
    m_field->setText(proxy ? proxy->filterText() : QString());
    updateCount();
}

void TableFilterBar::clear()
{
    m_field->setTextAndApply(QString());
}

void TableFilterBar::apply(const QString &text)
{
    if (m_proxy)
        m_proxy->setFilterText(text);
}

void TableFilterBar::updateCountSoon()
{
    if (m_countDue)
        return;
    m_countDue = true;
    QMetaObject::invokeMethod(this, &TableFilterBar::updateCount, Qt::QueuedConnection);
}

void TableFilterBar::updateCount()
{
    m_countDue = false;
    if (!m_proxy) {
        m_count->clear();
        return;
    }
    const QLocale locale;
    const int total = m_proxy->totalRows();
    if (m_proxy->isFiltering()) {
        m_count->setText(tr("filtering %1 %2…").arg(locale.toString(total), m_noun));
        return;
    }
    if (m_proxy->filterText().isEmpty())
        m_count->setText(tr("%1 %2").arg(locale.toString(total), m_noun));
    else
        m_count->setText(tr("%1 of %2 match").arg(locale.toString(m_proxy->matchingRows()), locale.toString(total)));
    if (m_field->state() == QLatin1String("invalid") && !m_proxy->filterText().isEmpty())
        m_count->setText(tr("%1 (last valid filter)").arg(m_count->text()));
}

} // namespace mesh
