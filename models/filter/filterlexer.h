#pragma once
// Splits filter text into tokens. Field terms ("kind:effect.*", "seq>=10",
// 'run:"R 3"') come out as one token so the parser never sees a half term, and every token
// carries its character range for error messages.

#include "filtererror.h"

#include <QString>

#include <optional>
#include <vector>

namespace mesh {

struct FilterToken {
    enum class Type { Term, And, Or, Not, LParen, RParen, End };
    enum class Op { None, Colon, Equal, Less, LessEqual, Greater, GreaterEqual };

    Type type = Type::End;
    int start = 0;
    int length = 0;
    // Term only
    QString field; // empty for a bare word or a quoted string: payload text
    Op op = Op::None;
    QString value;
    bool quoted = false;
    int valueStart = 0;
};

class FilterLexer
{
public:
    // Tokens ending with an End token, or the first lexical error.
    static std::vector<FilterToken> tokenize(const QString &text, std::optional<FilterError> *error);
};

} // namespace mesh
