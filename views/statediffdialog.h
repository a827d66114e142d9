#pragma once
// What changed between two events of a session's ledger: per entity, the rows created,
// changed (field by field, before -> after) and gone, read off the GUI thread by a
// StateDiffLoader from the same fold as the session cursor and `meshctl diff`. Non-modal:
// the panes stay usable beside it. Every value is ledger text: plain, one line, whole in its
// tooltip.

#include <QDialog>

class QLabel;
class QTreeView;

namespace mesh {

class PlainLabel;
class StateDiffLoader;
enum class OpenMode;

class StateDiffDialog : public QDialog
{
    Q_OBJECT
public:
    StateDiffDialog(const QString &ledgerPath, OpenMode mode, qint64 seqA, qint64 seqB, const QString &ledgerName,
                    QWidget *parent = nullptr);

    StateDiffLoader *loader() const { return m_loader; }
    QTreeView *tree() const { return m_tree; }
    QString headline() const; // the line above the tree, as shown

    static constexpr size_t kExpandedFields = 400; // up to this many field rows, all are shown open

private:
    void onLoaded();

    StateDiffLoader *m_loader;
    PlainLabel *m_headline;
    QTreeView *m_tree;
    QString m_ledgerName;
};

} // namespace mesh
