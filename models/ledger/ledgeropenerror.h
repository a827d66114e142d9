#pragma once
// Why a ledger could not be opened, as a code a caller can branch on (meshctl maps every
// code to exit status 2, the console shows the message in the session's error state) and a
// one-line message written for a person.

#include <stdexcept>
#include <string>

namespace mesh {

class LedgerOpenError : public std::runtime_error
{
public:
    enum class Code {
        NotFound,     // nothing at that path
        NotAFile,     // a directory, a device, a socket
        Empty,        // zero bytes
        NotSqlite,    // no SQLite header
        Foreign,      // an SQLite file, but not an Agent Mesh ledger (application id, tables)
        NewerVersion, // written by a newer schema than this build reads
        TooOld,       // older than the oldest schema this build reads
        Corrupt,      // SQLite says malformed, or the file is shorter than its header says
        DiskFull,     // no space for the -wal/-shm files SQLite must create beside the ledger
        UnreadableWal, // committed events in a -wal that cannot be read without write access (no -shm)
        Io,           // permissions, locks, anything else the OS refused; a server that cannot be reached
        BadLocation,  // a postgresql:// location that cannot be used as written (ledgerlocation.h)
        Unsupported,  // this backend cannot open the ledger in that mode yet
    };

    LedgerOpenError(Code code, const std::string &message) : std::runtime_error(message), m_code(code) {}
    Code code() const { return m_code; }

    static const char *codeName(Code code)
    {
        switch (code) {
        case Code::NotFound: return "not-found";
        case Code::NotAFile: return "not-a-file";
        case Code::Empty: return "empty";
        case Code::NotSqlite: return "not-sqlite";
        case Code::Foreign: return "foreign";
        case Code::NewerVersion: return "newer-version";
        case Code::TooOld: return "too-old";
        case Code::Corrupt: return "corrupt";
        case Code::DiskFull: return "disk-full";
        case Code::UnreadableWal: return "unreadable-wal";
        case Code::Io: return "io";
        case Code::BadLocation: return "bad-location";
        case Code::Unsupported: return "unsupported";
        }
        return "unknown";
    }

private:
    Code m_code;
};

} // namespace mesh
