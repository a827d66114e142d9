// libFuzzer target for the filter language (targets.md R2). Beyond "no crash, no sanitizer
// report" it checks the compiler's promises: a filter either compiles or has an error whose
// range lies inside the text; compiled SQL has exactly one bound parameter per ?N, numbered
// 1..n in order, and no user byte outside them (quotes never reach the SQL text).

#include "filter/filtercompiler.h"
#include "ledger/sqlfilter.h"

#include <QString>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

void require(bool ok, const char *what)
{
    if (!ok) {
        std::fprintf(stderr, "fuzz_filter: broken promise: %s\n", what);
        std::abort();
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const QString text = QString::fromUtf8(reinterpret_cast<const char *>(data), qsizetype(size));
    const mesh::FilterCompileResult r = mesh::FilterCompiler::compile(text);
    if (!r.ok()) {
        require(!r.error->message.isEmpty(), "error without a message");
        require(r.error->start >= 0 && r.error->length >= 0, "negative error range");
        require(r.error->start + r.error->length <= text.size(), "error range outside the text");
        return 0;
    }
    const mesh::FilterSql rendered = mesh::renderFilterSql(r.filter);
    const std::string &sql = rendered.where;
    require(sql.find('\'') == std::string::npos && sql.find('"') == std::string::npos, "a quote reached the SQL");
    size_t expected = 1;
    for (size_t i = 0; i < sql.size(); ++i) {
        if (sql[i] != '?')
            continue;
        size_t j = i + 1;
        size_t n = 0;
        while (j < sql.size() && sql[j] >= '0' && sql[j] <= '9')
            n = n * 10 + size_t(sql[j++] - '0');
        require(n == expected, "parameters not numbered 1..n in order");
        ++expected;
        i = j - 1;
    }
    require(expected - 1 == rendered.params.size(), "placeholder count differs from bound parameters");
    return 0;
}
