import Foundation
import Testing
import TestSupport

@testable import PayPanel

@Suite struct AtomicFileTests {
    @Test func writesANewFileAndLeavesNothingElseBeside() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("a.bin")
        try AtomicFile.replace(path, with: [1, 2, 3], durable: true)
        #expect(FileManager.default.contents(atPath: path) == Data([1, 2, 3]))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["a.bin"])
    }

    @Test func replacesAnExistingFileWhole() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("a.txt", String(repeating: "old ", count: 1000))
        try AtomicFile.replace(path, with: Array("new".utf8), durable: false)
        #expect(FileManager.default.contents(atPath: path) == Data("new".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["a.txt"])
    }

    @Test func aMissingDirectoryFailsBeforeAnythingIsWritten() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("missing/a.bin")
        #expect(throws: AtomicFileError.self) { try AtomicFile.replace(path, with: [1], durable: true) }
        do {
            try AtomicFile.replace(path, with: [1], durable: true)
        } catch {
            #expect(error.step == "creating a temporary file in")
            #expect(error.code == ENOENT)
            #expect(error.reason.hasSuffix("failed: No such file or directory"))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test func aFailedRenameRemovesTheTemporaryFile() throws {
        let directory = try TemporaryDirectory()
        // A non-empty directory where the file should go: rename(2) refuses to replace it.
        try FileManager.default.createDirectory(atPath: directory.file("taken"), withIntermediateDirectories: false)
        try directory.write("taken/inside", "x")
        do {
            try AtomicFile.replace(directory.file("taken"), with: [1], durable: false)
            Issue.record("replacing a directory succeeded")
        } catch {
            #expect(error.step == "renaming over")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["taken"])
    }
}
