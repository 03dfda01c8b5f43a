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

#endif
