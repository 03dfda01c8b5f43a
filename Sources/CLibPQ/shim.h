#ifndef PAYPANEL_CLIBPQ_SHIM_H
#define PAYPANEL_CLIBPQ_SHIM_H

// libpq, the PostgreSQL client library (Debian: libpq-dev). Only built with the package trait
// `PostgreSQL`; the default build never sees this header or links libpq.
#include <libpq-fe.h>

// The PG_DIAG_* field codes are character-literal macros, which Swift does not import.
static inline const char *paypanel_pq_sqlstate(const PGresult *result) {
    return PQresultErrorField(result, PG_DIAG_SQLSTATE);
}
static inline const char *paypanel_pq_primary_message(const PGresult *result) {
    return PQresultErrorField(result, PG_DIAG_MESSAGE_PRIMARY);
}
static inline const char *paypanel_pq_constraint_name(const PGresult *result) {
    return PQresultErrorField(result, PG_DIAG_CONSTRAINT_NAME);
}
static inline const char *paypanel_pq_table_name(const PGresult *result) {
    return PQresultErrorField(result, PG_DIAG_TABLE_NAME);
}

#endif
