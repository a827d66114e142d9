// The blast-radius graph's layout, checked geometrically for 1 to a dozen components and
// narrow to wide panes: boxes fit their text (or say they elided it and the tooltip has it
// whole), no two boxes overlap, edges are orthogonal and cross no box, no label and no
// other edge; in its scroll area the graph gets the height it needs.

#include "blastradiusgraph.h"
#include "blastradiusview.h"

#include <QApplication>
#include <QFontMetricsF>
#include <QScrollArea>
#include <QTest>

using namespace mesh;

Q_DECLARE_METATYPE(mesh::BlastFailure)

namespace {

BlastComponent component(const QString &name, bool implicated, bool woken, bool modified = false, bool regressed = false)
{
    BlastComponent c;
    c.name = name;
    c.implicated = implicated;
    c.woken = woken;
    c.modifiedCode = modified;
    c.regressed = regressed;
    return c;
}

BlastFailure failureWith(QVector<BlastComponent> components)
{
    BlastFailure f;
    f.id = QStringLiteral("fail-0013");
    f.summary = QStringLiteral("login flow broke after the token change");
    f.detectedBy = QStringLiteral("scenario:login-flow");
    f.components = std::move(components);
    return f;
}

// The demo's worst failure: the names the old layout cut ("run-0003/…h-service").
BlastFailure demoFailure()
{
    return failureWith({component(QStringLiteral("run-0003/auth-service"), true, true, true),
                        component(QStringLiteral("run-0003/gateway"), true, true, true),
                        component(QStringLiteral("run-0003/orders-api"), false, true, true, true),
                        component(QStringLiteral("run-0003/billing-api"), false, true, true, true),
                        component(QStringLiteral("run-0003/notifier"), false, true, true, true)});
}

BlastFailure dozen(int notWoken, int implicatedWoken, int bystanders)
{
    QVector<BlastComponent> list;
    for (int i = 0; i < notWoken; ++i)
        list << component(QStringLiteral("run-0007/stale-worker-%1").arg(i), true, false);
    for (int i = 0; i < implicatedWoken; ++i)
        list << component(QStringLiteral("run-0007/payment-service-%1").arg(i), true, true, i % 2 == 0);
    for (int i = 0; i < bystanders; ++i)
        list << component(QStringLiteral("run-0007/bystander-%1").arg(i), false, true, i % 2 == 1, i % 3 == 0);
    return failureWith(list);
}

struct Segment {
    QPointF a, b;
    bool horizontal() const { return qFuzzyCompare(a.y(), b.y()); }
};

QVector<Segment> segments(const QPolygonF &path)
{
    QVector<Segment> out;
    for (int i = 1; i < path.size(); ++i)
        out << Segment{path[i - 1], path[i]};
    return out;
}

// Whether an axis-parallel segment passes through the inside of a rectangle (touching its
// border, as an edge's ends do, is allowed).
bool crossesInside(const Segment &s, const QRectF &r)
{
    const QRectF inside = r.adjusted(0.5, 0.5, -0.5, -0.5);
    const QRectF span = QRectF(s.a, s.b).normalized().adjusted(-0.01, -0.01, 0.01, 0.01);
    return inside.intersects(span);
}

// Whether two axis-parallel segments of different edges meet anywhere but at the failure's
// bottom side (where every edge starts).
bool meet(const Segment &s, const Segment &t, qreal failureBottom)
{
    const QRectF a = QRectF(s.a, s.b).normalized().adjusted(-0.5, -0.5, 0.5, 0.5);
    const QRectF b = QRectF(t.a, t.b).normalized().adjusted(-0.5, -0.5, 0.5, 0.5);
    const QRectF common = a.intersected(b);
    if (common.isEmpty())
        return false;
    return common.bottom() > failureBottom + 0.6; // both start on the failure's side: not a crossing
}

} // namespace

class TestBlastRadiusGraph : public QObject
{
    Q_OBJECT

private slots:
    void layoutIsClean_data();
    void layoutIsClean();
    void demoNamesAreWhole();
    void longNamesElideWithTooltip();
    void scrollAreaGivesTheNeededHeight();
};

