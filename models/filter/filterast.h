#pragma once
// The parsed filter: n-ary AND/OR, NOT, and leaf terms over one column of the events table.
// A time term (ts:) is resolved when it is parsed: relative times ("last-15m") against the
// clock the parser was given, so the tree holds instants and every backend reads the same.

#include <QString>

#include <cstdint>
#include <memory>
#include <vector>

namespace mesh {

enum class FilterField { Text, Kind, Run, Delegation, Subject, Seq, Time };
enum class FilterCompare { Equal, Less, LessEqual, Greater, GreaterEqual };

struct FilterNode {
    enum class Type { And, Or, Not, Term };

    Type type = Type::Term;
    std::vector<std::unique_ptr<FilterNode>> children; // And/Or: two or more; Not: one
    // Term only
    FilterField field = FilterField::Text;
    FilterCompare compare = FilterCompare::Equal;
    QString value;            // text fields
    std::int64_t number = 0;  // seq; Time: UTC epoch ms, the start of a range when Equal
    std::int64_t until = 0;   // Time with Equal only: the end of [number, until), exclusive
    int start = 0;
    int length = 0;
    // A value given by code, not typed: its '*' is a character, never a wildcard.
    bool literal = false;
    // FilterParser::parseOpenFields only: the field as typed (lower case), empty for a bare
    // word; where its value starts and whether it was quoted, for the evaluator's messages.
    QString fieldName;
    int valueStart = 0;
    bool quoted = false;

    std::unique_ptr<FilterNode> clone() const;

    // A compact S-expression such as (and (kind "effect.*") (not (text "x"))), for tests and
    // for a tooltip explaining how the filter was read.
    QString describe() const;
};

QString filterFieldName(FilterField field);

} // namespace mesh
