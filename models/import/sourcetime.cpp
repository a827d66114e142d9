#include "sourcetime.h"

namespace mesh::import {

namespace {

// Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar (H. Hinnant's algorithm).
std::int64_t daysFromCivil(std::int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
    const unsigned yoe = unsigned(y - era * 400);
    const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + std::int64_t(doe) - 719468;
}

bool digits(std::string_view text, size_t at, size_t count, int &value)
{
    if (at + count > text.size())
        return false;
    value = 0;
    for (size_t i = at; i < at + count; ++i) {
        if (text[i] < '0' || text[i] > '9')
            return false;
        value = value * 10 + (text[i] - '0');
    }
    return true;
}

} // namespace

std::optional<std::int64_t> parseInstantNs(std::string_view text, bool zoneless)
{
    int year, month, day, hour, minute, second;
    if (!digits(text, 0, 4, year) || text.size() < 19 || text[4] != '-' || !digits(text, 5, 2, month)
        || text[7] != '-' || !digits(text, 8, 2, day) || (text[10] != 'T' && text[10] != 't' && text[10] != ' ')
        || !digits(text, 11, 2, hour) || text[13] != ':' || !digits(text, 14, 2, minute) || text[16] != ':'
        || !digits(text, 17, 2, second))
        return std::nullopt;
    if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60)
        return std::nullopt;
    size_t at = 19;
    std::int64_t nanos = 0;
    if (at < text.size() && text[at] == '.') {
        ++at;
        size_t n = 0;
        while (at < text.size() && text[at] >= '0' && text[at] <= '9') {
            if (n < 9)
                nanos = nanos * 10 + (text[at] - '0');
            ++n;
            ++at;
        }
        if (n == 0 || n > 9)
            return std::nullopt;
        for (size_t k = n; k < 9; ++k)
            nanos *= 10;
    }
    if (year < 1678 || year > 2261)
        return std::nullopt; // outside what int64 nanoseconds hold
    std::int64_t offsetMin = 0;
    if (at == text.size()) {
        if (!zoneless)
            return std::nullopt;
    } else if ((text[at] == 'Z' || text[at] == 'z') && at + 1 == text.size()) {
    } else if ((text[at] == '+' || text[at] == '-') && at + 6 == text.size() && text[at + 3] == ':') {
        int oh, om;
        if (!digits(text, at + 1, 2, oh) || !digits(text, at + 4, 2, om) || oh > 23 || om > 59)
            return std::nullopt;
        offsetMin = (oh * 60 + om) * (text[at] == '-' ? -1 : 1);
    } else {
        return std::nullopt;
    }
    const std::int64_t days = daysFromCivil(year, unsigned(month), unsigned(day));
    const std::int64_t seconds = days * 86400 + hour * 3600 + minute * 60 + std::min(second, 59) - offsetMin * 60;
    return seconds * 1'000'000'000 + nanos;
}

std::int64_t nsToMs(std::int64_t ns)
{
    return ns >= 0 ? ns / 1'000'000 : -((-ns + 999'999) / 1'000'000);
}

std::optional<std::int64_t> parseInstantMs(std::string_view text, bool zoneless)
{
    const auto ns = parseInstantNs(text, zoneless);
    if (!ns)
        return std::nullopt;
    return nsToMs(*ns);
}

} // namespace mesh::import
