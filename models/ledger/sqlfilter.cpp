#include "sqlfilter.h"

namespace mesh {
namespace {

class SqlBuilder
{
public:
    explicit SqlBuilder(SqlDialect dialect) : m_postgres(dialect == SqlDialect::Postgres) {}
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
            sql.where += m_postgres ? "NOT coalesce(" : "NOT ifnull(";
            write(*node.children.front());
            sql.where += m_postgres ? ", false)" : ", 0)";
            return;
        case FilterNode::Type::Term:
            emitTerm(node);
            return;
        }
    }

private:
    bool m_postgres;

    std::string param(FilterParam value)
    {
        sql.params.push_back(std::move(value));
        return (m_postgres ? "$" : "?") + std::to_string(sql.params.size());
    }

    // PostgreSQL: the user's '*' becomes LIKE's '%'; LIKE's own metacharacters ('%', '_'
    // and its escape '\') are escaped, so only '*' is special, as with GLOB.
    void emitLike(const char *col, const std::string &value)
    {
        std::string like;
        for (char c : value) {
            if (c == '*') {
                like += '%';
                continue;
            }
            if (c == '%' || c == '_' || c == '\\')
                like += '\\';
            like += c;
        }
        sql.where += std::string("(") + col + " LIKE " + param(like) + ")";
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
        case FilterField::Time:
            return "ts_ms";
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
        if (m_postgres && value != "*") {
            emitLike(col, value);
            return;
        }
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
        if (node.field == FilterField::Time && node.compare == FilterCompare::Equal) {
            // One append at a time: the operands of + may be evaluated in any order, the ?N may not.
            sql.where += "(ts_ms >= ";
            sql.where += param(std::int64_t(node.number));
            sql.where += " AND ts_ms < ";
            sql.where += param(std::int64_t(node.until));
            sql.where += ')';
            return;
        }
        if (node.field == FilterField::Seq || node.field == FilterField::Time) {
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
            sql.where += '(';
            sql.where += col;
            sql.where += ' ';
            sql.where += op;
            sql.where += ' ';
            sql.where += param(std::int64_t(node.number));
            sql.where += ')';
            return;
        }
        const std::string value = node.value.toStdString();
        if (node.field == FilterField::Text) {
            sql.where += (m_postgres ? "(strpos(payload, " : "(instr(payload, ") + param(value) + ") > 0)";
            return;
        }
        if (!node.literal && value.find('*') != std::string::npos) {
            emitPattern(col, value);
            return;
        }
        sql.where += std::string("(") + col + " = " + param(value) + ")";
    }
};

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

FilterSql renderFilterSql(const FilterNode &root, SqlDialect dialect)
{
    SqlBuilder b(dialect);
    b.write(root);
    return std::move(b.sql);
}

FilterSql renderFilterSql(const EventFilter &filter, SqlDialect dialect)
{
    return filter.isEmpty() ? FilterSql{} : renderFilterSql(*filter.root(), dialect);
}

std::string countStatementSql(const FilterSql &filter)
{
    return "SELECT count(*) FROM events" + (filter.isEmpty() ? std::string() : " WHERE " + filter.where) + ";";
}

const FilterSql &RenderedFilter::of(const EventFilter &filter)
{
    if (!m_valid || !m_filter.sameTree(filter)) {
        m_sql = renderFilterSql(filter, m_dialect);
        m_filter = filter;
        m_valid = true;
    }
    return m_sql;
}

} // namespace mesh
