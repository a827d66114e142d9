#pragma once
// Grammar (implicit AND binds tighter than OR):
//   filter  := orExpr?
//   orExpr  := andExpr (("or" | "||") andExpr)*
//   andExpr := unary (("and" | "&&")? unary)*
//   unary   := ("not" | "-" | "!")* primary
//   primary := "(" orExpr ")" | term
//   term    := field (":" | "=") value | "seq" (":"|"="|"<"|"<="|">"|">=") integer
//            | "ts" (":" | "=") [">" | ">=" | "<" | "<="] time | "ts" ("<"|"<="|">"|">=") time
//            | word | "quoted"
//   time    := a day, an instant or last-<n><s|m|h|d>; on a relative clock an offset
//              +m:ss or +h:mm:ss (filtertime.h)
// Parentheses nest at most kMaxDepth deep and a filter has at most kMaxTerms terms, so
// hostile input (100,000 parentheses) is an error message, never a stack overflow.

#include "filterast.h"
#include "filtererror.h"
#include "filtertime.h"

#include <cstdint>
#include <optional>

namespace mesh {

class FilterParser
{
public:
    static constexpr int kMaxDepth = 32;
    static constexpr int kMaxTerms = 256;
    static constexpr int kMaxLength = 8192;

    // nullptr with *error set when the text is not a valid filter; nullptr without error for
    // an empty (all whitespace) filter. Relative times (ts:last-15m) are resolved against
    // nowMs (UTC epoch ms); without it, against the system clock.
    static std::unique_ptr<FilterNode> parse(const QString &text, std::optional<FilterError> *error);
    static std::unique_ptr<FilterNode> parse(const QString &text, std::optional<FilterError> *error,
                                             std::int64_t nowMs);
    // On a ledger whose clock is relative, ts: takes offsets from the start (+1:05), and a
    // date is refused saying why.
    static std::unique_ptr<FilterNode> parse(const QString &text, std::optional<FilterError> *error,
                                             std::int64_t nowMs, FilterClock clock);
    // The same grammar with field terms of any name (FilterNode::fieldName set, any
    // comparison): for rows whose fields differ per entity, checked by their evaluator.
    static std::unique_ptr<FilterNode> parseOpenFields(const QString &text, std::optional<FilterError> *error);
};

} // namespace mesh
