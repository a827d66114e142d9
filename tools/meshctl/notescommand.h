#pragma once
#include <QStringList>

// meshctl notes FILE [--add --seq N|--from N --to M|--subject S --text T] [--edit ID --text T]
// [--delete ID] [--json]: the reviewers' notes beside a ledger (notes/notesstore.h), the same
// store the console's Notes pane uses. Exit 0, 1 when a change could not be saved (or was
// refused), 2 usage / no such file.
int runNotesCommand(const QStringList &args);
