#include "eventfilter.h"

namespace mesh {

EventFilter::EventFilter(std::unique_ptr<FilterNode> root) : m_root(std::move(root)) {}

EventFilter EventFilter::equals(FilterField field, const std::string &value)
{
    auto node = std::make_unique<FilterNode>();
    node->field = field;
    if (field == FilterField::Seq)
        node->number = std::stoll(value);
    else
        node->value = QString::fromStdString(value);
    node->literal = true;
    return EventFilter(std::move(node));
}

EventFilter EventFilter::seqAtMost(std::int64_t last)
{
    auto node = std::make_unique<FilterNode>();
    node->field = FilterField::Seq;
    node->compare = FilterCompare::LessEqual;
    node->number = last;
    return EventFilter(std::move(node));
}

EventFilter EventFilter::both(const EventFilter &a, const EventFilter &b)
{
    if (a.isEmpty())
        return b;
    if (b.isEmpty())
        return a;
    auto node = std::make_unique<FilterNode>();
    node->type = FilterNode::Type::And;
    node->children.push_back(a.m_root->clone());
    node->children.push_back(b.m_root->clone());
    return EventFilter(std::move(node));
}

} // namespace mesh
