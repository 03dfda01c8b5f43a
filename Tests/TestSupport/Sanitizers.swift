import Foundation

/// Whether the tests run in an AddressSanitizer or ThreadSanitizer build (and so does the
/// `paypanel` built with them): such a run is several times slower and uses more memory, so
/// tests that bound time or memory allow for it.
public enum Sanitizers {
    /// True when the sanitizer's runtime is linked in (it exports `__asan_init` / `__tsan_init`).
    public static let areActive: Bool = {
        #if os(Linux)
        let everything: UnsafeMutableRawPointer? = nil  // RTLD_DEFAULT
        #else
        let everything = UnsafeMutableRawPointer(bitPattern: -2)  // RTLD_DEFAULT
        #endif
        return dlsym(everything, "__asan_init") != nil || dlsym(everything, "__tsan_init") != nil
    }()
}
