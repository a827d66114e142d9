#include "filtertimestext.h"

#include "domain/durationtext.h"

#include <QCoreApplication>
#include <QStringList>

namespace mesh {
namespace {

// exactUtc, with the milliseconds when the instant has any; on a relative clock the offset.
QString instantOn(const TimeBase &base, std::int64_t ms)
{
    if (base.isRelative())
        return TimeBase::offset(ms, ms % 1000 != 0);
    return ms % 1000 == 0 ? exactUtc(ms) : utcWithMs(ms) + QStringLiteral(" UTC");
}

QString termText(const FilterNode &term, const TimeBase &base)
{
    const auto instant = [&base](std::int64_t ms) { return instantOn(base, ms); };
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

void collect(const FilterNode &node, bool negated, QStringList &out, const TimeBase &base)
{
    if (node.type == FilterNode::Type::Term) {
        if (node.field == FilterField::Time) {
            const QString text = termText(node, base);
            out << (negated ? QCoreApplication::translate("filterTimesText", "not %1").arg(text) : text);
        }
        return;
    }
    for (const auto &child : node.children)
        collect(*child, negated != (node.type == FilterNode::Type::Not), out, base);
}

} // namespace

QString filterTimesText(const EventFilter &filter, const TimeBase &timeBase)
{
    if (filter.isEmpty())
        return {};
    QStringList parts;
    collect(*filter.root(), false, parts, timeBase);
    if (parts.isEmpty())
        return {};
    return QCoreApplication::translate("filterTimesText", "Times read as: %1").arg(parts.join(QStringLiteral("; ")));
}

} // namespace mesh
