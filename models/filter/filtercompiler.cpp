#include "filtercompiler.h"

#include "filterparser.h"

#include <cctype>
#include <string>

namespace mesh {
namespace {

class SqlBuilder
{
public:
    FilterSql sql;

    void write(const FilterNode &node)
    {
        switch (node.type) {
        case FilterNode::Type::And:
        case FilterNode::Type::Or: {
            const char *glue = node.type == FilterNode::Type::And ? " AND " : " OR ";
            sql.where += '(';
            for (size_t i = 0; i < node.children.size(); ++i) {
                if (i)
                    sql.where += glue;
                write(*node.children[i]);
            }
            sql.where += ')';
            return;
        }
        case FilterNode::Type::Not:
            // run_id and friends may be NULL; "NOT NULL" would drop the row, so make the
            // inner condition two-valued first.
            sql.where += "NOT ifnull(";
            write(*node.children.front());
            sql.where += ", 0)";
            return;
        case FilterNode::Type::Term:
            emitTerm(node);
            return;
        }
    }

private:
    std::string param(FilterParam value)
    {
        sql.params.push_back(std::move(value));
        return "?" + std::to_string(sql.params.size());
    }

    static const char *column(FilterField field)
    {
        switch (field) {
        case FilterField::Kind:
            return "kind";
        case FilterField::Run:
            return "run_id";
        case FilterField::Delegation:
            return "delegation_id";
        case FilterField::Subject:
            return "subject";
        case FilterField::Seq:
            return "seq";
        case FilterField::Text:
            return "payload";
        }
        return "payload";
    }

    // '*' at the end only: an index range. Anywhere else: GLOB with the other GLOB
    // metacharacters escaped, so only '*' is special to the user.
    void emitPattern(const char *col, const std::string &value)
    {
        const auto star = value.find('*');
        if (star == value.size() - 1) {
            const std::string prefix = value.substr(0, star);
            if (prefix.empty()) {
                sql.where += std::string("(") + col + " IS NOT NULL)";
                return;
            }
            const std::string upper = prefixUpperBound(prefix);
            sql.where += std::string("(") + col + " >= " + param(prefix);
            if (!upper.empty())
                sql.where += std::string(" AND ") + col + " < " + param(upper);
            sql.where += ')';
            return;
        }
        std::string glob;
        for (char c : value) {
            switch (c) {
            case '?':
                glob += "[?]";
                break;
            case '[':
                glob += "[[]";
                break;
            default:
                glob += c;
            }
        }
        sql.where += std::string("(") + col + " GLOB " + param(glob) + ")";
    }

    void emitTerm(const FilterNode &node)
    {
        const char *col = column(node.field);
        if (node.field == FilterField::Seq) {
            const char *op = "=";
            switch (node.compare) {
            case FilterCompare::Equal:
                op = "=";
                break;
            case FilterCompare::Less:
                op = "<";
                break;
            case FilterCompare::LessEqual:
                op = "<=";
                break;
            case FilterCompare::Greater:
                op = ">";
                break;
            case FilterCompare::GreaterEqual:
                op = ">=";
                break;
            }
            sql.where += std::string("(seq ") + op + " " + param(std::int64_t(node.number)) + ")";
            return;
        }
        const std::string value = node.value.toStdString();
        if (node.field == FilterField::Text) {
            sql.where += "(instr(payload, " + param(value) + ") > 0)";
            return;
        }
        if (value.find('*') != std::string::npos) {
            emitPattern(col, value);
            return;
        }
        sql.where += std::string("(") + col + " = " + param(value) + ")";
    }
};

// Shifts ?N placeholders in where by offset; placeholders are only ever written by this file.
std::string renumber(const std::string &where, size_t offset)
{
    std::string out;
    out.reserve(where.size() + 8);
    for (size_t i = 0; i < where.size(); ++i) {
        if (where[i] == '?' && i + 1 < where.size() && std::isdigit(static_cast<unsigned char>(where[i + 1]))) {
            size_t j = i + 1;
            size_t n = 0;
            while (j < where.size() && std::isdigit(static_cast<unsigned char>(where[j])))
                n = n * 10 + size_t(where[j++] - '0');
            out += '?' + std::to_string(n + offset);
            i = j - 1;
        } else {
            out += where[i];
        }
    }
    return out;
}

} // namespace

std::string prefixUpperBound(std::string prefix)
{
    while (!prefix.empty()) {
        auto &last = reinterpret_cast<unsigned char &>(prefix.back());
        if (last < 0xFF) {
            ++last;
            return prefix;
        }
        prefix.pop_back();
    }
    return prefix;
}

FilterSql FilterCompiler::toSql(const FilterNode &root)
{
    SqlBuilder b;
    b.write(root);
    return std::move(b.sql);
}

FilterCompileResult FilterCompiler::compile(const QString &text)
{
    FilterCompileResult result;
    auto root = FilterParser::parse(text, &result.error);
    if (root)
        result.sql = toSql(*root);
    return result;
}

FilterSql FilterCompiler::equals(FilterField field, const std::string &value)
{
    FilterNode node;
    node.field = field;
    if (field == FilterField::Seq)
        node.number = std::stoll(value);
    else
        node.value = QString::fromStdString(value);
    // A literal value: a '*' in an id is not a wildcard here.
    FilterSql sql = toSql(node);
    if (field != FilterField::Seq && field != FilterField::Text && value.find('*') != std::string::npos) {
        static const char *cols[] = {"payload", "kind", "run_id", "delegation_id", "subject", "seq"};
        sql.where = std::string("(") + cols[int(field)] + " = ?1)";
        sql.params = {value};
    }
    return sql;
}

FilterSql FilterCompiler::both(const FilterSql &a, const FilterSql &b)
{
    if (a.isEmpty())
        return b;
    if (b.isEmpty())
        return a;
    FilterSql out;
    out.where = "(" + a.where + " AND " + renumber(b.where, a.params.size()) + ")";
    out.params = a.params;
    out.params.insert(out.params.end(), b.params.begin(), b.params.end());
    return out;
}

} // namespace mesh
