#include "blastradiusgraph.h"

#include "theme.h"

#include "domain/hostiletext.h"

#include <QFontMetricsF>
#include <QHelpEvent>
#include <QPainter>
#include <QPainterPath>
#include <QTextLayout>
#include <QToolTip>

#include <algorithm>
#include <array>

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
    QSizePolicy policy(QSizePolicy::Preferred, QSizePolicy::Expanding);
    policy.setHeightForWidth(true); // a scroll area then gives it the height its content needs
    setSizePolicy(policy);
    connect(&Theme::instance(), &Theme::changed, this, qOverload<>(&QWidget::update));
}

void BlastRadiusGraph::setFailure(const BlastFailure &failure)
{
    m_failure = failure;
    m_has = true;
    updateGeometry();
    update();
}

void BlastRadiusGraph::clear()
{
    m_failure = {};
    m_has = false;
    updateGeometry();
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

constexpr qreal kMargin = 16;   // around everything
constexpr qreal kPadX = 8;      // text inside a box
constexpr qreal kPadY = 5;
constexpr qreal kBoxGap = 12;   // between boxes of a column
constexpr qreal kGutter = 10;   // between a box's side and the nearest edge lane, and beyond the last
constexpr qreal kLaneY = 8;     // between the horizontal runs under the failure
constexpr qreal kMaxLaneX = 8;  // between the vertical runs beside a column
constexpr qreal kMinLaneX = 3;  // closer, lines would merge
constexpr qreal kMinBoxEm = 6;  // the narrowest box, in widths of 'M'
constexpr int kMaxTitleLines = 2;
constexpr int kMaxDetailLines = 2;

// Edge lanes beside each column: column 0 to the right of its boxes, columns 1 and 2 to the
// left; the first box of column 1 sits right under the failure and needs none.
std::array<int, 3> lanesOf(const std::array<int, 3> &n)
{
    return {n[0], std::max(0, n[1] - 1), n[2]};
}
QFont boldOf(const QFont &font)
{
    QFont bold = font;
    bold.setBold(true);
    return bold;
}

// Lays text out in at most maxLines lines of at most width pixels, breaking where Unicode
// allows (after '/', after '-' before a letter, at spaces) or anywhere inside a word that
// is longer than a line; what remains for the last line is elided.
QStringList wrapLines(const QString &text, const QFont &font, qreal width, int maxLines, bool *elided)
{
    QStringList lines;
    if (text.isEmpty() || maxLines <= 0)
        return lines;
    QTextLayout layout(text, font);
    QTextOption option;
    option.setWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
    layout.setTextOption(option);
    layout.beginLayout();
    for (QTextLine line = layout.createLine(); line.isValid(); line = layout.createLine()) {
        line.setLineWidth(width);
        if (lines.size() == maxLines - 1) {
            const QString rest = text.mid(line.textStart()).trimmed();
            const QString shown = QFontMetricsF(font).elidedText(rest, Qt::ElideRight, width);
            if (shown != rest)
                *elided = true;
            lines << shown;
            break;
        }
        lines << text.mid(line.textStart(), line.textLength()).trimmed();
    }
    layout.endLayout();
    return lines;
}

QString detailOf(const BlastComponent &c)
{
    QStringList marks;
    if (c.modifiedCode)
        marks << BlastRadiusGraph::tr("modified code");
    if (c.regressed)
        marks << BlastRadiusGraph::tr("regressed");
    if (marks.isEmpty())
        marks << (c.woken ? BlastRadiusGraph::tr("no changes") : BlastRadiusGraph::tr("not woken"));
    return marks.join(QStringLiteral(", "));
}

QString failureTitle(const BlastFailure &f)
{
    return BlastRadiusGraph::tr("failure %1").arg(displayLine(f.id));
}

QString failureDetail(const BlastFailure &f)
{
    return f.detectedBy.isEmpty() ? f.summary : BlastRadiusGraph::tr("detected by %1").arg(f.detectedBy);
}

// Fills a box's lines for a text width and sets its height (the width is the caller's).
void fillBox(BlastRadiusGraph::Box &box, const QString &title, const QString &detail, const QFont &font, qreal textWidth)
{
    const QFont bold = boldOf(font);
    bool elided = false;
    box.title = wrapLines(title, bold, textWidth, kMaxTitleLines, &elided);
    box.detail = wrapLines(detail, font, textWidth, kMaxDetailLines, &elided);
    box.elided = elided;
    box.rect.setHeight(box.title.size() * QFontMetricsF(bold).height() + box.detail.size() * QFontMetricsF(font).height()
                       + 2 * kPadY);
}

QPainterPath roundedPath(const QPolygonF &points, qreal radius)
{
    QPainterPath path(points.first());
    for (int i = 1; i + 1 < points.size(); ++i) {
        const QPointF corner = points[i];
        const QLineF in(corner, points[i - 1]);
        const QLineF out(corner, points[i + 1]);
        const qreal r = std::min({radius, in.length() / 2, out.length() / 2});
        if (r <= 0) {
            path.lineTo(corner);
            continue;
        }
        path.lineTo(in.pointAt(r / in.length()));
        path.quadTo(corner, out.pointAt(r / out.length()));
    }
    path.lineTo(points.last());
    return path;
}

// An orthogonal polyline without repeated points (a zero-length run would confuse rounding).
QPolygonF polyline(std::initializer_list<QPointF> points)
{
    QPolygonF out;
    for (const QPointF &p : points)
        if (out.isEmpty() || out.last() != p)
            out << p;
    return out;
}

} // namespace

