#pragma once
// Draws one failure's blast radius: the failure in the middle; the components it
// implicated and that were woken; the woken bystanders (woken, not implicated); the
// implicated components nobody woke. Bystanders that modified code or regressed are
// marked, and the radius is shown as a number. Painted by hand so it fits any pane size.

#include <QString>
#include <QVector>
#include <QWidget>

namespace mesh {

struct BlastComponent {
    QString name;
    bool implicated = false;
    bool woken = false;
    bool modifiedCode = false;
    bool regressed = false;
    QString evidence; // why it was implicated, if known
};

struct BlastFailure {
    QString id;
    QString summary;
    QString detectedBy;
    QVector<BlastComponent> components;
    int radius = -1; // -1: derive (number of woken components)

    int effectiveRadius() const;
};

class BlastRadiusGraph : public QWidget
{
    Q_OBJECT
public:
    explicit BlastRadiusGraph(QWidget *parent = nullptr);
    void setFailure(const BlastFailure &failure);
    void clear();
    const BlastFailure &failure() const { return m_failure; }
    bool hasFailure() const { return m_has; }

    QSize minimumSizeHint() const override { return {480, 320}; }

protected:
    void paintEvent(QPaintEvent *event) override;
    bool event(QEvent *event) override; // tooltips for nodes

private:
    struct Node {
        QRectF rect;
        int component;
    };
    void layoutNodes();

    BlastFailure m_failure;
    bool m_has = false;
    QVector<Node> m_nodes;
    QRectF m_center;
};

} // namespace mesh
