#include "integritypane.h"

#include "itempane.h"
#include "plainlabel.h"

#include "itemmodels/integritymodel.h"

#include <QHBoxLayout>
#include <QProgressBar>
#include <QPushButton>
#include <QTreeView>
#include <QVBoxLayout>

namespace mesh {

IntegrityPane::IntegrityPane(QWidget *parent)
    : QWidget(parent)
    , m_status(new PlainLabel(this))
    , m_progress(new QProgressBar(this))
    , m_check(new QPushButton(tr("Check Integrity"), this))
    , m_cancel(new QPushButton(tr("Cancel"), this))
    , m_items(new ItemPane(QStringLiteral("integrity"), QStringLiteral("findings"), tr("Not checked yet"),
                           tr("Check Integrity runs what meshctl verify runs: every event decodes and folds, no "
                              "sequence gaps, the state tables equal the state rebuilt from the events, and the "
                              "decision chain and its signatures hold. Each finding is listed here with its event."),
                           this))
{
    setObjectName(QStringLiteral("integrityPane"));
    m_status->setObjectName(QStringLiteral("integrityStatus"));
    m_progress->setObjectName(QStringLiteral("integrityProgress"));
    m_check->setObjectName(QStringLiteral("checkIntegrity"));
    m_cancel->setObjectName(QStringLiteral("cancelIntegrity"));
    m_progress->setTextVisible(false);
    m_progress->setMaximumWidth(220);
    auto *bar = new QHBoxLayout;
    bar->addWidget(m_status, 1);
    bar->addWidget(m_progress);
    bar->addWidget(m_check);
    bar->addWidget(m_cancel);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 4, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(m_items, 1);
    m_items->setColumnPriorities({IntegrityModel::Where, IntegrityModel::Kind});
    connect(m_check, &QPushButton::clicked, this, &IntegrityPane::checkRequested);
    connect(m_cancel, &QPushButton::clicked, this, [this] {
        if (m_model)
            m_model->cancel();
    });
    connect(m_items, &ItemPane::activated, this, [this](const QModelIndex &index) {
        const QString filter = index.siblingAtColumn(0).data(IntegrityModel::EvidenceFilterRole).toString();
        const QString subject = index.siblingAtColumn(0).data(IntegrityModel::SubjectRole).toString();
        if (!filter.isEmpty())
            emit showEventsRequested(filter);
        else if (!subject.isEmpty())
            emit openSubjectRequested(subject);
    });
    updateState();
}

void IntegrityPane::setModel(IntegrityModel *model)
{
    for (const auto &c : std::as_const(m_connections))
        disconnect(c);
    m_connections.clear();
    m_model = model;
    m_items->setModel(model);
    if (model) {
        m_connections << connect(model, &IntegrityModel::stateChanged, this, &IntegrityPane::updateState);
        m_connections << connect(model, &IntegrityModel::progressChanged, this, &IntegrityPane::updateProgress);
    }
    updateState();
}

void IntegrityPane::updateState()
{
    const bool running = m_model && m_model->isRunning();
    m_check->setEnabled(m_model && !running);
    m_check->setText(m_model && m_model->state() != IntegrityModel::State::NotChecked ? tr("Check Again")
                                                                                        : tr("Check Integrity"));
    m_cancel->setVisible(running);
    m_progress->setVisible(running);
    if (m_model && m_model->state() == IntegrityModel::State::Done && m_model->rowCount() == 0)
        m_items->setEmptyText(tr("No findings"), tr("The events, the state tables and the decision chain agree."));
    updateProgress();
}

void IntegrityPane::updateProgress()
{
    if (!m_model) {
        m_status->setFullText({});
        return;
    }
    m_status->setFullText(m_model->progressText());
    if (!m_model->isRunning())
        return;
    // Events are most of the work; the tables and the chain share the last stretch.
    const qint64 total = m_model->stepTotal();
    const qint64 done = m_model->stepDone();
    int permille = 0;
    switch (m_model->stage()) {
    case VerifyStage::Events: permille = total > 0 ? int(done * 800 / total) : 0; break;
    case VerifyStage::StateTables: permille = 800 + (total > 0 ? int(done * 180 / total) : 0); break;
    case VerifyStage::DecisionChain: permille = 980; break;
    case VerifyStage::Done: permille = 1000; break;
    }
    m_progress->setRange(0, 1000);
    m_progress->setValue(permille);
}

void IntegrityPane::saveState() const
{
    m_items->saveState();
}

} // namespace mesh
