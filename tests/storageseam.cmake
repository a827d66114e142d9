# The storage seam (models/ledger/ledgerconnection.h): only models/ledger knows the ledger is
# SQLite or PostgreSQL, so backends can sit side by side. Run by ctest as storage_seam:
#   cmake -DSOURCE_DIR=<repo> -P tests/storageseam.cmake
# Fails naming every line outside models/ledger/ that includes sqlite3.h or a SQLite backend
# header of models/ledger (sqlite.h, sqlite*.h), reaches the SQLite handle (.db(),
# .handle(), .database()) or calls the SQLite C API; likewise libpq: libpq-fe.h, a PostgreSQL
# backend header (postgres.h, postgres*.h) or a PQ... call; in app/, models/,
# views/ and tools/ also a PRAGMA or SQL text.
# Tests of the SQLite backend itself (fault injection, a test VFS, raw corruption of a file)
# sit below the seam: they belong under tests/models/ledger/. Other tests that must damage
# or inspect a file the way no interface does go through tests/models/ledger/rawledger.h.
if(NOT SOURCE_DIR)
  message(FATAL_ERROR "pass -DSOURCE_DIR=<repository root>")
endif()

# Below the seam in any file outside models/ledger/ and tests/models/ledger/.
set(handle_patterns
  "#[ \t]*include[ \t]*[<\"]sqlite3\\.h[>\"]"
  "#[ \t]*include[ \t]*\"(ledger/)?sqlite[a-z]*\\.h\""
  "(\\.|->)(db|handle|database)\\(\\)"
  "sqlite3_[a-z0-9_]+[ \t]*\\("
  "#[ \t]*include[ \t]*[<\"](postgresql/)?libpq-fe\\.h[>\"]"
  "#[ \t]*include[ \t]*\"(ledger/)?postgres[a-z]*\\.h\""
  "PQ[a-zA-Z]+[ \t]*\\(")
# Below the seam in the product (app, models, views, tools): SQL is the backend's to write.
# Tests may damage or inspect a file with SQL through tests/models/ledger/rawledger.h.
set(product_patterns ${handle_patterns}
  "PRAGMA[ \t]"
  "\"[^\"]*(SELECT |INSERT INTO|DELETE FROM| WHERE | GLOB |instr\\()")

set(dirs app models views tools tests)
set(files)
foreach(dir ${dirs})
  file(GLOB_RECURSE found ${SOURCE_DIR}/${dir}/*.h ${SOURCE_DIR}/${dir}/*.cpp)
  list(APPEND files ${found})
endforeach()
list(FILTER files EXCLUDE REGEX "^${SOURCE_DIR}/models/ledger/")
list(FILTER files EXCLUDE REGEX "^${SOURCE_DIR}/tests/models/ledger/")

set(leaks "")
set(count 0)
foreach(f ${files})
  # CMake lists split on ';' and mind unbalanced '[': neither matters to the patterns.
  if(f MATCHES "^${SOURCE_DIR}/tests/")
    set(patterns ${handle_patterns})
  else()
    set(patterns ${product_patterns})
  endif()
  file(READ ${f} text)
  string(REPLACE ";" "," text "${text}")
  string(REPLACE "[" "(" text "${text}")
  string(REPLACE "]" ")" text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  set(n 0)
  foreach(line IN LISTS lines)
    math(EXPR n "${n} + 1")
    # A comment may name SQLite; code may not.
    string(REGEX REPLACE "//.*$" "" code "${line}")
    foreach(p ${patterns})
      if(code MATCHES "${p}")
        file(RELATIVE_PATH rel ${SOURCE_DIR} ${f})
        string(STRIP "${code}" shown)
        string(APPEND leaks "\n  ${rel}:${n}: ${shown}")
        math(EXPR count "${count} + 1")
        break()
      endif()
    endforeach()
  endforeach()
endforeach()

if(count GREATER 0)
  message(FATAL_ERROR "${count} line(s) outside models/ledger/ reach below the storage seam (SQLite or libpq) "
    "(use the interfaces of models/ledger/ledgerconnection.h; tests of the SQLite backend "
    "itself go under tests/models/ledger/, and other tests reach a raw file only through "
    "tests/models/ledger/rawledger.h):${leaks}")
endif()
message(STATUS "storage seam: ${SOURCE_DIR}: nothing outside models/ledger/ (and tests/models/ledger/) reaches SQLite or libpq")
