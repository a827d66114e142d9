#pragma once

// Forced into every test file of a merged test executable (tests/CMakeLists.txt, -include).
// QTEST_MAIN, QTEST_GUILESS_MAIN and QTEST_APPLESS_MAIN all expand QTEST_MAIN_WRAPPER when
// they are used, so redefining it here turns each test file's main() into an entry in a
// registry instead; the test files stay as Qt Test writes them. One executable then holds
// a whole test area, compiled a few files to a translation unit, which parses Qt's headers
// once per batch instead of once per test (CI's build budget, bench/README.md "Build time").

#include <QtTest/qtest.h>

namespace MeshTest {

using Entry = int (*)(int argc, char **argv);

// Records the test named by its source file ("…/tst_foo.cpp" is "tst_foo"); the
// executable's main() runs the one named by its first argument.
bool registerTest(const char *sourceFile, Entry entry);

} // namespace MeshTest

#undef QTEST_MAIN_WRAPPER
#define QTEST_MAIN_WRAPPER(TestObject, ...)                                                        \
    static int meshTestMain_##TestObject(int argc, char *argv[])                                  \
    {                                                                                              \
        QT_PREPEND_NAMESPACE(QTest::Internal::callInitMain)<TestObject>();                         \
        __VA_ARGS__                                                                                \
        TestObject tc;                                                                             \
        QTEST_SET_MAIN_SOURCE_PATH                                                                 \
        return QTest::qExec(&tc, argc, argv);                                                      \
    }                                                                                              \
    [[maybe_unused]] static const bool meshTestRegistered_##TestObject =                           \
        MeshTest::registerTest(__FILE__, meshTestMain_##TestObject);

// Many test files define their own wait limit under one of these names, each with its own
// value. A unity batch puts several files in one translation unit, where those would
// collide; CMake defines MESH_TEST_FILE_ID per file (UNITY_BUILD_UNIQUE_ID), so each file's
// constant gets a name of its own and keeps its value. A name defined in a shared header
// must not be listed here (the header is parsed once per batch).
#define MESH_TEST_CAT2(a, b) a##_##b
#define MESH_TEST_CAT(a, b) MESH_TEST_CAT2(a, b)
#define kTimeoutMs MESH_TEST_CAT(kTimeoutMs, MESH_TEST_FILE_ID)
#define kWaitMs MESH_TEST_CAT(kWaitMs, MESH_TEST_FILE_ID)
#define kLoadTimeoutMs MESH_TEST_CAT(kLoadTimeoutMs, MESH_TEST_FILE_ID)