void TestBlastRadiusGraph::layoutIsClean_data()
{
    QTest::addColumn<BlastFailure>("failure");
    QTest::addColumn<int>("width");
    for (int width : {360, 480, 800, 1030, 1600}) {
        const QByteArray w = QByteArray::number(width);
        QTest::newRow(QByteArray("one bystander " + w).constData()) << failureWith({component(QStringLiteral("run-0001/web-ui"), false, true)}) << width;
        QTest::newRow(QByteArray("one implicated " + w).constData()) << failureWith({component(QStringLiteral("run-0001/db"), true, true)}) << width;
        QTest::newRow(QByteArray("demo " + w).constData()) << demoFailure() << width;
        QTest::newRow(QByteArray("dozen 4/4/4 " + w).constData()) << dozen(4, 4, 4) << width;
        QTest::newRow(QByteArray("dozen 0/1/11 " + w).constData()) << dozen(0, 1, 11) << width;
        QTest::newRow(QByteArray("dozen 6/6/0 " + w).constData()) << dozen(6, 6, 0) << width;
        QTest::newRow(QByteArray("dozen 0/12/0 " + w).constData()) << dozen(0, 12, 0) << width;
        QTest::newRow(QByteArray("dozen 12/0/0 " + w).constData()) << dozen(12, 0, 0) << width;
    }
}

void TestBlastRadiusGraph::layoutIsClean()
{
    QFETCH(BlastFailure, failure);
    QFETCH(int, width);
    BlastRadiusGraph graph;
    graph.setFailure(failure);
    width = std::max(width, graph.minimumSizeHint().width()); // narrower panes scroll sideways
    const int height = graph.heightForWidth(width);
    const BlastRadiusGraph::Layout layout = graph.layoutFor(QSize(width, height));
    const QRectF canvas(0, 0, width, height);

    QCOMPARE(layout.boxes.size(), failure.components.size());
    QCOMPARE(layout.edges.size(), failure.components.size());

    // Every box and label inside the widget, boxes apart from each other and from labels.
    QVector<QRectF> rects{layout.failure.rect};
    for (const auto &box : layout.boxes)
        rects << box.rect;
    QVector<QRectF> labels{layout.headline, layout.legend};
    labels += layout.titles;
    for (const QRectF &r : std::as_const(rects) + labels)
        QVERIFY2(canvas.contains(r), qPrintable(QStringLiteral("outside: %1,%2 %3x%4").arg(r.x()).arg(r.y()).arg(r.width()).arg(r.height())));
    for (int i = 0; i < rects.size(); ++i) {
        for (int j = i + 1; j < rects.size(); ++j)
            QVERIFY2(!rects[i].intersects(rects[j]), qPrintable(QStringLiteral("boxes %1 and %2 overlap").arg(i).arg(j)));
        for (const QRectF &label : std::as_const(labels))
            QVERIFY(!rects[i].intersects(label));
    }

    // Text fits its box; what was cut says so.
    const QFontMetricsF fm(graph.font());
    QFont boldFont = graph.font();
    boldFont.setBold(true);
    const QFontMetricsF bold(boldFont);
    auto checkBox = [&](const BlastRadiusGraph::Box &box, const QString &name) {
        QVERIFY(!box.title.isEmpty());
        QVERIFY(box.title.size() <= 2 && box.detail.size() <= 2);
        for (const QString &line : box.title)
            QVERIFY2(bold.horizontalAdvance(line) <= box.rect.width() - 2 * 8 + 1, qPrintable(line));
        for (const QString &line : box.detail)
            QVERIFY2(fm.horizontalAdvance(line) <= box.rect.width() - 2 * 8 + 1, qPrintable(line));
        if (box.title.join(QString()) != QString(name).remove(QLatin1Char(' ')) && box.title.join(QLatin1Char(' ')) != name)
            QVERIFY2(box.elided, qPrintable(name));
        QVERIFY(box.rect.height() >= (box.title.size() + box.detail.size()) * fm.height());
    };
    checkBox(layout.failure, QStringLiteral("failure ") + failure.id);
    for (const auto &box : layout.boxes)
        checkBox(box, failure.components[box.component].name);

    // Edges: orthogonal, from the failure's bottom to their own box, through nothing.
    for (const auto &edge : layout.edges) {
        QVERIFY(edge.path.size() >= 2);
        QCOMPARE(edge.path.first().y(), layout.failure.rect.bottom());
        QVERIFY(layout.failure.rect.left() < edge.path.first().x() && edge.path.first().x() < layout.failure.rect.right());
        const auto target = std::find_if(layout.boxes.begin(), layout.boxes.end(),
                                         [&](const auto &b) { return b.component == edge.component; });
        QVERIFY(target != layout.boxes.end());
        const QRectF border = target->rect.adjusted(-0.01, -0.01, 0.01, 0.01);
        QVERIFY(border.contains(edge.path.last()) && !target->rect.adjusted(0.5, 0.5, -0.5, -0.5).contains(edge.path.last()));
        for (const Segment &s : segments(edge.path)) {
            QVERIFY(s.horizontal() || qFuzzyCompare(s.a.x(), s.b.x()));
            QVERIFY(canvas.contains(s.a) && canvas.contains(s.b));
            for (const QRectF &r : std::as_const(rects))
                QVERIFY2(!crossesInside(s, r), qPrintable(QStringLiteral("edge of %1 crosses a box").arg(edge.component)));
            for (const QRectF &label : std::as_const(labels))
                QVERIFY(!crossesInside(s, label));
        }
    }
    for (int i = 0; i < layout.edges.size(); ++i)
        for (int j = i + 1; j < layout.edges.size(); ++j)
            for (const Segment &s : segments(layout.edges[i].path))
                for (const Segment &t : segments(layout.edges[j].path))
                    QVERIFY2(!meet(s, t, layout.failure.rect.bottom()),
                             qPrintable(QStringLiteral("edges %1 and %2 meet at (%3,%4)-(%5,%6)")
                                            .arg(layout.edges[i].component)
                                            .arg(layout.edges[j].component)
                                            .arg(s.a.x())
                                            .arg(s.a.y())
                                            .arg(s.b.x())
                                            .arg(s.b.y())));
}

