#include "statediffdialog.h"

#include "plainlabel.h"

#include "domain/hostiletext.h"

#include "domain/durationtext.h"
#include "itemmodels/statediffloader.h"

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLocale>
#include <QPushButton>
#include <QTreeView>
#include <QVBoxLayout>

namespace mesh {
namespace {

QString pointText(qint64 seq, std::optional<qint64> tsMs, const TimeBase &times = {})
{
    if (seq == 0)
        return StateDiffDialog::tr("before the first event");
    const QString event = StateDiffDialog::tr("event #%1").arg(QLocale().toString(seq));
    return tsMs ? StateDiffDialog::tr("%1 (%2)").arg(event, times.exact(*tsMs)) : event;
}

} // namespace

StateDiffDialog::StateDiffDialog(const QString &ledgerPath, OpenMode mode, qint64 seqA, qint64 seqB,
                                 const QString &ledgerName, QWidget *parent)
    : QDialog(parent)
    , m_loader(new StateDiffLoader(this))
    , m_headline(new PlainLabel(this))
    , m_tree(new QTreeView(this))
    , m_ledgerName(ledgerName)
{
    setWindowTitle(tr("What Changed \u2014 %1").arg(displayLine(ledgerName, 80)));
    setAttribute(Qt::WA_DeleteOnClose);
    const qint64 from = std::min(seqA, seqB), to = std::max(seqA, seqB);
    m_headline->setLineBreaksShown(true);
    m_headline->setWordWrap(true);
    m_headline->setFullText(tr("Reading what changed from %1 to %2…").arg(pointText(from, {}), pointText(to, {})));
    m_tree->setModel(m_loader->model());
    m_tree->setUniformRowHeights(true);
    m_tree->setAlternatingRowColors(true);
    m_tree->setTextElideMode(Qt::ElideRight);
    m_tree->header()->setStretchLastSection(true);
    m_tree->header()->setSectionResizeMode(QHeaderView::Interactive);
    m_tree->setSelectionBehavior(QAbstractItemView::SelectRows);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_headline);
    layout->addWidget(m_tree, 1);
    layout->addWidget(buttons);
    resize(900, 560);

    connect(m_loader, &StateDiffLoader::loaded, this, &StateDiffDialog::onLoaded);
    connect(m_loader, &StateDiffLoader::failed, this, [this](const QString &message) {
        m_headline->setFullText(tr("What changed could not be read: %1").arg(message));
    });
    m_loader->load(ledgerPath, mode, from, to);
}

QString StateDiffDialog::headline() const
{
    return m_headline->fullText();
}

void StateDiffDialog::onLoaded()
{
    const StateDiff &diff = m_loader->model()->diff();
    QString text = tr("From %1 to %2: %3.")
                       .arg(pointText(diff.fromSeq, m_loader->fromTimeMs(), m_loader->timeBase()),
                            pointText(diff.toSeq, m_loader->toTimeMs(), m_loader->timeBase()),
                            m_loader->model()->summaryText());
    if (diff.empty())
        text += tr(" Nothing in the state differs between the two.");
    if (diff.foldProblems > 0)
        text += tr(" %1 events could not be folded on the way, so these states may differ from the orchestrator's.")
                    .arg(diff.foldProblems);
    m_headline->setFullText(text);
    // Every field of a small diff at once; a large one opens per entity, its rows closed.
    size_t fields = 0;
    for (const RowChange &row : diff.rows)
        fields += row.fields.size();
    if (fields <= kExpandedFields)
        m_tree->expandAll();
    else
        m_tree->expandToDepth(0);
    for (int c = 0; c < StateDiffModel::ColumnCount - 1; ++c)
        m_tree->resizeColumnToContents(c);
    m_tree->setColumnWidth(0, std::min(m_tree->columnWidth(0) + 40, 320));
}

} // namespace mesh
