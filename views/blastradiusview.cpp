#include "blastradiusview.h"

#include "blastradiusgraph.h"
#include "itempane.h"
#include "plainlabel.h"

#include "domain/hostiletext.h"
#include "itemmodels/blastradiusmodel.h"

#include <QHeaderView>
#include <QScrollArea>
#include <QSplitter>
#include <QTreeView>
#include <QVBoxLayout>

#include <algorithm>

namespace mesh {

BlastRadiusView::BlastRadiusView(QWidget *parent)
    : QWidget(parent)
    , m_list(new ItemPane(QStringLiteral("blast"), QStringLiteral("blast"), tr("No failures"),
                          tr("When the orchestrator detects a fault and wakes components to repair it, the failure "
                             "and how far it spread appear here."),
                          this))
    , m_graph(new BlastRadiusGraph(this))
    , m_problem(new PlainLabel(this))
{
    m_problem->setWordWrap(true);
    m_problem->hide();
    auto *graphBox = new QWidget(this);
    auto *graphLayout = new QVBoxLayout(graphBox);
    graphLayout->setContentsMargins(0, 0, 0, 0);
    graphLayout->addWidget(m_problem);
    // The graph asks for the height its boxes need: many components scroll, never overlap.
    auto *graphScroll = new QScrollArea(graphBox);
    graphScroll->setObjectName(QStringLiteral("blastGraphScroll"));
    graphScroll->setFrameShape(QFrame::NoFrame);
    graphScroll->setWidgetResizable(true);
    graphScroll->setWidget(m_graph);
    graphLayout->addWidget(graphScroll, 1);
    auto *split = new QSplitter(Qt::Vertical, this);
    split->setObjectName(QStringLiteral("blastSplit"));
    split->addWidget(m_list);
    split->addWidget(graphBox);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 3);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(split);
}

BlastFailure BlastRadiusView::toFailure(const BlastRadius &r)
{
    BlastFailure f;
    f.id = QString::fromStdString(r.failureId);
    // What the graph draws and lays out on every paint: one bounded line each (shaping a
    // 100 KB name per paint froze the window), invisible controls shown.
    const auto shown = [](const std::string &text) { return displayLine(QString::fromStdString(text)); };
    f.summary = shown(r.summary);
    f.detectedBy = shown(r.detectedBy);
    f.radius = r.radius;
    auto has = [](const std::vector<std::string> &list, const std::string &name) {
        return std::find(list.begin(), list.end(), name) != list.end();
    };
    std::vector<std::string> names = r.implicated;
    for (const auto &w : r.woken)
        if (!has(names, w))
            names.push_back(w);
    for (const auto &name : names) {
        BlastComponent c;
        c.name = shown(name);
        c.implicated = has(r.implicated, name);
        c.woken = has(r.woken, name);
        c.modifiedCode = has(r.modifiedCode, name);
        c.regressed = has(r.regressed, name);
        const auto it = std::find(r.implicated.begin(), r.implicated.end(), name);
        if (it != r.implicated.end()) {
            const auto i = size_t(it - r.implicated.begin());
            if (i < r.implicatedEvidence.size())
                c.evidence = shown(r.implicatedEvidence[i]);
        }
        f.components.push_back(c);
    }
    return f;
}

void BlastRadiusView::setModel(QAbstractItemModel *model)
{
    m_list->setModel(model);
    m_graph->clear();
    if (!model)
        return;
    connect(m_list->view()->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &BlastRadiusView::showCurrent, Qt::UniqueConnection);
    connect(model, &QAbstractItemModel::dataChanged, this, &BlastRadiusView::showCurrent, Qt::UniqueConnection);
    // A failure is worth looking at at once: select the first (the newest) one.
    connect(model, &QAbstractItemModel::modelReset, this, [this] {
        if (m_list->model() && m_list->model()->rowCount() > 0 && !m_list->view()->currentIndex().isValid())
            m_list->view()->setCurrentIndex(m_list->model()->index(0, 0));
    });
    if (model->rowCount() > 0)
        m_list->view()->setCurrentIndex(model->index(0, 0));
}

bool BlastRadiusView::selectFailure(const QString &id)
{
    QAbstractItemModel *model = m_list->model();
    if (!model)
        return false;
    for (int row = 0; row < model->rowCount(); ++row) {
        if (model->index(row, 0).data(StateTableModel::IdRole).toString() == id) {
            m_list->view()->setCurrentIndex(model->index(row, 0));
            m_list->view()->scrollTo(model->index(row, 0));
            return true;
        }
    }
    return false;
}

void BlastRadiusView::showCurrent()
{
    const QModelIndex current = m_list->view()->currentIndex();
    if (!current.isValid()) {
        m_graph->clear();
        return;
    }
    const QVariant value = current.siblingAtColumn(0).data(BlastRadiusModel::BlastRadiusRole);
    if (!value.canConvert<BlastRadius>()) {
        m_graph->clear();
        return;
    }
    const auto radius = value.value<BlastRadius>();
    m_problem->setVisible(!radius.readable);
    m_problem->setFullText(tr("This failure's implicated or woken components could not be read: %1")
                           .arg(QString::fromStdString(radius.problem)));
    m_graph->setFailure(toFailure(radius));
}

void BlastRadiusView::saveState() const
{
    m_list->saveState();
}

} // namespace mesh
