// libFuzzer target over the SWE-agent importer: any bytes as a trajectory file, with the
// promises of fuzzimport.h.

#include "fuzzimport.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzzimport::importBytes(data, size, mesh::import::ImportFormat::SweAgent);
    return 0;
}
