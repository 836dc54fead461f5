#include "CSQLiteSettings.h"
#include <sqlite3.h>
#include <stdlib.h>

static int memory_statistics_off = 0;

/// Runs when the program is loaded, before any code can open a connection.
__attribute__((constructor)) static void csqlite_settings_at_load(void) {
    if (getenv("SUBDASH_IMPORT_TRACE") != NULL) return;
    memory_statistics_off = sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0) == SQLITE_OK;
}

int csqlite_memory_statistics_off(void) { return memory_statistics_off; }
