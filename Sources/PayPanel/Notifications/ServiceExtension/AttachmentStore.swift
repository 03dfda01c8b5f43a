import Foundation

/// Where downloaded attachments are kept, like a device's attachment data store: one file per
/// download, named from the key and a hash of the URL (never from the URL's own file name,
/// which a sender controls), written atomically.
package struct AttachmentStore: Sendable {
    package let directory: String

    package init(directory: String) {
        self.directory = directory
    }

    /// Saves `bytes` and returns the file's path: `<key>-<16 hex of SHA-256(url)>.<ext>`.
    package func save(_ bytes: [UInt8], slot: MediaSlot, source: MediaLocation, type: AttachmentType) throws(AttachmentStoreError) -> String {
        let digest = SHA256.hash(source.description).hexString.prefix(16)
        let name = "\(slot.rawValue)-\(digest).\(type.fileExtensions[0])"
        let path = (directory as NSString).appendingPathComponent(name)
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw AttachmentStoreError(path: path, reason: error.localizedDescription)
        }
        do throws(AtomicFileError) {
            // Durable: the path is handed to the notification, which must never find a short file.
            try AtomicFile.replace(path, with: bytes, durable: true)
        } catch {
            throw AttachmentStoreError(path: path, reason: error.reason)
        }
        return path
    }
}

/// A downloaded attachment could not be written.
package struct AttachmentStoreError: PayPanelError, Equatable {
    package let path: String
    package let reason: String
    package var code: String { "attachment_store_failed" }
    package var message: String { "could not save the attachment to \(path): \(reason); check that the attachments directory is writable" }
}

/// A monotonic time source for deadlines: not the wall clock (which `--now` fixes and which may
/// jump), but elapsed real time. Injected so tests can make a fetch "take" 26 seconds.
package protocol MonotonicClock: Sendable {
    /// Time elapsed since an arbitrary fixed origin.
    func elapsed() -> Duration
}

/// Elapsed time from the system's continuous clock.
package struct SystemMonotonicClock: MonotonicClock {
    private let origin = ContinuousClock.now

    package init() {}

    package func elapsed() -> Duration {
        origin.duration(to: ContinuousClock.now)
    }
}
