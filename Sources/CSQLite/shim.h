#ifndef PAYPANEL_CSQLITE_SHIM_H
#define PAYPANEL_CSQLITE_SHIM_H

#include <sqlite3.h>

// SQLITE_TRANSIENT is a macro casting -1 to a function pointer; Swift cannot import it.
// Binding with it makes SQLite copy the bytes, so Swift buffers may be released right away.
static inline void paypanel_sqlite3_bind_text_transient(sqlite3_stmt *stmt, int index,
                                                        const char *text, int length,
                                                        int *result) {
    *result = sqlite3_bind_text(stmt, index, text, length, SQLITE_TRANSIENT);
}

static inline void paypanel_sqlite3_bind_blob_transient(sqlite3_stmt *stmt, int index,
                                                        const void *bytes, int length,
                                                        int *result) {
    *result = sqlite3_bind_blob(stmt, index, bytes, length, SQLITE_TRANSIENT);
}

// sqlite3_db_config is variadic; these wrap the calls we make.
static inline int paypanel_sqlite3_enable_defensive(sqlite3 *db) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)0);
}

static inline int paypanel_sqlite3_disable_load_extension(sqlite3 *db) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, (int *)0);
}

// sqlite3_config is variadic too. Memory statistics off: with them on (the default) every
// sqlite3_malloc and sqlite3_free takes one process-wide mutex to keep counts nobody here reads
// (no soft heap limit is set). Only takes effect before SQLite initializes itself.
static inline int paypanel_sqlite3_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

#endif
