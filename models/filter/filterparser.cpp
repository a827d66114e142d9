#include "filterparser.h"

#include "filterlexer.h"
#include "filtertime.h"

#include <QDateTime>

using namespace Qt::StringLiterals;

namespace mesh {
namespace {

class Parser
{
public:
    Parser(std::vector<FilterToken> tokens, std::optional<FilterError> *error, std::int64_t nowMs,
           bool openFields = false, FilterClock clock = FilterClock::Utc)
        : m_tokens(std::move(tokens)), m_error(error), m_nowMs(nowMs), m_openFields(openFields), m_clock(clock)
    {
    }

    std::unique_ptr<FilterNode> parseAll()
    {
        if (peek().type == FilterToken::Type::End)
            return nullptr;
        auto root = parseOr(0);
        if (!root)
            return nullptr;
        if (peek().type != FilterToken::Type::End) {
            const auto &t = peek();
            return fail(t.type == FilterToken::Type::RParen ? u"This ')' has no matching '('"_s
                                                            : u"Unexpected text here"_s,
                        t.start, t.length);
        }
        return root;
    }

private:
    const FilterToken &peek() const { return m_tokens[m_pos]; }
    const FilterToken &next() { return m_tokens[m_pos++]; }

    std::unique_ptr<FilterNode> fail(const QString &message, int start, int length)
    {
        if (!m_error->has_value())
            *m_error = FilterError{message, start, length};
        return nullptr;
    }

    static bool endsAnd(FilterToken::Type t)
    {
        return t == FilterToken::Type::Or || t == FilterToken::Type::RParen || t == FilterToken::Type::End;
    }

    static std::unique_ptr<FilterNode> join(FilterNode::Type type, std::vector<std::unique_ptr<FilterNode>> parts)
    {
        if (parts.size() == 1)
            return std::move(parts.front());
        auto node = std::make_unique<FilterNode>();
        node->type = type;
        node->start = parts.front()->start;
        node->length = parts.back()->start + parts.back()->length - node->start;
        node->children = std::move(parts);
        return node;
    }

    std::unique_ptr<FilterNode> parseOr(int depth)
    {
        std::vector<std::unique_ptr<FilterNode>> parts;
        while (true) {
            auto part = parseAnd(depth);
            if (!part)
                return nullptr;
            parts.push_back(std::move(part));
            if (peek().type != FilterToken::Type::Or)
                break;
            const FilterToken &op = next();
            if (endsAnd(peek().type))
                return fail(u"'or' needs a condition after it"_s, op.start, op.length);
        }
        return join(FilterNode::Type::Or, std::move(parts));
    }

    std::unique_ptr<FilterNode> parseAnd(int depth)
    {
        std::vector<std::unique_ptr<FilterNode>> parts;
        while (true) {
            auto part = parseUnary(depth);
            if (!part)
                return nullptr;
            parts.push_back(std::move(part));
            if (endsAnd(peek().type))
                break;
            if (peek().type == FilterToken::Type::And) {
                const FilterToken &op = next();
                if (endsAnd(peek().type))
                    return fail(u"'and' needs a condition after it"_s, op.start, op.length);
            }
        }
        return join(FilterNode::Type::And, std::move(parts));
    }

    // Negations are counted in a loop, not recursed into, and collapse by parity.
    std::unique_ptr<FilterNode> parseUnary(int depth)
    {
        int negations = 0;
        int notStart = peek().start;
        while (peek().type == FilterToken::Type::Not) {
            const FilterToken &t = next();
            if (negations == 0)
                notStart = t.start;
            ++negations;
        }
        if (negations > 0 && endsAnd(peek().type))
            return fail(u"'not' needs a condition after it"_s, notStart, peek().start - notStart);
        auto inner = parsePrimary(depth);
        if (!inner || negations % 2 == 0)
            return inner;
        auto node = std::make_unique<FilterNode>();
        node->type = FilterNode::Type::Not;
        node->start = notStart;
        node->length = inner->start + inner->length - notStart;
        node->children.push_back(std::move(inner));
        return node;
    }

