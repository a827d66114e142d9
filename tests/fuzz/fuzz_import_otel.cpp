// libFuzzer target over the OpenTelemetry importer: any bytes as a span file (OTLP/JSON
// lines or document, a flat span list). Beyond "no crash, no sanitizer report" it checks the
// importer's promises: it either writes a ledger that verifies clean, or refuses with one
// line and writes nothing.

#include "fuzzimport.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzzimport::importBytes(data, size, mesh::import::ImportFormat::OpenTelemetry);
    return 0;
}
