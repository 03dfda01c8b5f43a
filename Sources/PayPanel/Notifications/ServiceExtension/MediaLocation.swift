import Foundation
import PayPanelHTTP

/// Where a media attachment comes from: a path, a `file://` URL, or an `http://` / `https://`
/// URL. Parsed strictly by hand (Foundation's `URL` accepts too much, and differs between
/// platforms): no credentials in URLs, no spaces or control characters, ports 1–65535.
package enum MediaLocation: Sendable, Equatable, CustomStringConvertible {
    /// A path; relative ones are resolved in the attachments directory.
    case path(String)
    /// A `file://` URL's path (percent-decoded).
    case file(String)
    /// An `http://` or `https://` URL.
    case web(WebURL)

    /// The parts of an http(s) URL the fetcher needs: the HTTP client's own address type.
    package typealias WebURL = HTTPClientURL

    package var description: String {
        switch self {
        case .path(let path): path
        case .file(let path): "file://\(path)"
        case .web(let url): url.description
        }
    }

    /// The lower-cased file extension of the last path segment (`png`), or nil. The query and
    /// fragment of a URL do not count: `offer.png?size=2x` is a png.
    package var fileExtension: String? {
        let path: String
        switch self {
        case .path(let value), .file(let value): path = value
        case .web(let url): path = String(url.target.prefix { $0 != "?" })
        }
        let name = path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        let ext = name[name.index(after: dot)...]
        return ext.isEmpty ? nil : MediaLocation.percentDecoded(String(ext))?.lowercased()
    }

    /// Parses `text`; the failure says what is wrong with it.
    package static func parse(_ text: String) -> Result<MediaLocation, MediaLocationError> {
        if text.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value == 0x7F }) {
            return .failure(MediaLocationError(text: text, reason: "contains spaces or control characters; percent-encode them"))
        }
        guard let schemeEnd = schemeEnd(in: text) else { return .success(.path(text)) }
        let scheme = text[..<schemeEnd].lowercased()
        let rest = text[text.index(schemeEnd, offsetBy: 1)...]
        switch scheme {
        case "file":
            guard rest.hasPrefix("//") else {
                return .failure(MediaLocationError(text: text, reason: "a file URL is written file:///absolute/path"))
            }
            let afterSlashes = rest.dropFirst(2)
            let slash = afterSlashes.firstIndex(of: "/") ?? afterSlashes.endIndex
            let host = afterSlashes[..<slash]
            guard host.isEmpty || host.lowercased() == "localhost" else {
                return .failure(MediaLocationError(text: text, reason: "a file URL cannot name another host (\(host))"))
            }
            let encodedPath = String(afterSlashes[slash...].prefix { $0 != "?" && $0 != "#" })
            guard !encodedPath.isEmpty, let path = percentDecoded(encodedPath) else {
                return .failure(MediaLocationError(text: text, reason: "the file URL's path is empty or badly percent-encoded"))
            }
            return .success(.file(path))
        case "http", "https":
            return parseWeb(rest, secure: scheme == "https", text: text).map(MediaLocation.web)
        default:
            return .failure(MediaLocationError(text: text, reason: "the scheme \(scheme) is not supported: use a path, file://, http:// or https://"))
        }
    }

    /// The end of a URL scheme (`http:`), or nil when `text` is a path. A scheme is a letter
    /// followed by letters, digits, `+`, `-` or `.`, then `:`.
    private static func schemeEnd(in text: String) -> String.Index? {
        guard let colon = text.firstIndex(of: ":"), colon != text.startIndex else { return nil }
        let scheme = text[..<colon]
        guard let first = scheme.first, first.isASCII, first.isLetter,
            scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
        else { return nil }
        return colon
    }

    private static func parseWeb(_ rest: Substring, secure: Bool, text: String) -> Result<WebURL, MediaLocationError> {
        func failure(_ reason: String) -> Result<WebURL, MediaLocationError> {
            .failure(MediaLocationError(text: text, reason: reason))
        }
        guard rest.hasPrefix("//") else { return failure("an http URL is written http://host/path") }
        let afterSlashes = rest.dropFirst(2).prefix { $0 != "#" }
        let authorityEnd = afterSlashes.firstIndex { $0 == "/" || $0 == "?" } ?? afterSlashes.endIndex
        let authority = afterSlashes[..<authorityEnd]
        var target = String(afterSlashes[authorityEnd...])
        if target.isEmpty || target.hasPrefix("?") { target = "/" + target }
        if authority.contains("@") { return failure("credentials in the URL are not accepted") }
        var host: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return failure("the IPv6 address has no closing ]") }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return failure("unexpected text after the IPv6 address") }
                portText = after.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        } else {
            host = authority
        }
        guard !host.isEmpty else { return failure("the URL has no host") }
        guard host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-._:".contains($0)) }) else {
            return failure("the host \(host) has characters a host name cannot have")
        }
        var port = secure ? 443 : 80
        if let portText {
            guard let number = Int(portText), (1...65535).contains(number), portText.allSatisfy(\.isNumber) else {
                return failure("the port \(portText) is not a number from 1 to 65535")
            }
            port = number
        }
        return .success(WebURL(isSecure: secure, host: String(host).lowercased(), port: port, target: target))
    }

    /// `%41` → `A`; nil when a `%` is not followed by two hex digits, or the bytes are not
    /// UTF-8 or hold a NUL (`PercentDecoding`).
    static func percentDecoded(_ text: String) -> String? {
        try? PercentDecoding.decode(text.utf8).get()
    }

    /// A redirect target (`Location`) resolved against the URL that answered with it.
    func resolvingRedirect(_ location: String) -> Result<MediaLocation, MediaLocationError> {
        guard case .web(let base) = self else { return MediaLocation.parse(location) }
        if location.hasPrefix("/") && !location.hasPrefix("//") {
            var url = base
            url.target = location
            return .success(.web(url))
        }
        if location.hasPrefix("//") {
            return MediaLocation.parse((base.isSecure ? "https:" : "http:") + location)
        }
        if MediaLocation.schemeEnd(in: location) == nil {
            // Relative to the directory of the URL that redirected.
            var url = base
            let path = base.target.prefix { $0 != "?" }
            let directory = path.lastIndex(of: "/").map { path[...$0] } ?? "/"
            url.target = String(directory) + location
            return .success(.web(url))
        }
        return MediaLocation.parse(location)
    }
}

/// Why a media location cannot be used.
package struct MediaLocationError: PayPanelError, Equatable {
    package let text: String
    package let reason: String
    package var code: String { "invalid_media_location" }
    package var message: String { "\(JSONWriter.quoted(text)) is not a usable media location: \(reason)" }
}
