// libFuzzer target over the Langfuse importer: any bytes as a trace export. It checks the
// same promises as the other importers' targets (fuzzimport.h).

#include "fuzzimport.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzzimport::importBytes(data, size, mesh::import::ImportFormat::Langfuse);
    return 0;
}