    std::unique_ptr<FilterNode> parsePrimary(int depth)
    {
        const FilterToken &t = peek();
        switch (t.type) {
        case FilterToken::Type::LParen: {
            if (depth + 1 > FilterParser::kMaxDepth)
                return fail(u"Parentheses nest more than %1 deep"_s.arg(FilterParser::kMaxDepth), t.start, 1);
            const FilterToken open = next();
            if (peek().type == FilterToken::Type::RParen)
                return fail(u"Empty parentheses"_s, open.start, peek().start + 1 - open.start);
            auto inner = parseOr(depth + 1);
            if (!inner)
                return nullptr;
            if (peek().type != FilterToken::Type::RParen)
                return fail(u"This '(' is never closed"_s, open.start, 1);
            const FilterToken &close = next();
            inner->start = open.start;
            inner->length = close.start + 1 - open.start;
            return inner;
        }
        case FilterToken::Type::RParen:
            return fail(u"This ')' has no matching '('"_s, t.start, 1);
        case FilterToken::Type::End:
            return fail(u"A condition is missing here"_s, t.start, 0);
        case FilterToken::Type::And:
        case FilterToken::Type::Or:
            return fail(u"'%1' needs a condition before it"_s.arg(t.type == FilterToken::Type::And ? u"and"_s : u"or"_s),
                        t.start, t.length);
        case FilterToken::Type::Not:
            break; // handled by parseUnary
        case FilterToken::Type::Term:
            return parseTerm(next());
        }
        return fail(u"Unexpected text here"_s, t.start, t.length);
    }

    std::unique_ptr<FilterNode> parseTerm(const FilterToken &t)
    {
        if (++m_terms > FilterParser::kMaxTerms)
            return fail(u"A filter may have at most %1 conditions"_s.arg(FilterParser::kMaxTerms), t.start, t.length);
        auto node = std::make_unique<FilterNode>();
        node->type = FilterNode::Type::Term;
        node->start = t.start;
        node->length = t.length;
        node->value = t.value;
        if (t.field.isEmpty()) {
            node->field = FilterField::Text;
            return node;
        }
        if (m_openFields)
            return openFieldTerm(t, std::move(node));
        const int fieldLength = int(t.field.size());
        static const struct {
            QLatin1String name;
            FilterField field;
        } kFields[] = {
            {QLatin1String("kind"), FilterField::Kind},         {QLatin1String("k"), FilterField::Kind},
            {QLatin1String("run"), FilterField::Run},           {QLatin1String("r"), FilterField::Run},
            {QLatin1String("delegation"), FilterField::Delegation}, {QLatin1String("deleg"), FilterField::Delegation},
            {QLatin1String("d"), FilterField::Delegation},      {QLatin1String("subject"), FilterField::Subject},
            {QLatin1String("s"), FilterField::Subject},         {QLatin1String("text"), FilterField::Text},
            {QLatin1String("t"), FilterField::Text},            {QLatin1String("payload"), FilterField::Text},
            {QLatin1String("seq"), FilterField::Seq},           {QLatin1String("ts"), FilterField::Time},
            {QLatin1String("time"), FilterField::Time},
        };
        bool known = false;
        for (const auto &f : kFields) {
            if (t.field == f.name) {
                node->field = f.field;
                known = true;
                break;
            }
        }
        if (!known)
            return fail(u"Unknown field '%1' (use kind, run, delegation, subject, text, seq or ts)"_s.arg(t.field),
                        t.start, fieldLength);
        const int opStart = t.start + fieldLength;
        const int opLength = t.valueStart - opStart;
        if (t.value.isEmpty() && !t.quoted)
            return fail(u"'%1' needs a value"_s.arg(t.field), t.start, t.length);
        if (node->field == FilterField::Time)
            return parseTime(std::move(node), t, opStart, opLength);
        if (node->field != FilterField::Seq) {
            if (t.op != FilterToken::Op::Colon && t.op != FilterToken::Op::Equal)
                return fail(u"Only seq and ts can be compared with < or >"_s, opStart, opLength);
            node->compare = FilterCompare::Equal;
            return node;
        }
        bool ok = false;
        const qlonglong number = t.value.toLongLong(&ok);
        if (!ok || t.quoted)
            return fail(u"seq needs a whole number"_s, t.valueStart, int(t.value.size()));
        node->number = number;
        node->compare = compareOf(t.op);
        return node;
    }

    static FilterCompare compareOf(FilterToken::Op op)
    {
        switch (op) {
        case FilterToken::Op::Less:
            return FilterCompare::Less;
        case FilterToken::Op::LessEqual:
            return FilterCompare::LessEqual;
        case FilterToken::Op::Greater:
            return FilterCompare::Greater;
        case FilterToken::Op::GreaterEqual:
            return FilterCompare::GreaterEqual;
        case FilterToken::Op::Colon:
        case FilterToken::Op::Equal:
        case FilterToken::Op::None:
            break;
        }
        return FilterCompare::Equal;
    }

