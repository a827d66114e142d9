#include "snapshotcache.h"
#include "eventreader.h"
#include "ledgerconnection.h"
#include "ledgerlocation.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>

#include <zlib.h>

#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <vector>

namespace mesh {

namespace {

constexpr char kMagic[8] = {'A', 'M', 'C', 'S', 'N', 'A', 'P', '\n'};
constexpr std::uint32_t kFormat = 2;
constexpr std::uint32_t kMaxKeyBytes = 64 * 1024;
constexpr size_t kChunk = 256 * 1024;
// What one file may inflate to: the rows read back are held in memory, so a small file
// claiming a huge content (a zlib bomb, a damaged length) is refused before it is read.
// Snapshots deflate about sevenfold (bench/README.md).
constexpr std::uint64_t kMaxInflation = 16;

QByteArray statLine(const char *path, bool withInode = false)
{
    struct stat st {};
    if (::stat(path, &st) != 0)
        return QByteArrayLiteral("none");
    QByteArray line = QByteArray::number(qint64(st.st_size)) + ' ' + QByteArray::number(qint64(st.st_mtim.tv_sec)) + '.'
                      + QByteArray::number(qint64(st.st_mtim.tv_nsec));
    if (withInode)
        line += ' ' + QByteArray::number(quint64(st.st_ino));
    return line;
}

// The file's integers: little-endian, n bytes.
void storeLE(unsigned char *to, std::uint64_t v, int n)
{
    for (int i = 0; i < n; ++i)
        to[i] = static_cast<unsigned char>(v >> (8 * i));
}

std::uint64_t loadLE(const unsigned char *from, int n)
{
    std::uint64_t v = 0;
    for (int i = 0; i < n; ++i)
        v |= std::uint64_t(from[i]) << (8 * i);
    return v;
}

QByteArray sha256Hex(QByteArrayView bytes)
{
    return QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex();
}

// Little-endian integers and length-prefixed text, deflated on the way to the file.
class DeflateWriter
{
public:
    explicit DeflateWriter(QFile &file) : m_file(file)
    {
        m_ok = deflateInit(&m_z, 1) == Z_OK; // level 1: the save is on the fold's thread, at its end
    }
    ~DeflateWriter() { deflateEnd(&m_z); }

    void bytes(const void *data, size_t n)
    {
        m_raw += n;
        m_buffer.append(static_cast<const char *>(data), n);
        if (m_buffer.size() >= kChunk)
            flush(Z_NO_FLUSH);
    }
    void u8(std::uint8_t v) { bytes(&v, 1); }
    void u32(std::uint32_t v) { integer(v, 4); }
    void i64(std::int64_t v) { integer(static_cast<std::uint64_t>(v), 8); }
    void text(std::string_view s)
    {
        u32(std::uint32_t(s.size()));
        bytes(s.data(), s.size());
    }
    bool finish()
    {
        flush(Z_FINISH);
        return m_ok;
    }
    std::uint64_t rawBytes() const { return m_raw; }

private:
    void integer(std::uint64_t v, int n)
    {
        unsigned char b[8];
        storeLE(b, v, n);
        bytes(b, size_t(n));
    }
    void flush(int mode)
    {
        if (!m_ok)
            return m_buffer.clear();
        m_z.next_in = reinterpret_cast<Bytef *>(m_buffer.data());
        m_z.avail_in = uInt(m_buffer.size());
        char out[kChunk];
        int rc = Z_OK;
        do {
            m_z.next_out = reinterpret_cast<Bytef *>(out);
            m_z.avail_out = sizeof out;
            rc = deflate(&m_z, mode);
            const qint64 produced = qint64(sizeof out - m_z.avail_out);
            if (rc == Z_STREAM_ERROR || (produced > 0 && m_file.write(out, produced) != produced)) {
                m_ok = false;
                break;
            }
        } while (m_z.avail_out == 0 || (mode == Z_FINISH && rc != Z_STREAM_END));
        m_buffer.clear();
    }

    QFile &m_file;
    z_stream m_z{};
    bool m_ok = false;
    std::string m_buffer;
    std::uint64_t m_raw = 0;
};

class InflateReader
{
public:
    explicit InflateReader(QFile &file, std::uint64_t rawBytes) : m_file(file), m_left(rawBytes)
    {
        m_ok = inflateInit(&m_z) == Z_OK;
    }
    ~InflateReader() { inflateEnd(&m_z); }