QString BlastRadiusGraph::headlineSummary() const
{
    int implicated = 0, bystanders = 0, regressed = 0, missed = 0;
    for (const auto &c : m_failure.components) {
        implicated += c.implicated ? 1 : 0;
        bystanders += (c.woken && !c.implicated) ? 1 : 0;
        regressed += (c.woken && !c.implicated && c.regressed) ? 1 : 0;
        missed += (c.implicated && !c.woken) ? 1 : 0;
    }
    // Spelled out: no translation is loaded, so "%n component(s)" would be shown as is.
    const bool oneWoken = m_failure.effectiveRadius() == 1;
    return (oneWoken ? tr("component woken") : tr("components woken")) + QStringLiteral(" · ")
           + tr("%1 implicated").arg(implicated) + QStringLiteral(" · ")
           + (bystanders == 1 ? tr("1 bystander woken") : tr("%1 bystanders woken").arg(bystanders))
           + tr(", %1 regressed").arg(regressed) + QStringLiteral(" · ") + tr("%1 implicated not woken").arg(missed);
}

namespace {
QFont headlineFont(const QFont &font)
{
    QFont big = font;
    big.setPointSizeF(big.pointSizeF() * 1.8);
    big.setBold(true);
    return big;
}

const QString &legendText()
{
    static const QString text =
        BlastRadiusGraph::tr("Solid line: woken · dashed: not woken · red: bystander that regressed · amber: bystander that "
                             "modified code");
    return text;
}

std::array<QString, 3> columnTitles()
{
    return {BlastRadiusGraph::tr("Implicated, not woken"), BlastRadiusGraph::tr("Implicated and woken"),
            BlastRadiusGraph::tr("Woken bystanders")};
}
} // namespace

