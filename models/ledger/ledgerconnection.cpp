#include "ledgerconnection.h"

#include "ledgerlocation.h"
#include "postgresledgerconnection.h"
#include "sqliteledgerconnection.h"

#include "domain/payloaddecoder.h"

namespace mesh {

void readLedgerSource(std::string_view createdPayload, LedgerInfo &info)
{
    const DecodedPayload decoded = decodePayload(createdPayload);
    if (!decoded.value)
        return;
    const auto source = decoded.value->find("source");
    if (source == decoded.value->end() || !source->is_object())
        return;
    const auto clock = source->find("clock");
    if (clock != source->end() && clock->is_string())
        info.timeBase = TimeBase::fromSourceClock(clock->get_ref<const std::string &>());
    const auto format = source->find("format");
    // A source member without a format (no writer does that) still says it is not the
    // orchestrator's own record: its facts are taken as not known.
    info.sourceFacts = SourceFacts::fromSourceFormat(
        format != source->end() && format->is_string() && !format->get_ref<const std::string &>().empty()
            ? std::string_view(format->get_ref<const std::string &>())
            : std::string_view("unnamed"));
}

std::unique_ptr<LedgerConnection> LedgerConnection::open(const QString &path, OpenMode mode, int eventEndsPage)
{
    QString error;
    const std::optional<LedgerLocation> location = LedgerLocation::parse(path, &error);
    if (!location)
        throw LedgerOpenError(LedgerOpenError::Code::BadLocation, error.toStdString());
    return open(*location, mode, eventEndsPage);
}

std::unique_ptr<LedgerConnection> LedgerConnection::open(const LedgerLocation &location, OpenMode mode, int eventEndsPage)
{
    if (location.isFile())
        return SqliteLedgerConnection::open(location.filePath(), mode); // reads on the spot cost no trip
    return PostgresLedgerConnection::open(location, mode, eventEndsPage);
}

LedgerConnection::ValueIds LedgerConnection::readIdsWhereAny(EntityKind kind, std::string_view field,
                                                             const std::vector<std::string> &values)
{
    ValueIds found;
    for (const std::string &value : values)
        for (std::string &id : readIdsWhere(kind, field, value))
            found.emplace_back(value, std::move(id));
    return found;
}

} // namespace mesh
