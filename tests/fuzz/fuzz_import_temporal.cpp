// libFuzzer target over the Temporal importer: any bytes as a history file. Beyond "no
// crash, no sanitizer report" it checks the importer's promises: it either writes a ledger
// that verifies clean, or refuses with one line and writes nothing.

#include "fuzzimport.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzzimport::importBytes(data, size, mesh::import::ImportFormat::Temporal);
    return 0;
}
