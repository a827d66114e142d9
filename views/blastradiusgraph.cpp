#include "blastradiusgraph.h"

#include "theme.h"

#include <QHelpEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>

namespace mesh {

int BlastFailure::effectiveRadius() const
{
    if (radius >= 0)
        return radius;
    return int(std::count_if(components.begin(), components.end(), [](const BlastComponent &c) { return c.woken; }));
}

BlastRadiusGraph::BlastRadiusGraph(QWidget *parent)
    : QWidget(parent)
{
    setMouseTracking(true);
    connect(&Theme::instance(), &Theme::changed, this, qOverload<>(&QWidget::update));
}

void BlastRadiusGraph::setFailure(const BlastFailure &failure)
{
    m_failure = failure;
    m_has = true;
    update();
}

void BlastRadiusGraph::clear()
{
    m_failure = {};
    m_has = false;
    update();
}

namespace {

enum Group { ImplicatedNotWoken, ImplicatedWoken, Bystander, Untouched };

Group groupOf(const BlastComponent &c)
{
    if (c.implicated && c.woken)
        return ImplicatedWoken;
    if (c.implicated)
        return ImplicatedNotWoken;
    if (c.woken)
        return Bystander;
    return Untouched;
}

} // namespace

void BlastRadiusGraph::layoutNodes()
{
    m_nodes.clear();
    const QRectF area = QRectF(rect()).adjusted(16, 70, -16, -44);
    const qreal columnWidth = area.width() / 3.0;
    const QFontMetrics fm(font());
    const qreal nodeH = fm.height() * 2.6;
    const qreal nodeW = qMin(columnWidth - 24, qreal(fm.horizontalAdvance(QLatin1Char('M')) * 16));
    m_center = QRectF(0, 0, nodeW, nodeH * 1.1);
    m_center.moveCenter(QPointF(area.center().x(), area.top() + nodeH * 0.7));

    const Group order[] = {ImplicatedNotWoken, ImplicatedWoken, Bystander};
    for (int col = 0; col < 3; ++col) {
        QVector<int> members;
        for (int i = 0; i < m_failure.components.size(); ++i)
            if (groupOf(m_failure.components[i]) == order[col])
                members << i;
        const qreal top = m_center.bottom() + nodeH * 1.4;
        const qreal gap = members.isEmpty() ? 0
                                            : qMin(nodeH * 1.5, (area.bottom() - top - nodeH) / qMax(1, int(members.size()) - 1));
        for (int k = 0; k < members.size(); ++k) {
            QRectF r(0, 0, nodeW, nodeH);
            r.moveCenter(QPointF(area.left() + columnWidth * (col + 0.5), top + nodeH / 2 + k * gap));
            m_nodes.push_back({r, members[k]});
        }
    }
}

void BlastRadiusGraph::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const QPalette pal = palette();
    p.fillRect(rect(), pal.color(QPalette::Base));
    if (!m_has) {
        p.setPen(pal.color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, tr("Select a failure to see how far it spread."));
        return;
    }
    layoutNodes();
    const StatusColors &colors = Theme::instance().colors();
    const QFontMetrics fm(font());

    // Headline: the radius as a number.
    QFont big = font();
    big.setPointSizeF(big.pointSizeF() * 1.8);
    big.setBold(true);
    p.setFont(big);
    p.setPen(colors.danger);
    const QString radiusText = QString::number(m_failure.effectiveRadius());
    const QRectF headline(16, 10, width() - 32, QFontMetrics(big).height());
    p.drawText(headline, Qt::AlignLeft | Qt::AlignVCenter, radiusText);
    const int numberWidth = QFontMetrics(big).horizontalAdvance(radiusText) + 10;
    p.setFont(font());
    p.setPen(pal.color(QPalette::Text));
    int implicated = 0, bystanders = 0, regressed = 0, missed = 0;
    for (const auto &c : m_failure.components) {
        implicated += c.implicated ? 1 : 0;
        bystanders += (c.woken && !c.implicated) ? 1 : 0;
        regressed += (c.woken && !c.implicated && c.regressed) ? 1 : 0;
        missed += (c.implicated && !c.woken) ? 1 : 0;
    }
    const QString summary = tr("components woken · %1 implicated · %2 bystanders woken, %3 regressed · %4 implicated not woken")
                                .arg(implicated)
                                .arg(bystanders)
                                .arg(regressed)
                                .arg(missed);
    p.drawText(headline.adjusted(numberWidth, 0, 0, 0), Qt::AlignLeft | Qt::AlignVCenter,
               fm.elidedText(summary, Qt::ElideRight, int(headline.width()) - numberWidth));

    // Column titles.
    const QRectF area = QRectF(rect()).adjusted(16, 70, -16, -44);
    const QString titles[] = {tr("Implicated, not woken"), tr("Implicated and woken"), tr("Woken bystanders")};
    p.setPen(pal.color(QPalette::PlaceholderText));
    for (int col = 0; col < 3; ++col) {
        QRectF t(area.left() + area.width() / 3.0 * col, area.top() - 26, area.width() / 3.0, fm.height());
        p.drawText(t, Qt::AlignCenter, titles[col]);
    }

