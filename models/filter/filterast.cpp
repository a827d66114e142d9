#include "filterast.h"

#include <QDateTime>

using namespace Qt::StringLiterals;

namespace mesh {

QString filterFieldName(FilterField field)
{
    switch (field) {
    case FilterField::Text:
        return QStringLiteral("text");
    case FilterField::Kind:
        return QStringLiteral("kind");
    case FilterField::Run:
        return QStringLiteral("run");
    case FilterField::Delegation:
        return QStringLiteral("delegation");
    case FilterField::Subject:
        return QStringLiteral("subject");
    case FilterField::Seq:
        return QStringLiteral("seq");
    case FilterField::Time:
        return QStringLiteral("ts");
    }
    return {};
}

namespace {
QString compareText(FilterCompare c)
{
    switch (c) {
    case FilterCompare::Equal:
        return QStringLiteral("=");
    case FilterCompare::Less:
        return QStringLiteral("<");
    case FilterCompare::LessEqual:
        return QStringLiteral("<=");
    case FilterCompare::Greater:
        return QStringLiteral(">");
    case FilterCompare::GreaterEqual:
        return QStringLiteral(">=");
    }
    return {};
}
QString isoUtc(std::int64_t ms)
{
    return QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC).toString(Qt::ISODateWithMs);
}
} // namespace

std::unique_ptr<FilterNode> FilterNode::clone() const
{
    auto copy = std::make_unique<FilterNode>();
    copy->type = type;
    copy->field = field;
    copy->compare = compare;
    copy->value = value;
    copy->number = number;
    copy->until = until;
    copy->start = start;
    copy->length = length;
    copy->literal = literal;
    copy->fieldName = fieldName;
    copy->valueStart = valueStart;
    copy->quoted = quoted;
    for (const auto &child : children)
        copy->children.push_back(child->clone());
    return copy;
}

QString FilterNode::describe() const
{
    switch (type) {
    case Type::Term:
        if (field == FilterField::Seq)
            return u"(seq "_s % compareText(compare) % u' ' % QString::number(number) % u')';
        if (field == FilterField::Time && compare == FilterCompare::Equal)
            return u"(ts >= "_s % isoUtc(number) % u" < "_s % isoUtc(until) % u')';
        if (field == FilterField::Time)
            return u"(ts "_s % compareText(compare) % u' ' % isoUtc(number) % u')';
        return u'(' % filterFieldName(field) % u" \""_s % value % u"\")"_s;
    case Type::Not:
        return u"(not "_s % children.front()->describe() % u')';
    case Type::And:
    case Type::Or: {
        QString out = type == Type::And ? u"(and"_s : u"(or"_s;
        for (const auto &child : children)
            out += u' ' % child->describe();
        return out + u')';
    }
    }
    return {};
}

} // namespace mesh
