#ifndef CSQLITESETTINGS_H
#define CSQLITESETTINGS_H

/// SQLite's process-wide settings, made when the program is loaded: sqlite3_config works only
/// before SQLite starts (any connection opened, by any code, starts it) and is variadic, which
/// Swift cannot call.
///
/// Memory statistics (SQLITE_CONFIG_MEMSTATUS) are turned off: with them on, every allocation of
/// every connection takes one process-wide mutex, so readers on two cores wait on each other
/// (docs/performance.md, "SQLite's memory statistics and two readers"). With the environment
/// variable SUBDASH_IMPORT_TRACE set they stay on: the import's trace reports SQLite's memory.

/// 1 when the memory statistics were turned off at load, else 0.
int csqlite_memory_statistics_off(void);

#endif
