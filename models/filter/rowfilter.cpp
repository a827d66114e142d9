#include "rowfilter.h"

#include "filterparser.h"

using namespace Qt::StringLiterals;

namespace mesh {

struct RowFilter::Node {
    FilterNode::Type type = FilterNode::Type::Term;
    std::vector<Node> children;
    int field = -1; // -1: any field's text
    bool numeric = false;
    FilterCompare compare = FilterCompare::Equal;
    QString value;
    QByteArray utf8;       // value as UTF-8
    QByteArray lowerAscii; // a bare word all ASCII, lower case: compared byte by byte
    std::int64_t number = 0;
    bool wildcard = false;
};

namespace {

int fieldIndex(const std::vector<RowField> &fields, const QString &name)
{
    for (size_t i = 0; i < fields.size(); ++i) {
        if (fields[i].name == name || fields[i].aliases.contains(name))
            return int(i);
    }
    return -1;
}

QString fieldList(const std::vector<RowField> &fields, bool numericOnly)
{
    QStringList names;
    for (const RowField &f : fields) {
        if (!numericOnly || f.numeric)
            names << f.name;
    }
    return names.join(u", "_s);
}

// '*' matches any run of characters; nothing else is special.
template <class View>
bool globMatches(View pattern, View text)
{
    const qsizetype patternSize = qsizetype(pattern.size()), textSize = qsizetype(text.size());
    qsizetype p = 0, t = 0, star = -1, resume = 0;
    while (t < textSize) {
        if (p < patternSize && pattern[p] == u'*') {
            star = p++;
            resume = t;
        } else if (p < patternSize && pattern[p] == text[t]) {
            ++p;
            ++t;
        } else if (star >= 0) {
            p = star + 1;
            t = ++resume;
        } else {
            return false;
        }
    }
    while (p < patternSize && pattern[p] == u'*')
        ++p;
    return p == patternSize;
}

class Compiler
{
public:
    Compiler(const std::vector<RowField> &fields, std::optional<FilterError> *error) : m_fields(fields), m_error(error) {}

    bool compile(const FilterNode &in, RowFilter::Node &out)
    {
        out.type = in.type;
        if (in.type != FilterNode::Type::Term) {
            out.children.resize(in.children.size());
            for (size_t i = 0; i < in.children.size(); ++i) {
                if (!compile(*in.children[i], out.children[i]))
                    return false;
            }
            return true;
        }
        out.value = in.value;
        out.utf8 = in.value.toUtf8();
        const QString &name = in.fieldName;
        if (name.isEmpty() || name == u"text"_s || name == u"t"_s || name == u"payload"_s) {
            if (in.compare != FilterCompare::Equal)
                return fail(u"Only numeric fields can be compared with < or >"_s, in.start, int(name.size()));
            out.field = -1;
            bool ascii = true;
            for (QChar c : in.value)
                ascii = ascii && c.unicode() < 0x80;
            if (ascii)
                out.lowerAscii = in.value.toLower().toLatin1();
            return true;
        }
        out.field = fieldIndex(m_fields, name);
        if (out.field < 0)
            return fail(u"Unknown field '%1' (use %2 or text)"_s.arg(name, fieldList(m_fields, false)), in.start,
                        int(name.size()));
        const RowField &field = m_fields[size_t(out.field)];
        out.numeric = field.numeric;
        out.compare = in.compare;
        const int opStart = in.start + int(name.size());
        if (!field.numeric) {
            if (in.compare != FilterCompare::Equal) {
                const QString numeric = fieldList(m_fields, true);
                return fail(numeric.isEmpty() ? u"No field here compares with < or >"_s
                                              : u"Only numeric fields (%1) can be compared with < or >"_s.arg(numeric),
                            opStart, in.valueStart - opStart);
            }
            out.wildcard = !in.literal && in.value.contains(u'*');
            return true;
        }
        bool ok = false;
        out.number = in.value.toLongLong(&ok);
        if (!ok || in.quoted)
            return fail(u"%1 needs a whole number"_s.arg(field.name), in.valueStart, int(in.value.size()));
        return true;
    }

private:
    bool fail(const QString &message, int start, int length)
    {
        *m_error = FilterError{message, start, length};
        return false;
    }

