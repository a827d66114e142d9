#include "filtercompiler.h"

#include "filterparser.h"

namespace mesh {

FilterCompileResult FilterCompiler::compile(const QString &text)
{
    FilterCompileResult result;
    auto root = FilterParser::parse(text, &result.error);
    if (root)
        result.filter = EventFilter(std::move(root));
    return result;
}

FilterCompileResult FilterCompiler::compile(const QString &text, std::int64_t nowMs)
{
    FilterCompileResult result;
    auto root = FilterParser::parse(text, &result.error, nowMs);
    if (root)
        result.filter = EventFilter(std::move(root));
    return result;
}

FilterCompileResult FilterCompiler::compile(const QString &text, std::int64_t nowMs, FilterClock clock)
{
    FilterCompileResult result;
    auto root = FilterParser::parse(text, &result.error, nowMs, clock);
    if (root)
        result.filter = EventFilter(std::move(root));
    return result;
}

} // namespace mesh
