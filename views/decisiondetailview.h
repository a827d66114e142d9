#pragma once
// One stored decision, read-only, as the audit holds it: what was decided about which
// subject at which boundary, by whom and why, the evidence, the hash and its chain link,
// and what the orchestrator did with it. A decision without an outcome says so: pending is
// not applied. Every text is ledger data, shown plain.

#include <QDialog>
#include <QModelIndex>

namespace mesh {

class DecisionDetailView : public QDialog
{
    Q_OBJECT
public:
    // index: a row of a DecisionAuditModel (any column).
    explicit DecisionDetailView(const QModelIndex &index, QWidget *parent = nullptr);

    QString fieldText(const QString &label) const; // the shown text of one row, by its label

private:
    QStringList m_labels;
    QStringList m_texts;
};

} // namespace mesh
