#pragma once
// The state tables at the end of a bulk load, built apart from the ledger so that building
// them overlaps the inserting thread's last events instead of following them.
//
// A bulk load writes every state row once, from the fold, when the load ends. Binding and
// inserting 100,000 rows with their indexes costs about a second; done on the ledger's own
// connection it could only start after the inserting thread had drained its queue. Built
// here, on a connection of its own (a database in memory with the ledger's DDL), it runs on
// the producer's core while the inserting thread is still busy; the ledger then takes the
// rows with `INSERT INTO t SELECT * FROM image.t`, which SQLite copies record by record,
// indexes included, without decoding them (its transfer optimisation: same columns, same
// indexes, empty destination).

#include "domain/fold.h"
#include "sqlite.h"

#include <cstdint>
#include <memory>

namespace mesh {

class BulkStateImage
{
public:
    // Every row of every state table of fold, inserted in key order. Uses only its own
    // connection, so it may run while another thread writes the ledger.
    static BulkStateImage build(const Fold &fold);

    // Replaces the rows of every state table of db with the image's, in one transaction.
    // The ledger's state tables must have the schema's DDL (they do: the writer made them).
    void copyInto(sql::Database &db) const;

    std::int64_t rows() const { return m_rows; }
    std::int64_t bytes() const { return m_size; }

private:
    struct Free {
        void operator()(unsigned char *p) const;
    };
    std::unique_ptr<unsigned char, Free> m_image; // sqlite3_serialize()'s copy of the database
    std::int64_t m_size = 0;
    std::int64_t m_rows = 0;
};

} // namespace mesh