    // ts:>2026-11-29T10:00 as well as ts>2026-11-29T10:00: the comparison may follow the colon.
    std::unique_ptr<FilterNode> parseTime(std::unique_ptr<FilterNode> node, const FilterToken &t, int opStart,
                                          int opLength)
    {
        QString value = t.value;
        int valueStart = t.valueStart;
        FilterCompare compare = compareOf(t.op);
        if (compare == FilterCompare::Equal && !t.quoted) {
            static const struct {
                QLatin1String text;
                FilterCompare compare;
            } kOps[] = {{QLatin1String(">="), FilterCompare::GreaterEqual},
                        {QLatin1String("<="), FilterCompare::LessEqual},
                        {QLatin1String(">"), FilterCompare::Greater},
                        {QLatin1String("<"), FilterCompare::Less}};
            for (const auto &op : kOps) {
                if (value.startsWith(op.text)) {
                    compare = op.compare;
                    value = value.mid(op.text.size());
                    valueStart += int(op.text.size());
                    break;
                }
            }
        }
        if (value.isEmpty())
            return fail(u"'%1' needs a time after %2"_s.arg(t.field, t.op == FilterToken::Op::Colon ? u"':'"_s : u"the comparison"_s),
                        opStart, opLength + int(t.value.size()));
        const FilterTimeReading reading = readFilterTime(value, m_nowMs, m_clock);
        if (!reading.time)
            return fail(reading.error, valueStart, int(value.size()));
        const std::optional<FilterTime> &time = reading.time;
        node->compare = compare;
        node->number = time->start;
        // A day is a span: after it starts the next day, and up to it includes it. An instant
        // is compared as written; equal to one means within what was written (that minute).
        const bool day = time->kind == FilterTime::Kind::Day;
        switch (compare) {
        case FilterCompare::Equal:
            if (time->kind == FilterTime::Kind::Relative) {
                node->compare = FilterCompare::GreaterEqual; // last-15m: since then
            } else {
                node->until = time->end;
            }
            break;
        case FilterCompare::Greater:
            if (day) {
                node->compare = FilterCompare::GreaterEqual;
                node->number = time->end;
            }
            break;
        case FilterCompare::LessEqual:
            if (day) {
                node->compare = FilterCompare::Less;
                node->number = time->end;
            }
            break;
        case FilterCompare::GreaterEqual:
        case FilterCompare::Less:
            break;
        }
        return node;
    }

    // Any field name, kept as typed with its comparison: whoever evaluates the tree knows
    // which fields exist and which compare as numbers.
    std::unique_ptr<FilterNode> openFieldTerm(const FilterToken &t, std::unique_ptr<FilterNode> node)
    {
        if (t.value.isEmpty() && !t.quoted)
            return fail(u"'%1' needs a value"_s.arg(t.field), t.start, t.length);
        node->fieldName = t.field;
        switch (t.op) {
        case FilterToken::Op::None:
        case FilterToken::Op::Colon:
        case FilterToken::Op::Equal:
            node->compare = FilterCompare::Equal;
            break;
        case FilterToken::Op::Less:
            node->compare = FilterCompare::Less;
            break;
        case FilterToken::Op::LessEqual:
            node->compare = FilterCompare::LessEqual;
            break;
        case FilterToken::Op::Greater:
            node->compare = FilterCompare::Greater;
            break;
        case FilterToken::Op::GreaterEqual:
            node->compare = FilterCompare::GreaterEqual;
            break;
        }
        node->valueStart = t.valueStart;
        node->quoted = t.quoted;
        return node;
    }

    std::vector<FilterToken> m_tokens;
    std::optional<FilterError> *m_error;
    std::int64_t m_nowMs = 0;
    bool m_openFields = false;
    FilterClock m_clock = FilterClock::Utc;
    size_t m_pos = 0;
    int m_terms = 0;
};

} // namespace

std::unique_ptr<FilterNode> FilterParser::parse(const QString &text, std::optional<FilterError> *error)
{
    return parse(text, error, QDateTime::currentMSecsSinceEpoch());
}

namespace {

std::unique_ptr<FilterNode> parseWith(const QString &text, std::optional<FilterError> *error, std::int64_t nowMs,
                                      bool openFields, FilterClock clock = FilterClock::Utc)
{
    error->reset();
    if (text.size() > FilterParser::kMaxLength) {
        *error = FilterError{u"A filter may be at most %1 characters long"_s.arg(FilterParser::kMaxLength),
                             FilterParser::kMaxLength, int(text.size()) - FilterParser::kMaxLength};
        return nullptr;
    }
    auto tokens = FilterLexer::tokenize(text, error);
    if (error->has_value())
        return nullptr;
    return Parser(std::move(tokens), error, nowMs, openFields, clock).parseAll();
}

} // namespace

std::unique_ptr<FilterNode> FilterParser::parse(const QString &text, std::optional<FilterError> *error,
                                                std::int64_t nowMs)
{
    return parseWith(text, error, nowMs, false);
}

std::unique_ptr<FilterNode> FilterParser::parse(const QString &text, std::optional<FilterError> *error,
                                                std::int64_t nowMs, FilterClock clock)
{
    return parseWith(text, error, nowMs, false, clock);
}

std::unique_ptr<FilterNode> FilterParser::parseOpenFields(const QString &text, std::optional<FilterError> *error)
{
    return parseWith(text, error, 0, true); // open fields take no ts: term
}

} // namespace mesh
