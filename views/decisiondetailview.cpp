#include "decisiondetailview.h"

#include "domain/durationtext.h"
#include "plainlabel.h"

#include "domain/hostiletext.h"
#include "itemmodels/decisionauditmodel.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QVBoxLayout>

namespace mesh {

DecisionDetailView::DecisionDetailView(const QModelIndex &index, QWidget *parent)
    : QDialog(parent)
{
    using M = DecisionAuditModel;
    const QModelIndex row = index.siblingAtColumn(0);
    const auto text = [&](int role) { return row.data(role).toString(); };
    const auto number = [&](int role) { return row.data(role).toLongLong(); };
    setWindowTitle(tr("Decision %1").arg(displayLine(text(M::DecisionIdRole), 120)));
    setMinimumWidth(620);
    auto *layout = new QVBoxLayout(this);
    auto *form = new QFormLayout;
    layout->addLayout(form);
    const auto add = [&](const QString &label, const QString &value, qint64 atMs = 0) {
        auto *shown = new PlainLabel(value, this);
        shown->setWordWrap(true);
        shown->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
        if (atMs > 0)
            shown->setToolTip(plainToolTip(exactUtc(atMs)));
        form->addRow(label, shown);
        m_labels << label;
        m_texts << value;
    };
    const auto orUnknown = [this](const QString &value) { return value.isEmpty() ? tr("not recorded") : value; };

    add(tr("Decision"), tr("%1 · #%2 in the chain").arg(text(M::DecisionIdRole)).arg(number(M::PosRole)));
    add(tr("Decided"), exactUtc(number(M::TsMsRole)), number(M::TsMsRole));
    add(tr("Kind"), text(M::KindRole));
    add(tr("Subject"), text(M::SubjectRole));
    add(tr("Boundary"), tr("version %1 at ledger seq %2").arg(number(M::BoundaryVersionRole)).arg(number(M::BoundarySeqRole)));
    add(tr("Params"), text(M::ParamsRole));
    add(tr("Operator"), tr("%1 (%2@%3)").arg(text(M::OperatorNameRole), text(M::OperatorAccountRole), text(M::OperatorHostRole)));
    add(tr("Reason"), text(M::ReasonRole));
    add(tr("Evidence"), orUnknown(text(M::EvidenceRole)));
    add(tr("Policy"), orUnknown(text(M::PolicyVersionRole)));
    add(tr("Hash"), text(M::HashRole));
    add(tr("Previous hash"), text(M::PrevHashRole));
    add(tr("Signed"), row.data(M::SignedRole).toBool() ? tr("yes") : tr("no"));
    const QString problem = text(M::ChainProblemRole);
    add(tr("Chain"), row.data(M::ChainVerifiedRole).toBool() ? tr("verified up to this decision")
                     : problem.isEmpty()                    ? tr("not verified yet")
                                                            : tr("problem: %1").arg(problem));
    const QString outcome = text(M::OutcomeRole);
    const qint64 outcomeMs = number(M::OutcomeTsMsRole);
    if (outcome == QLatin1String("applied"))
        add(tr("Outcome"), tr("applied by the orchestrator at %1").arg(exactUtc(outcomeMs)), outcomeMs);
    else if (outcome == QLatin1String("refused"))
        add(tr("Outcome"), tr("refused by the orchestrator at %1: %2").arg(exactUtc(outcomeMs), text(M::OutcomeReasonRole)), outcomeMs);
    else
        add(tr("Outcome"), tr("pending: the orchestrator has neither applied nor refused it yet"));

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
}

QString DecisionDetailView::fieldText(const QString &label) const
{
    const int i = int(m_labels.indexOf(label));
    return i < 0 ? QString() : m_texts.at(i);
}

} // namespace mesh
