import Foundation
import Testing
import TestSupport

@testable import PayPanel
import PayPanelDemo

/// Every owner of a C handle whose init can fail, made to fail (docs/architecture.md, "Who frees
/// C handles"): the init throws its error, the process carries on, and the handle is freed.
///
/// What a second free would do differs by library, so each test checks what can be seen:
/// - A CMS structure freed twice crashes this process (tried: SIGSEGV), failing the run.
/// - The d2i owners (certificates, keys, CMS) get their objects from `DERCoding.decode`, the one
///   place that frees a refused object: its test counts the frees.
/// - SQLite notices a second close of a handle it already freed and returns SQLITE_MISUSE
///   without crashing, so the SQLite tests check the other half, that the failed open left no
///   descriptor on the file (closed at least once); at most once is the structure's job (only
///   the owner's deinit closes an opened handle).
/// - libpq aborts on a second `PQfinish`: `PostgreSQLConnectionOwnerTests`, and the CLI's
///   `UnreachablePostgreSQLTests` in a child process.
/// Each failure is repeated, so a crash that needs reused memory gets its chance.
@Suite struct CHandleOwnerTests {
    static let repetitions = 20

    // MARK: SQLite: Database (sqlite3)

    /// sqlite3_open_v2 fails but still allocates a handle: the init closes that local itself.
    @Test func aDatabaseThatCannotOpenClosesItsLocalHandle() throws {
        let directory = try TemporaryDirectory()
        for _ in 0..<Self.repetitions {
            let error = #expect(throws: DatabaseError.self) {
                _ = try Database(path: directory.file("missing.sqlite"), options: Database.Options(readOnly: true, create: false))
            }
            #expect(error?.primaryResultCode == .cantOpen, "\(String(describing: error))")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty, "a read-only open must not create the file")
    }

