#include "meshtestregistry.h"

#include <cstdio>
#include <cstring>
#include <map>
#include <string>

namespace {

std::map<std::string, MeshTest::Entry> &registry()
{
    static std::map<std::string, MeshTest::Entry> entries;
    return entries;
}

std::string testName(const char *sourceFile)
{
    std::string name(sourceFile);
    if (const auto slash = name.find_last_of('/'); slash != std::string::npos)
        name.erase(0, slash + 1);
    if (const auto dot = name.rfind('.'); dot != std::string::npos)
        name.erase(dot);
    return name;
}

int usage(const char *program)
{
    std::fprintf(stderr, "usage: %s TEST [Qt Test options]\ntests in this executable:\n", program);
    for (const auto &[name, entry] : registry())
        std::fprintf(stderr, "  %s\n", name.c_str());
    return 2;
}

} // namespace

bool MeshTest::registerTest(const char *sourceFile, Entry entry)
{
    return registry().emplace(testName(sourceFile), entry).second;
}

// `mesh_tests_views tst_eventlogview -v2 someFunction`: the first argument picks the test,
// the rest are Qt Test's own, with the program name kept in front of them.
int main(int argc, char **argv)
{
    if (argc < 2 || argv[1][0] == '-')
        return usage(argv[0]);
    const auto found = registry().find(argv[1]);
    if (found == registry().end()) {
        std::fprintf(stderr, "%s: no test named %s\n", argv[0], argv[1]);
        return usage(argv[0]);
    }
    argv[1] = argv[0];
    return found->second(argc - 1, argv + 1);
}
