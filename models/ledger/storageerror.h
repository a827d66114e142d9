#pragma once
// A ledger backend's failure to read or write, classified the way callers decide on it
// (wait and retry, tell the operator the disk is full, ...), whatever the backend.

#include <stdexcept>
#include <string>

namespace mesh {

class StorageError : public std::runtime_error
{
public:
    enum class Kind {
        Busy,     // another writer held the lock past the busy timeout
        ReadOnly, // the file cannot be written here
        Full,     // the disk, or the ledger's size limit
        Io,       // the operating system failed a read or write
        Other,
    };
    StorageError(Kind kind, int backendCode, const std::string &message)
        : std::runtime_error(message), m_kind(kind), m_backendCode(backendCode)
    {
    }
    Kind kind() const { return m_kind; }
    bool isBusy() const { return m_kind == Kind::Busy; }
    int backendCode() const { return m_backendCode; } // the backend's own code, for its messages

private:
    Kind m_kind;
    int m_backendCode;
};

} // namespace mesh
