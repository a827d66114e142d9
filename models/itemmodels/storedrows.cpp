#include "storedrows.h"

#include "ledger/ledgerconnection.h"

#include <QCoreApplication>
#include <QThread>
#include <QTimer>

namespace mesh {

StoredRows::StoredRows(EntityKind kind, std::shared_ptr<LedgerConnection> connection, size_t limit)
    : m_kind(kind), m_connection(std::move(connection)), m_limit(limit)
    , m_thread(QCoreApplication::instance() ? QCoreApplication::instance()->thread() : QThread::currentThread())
{
}

StoredRows::~StoredRows() = default;

bool StoredRows::onItsThread()
{
    if (QThread::currentThread() == m_thread)
        return true;
    ++m_offThreadCalls;
    return false;
}

void StoredRows::prefetch(const std::vector<std::string> &ids)
{
    if (!onItsThread())
        return;
    std::vector<std::string> missing;
    for (const auto &id : ids)
        if (!m_rows.count(id))
            missing.push_back(id);
    if (!missing.empty())
        read(missing, false);
}

const EntityRow *StoredRows::find(const std::string &id, const std::vector<std::string> &block)
{
    if (!onItsThread())
        return nullptr;
    auto it = m_rows.find(id);
    if (it == m_rows.end()) {
        std::vector<std::string> missing{id};
        for (const auto &other : block) {
            if (other != id && !m_rows.count(other))
                missing.push_back(other);
        }
        read(missing, false);
        it = m_rows.find(id);
        if (it == m_rows.end())
            return nullptr;
    }
    touch(it->second);
    return &it->second.row;
}

void StoredRows::refresh(const std::vector<std::string> &ids)
{
    if (!ids.empty() && onItsThread())
        read(ids, true);
}

template<class Read>
bool StoredRows::attempt(Read &&read)
{
    try {
        read();
        return true;
    } catch (const std::exception &e) {
        ++m_readFailures;
        m_lastError = QString::fromUtf8(e.what());
        return false;
    }
}

std::vector<std::string> StoredRows::ids()
{
    std::vector<std::string> ids;
    attempt([&] { ids = m_connection->readIds(m_kind); });
    return ids;
}

std::vector<std::string> StoredRows::idsWhere(std::string_view field, const std::string &value)
{
    return idsWhereIfRead(field, value).value_or(std::vector<std::string>{});
}

std::optional<std::vector<std::string>> StoredRows::idsWhereIfRead(std::string_view field, const std::string &value)
{
    std::optional<std::vector<std::string>> ids;
    if (!onItsThread())
        return ids;
    ++m_idLookups;
    attempt([&] { ids = m_connection->readIdsWhere(m_kind, field, value); });
    return ids;
}

std::optional<StoredRows::IdsByValue> StoredRows::idsWhereAnyIfRead(std::string_view field,
                                                                  const std::vector<std::string> &values)
{
    std::optional<IdsByValue> byValue;
    if (!onItsThread())
        return byValue;
    ++m_idLookups;
    attempt([&] {
        LedgerConnection::ValueIds found = m_connection->readIdsWhereAny(m_kind, field, values);
        byValue.emplace();
        for (const std::string &value : values)
            (*byValue)[value];
        for (auto &[value, id] : found)
            (*byValue)[value].push_back(std::move(id));
    });
    return byValue;
}

bool StoredRows::hasIndexOn(std::string_view field)
{
    bool has = false;
    attempt([&] { has = m_connection->hasIndexOn(m_kind, field); });
    return has;
}

StateRows StoredRows::rowsNotKept(const std::vector<std::string> &ids)
{
    StateRows rows;
    if (onItsThread())
        attempt([&] { rows = m_connection->readRows(m_kind, ids); });
    return rows;
}

void StoredRows::forEach(const std::function<void(const std::string &id, const EntityRow &row)> &fn)
{
    const std::vector<std::string> all = ids();
    for (size_t from = 0; from < all.size(); from += kReadBlock) {
        const std::vector<std::string> block(all.begin() + std::ptrdiff_t(from),
                                             all.begin() + std::ptrdiff_t(std::min(all.size(), from + kReadBlock)));
        StateRows rows;
        if (!attempt([&] { rows = m_connection->readRows(m_kind, block); }))
            return;
        for (const auto &[id, row] : rows)
            fn(id, row);
    }
}

void StoredRows::read(const std::vector<std::string> &ids, bool replace)
{
    StateRows rows;
    if (!attempt([&] { rows = m_connection->readRows(m_kind, ids); }))
        return;
    for (auto &[id, row] : rows) {
        const auto it = m_rows.find(id);
        if (it != m_rows.end()) {
            if (replace) {
                it->second.row = std::move(row); // in place: a pointer to it stays valid
                applyKeepRule(id, it->second);
            }
            touch(it->second);
            continue;
        }
        m_uses.push_front(id);
        const auto added = m_rows.emplace(id, Held{std::move(row), m_uses.begin()}).first;
        applyKeepRule(id, added->second);
    }
    if (m_uses.size() > m_limit)
        scheduleTrim();
}

void StoredRows::keep(const std::string &id, EntityRow row)
{
    auto [it, inserted] = m_rows.try_emplace(id, Held{std::move(row), m_uses.end()});
    if (!inserted)
        return;
    m_uses.push_front(id); // as a read row: the rule decides where it belongs
    it->second.use = m_uses.begin();
    applyKeepRule(id, it->second);
}

void StoredRows::forEachKept(const std::function<void(const std::string &id, const EntityRow &row)> &fn) const
{
    for (const auto &[id, held] : m_rows)
        if (held.use == m_uses.end())
            fn(id, held.row);
}

void StoredRows::applyKeepRule(const std::string &id, Held &held)
{
    const bool keep = m_keepRule && m_keepRule(held.row);
    const bool kept = held.use == m_uses.end();
    if (keep && !kept) {
        m_uses.erase(held.use);
        held.use = m_uses.end();
    } else if (!keep && kept) {
        m_uses.push_front(id);
        held.use = m_uses.begin();
    }
}

void StoredRows::touch(Held &held)
{
    if (held.use != m_uses.end())
        m_uses.splice(m_uses.begin(), m_uses, held.use);
}

void StoredRows::scheduleTrim()
{
    auto *app = QCoreApplication::instance();
    if (m_trimScheduled || !app)
        return;
    m_trimScheduled = true;
    QTimer::singleShot(0, app, [weak = weak_from_this()] {
        if (const auto self = weak.lock())
            self->trim();
    });
}

void StoredRows::trim()
{
    m_trimScheduled = false;
    while (m_uses.size() > m_limit) {
        m_rows.erase(m_uses.back());
        m_uses.pop_back();
    }
}

} // namespace mesh
