import SwitchyardTestSupport
import Foundation
@testable import SwitchyardCore
import Testing

/// `DurableFile.writeOutput`, what `-o FILE` options write with: a file replaced keeps who may
/// read it, and the file a symbolic link names is the one written.
@Suite struct DurableFileOutputTests {
    func directory() throws -> String {
        let path = TestTemporary.root.path + "/sy-output-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    func mode(_ path: String) -> mode_t {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o7777 : 0
    }

    @Test func aReplacedFileKeepsItsPermissions() throws {
        let dir = try directory()
        for permissions: mode_t in [0o600, 0o640, 0o644] {
            let path = dir + "/links-\(permissions).csv"
            #expect(FileManager.default.createFile(atPath: path, contents: Data("old".utf8)))
            #expect(chmod(path, permissions) == 0)
            try DurableFile.writeOutput(path, Array("new\n".utf8))
            #expect(try String(contentsOfFile: path, encoding: .utf8) == "new\n")
            #expect(mode(path) == permissions, "\(String(permissions, radix: 8)) became \(String(mode(path), radix: 8))")
        }
        // A new file: the usual 0644 less the umask, never more.
        try DurableFile.writeOutput(dir + "/new.csv", Array("x".utf8))
        #expect(mode(dir + "/new.csv") & 0o022 == 0)
    }

    @Test func aLinkWritesTheFileItNamesAndADirectoryIsRefused() throws {
        let dir = try directory()
        try FileManager.default.createDirectory(atPath: dir + "/real", withIntermediateDirectories: true)
        #expect(symlink("real/target.csv", dir + "/link.csv") == 0)
        try DurableFile.writeOutput(dir + "/link.csv", Array("through\n".utf8))
        #expect(try String(contentsOfFile: dir + "/real/target.csv", encoding: .utf8) == "through\n")
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: dir + "/link.csv")) == "real/target.csv", "the link stays a link")
        #expect(throws: FileError(.io, path: dir + "/real", "cannot write '\(dir)/real': it is a directory", errno: EISDIR)) {
            try DurableFile.writeOutput(dir + "/real", Array("x".utf8))
        }
        // An empty path names no file: refused before anything is written (no stray temporary file).
        let before = try FileManager.default.contentsOfDirectory(atPath: FileManager.default.currentDirectoryPath)
        #expect(throws: FileError.self) { try DurableFile.writeOutput("", Array("x".utf8)) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: FileManager.default.currentDirectoryPath) == before)
    }

    /// A write that cannot be renamed into place (a directory there) leaves no staging file.
    @Test func aFailedWriteLeavesNoStagingFile() throws {
        let dir = try directory()
        try FileManager.default.createDirectory(atPath: dir + "/taken", withIntermediateDirectories: false)
        #expect(throws: FileError.self) { try DurableFile.write(dir + "/taken", Array("x".utf8)) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["taken"])
    }
}
