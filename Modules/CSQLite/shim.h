#include <sqlite3.h>

/// Turns off SQLite's memory-allocation statistics (SQLITE_CONFIG_MEMSTATUS), which take a global mutex on
/// every allocation; nothing in the app reads them (sqlite3_memory_used, sqlite3_status). A process-wide
/// setting: it takes effect only before SQLite is first initialised, and answers SQLITE_MISUSE afterwards
/// (harmless: the statistics then stay on). `sqlite3_config` is variadic, so Swift cannot call it directly.
static inline int jqc_sqlite3_config_memstatus_off(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
