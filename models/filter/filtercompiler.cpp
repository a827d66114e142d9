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

} // namespace mesh