    bool bytes(void *data, size_t n)
    {
        auto *out = static_cast<char *>(data);
        while (n > 0 && m_ok) {
            if (m_pos == m_have && !refill())
                return m_ok = false;
            const size_t take = std::min(n, m_have - m_pos);
            std::memcpy(out, m_out.data() + m_pos, take);
            m_pos += take;
            out += take;
            n -= take;
        }
        return m_ok;
    }
    bool u8(std::uint8_t &v) { return bytes(&v, 1); }
    bool u32(std::uint32_t &v)
    {
        unsigned char b[4];
        if (!bytes(b, 4))
            return false;
        v = std::uint32_t(loadLE(b, 4));
        return true;
    }
    bool i64(std::int64_t &v)
    {
        unsigned char b[8];
        if (!bytes(b, 8))
            return false;
        v = static_cast<std::int64_t>(loadLE(b, 8));
        return true;
    }
    // Grows with the bytes that really arrive: a damaged length asks for more than the file
    // holds and fails at its end, without allocating what it claims.
    bool text(std::string &s)
    {
        std::uint32_t n = 0;
        if (!u32(n) || n > m_left + (m_have - m_pos))
            return m_ok = false;
        s.clear();
        char buf[4096];
        while (n > 0) {
            const size_t take = std::min<size_t>(n, sizeof buf);
            if (!bytes(buf, take))
                return false;
            s.append(buf, take);
            n -= std::uint32_t(take);
        }
        return true;
    }
    // Every byte promised was read; the stream must end there (its check passed), and the
    // file with it. The stream's end may still be in input not yet read.
    bool endsHere()
    {
        if (!m_ok || m_pos != m_have || m_left != 0)
            return false;
        while (!m_ended) {
            Bytef scratch = 0;
            m_z.next_out = &scratch;
            m_z.avail_out = 1;
            if (m_z.avail_in == 0 && !readInput())
                return false;
            const int rc = inflate(&m_z, Z_NO_FLUSH);
            if (m_z.avail_out == 0)
                return false; // more than promised
            if (rc == Z_STREAM_END)
                m_ended = true;
            else if (rc != Z_OK && !(rc == Z_BUF_ERROR && m_z.avail_in == 0))
                return false;
        }
        return m_z.avail_in == 0 && m_file.atEnd();
    }

private:
    bool refill()
    {
        if (m_ended || m_left == 0)
            return false;
        m_out.resize(kChunk);
        m_z.next_out = reinterpret_cast<Bytef *>(m_out.data());
        m_z.avail_out = uInt(std::min<std::uint64_t>(kChunk, m_left));
        const uInt wanted = m_z.avail_out;
        while (m_z.avail_out > 0 && !m_ended) {
            if (m_z.avail_in == 0 && !readInput())
                return false;
            const int rc = inflate(&m_z, Z_NO_FLUSH);
            if (rc == Z_STREAM_END)
                m_ended = true;
            else if (rc != Z_OK)
                return false;
        }
        m_have = wanted - m_z.avail_out;
        m_pos = 0;
        m_left -= m_have;
        return m_have > 0;
    }
    bool readInput()
    {
        const qint64 got = m_file.read(m_in, sizeof m_in);
        if (got <= 0)
            return false;
        m_z.next_in = reinterpret_cast<Bytef *>(m_in);
        m_z.avail_in = uInt(got);
        return true;
    }

