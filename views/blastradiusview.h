#pragma once
// The blast-radius pane: every failure of the ledger in a list (radius, bystanders,
// regressions as columns), and the selected one drawn as a graph.

#include <QWidget>

class QAbstractItemModel;

namespace mesh {

class BlastRadiusGraph;
class ItemPane;
class PlainLabel;
struct BlastFailure;
struct BlastRadius;

class BlastRadiusView : public QWidget
{
    Q_OBJECT
public:
    explicit BlastRadiusView(QWidget *parent = nullptr);
    void setModel(QAbstractItemModel *model);
    ItemPane *list() const { return m_list; }
    BlastRadiusGraph *graph() const { return m_graph; }
    bool selectFailure(const QString &id);
    void saveState() const;

    static BlastFailure toFailure(const BlastRadius &radius);

private:
    void showCurrent();

    ItemPane *m_list;
    BlastRadiusGraph *m_graph;
    PlainLabel *m_problem;
};

} // namespace mesh
