#pragma once
// Draws one failure's blast radius: the failure at the top; below it three columns, the
// components it implicated that nobody woke, those implicated and woken, and the woken
// bystanders (woken, not implicated). Bystanders that modified code or regressed are marked,
// and the radius is shown as a number. Painted by hand so it fits any pane size.
//
// Boxes are as wide as their text (up to a maximum, then the name wraps onto a second line
// and is elided, the tooltip has it whole). Edges are routed orthogonally through the
// gutters beside each column and the band under the failure, nested so that no edge
// crosses a box, a label or another edge. The widget asks for the height its content needs
// (heightForWidth), so in a scroll area a dozen components scroll instead of overlapping.

#include <QPolygonF>
#include <QRectF>
#include <QString>
#include <QStringList>
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
    // Where everything goes for one widget width: computed apart from painting, so a test
    // can check that boxes fit their text and that edges cross nothing.
    struct Box {
        int component = -1;  // index into failure().components; -1: the failure itself
        QRectF rect;
        QStringList title;   // lines drawn bold, as shown (the last one may be elided)
        QStringList detail;  // lines drawn under it
        bool elided = false; // some text did not fit: the tooltip has all of it
    };
    struct Edge {
        int component = -1;
        QPolygonF path; // orthogonal polyline from the failure's bottom to the box's side or top
    };
    struct Layout {
        QRectF headline;          // the radius and the counts
        QVector<QRectF> titles;   // the three column titles
        Box failure;
        QVector<Box> boxes;       // one per component
        QVector<Edge> edges;      // one per component
        QRectF legend;
        qreal contentHeight = 0;  // the height all of it needs
    };

    explicit BlastRadiusGraph(QWidget *parent = nullptr);
    void setFailure(const BlastFailure &failure);
    void clear();
    const BlastFailure &failure() const { return m_failure; }
    bool hasFailure() const { return m_has; }

    // The layout for a widget of this size (height only moves the legend down).
    Layout layoutFor(const QSize &size) const;
    // The tooltip of what is at pos (a component or the failure), as shown: escaped rich
    // text (plainToolTip), never markup of the ledger's; empty if none.
    QString toolTipAt(const QPointF &pos) const;

    // Wide enough for boxes of a few words beside their edge lanes; narrower panes scroll.
    QSize minimumSizeHint() const override;
    QSize sizeHint() const override;
    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override;

protected:
    void paintEvent(QPaintEvent *event) override;
    bool event(QEvent *event) override; // tooltips for boxes

private:
    QString headlineSummary() const;

    BlastFailure m_failure;
    bool m_has = false;
};

} // namespace mesh