    /// The handle opens, a PRAGMA then fails (not a database): the owner already holds the
    /// handle, and releasing it closes it, so no descriptor on the file stays open.
    @Test func aDatabaseThatFailsAfterOpeningClosesItsHandle() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("notes.txt", String(repeating: "these are notes, not a database\n", count: 64))
        for _ in 0..<Self.repetitions {
            let error = #expect(throws: DatabaseError.self) { _ = try Database(path: path) }
            #expect(error?.primaryResultCode == .notADatabase, "\(String(describing: error))")
        }
        #expect(try Self.openDescriptors(on: path) == 0, "a failed open left the file open: its handle was never closed")
        #expect(try String(contentsOfFile: path, encoding: .utf8).hasPrefix("these are notes"), "the refused file was changed")
    }

    /// How many of this process's descriptors refer to `path` (Linux: /proc/self/fd).
    static func openDescriptors(on path: String) throws -> Int {
        let target = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        return try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count { name in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)")) == target
        }
    }

    /// The self-check of the test above: an open database does hold a descriptor on its file.
    @Test func anOpenDatabaseHoldsADescriptorOnItsFile() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("payments.sqlite")
        let database = try Database(path: path)
        #expect(try Self.openDescriptors(on: path) >= 1)
        withExtendedLifetime(database) {}
    }

    // MARK: OpenSSL: objects decoded from DER (DERCoding.decode)

    /// `decode` frees an object it refuses exactly once (leftover bytes, or a failed check) and
    /// hands back an accepted one unfreed: the owner that takes it is its only other free. A
    /// stand-in for `d2i_*` that reads 4 bytes and returns a token pointer (never dereferenced)
    /// lets the frees be counted.
    @Test(arguments: [
        ([1, 2, 3, 4, 5], false, 1),  // a byte left over: refused, freed once
        ([1, 2, 3, 4], true, 1),  // read whole, refused by the check: freed once
        ([1, 2, 3, 4], false, 0),  // accepted: not freed, the caller owns it
    ] as [([UInt8], Bool, Int)])
    func decodeFreesWhatItRefusesExactlyOnce(input: [UInt8], checkRefuses: Bool, expectedFrees: Int) {
        let object = OpaquePointer(bitPattern: 0x5EED)!
        var frees: [OpaquePointer] = []
        let result = Result { () throws(OpenSSLError) -> OpaquePointer in
            try DERCoding.decode(
                input, "reading a test structure", free: { frees.append($0) },
                check: { _ throws(OpenSSLError) in
                    if checkRefuses { throw OpenSSLError(operation: "checking", reason: "refused by the test") }
                }
            ) { cursor, length in
                guard length >= 4, let start = cursor.pointee else { return nil }
                cursor.pointee = start + 4
                return object
            }
        }
        #expect(frees == Array(repeating: object, count: expectedFrees))
        #expect((try? result.get()) == (expectedFrees == 0 ? object : nil))
    }

    /// A certificate followed by junk: OpenSSL decodes the certificate, the leftover bytes refuse
    /// it, and `decode` frees it before any `X509Handle` exists.
    @Test func aCertificateWithTrailingBytesIsFreedBeforeAnyOwnerTakesIt() throws {
        let der = ApplePayTestKeys.ecMerchant.certificate.derRepresentation
        for _ in 0..<Self.repetitions {
            let error = #expect(throws: KeyMaterialError.self) { _ = try Certificate(derRepresentation: der + [0x05, 0x00]) }
            #expect(error?.message.contains("2 unexpected bytes after the structure") == true, "\(String(describing: error))")
        }
    }

    /// The same for an `EVP_PKEY` (EVPKey) read from a SubjectPublicKeyInfo.
    @Test func aPublicKeyWithTrailingBytesIsFreedBeforeAnyOwnerTakesIt() throws {
        let spki = try ApplePayTestKeys.ecMerchant.certificate.subjectPublicKeyInfoDER
        for _ in 0..<Self.repetitions {
            let error = #expect(throws: OpenSSLError.self) { _ = try EVPKey.publicKey(subjectPublicKeyInfoDER: spki + [0x00]) }
            #expect(error?.reason.contains("1 unexpected bytes after the structure") == true, "\(String(describing: error))")
        }
    }

    // MARK: OpenSSL: CMSSignedData (CMS_ContentInfo)

    /// A ContentInfo OpenSSL decodes (an unknown content type is kept as "other") that is not
    /// SignedData: refused by the check inside `decode`, which frees it; `CMSSignedData` never
    /// holds it.
    @Test func aCMSStructureThatIsNotSignedDataIsFreedBeforeTheOwnerTakesIt() throws {
        // ContentInfo { contentType 1.2.3.4, [0] EXPLICIT SEQUENCE { INTEGER 0 } }
        let other: [UInt8] = [0x30, 0x0C, 0x06, 0x03, 0x2A, 0x03, 0x04, 0xA0, 0x05, 0x30, 0x03, 0x02, 0x01, 0x00]
        for _ in 0..<Self.repetitions {
            let error = #expect(throws: OpenSSLError.self) { _ = try CMSSignedData(ber: other) }
            #expect(error?.reason == "it is not SignedData", "\(String(describing: error))")
        }
    }

    /// A real token signature with its content put inside (attached instead of detached): it
    /// decodes, the detached check refuses it, and `decode` frees it.
    @Test func aCMSSignatureWithEmbeddedContentIsFreedBeforeTheOwnerTakesIt() throws {
        let der = try ApplePayPaymentToken(json: try TokenFixtures.sealedJSON()).decodedSignature()
        // Indefinite lengths on the outer wrappers, so the SignedData can grow without
        // rewriting their lengths.
        let ber = try EncodingTests.indefiniteOuterLengths(der)
        let oidData: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x01]
        let detached = [0x30, 0x0B] + oidData  // EncapsulatedContentInfo { id-data }, no eContent
        let attached = [0x30, 0x13] + oidData + [0xA0, 0x06, 0x04, 0x04] + Array("test".utf8)
        let ranges = ber.ranges(of: detached)
        try #require(ranges.count == 1, "the signature has one EncapsulatedContentInfo")
        var embedded = ber
        embedded.replaceSubrange(ranges[0], with: attached)
        for _ in 0..<Self.repetitions {
            let error = #expect(throws: OpenSSLError.self) { _ = try CMSSignedData(ber: embedded) }
            #expect(error?.reason == "it embeds its content instead of signing detached data", "\(String(describing: error))")
        }
        // The untouched signature still reads: the test changed only what it meant to.
        #expect(try CMSSignedData(ber: ber).signerCount == 1)
    }
}
