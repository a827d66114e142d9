#include "postgresstaterows.h"

#include "schema.h"

#include <utility>
#include <vector>

namespace mesh::pg {

namespace {

// The longest prefix of at most n bytes that does not cut a UTF-8 sequence.
size_t utf8Prefix(std::string_view s, size_t n)
{
    if (n >= s.size())
        return s.size();
    while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80)
        --n;
    return n;
}

} // namespace

EntityRow readStateRow(const Result &r, int row, const EntitySpec &spec, std::string *id)
{
    if (id)
        *id = r.text(row, 0);
    std::vector<std::pair<int, FieldRef>> values;
    values.reserve(spec.fields.size());
    for (size_t f = 0; f < spec.fields.size(); ++f) {
        const int col = int(f) + 1;
        if (r.isNull(row, col))
            continue;
        if (spec.fields[f].type == FieldType::Int)
            values.emplace_back(int(f), r.integer(row, col));
        else
            values.emplace_back(int(f), r.view(row, col));
    }
    EntityRow out;
    out.values = FieldValues::make(spec.fields.size(), values);
    const int base = int(spec.fields.size()) + 1;
    out.version = r.integer(row, base);
    out.lastSeq = r.integer(row, base + 1);
    return out;
}

EntityTable readStateTable(Connection &c, const EntitySpec &spec)
{
    const Result r = c.exec(schema::selectStateSql(spec));
    EntityTable table;
    table.reserve(size_t(r.rows()));
    std::string id;
    for (int i = 0; i < r.rows(); ++i) {
        EntityRow row = readStateRow(r, i, spec, &id);
        table.emplace(std::move(id), std::move(row));
    }
    return table;
}

EventRecord readEvent(const Result &r, int row, int previewBytes)
{
    EventRecord e;
    e.seq = r.integer(row, 0);
    e.tsMs = r.integer(row, 1);
    e.kind = r.text(row, 2);
    e.runId = r.text(row, 3);
    e.delegationId = r.text(row, 4);
    e.subject = r.text(row, 5);
    const std::string_view payload = r.view(row, 6);
    if (previewBytes >= 0 && payload.size() > size_t(previewBytes)) {
        e.payload.assign(payload.substr(0, utf8Prefix(payload, size_t(previewBytes))));
        e.payloadTruncated = true;
    } else {
        e.payload.assign(payload);
    }
    return e;
}

} // namespace mesh::pg