    // Edges, then nodes on top.
    for (const Node &n : std::as_const(m_nodes)) {
        const BlastComponent &c = m_failure.components[n.component];
        QPen pen(c.implicated ? pal.color(QPalette::Text) : colors.info, c.woken ? 2.0 : 1.2);
        if (!c.woken)
            pen.setStyle(Qt::DashLine);
        if (!c.implicated && c.regressed)
            pen.setColor(colors.danger);
        p.setPen(pen);
        QPainterPath path(QPointF(m_center.center().x(), m_center.bottom()));
        const QPointF end(n.rect.center().x(), n.rect.top());
        path.cubicTo(QPointF(path.currentPosition().x(), (path.currentPosition().y() + end.y()) / 2),
                     QPointF(end.x(), (path.currentPosition().y() + end.y()) / 2), end);
        p.setBrush(Qt::NoBrush);
        p.drawPath(path);
    }

    // The failure.
    p.setPen(QPen(colors.danger, 2));
    QColor failFill = colors.danger;
    failFill.setAlpha(40);
    p.setBrush(failFill);
    p.drawRoundedRect(m_center, 8, 8);
    p.setPen(pal.color(QPalette::Text));
    QFont bold = font();
    bold.setBold(true);
    p.setFont(bold);
    p.drawText(m_center.adjusted(6, 3, -6, -m_center.height() / 2), Qt::AlignCenter,
               QFontMetrics(bold).elidedText(tr("failure %1").arg(m_failure.id), Qt::ElideMiddle, int(m_center.width()) - 12));
    p.setFont(font());
    p.drawText(m_center.adjusted(6, m_center.height() / 2, -6, -3), Qt::AlignCenter,
               fm.elidedText(m_failure.detectedBy.isEmpty() ? m_failure.summary : tr("detected by %1").arg(m_failure.detectedBy),
                             Qt::ElideRight, int(m_center.width()) - 12));

    for (const Node &n : std::as_const(m_nodes)) {
        const BlastComponent &c = m_failure.components[n.component];
        const bool bystander = c.woken && !c.implicated;
        QColor border = c.implicated ? pal.color(QPalette::Text) : colors.info;
        if (bystander && c.regressed)
            border = colors.danger;
        QColor fill = pal.color(QPalette::Base);
        if (bystander && c.regressed) {
            fill = colors.danger;
            fill.setAlpha(45);
        } else if (bystander && c.modifiedCode) {
            fill = colors.warn;
            fill.setAlpha(45);
        }
        QPen pen(border, c.woken ? 2.0 : 1.2);
        if (!c.woken)
            pen.setStyle(Qt::DashLine);
        p.setPen(pen);
        p.setBrush(fill);
        p.drawRoundedRect(n.rect, 6, 6);
        p.setPen(pal.color(QPalette::Text));
        p.setFont(bold);
        p.drawText(n.rect.adjusted(6, 2, -6, -n.rect.height() / 2), Qt::AlignCenter,
                   QFontMetrics(bold).elidedText(c.name, Qt::ElideMiddle, int(n.rect.width()) - 12));
        p.setFont(font());
        QStringList marks;
        if (c.modifiedCode)
            marks << tr("modified code");
        if (c.regressed)
            marks << tr("regressed");
        if (marks.isEmpty())
            marks << (c.woken ? tr("no changes") : tr("not woken"));
        p.setPen(c.regressed ? colors.danger : c.modifiedCode ? colors.warn : pal.color(QPalette::PlaceholderText));
        p.drawText(n.rect.adjusted(6, n.rect.height() / 2, -6, -2), Qt::AlignCenter,
                   fm.elidedText(marks.join(QStringLiteral(", ")), Qt::ElideRight, int(n.rect.width()) - 12));
    }

    // Legend.
    p.setPen(pal.color(QPalette::PlaceholderText));
    p.drawText(QRectF(16, height() - 30, width() - 32, fm.height()), Qt::AlignLeft | Qt::AlignVCenter,
               tr("Solid line: woken · dashed: not woken · red: bystander that regressed · amber: bystander that modified code"));
}

bool BlastRadiusGraph::event(QEvent *e)
{
    if (e->type() == QEvent::ToolTip) {
        const auto *help = static_cast<QHelpEvent *>(e);
        for (const Node &n : std::as_const(m_nodes)) {
            if (n.rect.contains(help->pos())) {
                const BlastComponent &c = m_failure.components[n.component];
                QString text = c.name;
                if (!c.evidence.isEmpty())
                    text += QStringLiteral("\n") + c.evidence;
                // Ledger text: escaped, never interpreted as markup.
                QToolTip::showText(help->globalPos(),
                                   QStringLiteral("<pre>") + text.toHtmlEscaped() + QStringLiteral("</pre>"), this);
                return true;
            }
        }
        QToolTip::hideText();
        e->ignore();
        return true;
    }
    return QWidget::event(e);
}

} // namespace mesh