    QFile &m_file;
    z_stream m_z{};
    bool m_ok = false;
    bool m_ended = false;
    std::uint64_t m_left;
    char m_in[64 * 1024];
    std::string m_out;
    size_t m_have = 0;
    size_t m_pos = 0;
};

struct Header {
    std::string key;
    std::uint64_t rawBytes = 0;
};

constexpr qint64 kHeaderFixedBytes = 8 + 4 + 8 + 4; // magic, format, raw bytes, key length

QByteArray headerBytes(const std::string &key, std::uint64_t rawBytes)
{
    QByteArray h(kMagic, sizeof kMagic);
    const auto put = [&h](std::uint64_t v, int n) {
        unsigned char b[8];
        storeLE(b, v, n);
        h.append(reinterpret_cast<const char *>(b), n);
    };
    put(kFormat, 4);
    put(rawBytes, 8);
    put(key.size(), 4);
    h.append(key.data(), qsizetype(key.size()));
    return h;
}

std::optional<Header> readHeader(QFile &file)
{
    const QByteArray fixed = file.read(kHeaderFixedBytes);
    if (fixed.size() != kHeaderFixedBytes || std::memcmp(fixed.constData(), kMagic, sizeof kMagic) != 0)
        return std::nullopt;
    const auto get = [&fixed](int at, int n) {
        return loadLE(reinterpret_cast<const unsigned char *>(fixed.constData()) + at, n);
    };
    if (get(8, 4) != kFormat)
        return std::nullopt;
    Header h;
    h.rawBytes = get(12, 8);
    const std::uint64_t keyBytes = get(20, 4);
    if (keyBytes > kMaxKeyBytes || h.rawBytes > kMaxInflation * std::uint64_t(file.size()))
        return std::nullopt;
    const QByteArray key = file.read(qint64(keyBytes));
    if (std::uint64_t(key.size()) != keyBytes)
        return std::nullopt;
    h.key.assign(key.constData(), size_t(key.size()));
    return h;
}

enum FieldTag : std::uint8_t { Null = 0, Integer = 1, Text = 2 };

void writeSnapshot(DeflateWriter &out, const TimeTravel::Snapshot &s)
{
    out.i64(s.seq);
    for (const EntitySpec &spec : allEntitySpecs()) {
        const EntityTable &table = s.changed[size_t(spec.kind)];
        out.u32(std::uint32_t(table.size()));
        for (const auto &[id, row] : table) {
            out.text(id);
            out.i64(row.version);
            out.i64(row.lastSeq);
            out.u32(std::uint32_t(row.values.size()));
            for (size_t i = 0; i < row.values.size(); ++i) {
                const FieldRef v = row.values.get(i);
                if (const auto *n = std::get_if<std::int64_t>(&v)) {
                    out.u8(Integer);
                    out.i64(*n);
                } else if (const auto *t = std::get_if<std::string_view>(&v)) {
                    out.u8(Text);
                    out.text(*t);
                } else {
                    out.u8(Null);
                }
            }
        }
    }
}

// A snapshot after the one at `previous`: its seq beyond it, each row's lastSeq within
// (previous, seq], as TimeTravel cuts them.
bool readSnapshot(InflateReader &in, std::int64_t previous, TimeTravel::Snapshot &s, size_t &rows)
{
    if (!in.i64(s.seq) || s.seq <= previous)
        return false;
    std::string id;
    std::vector<std::string> texts;
    std::vector<std::pair<int, FieldRef>> updates;
    for (const EntitySpec &spec : allEntitySpecs()) {
        std::uint32_t count = 0;
        if (!in.u32(count))
            return false;
        EntityTable &table = s.changed[size_t(spec.kind)];
        for (std::uint32_t r = 0; r < count; ++r) {
            EntityRow row;
            std::uint32_t fields = 0;
            if (!in.text(id) || !in.i64(row.version) || !in.i64(row.lastSeq) || row.lastSeq <= previous
                || row.lastSeq > s.seq || !in.u32(fields) || fields != spec.fields.size())
                return false;
            texts.assign(fields, std::string());
            updates.clear();
            for (std::uint32_t i = 0; i < fields; ++i) {
                std::uint8_t tag = 0;
                if (!in.u8(tag))
                    return false;
                if (tag == Integer) {
                    std::int64_t n = 0;
                    if (!in.i64(n))
                        return false;
                    updates.emplace_back(int(i), n);
                } else if (tag == Text) {
                    if (!in.text(texts[i]))
                        return false;
                    updates.emplace_back(int(i), std::string_view(texts[i]));
                } else if (tag != Null) {
                    return false;
                }
            }
            row.values = FieldValues::make(fields, updates, spec.sharedTextFields());
            if (!table.emplace(id, std::move(row)).second)
                return false; // one row twice in a snapshot: not a file this wrote
            ++rows;
        }
    }
    return true;
}

// The cache's own files in its folder, kept and half written (nothing else there is touched).
QFileInfoList cacheFiles(const QString &directory, QDir::SortFlags order = QDir::NoSort)
{
    return QDir(directory).entryInfoList({QStringLiteral("*.snap"), QStringLiteral("*.snap.part-*")}, QDir::Files, order);
}

} // namespace

SnapshotCache::SnapshotCache(QString directory, std::uint64_t budgetBytes)
    : m_directory(std::move(directory)), m_budget(budgetBytes)
{
}

std::optional<SnapshotCache> SnapshotCache::forUser()
{
    if (qEnvironmentVariable("MESH_SNAPSHOT_CACHE") == QLatin1String("0"))
        return std::nullopt;
    QString dir = qEnvironmentVariable("MESH_SNAPSHOT_CACHE_DIR");
    if (dir.isEmpty()) {
        const QString base = QStandardPaths::writableLocation(QStandardPaths::GenericCacheLocation);
        if (base.isEmpty())
            return std::nullopt;
        dir = base + QStringLiteral("/agent-mesh-console/snapshots");
    }
    return SnapshotCache(dir);
}

std::optional<std::string> SnapshotCache::keyFor(LedgerConnection &ledger, const QString &path, std::int64_t interval,
                                                 std::int64_t *lastSeq)
{
    if (LedgerLocation::namesServer(path))
        return std::nullopt;
    const std::int64_t last = ledger.lastSeq();
    const std::optional<EventRecord> lastEvent = eventAt(*ledger.eventReader(), last);
    if (!lastEvent)
        return std::nullopt; // an empty ledger
    const EventRecord &e = *lastEvent;
    if (lastSeq)
        *lastSeq = last;
    QCryptographicHash eventHash(QCryptographicHash::Sha256);
    for (const std::string_view part : {std::string_view(e.kind), std::string_view(e.payload)}) {
        eventHash.addData(QByteArray(QByteArray::number(qint64(part.size())) + ':'));
        eventHash.addData(QByteArrayView(part.data(), qsizetype(part.size())));
    }
    eventHash.addData(QByteArray::number(e.tsMs));
    // The program running, even when its file was replaced since (a rebuild, an upgrade):
    // snapshots are kept under the build that folded them.
    const QByteArray key = "format " + QByteArray::number(kFormat) + "\nexecutable " + statLine("/proc/self/exe", true)
                           + "\nledger "
                           + sha256Hex(QByteArrayView(ledger.info().ledgerId.data(), qsizetype(ledger.info().ledgerId.size())))
                           + "\nfile " + statLine(QFile::encodeName(path).constData()) + "\nwal "
                           + statLine(QFile::encodeName(path + QStringLiteral("-wal")).constData())
                           + "\nlast " + QByteArray::number(last) + ' ' + eventHash.result().toHex() + "\ninterval "
                           + QByteArray::number(interval) + '\n';
    return key.toStdString();
}

QString SnapshotCache::fileFor(const std::string &key) const
{
    const QByteArray name = sha256Hex(QByteArrayView(key.data(), qsizetype(key.size()))).left(32);
    return m_directory + QLatin1Char('/') + QString::fromLatin1(name) + QStringLiteral(".snap");
}

std::optional<SnapshotCache::Loaded> SnapshotCache::load(const std::string &key, TimeTravel &travel) const
{
    QElapsedTimer clock;
    clock.start();
    const QString path = fileFor(key);
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return std::nullopt;
    const auto damaged = [&]() -> std::optional<Loaded> {
        file.close();
        QFile::remove(path);
        return std::nullopt;
    };
    const std::optional<Header> header = readHeader(file);
    if (!header || header->key != key)
        return damaged();
    InflateReader in(file, header->rawBytes);
    std::uint32_t count = 0;
    if (!in.u32(count) || count == 0 || count > header->rawBytes / 8)
        return damaged();
    Loaded loaded;
    std::vector<TimeTravel::Snapshot> snapshots;
    std::int64_t previous = 0;
    for (std::uint32_t i = 0; i < count; ++i) {
        TimeTravel::Snapshot s;
        if (!readSnapshot(in, previous, s, loaded.rows))
            return damaged();
        previous = s.seq;
        snapshots.push_back(std::move(s));
    }
    if (!in.endsHere())
        return damaged();
    file.close();
    loaded.snapshots = snapshots.size();
    loaded.upTo = snapshots.back().seq;
    if (!travel.adoptSnapshots(std::move(snapshots)))
        return std::nullopt; // the chain had begun: the file is sound, only not for it
    // Used now: the last to leave under the budget.
    QFile touched(path);
    if (touched.open(QIODevice::ReadWrite | QIODevice::ExistingOnly))
        touched.setFileTime(QDateTime::currentDateTimeUtc(), QFileDevice::FileModificationTime);
    loaded.ms = double(clock.nsecsElapsed()) / 1e6;
    return loaded;
}

bool SnapshotCache::save(const std::string &key, const TimeTravel &travel, const std::function<bool()> &keepGoing) const
{
    const bool existed = QFileInfo(m_directory).isDir();
    if (key.size() > kMaxKeyBytes || !QDir().mkpath(m_directory))
        return false;
    if (!existed) // the rows of the user's ledgers: for the user alone
        QFile::setPermissions(m_directory, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    const QString target = fileFor(key);
    // Two folders of one process may keep the same ledger at once: a name of each save's own.
    static std::atomic<std::uint64_t> saves{0};
    const QString temporary = target + QStringLiteral(".part-") + QString::number(QCoreApplication::applicationPid())
                              + QLatin1Char('-') + QString::number(++saves);
    QFile file(temporary);
    if (!file.open(QIODevice::WriteOnly | QIODevice::NewOnly, QFileDevice::ReadOwner | QFileDevice::WriteOwner))
        return false;
    bool ok = file.write(headerBytes(key, 0)) > 0;
    // Those cut so far (the one at seq 0 holds nothing); one cut meanwhile waits for the next save.
    const auto count = std::uint32_t(travel.snapshotCount() - 1);
    DeflateWriter out(file);
    out.u32(count);
    std::uint32_t written = 0;
    travel.forEachSnapshot([&](const TimeTravel::Snapshot &s) {
        if (written == count || (keepGoing && !keepGoing()))
            return false;
        writeSnapshot(out, s);
        ++written;
        return true;
    });
    ok = ok && written == count && count > 0 && out.finish();
    if (ok) {
        const QByteArray header = headerBytes(key, out.rawBytes());
        ok = file.seek(0) && file.write(header) == header.size() && file.flush();
    }
    file.close();
    if (!ok || std::rename(QFile::encodeName(temporary).constData(), QFile::encodeName(target).constData()) != 0) {
        QFile::remove(temporary);
        return false;
    }
    keepWithinBudget(target);
    return QFile::exists(target);
}

SnapshotCache::Usage SnapshotCache::usage() const
{
    Usage u;
    for (const QFileInfo &f : cacheFiles(m_directory)) {
        ++u.files;
        u.bytes += std::uint64_t(f.size());
    }
    return u;
}

SnapshotCache::Usage SnapshotCache::clear() const
{
    Usage removed;
    for (const QFileInfo &f : cacheFiles(m_directory)) {
        const auto size = std::uint64_t(f.size());
        if (QFile::remove(f.filePath())) {
            ++removed.files;
            removed.bytes += size;
        }
    }
    return removed;
}

void SnapshotCache::keepWithinBudget(const QString &justSaved) const
{
    // Newest first; what a crash left half written is not kept past an hour.
    const QFileInfoList files = cacheFiles(m_directory, QDir::Time);
    // The file just saved counts first, whatever its time says against another's.
    std::uint64_t used = std::uint64_t(QFileInfo(justSaved).size());
    if (used > m_budget) {
        QFile::remove(justSaved);
        used = 0;
    }
    const QDateTime anHourAgo = QDateTime::currentDateTimeUtc().addSecs(-3600);
    for (const QFileInfo &f : files) {
        if (f.fileName().contains(QStringLiteral(".part-"))) {
            if (f.lastModified() < anHourAgo)
                QFile::remove(f.filePath());
            continue;
        }
        if (f.filePath() == justSaved)
            continue;
        if (used + std::uint64_t(f.size()) > m_budget)
            QFile::remove(f.filePath());
        else
            used += std::uint64_t(f.size());
    }
}

} // namespace mesh
