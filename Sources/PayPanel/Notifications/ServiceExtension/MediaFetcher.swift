import Foundation
import PayPanelHTTP

/// Fetches the bytes of a media attachment. Injected into `NotificationServiceExtension`, so unit
/// tests never touch the network or the disk; the real one is `StandardMediaFetcher`.
package protocol MediaFetcher: Sendable {
    /// The bytes at `location`: at most `maximumBytes`, within `timeout`. Must give up (throw
    /// `.timedOut`) when the time is spent rather than run on.
    func fetch(_ location: MediaLocation, maximumBytes: Int, timeout: Duration) throws(MediaFetchError) -> FetchedMedia
}

/// What a fetch returned.
package struct FetchedMedia: Sendable, Equatable {
    package var bytes: [UInt8]
    /// The file the bytes were read from, when they are already on disk (a path or file URL);
    /// nil for downloads, which the extension stores itself.
    package var localFile: String?

    package init(bytes: [UInt8], localFile: String? = nil) {
        self.bytes = bytes
        self.localFile = localFile
    }
}

/// Why a fetch failed. `kind` is stable (tests and programs use it); `message` is for people.
package struct MediaFetchError: PayPanelError, Equatable {
    package enum Kind: String, Sendable {
        /// The deadline passed (connecting, resolving, or reading).
        case timedOut = "fetch_timed_out"
        /// Nothing answers there: connection refused, host unknown, file missing.
        case unreachable = "fetch_unreachable"
        /// The server answered with a status other than 200.
        case httpStatus = "fetch_http_status"
        /// More bytes than the limit for the key.
        case tooLarge = "attachment_too_large"
        /// A scheme or feature this fetcher does not support.
        case unsupported = "fetch_unsupported"
        /// The TLS handshake of an https fetch failed (untrusted or expired certificate, wrong host).
        case tlsFailed = "fetch_tls_failed"
        /// A local path outside the attachments directory.
        case forbidden = "fetch_forbidden"
        /// The server broke HTTP (bad status line, bad chunking, too many redirects).
        case protocolError = "fetch_protocol_error"
    }

    package let kind: Kind
    package let message: String

    package init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    package var code: String { kind.rawValue }
}

/// The fetcher the CLI uses: paths and `file://` URLs from the attachments directory, web URLs
/// with PayPanel's `HTTPClient`: `http://` on its socket path, `https://` on a URLSession made
/// for the fetch (TLS with the system's trusted certificates, which the socket path cannot do
/// without libssl). Two clients, so an http fetch redirected to https stays refused as before.
package struct StandardMediaFetcher: MediaFetcher {
    package let files: LocalFileFetcher
    package let http: HTTPClient
    package let https: HTTPClient

    package init(
        attachmentsDirectory: String, http: HTTPClient = HTTPClient(), https: HTTPClient = HTTPClient(secure: .sessionPerRequest)
    ) {
        self.files = LocalFileFetcher(root: attachmentsDirectory)
        self.http = http
        self.https = https
    }

    package func fetch(_ location: MediaLocation, maximumBytes: Int, timeout: Duration) throws(MediaFetchError) -> FetchedMedia {
        switch location {
        case .path(let path), .file(let path):
            return try files.read(path, maximumBytes: maximumBytes)
        case .web(let url) where url.isSecure:
            return FetchedMedia(bytes: try https.get(url, maximumBytes: maximumBytes, timeout: timeout).body)
        case .web(let url):
            let response = try http.get(url, maximumBytes: maximumBytes, timeout: timeout)
            return FetchedMedia(bytes: response.body)
        }
    }
}

/// Reads local media, only from inside one directory: a push payload comes from outside and
/// must not make the device read `/etc/passwd` or `../../secrets`. Relative paths are resolved
/// in the directory; absolute paths and `file://` URLs must point into it (after symlinks).
package struct LocalFileFetcher: Sendable {
    package let root: String

    package init(root: String) {
        self.root = root
    }

    package func read(_ path: String, maximumBytes: Int) throws(MediaFetchError) -> FetchedMedia {
        let joined = path.hasPrefix("/") ? path : (root as NSString).appendingPathComponent(path)
        // Lexically first, so `../x` is refused whether or not it exists; then after symlinks.
        let rootLexical = (root as NSString).standardizingPath
        let fileLexical = (joined as NSString).standardizingPath
        guard fileLexical == rootLexical || fileLexical.hasPrefix(rootLexical.hasSuffix("/") ? rootLexical : rootLexical + "/") else {
            throw MediaFetchError(.forbidden, "\(path) is outside the attachments directory \(root); only files inside it are read")
        }
        guard let rootReal = realPath(root) else {
            throw MediaFetchError(.unreachable, "the attachments directory \(root) does not exist")
        }
        guard let fileReal = realPath(joined) else {
            throw MediaFetchError(.unreachable, "\(path) does not exist in the attachments directory \(root)")
        }
        guard fileReal != rootReal else {
            throw MediaFetchError(.unreachable, "\(path) is the attachments directory itself, not a file")
        }
        guard fileReal.hasPrefix(rootReal.hasSuffix("/") ? rootReal : rootReal + "/") else {
            throw MediaFetchError(.forbidden, "\(path) is outside the attachments directory \(root); only files inside it are read")
        }
        var status = stat()
        guard stat(fileReal, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            throw MediaFetchError(.unreachable, "\(path) is not a regular file")
        }
        guard Int(status.st_size) <= maximumBytes else {
            throw MediaFetchError(.tooLarge, "\(path) is \(status.st_size) bytes, above the \(maximumBytes)-byte limit")
        }
        guard let handle = FileHandle(forReadingAtPath: fileReal) else {
            throw MediaFetchError(.unreachable, "\(path) cannot be read: permission denied")
        }
        defer { try? handle.close() }
        // Read one byte past the limit: the file may have grown since stat.
        let data = (try? handle.read(upToCount: maximumBytes + 1)) ?? Data()
        guard data.count <= maximumBytes else {
            throw MediaFetchError(.tooLarge, "\(path) is above the \(maximumBytes)-byte limit")
        }
        return FetchedMedia(bytes: Array(data), localFile: fileReal)
    }

    private func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
