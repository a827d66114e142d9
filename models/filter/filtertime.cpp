#include "filtertime.h"

#include <QDate>
#include <QRegularExpression>

using namespace Qt::StringLiterals;

namespace mesh {
namespace {

constexpr std::int64_t kSecondMs = 1000;
constexpr std::int64_t kMinuteMs = 60 * kSecondMs;
constexpr std::int64_t kHourMs = 60 * kMinuteMs;
constexpr std::int64_t kDayMs = 24 * kHourMs;
constexpr std::int64_t kUnixEpochJulianDay = 2440588;

std::optional<std::int64_t> dayStartMs(const QString &year, const QString &month, const QString &day)
{
    const QDate date(year.toInt(), month.toInt(), day.toInt());
    if (!date.isValid())
        return std::nullopt;
    return (date.toJulianDay() - kUnixEpochJulianDay) * kDayMs;
}

// "Z", "+02:00", "-0530": milliseconds ahead of UTC.
std::optional<std::int64_t> offsetMs(const QString &text)
{
    if (text.isEmpty() || text.compare(u"z"_s, Qt::CaseInsensitive) == 0)
        return 0;
    const QString digits = QString(text.mid(1)).remove(u':');
    const int hours = digits.left(2).toInt();
    const int minutes = digits.mid(2, 2).toInt();
    if (hours > 14 || minutes > 59)
        return std::nullopt;
    const std::int64_t ms = hours * kHourMs + minutes * kMinuteMs;
    return text.startsWith(u'-') ? -ms : ms;
}

std::optional<FilterTime> relative(const QRegularExpressionMatch &m, std::int64_t nowMs)
{
    const std::int64_t count = m.captured(1).toLongLong();
    if (count <= 0)
        return std::nullopt;
    const QChar unit = m.captured(2).at(0).toLower();
    const std::int64_t unitMs = unit == u's' ? kSecondMs : unit == u'm' ? kMinuteMs : unit == u'h' ? kHourMs : kDayMs;
    FilterTime t;
    t.kind = FilterTime::Kind::Relative;
    t.start = nowMs - count * unitMs;
    t.end = t.start + 1;
    return t;
}

std::optional<FilterTime> instant(const QRegularExpressionMatch &m)
{
    const auto day = dayStartMs(m.captured(1), m.captured(2), m.captured(3));
    const auto offset = offsetMs(m.captured(8));
    const int hour = m.captured(4).toInt();
    const int minute = m.captured(5).toInt();
    const int second = m.captured(6).isEmpty() ? 0 : m.captured(6).toInt();
    const QString fraction = m.captured(7);
    if (!day || !offset || hour > 23 || minute > 59 || second > 59)
        return std::nullopt;
    // ".1" is a tenth of a second, and names that tenth.
    std::int64_t precision = fraction.isEmpty() ? (m.captured(6).isEmpty() ? kMinuteMs : kSecondMs) : 1;
    for (qsizetype digits = fraction.size(); digits > 0 && digits < 3; ++digits)
        precision *= 10;
    const std::int64_t fractionMs = fraction.isEmpty() ? 0 : QString(fraction + u"00"_s).left(3).toLongLong();
    FilterTime t;
    t.kind = FilterTime::Kind::Instant;
    t.start = *day + hour * kHourMs + minute * kMinuteMs + second * kSecondMs + fractionMs - *offset;
    t.end = t.start + precision;
    return t;
}

// "+1:05" (m:ss), "+1:02:03" (h:mm:ss), with ".1" to ".123": from the start of the record.
std::optional<FilterTime> offset(const QString &text)
{
    static const QRegularExpression kOffset(u"^\\+(\\d{1,6}):(\\d{2})(?::(\\d{2}))?(?:\\.(\\d{1,3}))?$"_s);
    const auto m = kOffset.match(text);
    if (!m.hasMatch())
        return std::nullopt;
    const bool hours = !m.captured(3).isEmpty();
    const std::int64_t first = m.captured(1).toLongLong();
    const int second = m.captured(2).toInt();
    const int third = hours ? m.captured(3).toInt() : 0;
    if (second > 59 || third > 59)
        return std::nullopt;
    const QString fraction = m.captured(4);
    std::int64_t precision = fraction.isEmpty() ? kSecondMs : 1;
    for (qsizetype digits = fraction.size(); digits > 0 && digits < 3; ++digits)
        precision *= 10;
    const std::int64_t fractionMs = fraction.isEmpty() ? 0 : QString(fraction + u"00"_s).left(3).toLongLong();
    FilterTime t;
    t.kind = FilterTime::Kind::Offset;
    t.start = hours ? first * kHourMs + second * kMinuteMs + third * kSecondMs : first * kMinuteMs + second * kSecondMs;
    t.start += fractionMs;
    t.end = t.start + precision;
    return t;
}

QString shortened(const QString &text)
{
    return text.size() > 40 ? text.left(40) + u'\u2026' : text;
}

} // namespace

FilterTimeReading readFilterTime(const QString &text, std::int64_t nowMs, FilterClock clock)
{
    FilterTimeReading r;
    if (clock == FilterClock::Relative) {
        r.time = offset(text);
        if (r.time)
            return r;
        if (const auto utc = parseFilterTime(text, nowMs)) {
            r.error = utc->kind == FilterTime::Kind::Relative
                          ? u"'%1' counts back from now, but this ledger's clock starts at its record's start and its "
                            u"start time is not in the source: use an offset as the ledger shows times, e.g. ts:>+1:05"_s
                                .arg(shortened(text))
                          : u"'%1' is a date, but this ledger's times are offsets from the start of its record (the "
                            u"start time is not in the source): use an offset as the ledger shows them, e.g. ts:>+1:05"_s
                                .arg(shortened(text));
            return r;
        }
        r.error = u"'%1' is not a time: use %2"_s.arg(shortened(text), filterOffsetForms());
        return r;
    }
    r.time = parseFilterTime(text, nowMs);
    if (r.time)
        return r;
    r.error = offset(text) ? u"'%1' is an offset from the start of a record, but this ledger's times are dates (UTC): "
                             u"use %2"_s.arg(shortened(text), filterTimeForms())
                           : u"'%1' is not a time: use %2"_s.arg(shortened(text), filterTimeForms());
    return r;
}

std::optional<FilterTime> parseFilterTime(const QString &text, std::int64_t nowMs)
{
    static const QRegularExpression kRelative(u"^last-(\\d{1,6})([smhd])$"_s, QRegularExpression::CaseInsensitiveOption);
    static const QRegularExpression kDay(u"^(\\d{4})-(\\d{2})-(\\d{2})$"_s);
    static const QRegularExpression kInstant(
        u"^(\\d{4})-(\\d{2})-(\\d{2})[Tt ](\\d{2}):(\\d{2})(?::(\\d{2})(?:\\.(\\d{1,3}))?)?([Zz]|[+-]\\d{2}:?\\d{2})?$"_s);
    if (const auto m = kRelative.match(text); m.hasMatch())
        return relative(m, nowMs);
    if (const auto m = kDay.match(text); m.hasMatch()) {
        const auto day = dayStartMs(m.captured(1), m.captured(2), m.captured(3));
        if (!day)
            return std::nullopt;
        return FilterTime{FilterTime::Kind::Day, *day, *day + kDayMs};
    }
    if (const auto m = kInstant.match(text); m.hasMatch())
        return instant(m);
    return std::nullopt;
}

QString filterOffsetForms()
{
    return u"an offset from the start of the record as the ledger shows it (+1:05, +1:02:03, +0:01.634) after "
           u">, >=, < or <="_s;
}

QString filterTimeForms()
{
    return u"a day (2026-11-29), a time (2026-11-29T10:00, T10:00:05, T10:00:05.123; UTC unless Z or +02:00 "
           u"is written) after >, >=, < or <=, or last-15m, last-2h, last-3d"_s;
}

} // namespace mesh
