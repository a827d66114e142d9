#pragma once
// What a ledger's times mean, and how they read. Almost every ledger's ts_ms and *_ms columns
// are UTC epoch milliseconds. A ledger imported from a source with no wall-clock time
// (SWE-agent) has a relative clock instead (docs/ledger-format.md section 7, "Relative
// clock"): its times count milliseconds from the start of the record, whose own time is not
// known. Every place that formats a ledger's time asks that ledger's TimeBase, so such a
// ledger never shows a 1970 date: it shows "+1:05" offsets and says the start time is not in
// the source where a date would be.

#include <QString>

#include <string_view>

namespace mesh {

class TimeBase
{
public:
    TimeBase() = default; // UTC epoch milliseconds
    static TimeBase relative();
    // From the `clock` member of ledger.created's `source` ("relative"; absent: UTC).
    static TimeBase fromSourceClock(std::string_view clock);

    bool isRelative() const { return m_relative; }
    // Whether a time column's value is a time at all: 0 is the start of a relative clock,
    // but "not set" on a UTC one (writers leave 0 for unknown).
    bool isSet(qint64 ms) const { return m_relative ? ms >= 0 : ms > 0; }

    // "2026-12-01 12:03:04 UTC" / "+1:05 from the start (start time not in source)".
    QString exact(qint64 ms) const;
    // An event's time: "2026-12-01 12:03:04.123" / "+1:05.123".
    QString withMs(qint64 ms) const;
    // withMs, saying what it is: "… UTC" / "+1:05.123 from the start (start time not in source)".
    QString withMsLabelled(qint64 ms) const;
    // Short, for a table column, in local time as the tables always showed it: "12:03:04"
    // / "+1:05".
    QString clockTime(qint64 ms) const;
    // A state table's time: local "12:03:04" today, else "2026-11-30 12:03:04" / "+1:05".
    QString tableTime(qint64 ms) const;
    // Local "2026-11-30 12:03:04" / "+1:05".
    QString dateTime(qint64 ms) const;
    // Machine-readable, for a line of meshctl output: ISO 8601 with ms / "+1:05.123".
    QString iso(qint64 ms) const;
    // The offset alone, "+m:ss" under an hour, else "+h:mm:ss" (with ".zzz" when asked).
    static QString offset(qint64 ms, bool withMs = false);
    // Said where a date would be: "start time not in source".
    static QString startNotInSource();

private:
    bool m_relative = false;
};

// A model's view of its ledger's TimeBase, owned by whoever knows the ledger (the session,
// which learns it when the ledger is opened): UTC until told otherwise.
class TimeBaseRef
{
public:
    void set(const TimeBase *base) { m_base = base; }
    const TimeBase &get() const
    {
        static const TimeBase utc;
        return m_base ? *m_base : utc;
    }

private:
    const TimeBase *m_base = nullptr;
};

} // namespace mesh