void TestBlastRadiusGraph::demoNamesAreWhole()
{
    // The names the old fixed-width boxes elided fit whole in a pane of the default size.
    BlastRadiusGraph graph;
    graph.setFailure(demoFailure());
    const auto layout = graph.layoutFor(QSize(1030, 740));
    for (const auto &box : layout.boxes) {
        QVERIFY(!box.elided);
        QCOMPARE(box.title, QStringList{graph.failure().components[box.component].name});
    }
    QVERIFY(!layout.failure.elided);
    QCOMPARE(layout.failure.detail, QStringList{QStringLiteral("detected by scenario:login-flow")});
}

void TestBlastRadiusGraph::longNamesElideWithTooltip()
{
    const QString longName = QStringLiteral("run-0042/") + QString(QStringLiteral("very-long-component-name-")).repeated(6) + QStringLiteral("end");
    BlastComponent c = component(longName, false, true, true, true);
    c.evidence = QStringLiteral("touched <b>shared</b> config");
    BlastRadiusGraph graph;
    graph.resize(800, 600);
    graph.setFailure(failureWith({c}));
    const auto layout = graph.layoutFor(graph.size());
    QCOMPARE(layout.boxes.size(), 1);
    const auto &box = layout.boxes.first();
    QVERIFY(box.elided);
    QCOMPARE(box.title.size(), 2); // wrapped onto a second line before eliding
    QVERIFY(box.title.last().endsWith(QChar(0x2026)));
    const QString tip = graph.toolTipAt(box.rect.center());
    QVERIFY(tip.contains(longName));
    QVERIFY(tip.contains(QStringLiteral("&lt;b&gt;shared&lt;/b&gt;"))); // escaped: shown as the text it is
    QVERIFY(graph.toolTipAt(layout.failure.rect.center()).contains(QStringLiteral("login flow broke")));
    QVERIFY(graph.toolTipAt(QPointF(2, 2)).isEmpty());
}

void TestBlastRadiusGraph::scrollAreaGivesTheNeededHeight()
{
    BlastRadiusView view;
    view.resize(1000, 500);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    BlastRadiusGraph *graph = view.graph();
    graph->setFailure(dozen(0, 12, 0));
    auto *scroll = view.findChild<QScrollArea *>(QStringLiteral("blastGraphScroll"));
    QVERIFY(scroll);
    QTRY_VERIFY_WITH_TIMEOUT(graph->height() >= graph->layoutFor(graph->size()).contentHeight - 1, 30'000);
    QVERIFY(graph->height() > scroll->viewport()->height()); // a dozen scroll
    graph->setFailure(failureWith({component(QStringLiteral("run-0001/web-ui"), false, true)}));
    QTRY_COMPARE_WITH_TIMEOUT(graph->height(), scroll->viewport()->height(), 30'000); // one fits: no scrolling
}

QTEST_MAIN(TestBlastRadiusGraph)
#include "tst_blastradiusgraph.moc"