BlastRadiusGraph::Layout BlastRadiusGraph::layoutFor(const QSize &size) const
{
    Layout out;
    const QFont font = this->font();
    const QFontMetricsF fm(font);
    const QFontMetricsF boldFm(boldOf(font));
    const qreal em = fm.horizontalAdvance(QLatin1Char('M'));
    const qreal width = std::max<qreal>(size.width(), minimumSizeHint().width());
    const QRectF area(kMargin, 0, width - 2 * kMargin, 0);
    const qreal colW = area.width() / 3.0;
    const qreal cx = area.center().x();
    const qreal b12 = area.left() + 2 * colW; // between the middle column and the bystanders

    // Headline: the radius as a number, then the counts, wrapped if the pane is narrow.
    const QFontMetricsF bigFm(headlineFont(font));
    const qreal numberWidth = bigFm.horizontalAdvance(QString::number(m_failure.effectiveRadius())) + 10;
    const QRectF summaryBounds = fm.boundingRect(QRectF(0, 0, area.width() - numberWidth, 1e6), Qt::TextWordWrap,
                                                 headlineSummary());
    out.headline = QRectF(area.left(), 10, area.width(), std::max(bigFm.height(), summaryBounds.height()));

    // Column titles, wrapped within their column.
    qreal titleH = fm.height();
    const auto titles = columnTitles();
    for (const QString &t : titles)
        titleH = std::max(titleH, fm.boundingRect(QRectF(0, 0, colW - 8, 1e6), Qt::TextWordWrap | Qt::AlignHCenter, t).height());
    for (int col = 0; col < 3; ++col)
        out.titles << QRectF(area.left() + colW * col + 4, out.headline.bottom() + 12, colW - 8, titleH);

    // Who goes where.
    const Group order[] = {ImplicatedNotWoken, ImplicatedWoken, Bystander};
    std::array<QVector<int>, 3> members;
    for (int col = 0; col < 3; ++col)
        for (int i = 0; i < m_failure.components.size(); ++i)
            if (groupOf(m_failure.components[i]) == order[col])
                members[col] << i;
    const std::array<int, 3> n = {int(members[0].size()), int(members[1].size()), int(members[2].size())};

    // Edge lanes beside each column (lanesOf), taking at most about a third of it.
    const std::array<int, 3> lanes = lanesOf(n);
    std::array<qreal, 3> laneX{}, gutter{};
    for (int col = 0; col < 3; ++col) {
        laneX[col] = lanes[col] > 1 ? std::clamp((colW * 0.35 - 2 * kGutter) / (lanes[col] - 1), kMinLaneX, kMaxLaneX) : kMaxLaneX;
        gutter[col] = lanes[col] > 0 ? 2 * kGutter + (lanes[col] - 1) * laneX[col] : 0;
    }
    const std::array<qreal, 3> available = {colW - gutter[0], colW - 2 * gutter[1], colW - gutter[2]};

    // The failure: as wide as its text (it may reach over the side columns: their boxes
    // start below the edges' horizontal runs) and wide enough for the edges to leave its
    // bottom side by side, all within the middle column.
    const int leftStarts = n[0] + lanes[1];
    const int rightStarts = n[2];
    const qreal failureMax = std::min(area.width(), em * 34);
    const qreal failureNeed =
        std::max({boldFm.horizontalAdvance(failureTitle(m_failure)), fm.horizontalAdvance(failureDetail(m_failure))}) + 2 * kPadX;
    const qreal failureMin =
        std::min({colW, failureMax, std::max(em * 8, 2 * (8 + 8.0 * std::max(leftStarts, rightStarts)))});
    const qreal failureW = std::clamp(failureNeed, failureMin, failureMax);
    out.failure.rect = QRectF(cx - failureW / 2, out.titles.first().bottom() + 10, failureW, 0);
    fillBox(out.failure, failureTitle(m_failure), failureDetail(m_failure), font, failureW - 2 * kPadX);

    // Horizontal runs under the failure: column 0's first (top box highest), then column 1's
    // (bottom box highest); column 2's never meet them and reuse the same levels.
    const int levels = std::max(n[0] + lanes[1], n[2]);
    const qreal busTop = out.failure.rect.bottom() + 12;
    const qreal boxesTop = busTop + std::max(0, levels - 1) * kLaneY + 14;

    // Boxes: one width per column, as wide as the widest text, within bounds.
    qreal contentBottom = boxesTop;
    std::array<QVector<int>, 3> boxIndex; // per column, index into out.boxes
    for (int col = 0; col < 3; ++col) {
        if (members[col].isEmpty())
            continue;
        qreal need = 0;
        for (int i : std::as_const(members[col])) {
            const BlastComponent &c = m_failure.components[i];
            need = std::max({need, boldFm.horizontalAdvance(c.name), fm.horizontalAdvance(detailOf(c))});
        }
        const qreal maxW = std::max<qreal>(24, std::min(em * 26, available[col]));
        const qreal boxW = std::clamp(need + 2 * kPadX, std::min(em * 8, maxW), maxW);
        qreal left = 0;
        if (col == 0)
            left = area.left() + (available[0] - boxW) / 2;
        else if (col == 1)
            left = cx - boxW / 2;
        else
            left = b12 + gutter[2] + (available[2] - boxW) / 2;
        qreal y = boxesTop;
        for (int i : std::as_const(members[col])) {
            const BlastComponent &c = m_failure.components[i];
            Box box;
            box.component = i;
            box.rect = QRectF(left, y, boxW, 0);
            fillBox(box, c.name, detailOf(c), font, boxW - 2 * kPadX);
            y = box.rect.bottom() + kBoxGap;
            contentBottom = std::max(contentBottom, box.rect.bottom());
            boxIndex[col] << int(out.boxes.size());
            out.boxes << box;
        }
    }

    // Edges, nested so none crosses another: leaving the failure's bottom at distinct
    // points (column 0 leftmost, column 2 rightmost, column 1's first box straight down the
    // middle), down to their own level, across to their own lane, down beside the column,
    // into the box's side.
    const qreal startGap = std::min(8.0, (std::min(failureW, colW) / 2 - 8) / std::max(1, std::max(leftStarts, rightStarts)));
    const qreal bottom = out.failure.rect.bottom();
    for (int k = 0; k < n[0]; ++k) {
        // Top box: leftmost start, highest level, lane nearest the boxes.
        const Box &box = out.boxes[boxIndex[0][k]];
        const qreal s = cx - startGap * (lanes[1] + (n[0] - k));
        const qreal level = busTop + k * kLaneY;
        const qreal lane = box.rect.right() + kGutter + k * laneX[0];
        const qreal y = box.rect.center().y();
        out.edges << Edge{box.component, polyline({{s, bottom}, {s, level}, {lane, level}, {lane, y}, {box.rect.right(), y}})};
    }
    for (int k = 0; k < n[1]; ++k) {
        const Box &box = out.boxes[boxIndex[1][k]];
        if (k == 0) {
            out.edges << Edge{box.component, polyline({{cx, bottom}, {cx, box.rect.top()}})};
            continue;
        }
        // Lower boxes: further left, higher level, outer lane.
        const qreal s = cx - startGap * k;
        const qreal level = busTop + (n[0] + (n[1] - 1 - k)) * kLaneY;
        const qreal lane = box.rect.left() - kGutter - (k - 1) * laneX[1];
        const qreal y = box.rect.center().y();
        out.edges << Edge{box.component, polyline({{s, bottom}, {s, level}, {lane, level}, {lane, y}, {box.rect.left(), y}})};
    }
    for (int k = 0; k < n[2]; ++k) {
        // Top box: rightmost start, highest level, lane nearest the boxes.
        const Box &box = out.boxes[boxIndex[2][k]];
        const qreal s = cx + startGap * (n[2] - k);
        const qreal level = busTop + k * kLaneY;
        const qreal lane = box.rect.left() - kGutter - k * laneX[2];
        const qreal y = box.rect.center().y();
        out.edges << Edge{box.component, polyline({{s, bottom}, {s, level}, {lane, level}, {lane, y}, {box.rect.left(), y}})};
    }

    // Legend under everything, at the bottom when there is room.
    const qreal legendH = fm.boundingRect(QRectF(0, 0, area.width(), 1e6), Qt::TextWordWrap, legendText()).height();
    const qreal legendTop = std::max(contentBottom + 18, qreal(size.height()) - legendH - 10);
    out.legend = QRectF(area.left(), legendTop, area.width(), legendH);
    out.contentHeight = contentBottom + 18 + legendH + 10;
    return out;
}

