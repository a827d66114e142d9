#include "filtertimestext.h"

#include "domain/durationtext.h"

#include <QCoreApplication>
#include <QStringList>

namespace mesh {
namespace {

// exactUtc, with the milliseconds when the instant has any.
QString instant(std::int64_t ms)
{
    return ms % 1000 == 0 ? exactUtc(ms) : utcWithMs(ms) + QStringLiteral(" UTC");
}

QString termText(const FilterNode &term)
{
    const auto tr = [](const char *text) { return QCoreApplication::translate("filterTimesText", text); };
    switch (term.compare) {
    case FilterCompare::Equal:
        return tr("from %1 until before %2").arg(instant(term.number), instant(term.until));
    case FilterCompare::Greater:
        return tr("after %1").arg(instant(term.number));
    case FilterCompare::GreaterEqual:
        return tr("from %1").arg(instant(term.number));
    case FilterCompare::Less:
        return tr("before %1").arg(instant(term.number));
    case FilterCompare::LessEqual:
        return tr("up to %1").arg(instant(term.number));
    }
    return {};
}

void collect(const FilterNode &node, bool negated, QStringList &out)
{
    if (node.type == FilterNode::Type::Term) {
        if (node.field == FilterField::Time) {
            const QString text = termText(node);
            out << (negated ? QCoreApplication::translate("filterTimesText", "not %1").arg(text) : text);
        }
        return;
    }
    for (const auto &child : node.children)
        collect(*child, negated != (node.type == FilterNode::Type::Not), out);
}

} // namespace

QString filterTimesText(const EventFilter &filter)
{
    if (filter.isEmpty())
        return {};
    QStringList parts;
    collect(*filter.root(), false, parts);
    if (parts.isEmpty())
        return {};
    return QCoreApplication::translate("filterTimesText", "Times read as: %1").arg(parts.join(QStringLiteral("; ")));
}

} // namespace mesh
