internal import COpenSSL

/// What OpenSSL does when the process exits.
///
/// Unless told otherwise, OpenSSL's first initialization registers an `atexit` handler,
/// `OPENSSL_cleanup`, that frees the library's global state while the process exits. Our programs
/// exit with other threads still alive (actor threads, the concurrency pool, URLSession's), and
/// one that is freeing a key or hashing at that moment uses state the handler has just freed:
/// `paypanel payments authorize --token` crashed so in `.ci/run`'s AddressSanitizer pass (SEGV
/// inside `OPENSSL_cleanup`, called by `exit`); github.com/openssl/openssl/issues/6214 is the
/// same race.
/// Nothing needs that cleanup: the kernel takes the memory back. So a program turns it off
/// before its first OpenSSL call (`OPENSSL_INIT_NO_ATEXIT`, as curl does).
package enum OpenSSLProcess {
    /// Call first in `main`, before anything can touch OpenSSL: the first initialization decides
    /// whether the handler is registered, and a later call cannot take it back.
    package static func skipCleanupAtExit() {
        _ = OPENSSL_init_crypto(UInt64(OPENSSL_INIT_NO_ATEXIT), nil)
    }
}