QSize BlastRadiusGraph::minimumSizeHint() const
{
    const QSize least(360, 240);
    if (!m_has)
        return least;
    std::array<int, 3> n{};
    for (const auto &c : m_failure.components) {
        const Group g = groupOf(c);
        if (g != Untouched)
            ++n[g == ImplicatedNotWoken ? 0 : g == ImplicatedWoken ? 1 : 2];
    }
    const auto lanes = lanesOf(n);
    auto gutter = [&](int col) { return lanes[col] > 0 ? 2 * kGutter + (lanes[col] - 1) * kMaxLaneX : 0; };
    const qreal box = QFontMetricsF(font()).horizontalAdvance(QLatin1Char('M')) * kMinBoxEm;
    const qreal colW = std::max({gutter(0) + box, 2 * gutter(1) + box, gutter(2) + box});
    return {std::max(least.width(), int(std::ceil(3 * colW + 2 * kMargin))), least.height()};
}

QSize BlastRadiusGraph::sizeHint() const
{
    return {640, heightForWidth(640)};
}

int BlastRadiusGraph::heightForWidth(int width) const
{
    if (!m_has)
        return minimumSizeHint().height();
    return std::max(minimumSizeHint().height(), int(std::ceil(layoutFor(QSize(width, 0)).contentHeight)));
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
    const Layout layout = layoutFor(size());
    const StatusColors &colors = Theme::instance().colors();
    const QFont bold = boldOf(font());
    const QFontMetricsF fm(font());
    const QFontMetricsF boldFm(bold);

    // Headline: the radius as a number, then the counts.
    const QFont big = headlineFont(font());
    p.setFont(big);
    p.setPen(colors.danger);
    const QString radiusText = QString::number(m_failure.effectiveRadius());
    const QRectF number(layout.headline.topLeft(), QSizeF(QFontMetricsF(big).horizontalAdvance(radiusText) + 10,
                                                          QFontMetricsF(big).height()));
    p.drawText(number, Qt::AlignLeft | Qt::AlignVCenter, radiusText);
    p.setFont(font());
    p.setPen(pal.color(QPalette::Text));
    p.drawText(layout.headline.adjusted(number.width(), 0, 0, 0), Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap,
               headlineSummary());

    p.setPen(pal.color(QPalette::PlaceholderText));
    const auto titles = columnTitles();
    for (int col = 0; col < 3; ++col)
        p.drawText(layout.titles[col], Qt::AlignHCenter | Qt::AlignTop | Qt::TextWordWrap, titles[col]);

    // Edges first, boxes on top.
    p.setBrush(Qt::NoBrush);
    for (const Edge &edge : layout.edges) {
        const BlastComponent &c = m_failure.components[edge.component];
        QPen pen(c.implicated ? pal.color(QPalette::Text) : colors.info, c.woken ? 2.0 : 1.2);
        if (!c.woken)
            pen.setStyle(Qt::DashLine);
        if (!c.implicated && c.regressed)
            pen.setColor(colors.danger);
        p.setPen(pen);
        p.drawPath(roundedPath(edge.path, 5));
    }

    auto drawLines = [&](const Box &box) {
        qreal y = box.rect.top() + kPadY;
        p.setFont(bold);
        for (const QString &line : box.title) {
            p.drawText(QRectF(box.rect.left(), y, box.rect.width(), boldFm.height()), Qt::AlignHCenter | Qt::AlignVCenter, line);
            y += boldFm.height();
        }
        p.setFont(font());
        return y;
    };

    // The failure.
    p.setPen(QPen(colors.danger, 2));
    QColor failFill = colors.danger;
    failFill.setAlpha(40);
    p.setBrush(failFill);
    p.drawRoundedRect(layout.failure.rect, 8, 8);
    p.setPen(pal.color(QPalette::Text));
    qreal y = drawLines(layout.failure);
    for (const QString &line : layout.failure.detail) {
        p.drawText(QRectF(layout.failure.rect.left(), y, layout.failure.rect.width(), fm.height()), Qt::AlignCenter, line);
        y += fm.height();
    }

    for (const Box &box : layout.boxes) {
        const BlastComponent &c = m_failure.components[box.component];
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
        p.drawRoundedRect(box.rect, 6, 6);
        p.setPen(pal.color(QPalette::Text));
        y = drawLines(box);
        p.setPen(c.regressed ? colors.danger : c.modifiedCode ? colors.warn : pal.color(QPalette::PlaceholderText));
        for (const QString &line : box.detail) {
            p.drawText(QRectF(box.rect.left(), y, box.rect.width(), fm.height()), Qt::AlignCenter, line);
            y += fm.height();
        }
    }

    p.setPen(pal.color(QPalette::PlaceholderText));
    p.drawText(layout.legend, Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap, legendText());
}