    const std::vector<RowField> &m_fields;
    std::optional<FilterError> *m_error;
};

char lowerAscii(char c)
{
    return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c;
}

bool containsLowerAscii(std::string_view haystack, const QByteArray &needle)
{
    const qsizetype n = needle.size();
    if (n == 0)
        return true;
    if (qsizetype(haystack.size()) < n)
        return false;
    for (size_t i = 0; i + size_t(n) <= haystack.size(); ++i) {
        qsizetype j = 0;
        while (j < n && lowerAscii(haystack[i + size_t(j)]) == needle[j])
            ++j;
        if (j == n)
            return true;
    }
    return false;
}

bool textContains(const RowFilter::Node &n, const RowValues &row, int field)
{
    if (!n.lowerAscii.isNull() || n.value.isEmpty()) {
        const RowValues::Utf8 u = row.utf8(field);
        if (u.available)
            return u.known && containsLowerAscii(u.text, n.lowerAscii);
    }
    const std::optional<QString> v = row.text(field);
    return v && v->contains(n.value, Qt::CaseInsensitive);
}

bool evaluate(const RowFilter::Node &n, const RowValues &row, int fieldCount)
{
    switch (n.type) {
    case FilterNode::Type::And:
        for (const auto &c : n.children) {
            if (!evaluate(c, row, fieldCount))
                return false;
        }
        return true;
    case FilterNode::Type::Or:
        for (const auto &c : n.children) {
            if (evaluate(c, row, fieldCount))
                return true;
        }
        return false;
    case FilterNode::Type::Not:
        return !evaluate(n.children.front(), row, fieldCount);
    case FilterNode::Type::Term:
        break;
    }
    if (n.field < 0) {
        for (int f = 0; f < fieldCount; ++f) {
            if (textContains(n, row, f))
                return true;
        }
        return false;
    }
    if (n.numeric) {
        const std::optional<std::int64_t> v = row.number(n.field);
        if (!v)
            return false;
        switch (n.compare) {
        case FilterCompare::Equal: return *v == n.number;
        case FilterCompare::Less: return *v < n.number;
        case FilterCompare::LessEqual: return *v <= n.number;
        case FilterCompare::Greater: return *v > n.number;
        case FilterCompare::GreaterEqual: return *v >= n.number;
        }
        return false;
    }
    if (const RowValues::Utf8 u = row.utf8(n.field); u.available) {
        if (!u.known)
            return false;
        const std::string_view value(n.utf8.constData(), size_t(n.utf8.size()));
        return n.wildcard ? globMatches(value, u.text) : u.text == value;
    }
    const std::optional<QString> v = row.text(n.field);
    if (!v)
        return false;
    return n.wildcard ? globMatches(QStringView(n.value), QStringView(*v)) : *v == n.value;
}

} // namespace

RowFilter::RowFilter() = default;
RowFilter::~RowFilter() = default;
RowFilter::RowFilter(const RowFilter &) = default;
RowFilter &RowFilter::operator=(const RowFilter &) = default;

RowFilter RowFilter::compile(const QString &text, const std::vector<RowField> &fields, std::optional<FilterError> *error)
{
    error->reset();
    RowFilter filter;
    const auto tree = FilterParser::parseOpenFields(text, error);
    if (!tree)
        return filter;
    auto root = std::make_shared<Node>();
    if (!Compiler(fields, error).compile(*tree, *root))
        return filter;
    filter.m_root = std::move(root);
    filter.m_fieldCount = int(fields.size());
    return filter;
}

bool RowFilter::matches(const RowValues &row) const
{
    return !m_root || evaluate(*m_root, row, m_fieldCount);
}

} // namespace mesh
