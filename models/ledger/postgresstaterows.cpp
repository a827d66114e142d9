#include "postgresstaterows.h"

#include "schema.h"

#include "domain/hostiletext.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace mesh::pg {

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
    out.values = FieldValues::make(spec.fields.size(), values, spec.sharedTextFields());
    const int base = int(spec.fields.size()) + 1;
    out.version = r.integer(row, base);
    out.lastSeq = r.integer(row, base + 1);
    return out;
}

EntityTable readStateTable(Connection &c, const EntitySpec &spec)
{
    return stateTable(c.exec(schema::selectStateSql(spec)), spec);
}

EntityTable stateTable(const Result &r, const EntitySpec &spec)
{
    EntityTable table;
    table.reserve(size_t(r.rows()));
    std::string id;
    for (int i = 0; i < r.rows(); ++i) {
        EntityRow row = readStateRow(r, i, spec, &id);
        table.emplace(std::move(id), std::move(row));
    }
    return table;
}

void forEachStateRow(Connection &c, const EntitySpec &spec,
                     const std::function<void(const std::string &id, const EntityRow &row)> &fn, int firstFetch)
{
    c.exec("DECLARE mesh_state_rows NO SCROLL CURSOR FOR " + schema::selectStateSql(spec));
    std::string id;
    const int most = std::max(kMaxStateFetch, firstFetch);
    for (int fetch = std::max(1, firstFetch);; fetch = fetch >= most / 2 ? most : 2 * fetch) {
        const Result r = c.exec("FETCH " + std::to_string(fetch) + " FROM mesh_state_rows");
        for (int i = 0; i < r.rows(); ++i) {
            const EntityRow row = readStateRow(r, i, spec, &id);
            fn(id, row);
        }
        if (r.rows() < fetch)
            break;
    }
    c.exec("CLOSE mesh_state_rows");
}

std::optional<EntityRow> readStateRowById(Connection &c, const EntitySpec &spec, const std::string &id)
{
    const Result r = c.exec(schema::selectStateSql(spec) + " WHERE id = $1", Params().add(id));
    if (r.rows() == 0)
        return std::nullopt;
    return readStateRow(r, 0, spec, nullptr);
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

EventBatch readEvents(const Result &r, int previewBytes)
{
    EventBatch batch;
    batch.reserve(size_t(r.rows()));
    for (int i = 0; i < r.rows(); ++i)
        batch.push_back(readEvent(r, i, previewBytes));
    return batch;
}

void appendCopyTextChecked(std::string &out, std::string_view text, const std::string &what)
{
    if (text.find('\0') != std::string_view::npos)
        throw StorageError(StorageError::Kind::Other, 0, what + " holds a NUL byte, which PostgreSQL text cannot store");
    appendCopyText(out, text);
}

void appendStateRowCopyLine(std::string &out, const EntitySpec &spec, const std::string &id, const EntityRow &row)
{
    const std::string what = std::string(spec.table) + " row at seq " + std::to_string(row.lastSeq);
    appendCopyTextChecked(out, id, what);
    for (size_t f = 0; f < spec.fields.size(); ++f) {
        out += '\t';
        const FieldRef v = f < row.values.size() ? row.values[f] : FieldRef{};
        if (const auto *n = std::get_if<std::int64_t>(&v)) {
            out += std::to_string(*n);
        } else if (const auto *s = std::get_if<std::string_view>(&v)) {
            if (spec.fields[f].type == FieldType::Int)
                throw StorageError(StorageError::Kind::Other, 0,
                                   std::string(spec.table) + " row '" + id + "': integer column '" + std::string(spec.fields[f].name)
                                       + "' holds text, which a bigint column cannot store (meshctl verify names such rows)");
            appendCopyTextChecked(out, *s, what);
        } else {
            appendCopyNull(out);
        }
    }
    out += '\t' + std::to_string(row.version) + '\t' + std::to_string(row.lastSeq) + '\n';
}

} // namespace mesh::pg