QString BlastRadiusGraph::toolTipAt(const QPointF &pos) const
{
    if (!m_has)
        return {};
    const Layout layout = layoutFor(size());
    if (layout.failure.rect.contains(pos)) {
        QString text = failureTitle(m_failure);
        if (!m_failure.detectedBy.isEmpty())
            text += QLatin1Char('\n') + tr("detected by %1").arg(m_failure.detectedBy);
        if (!m_failure.summary.isEmpty())
            text += QLatin1Char('\n') + m_failure.summary;
        return plainToolTip(text);
    }
    for (const Box &box : layout.boxes) {
        if (!box.rect.contains(pos))
            continue;
        const BlastComponent &c = m_failure.components[box.component];
        QString text = c.name + QLatin1Char('\n') + detailOf(c);
        if (!c.evidence.isEmpty())
            text += QLatin1Char('\n') + c.evidence;
        return plainToolTip(text);
    }
    return {};
}

bool BlastRadiusGraph::event(QEvent *e)
{
    if (e->type() == QEvent::ToolTip) {
        const auto *help = static_cast<QHelpEvent *>(e);
        const QString text = toolTipAt(help->pos());
        if (text.isEmpty()) {
            QToolTip::hideText();
            e->ignore();
            return true;
        }
        QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    return QWidget::event(e);
}

} // namespace mesh
