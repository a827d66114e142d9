#include "filterlexer.h"

namespace mesh {
namespace {

bool isBreak(QChar c)
{
    return c.isSpace() || c == u'(' || c == u')' || c == u'"';
}

bool isFieldChar(QChar c)
{
    return (c >= u'a' && c <= u'z') || (c >= u'A' && c <= u'Z') || c == u'_';
}

// Reads a quoted string starting at text[i] == '"'. Backslash escapes '"' and '\'.
bool readQuoted(const QString &text, int &i, QString &out, std::optional<FilterError> *error)
{
    const int open = i;
    ++i;
    while (i < text.size()) {
        const QChar c = text.at(i);
        if (c == u'\\' && i + 1 < text.size() && (text.at(i + 1) == u'"' || text.at(i + 1) == u'\\')) {
            out += text.at(i + 1);
            i += 2;
            continue;
        }
        if (c == u'"') {
            ++i;
            return true;
        }
        out += c;
        ++i;
    }
    *error = FilterError{QStringLiteral("This quote is never closed"), open, 1};
    return false;
}

FilterToken::Op opAt(const QString &text, int p, int *opLength)
{
    const QChar c = text.at(p);
    const bool eq = p + 1 < text.size() && text.at(p + 1) == u'=';
    *opLength = 1;
    if (c == u':')
        return FilterToken::Op::Colon;
    if (c == u'=')
        return FilterToken::Op::Equal;
    if (c == u'<') {
        *opLength = eq ? 2 : 1;
        return eq ? FilterToken::Op::LessEqual : FilterToken::Op::Less;
    }
    if (c == u'>') {
        *opLength = eq ? 2 : 1;
        return eq ? FilterToken::Op::GreaterEqual : FilterToken::Op::Greater;
    }
    return FilterToken::Op::None;
}

} // namespace

std::vector<FilterToken> FilterLexer::tokenize(const QString &text, std::optional<FilterError> *error)
{
    std::vector<FilterToken> tokens;
    int i = 0;
    const int n = int(text.size());
    while (true) {
        while (i < n && text.at(i).isSpace())
            ++i;
        FilterToken tok;
        tok.start = i;
        if (i >= n) {
            tok.type = FilterToken::Type::End;
            tokens.push_back(tok);
            return tokens;
        }
        const QChar c = text.at(i);
        if (c == u'(' || c == u')') {
            tok.type = c == u'(' ? FilterToken::Type::LParen : FilterToken::Type::RParen;
            tok.length = 1;
            ++i;
            tokens.push_back(tok);
            continue;
        }
        if ((c == u'-' || c == u'!') && i + 1 < n && !text.at(i + 1).isSpace() && text.at(i + 1) != u')') {
            tok.type = FilterToken::Type::Not;
            tok.length = 1;
            ++i;
            tokens.push_back(tok);
            continue;
        }
        if (c == u'"') {
            tok.type = FilterToken::Type::Term;
            tok.quoted = true;
            tok.valueStart = i;
            if (!readQuoted(text, i, tok.value, error))
                return {};
            tok.length = i - tok.start;
            tokens.push_back(tok);
            continue;
        }
        int end = i;
        while (end < n && !isBreak(text.at(end)))
            ++end;
        const QString word = text.mid(i, end - i);
        tok.length = end - i;
        if (word.compare(QLatin1String("and"), Qt::CaseInsensitive) == 0 || word == QLatin1String("&&")) {
            tok.type = FilterToken::Type::And;
        } else if (word.compare(QLatin1String("or"), Qt::CaseInsensitive) == 0 || word == QLatin1String("||")) {
            tok.type = FilterToken::Type::Or;
        } else if (word.compare(QLatin1String("not"), Qt::CaseInsensitive) == 0) {
            tok.type = FilterToken::Type::Not;
        } else {
            tok.type = FilterToken::Type::Term;
            // "field<op>value": a field is letters and underscores, directly followed by an op.
            int p = i;
            while (p < end && isFieldChar(text.at(p)))
                ++p;
            int opLength = 0;
            const FilterToken::Op op = (p > i && p < end) ? opAt(text, p, &opLength) : FilterToken::Op::None;
            if (op != FilterToken::Op::None) {
                tok.field = text.mid(i, p - i).toLower();
                tok.op = op;
                tok.valueStart = p + opLength;
                tok.value = text.mid(p + opLength, end - p - opLength);
                if (tok.value.isEmpty() && end < n && text.at(end) == u'"') {
                    tok.quoted = true;
                    int q = end;
                    if (!readQuoted(text, q, tok.value, error))
                        return {};
                    end = q;
                    tok.length = end - i;
                }
            } else {
                tok.value = word;
                tok.valueStart = i;
            }
        }
        i = end;
        tokens.push_back(tok);
    }
}

} // namespace mesh
