import Foundation
import SwitchyardTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// What the commands do with the files around them: `-o` writes where the user points (through
/// a link, a FIFO, a device) instead of replacing it; the relay never follows a link planted in
/// its inbox; state goes under the user's $HOME; a nonce file that is a directory is a usage error.
@Suite struct FileSafetyCLITests {
    static let manifest = #"{"apps": [], "actions": []}"#

    @Test func outputThroughASymbolicLinkWritesItsTargetAndKeepsTheLink() async throws {
        let directory = try ErrorPathCLITests.temporaryDirectory()
        let target = directory.appendingPathComponent("target.json").path
        let link = directory.appendingPathComponent("link.json").path
        try Data("old".utf8).write(to: URL(fileURLWithPath: target))
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "target.json")
        let r = try await CLITests.run(["manifest", "minify", "/dev/stdin", "-o", link], stdin: Self.manifest)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "target.json", "the link is still a link")
        #expect(try String(contentsOfFile: target, encoding: .utf8) == #"{"apps":[],"actions":[]}"# + "\n")
        // A link to a file that does not exist yet makes that file, and stays a link.
        let dangling = directory.appendingPathComponent("dangling.json").path
        try FileManager.default.createSymbolicLink(atPath: dangling, withDestinationPath: "new.json")
        #expect(try await CLITests.run(["manifest", "minify", "/dev/stdin", "-o", dangling], stdin: Self.manifest).status == 0)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: dangling) == "new.json")
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("new.json").path))
    }

    @Test func outputToAFIFOOrStdoutWritesThroughIt() async throws {
        let directory = try ErrorPathCLITests.temporaryDirectory()
        let fifo = directory.appendingPathComponent("out.fifo").path
        try #require(mkfifo(fifo, 0o600) == 0)
        // A reader on the FIFO, as `-o >(…)` or a named pipe would have.
        let reader = ChildProcess()
        reader.executableURL = URL(fileURLWithPath: "/bin/cat")
        reader.arguments = [fifo]
        let out = Pipe()
        reader.standardOutput = out
        try reader.run()
        let r = try await CLITests.run(["manifest", "minify", "/dev/stdin", "-o", fifo], stdin: Self.manifest)
        let read = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        reader.waitUntilExit()
        #expect(r.status == 0, "\(r.stderr)")
        #expect(read == #"{"apps":[],"actions":[]}"# + "\n")
        var info = stat()
        #expect(lstat(fifo, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO, "the FIFO is still a FIFO")
        // /dev/stdout is a device (here the test's pipe): written through, never replaced.
        let stdout = try await CLITests.run(["manifest", "minify", "/dev/stdin", "-o", "/dev/stdout"], stdin: Self.manifest)
        #expect(stdout.stdout == #"{"apps":[],"actions":[]}"# + "\n", "\(stdout.stderr)")
        let database = "sqlite:" + directory.appendingPathComponent("db.sqlite").path
        #expect(try await CLITests.run(["token", "create", "--name", "t", "--database", database]).status == 0, "export reads an existing database")
        let dash = try await CLITests.run(["export", "csv", "-o", "-", "--database", database])
        #expect(dash.status == 0 && dash.stdout.hasPrefix("code,"), "\(dash.stdout) \(dash.stderr)")
        #expect(!FileManager.default.fileExists(atPath: CLITests.testsDirectory.appendingPathComponent("-").path))
        let intoDirectory = try await CLITests.run(["manifest", "minify", "/dev/stdin", "-o", directory.path], stdin: Self.manifest)
        #expect(intoDirectory.status == 2)
        #expect(intoDirectory.stderr.hasSuffix("error: cannot write '\(directory.path)': it is a directory\n"), "\(intoDirectory.stderr)")
    }

    /// Anyone who can write to a shared inbox could plant a link to a file only the watcher may
    /// read; the watcher moves the link itself to rejected/ without reading through it.
    @Test func aSymbolicLinkInTheInboxIsNeverFollowed() async throws {
        let directory = try ErrorPathCLITests.temporaryDirectory()
        let inbox = directory.appendingPathComponent("inbox").path
        let secret = directory.appendingPathComponent("secret.txt").path
        try Data("plur://group/secret-line-1\nthe secret\n".utf8).write(to: URL(fileURLWithPath: secret))
        #expect(try await CLITests.run(["relay", "send", "plur://group/real", "--inbox", inbox]).status == 0)
        let planted = inbox + "/requests/00000000000000000001-planted.json"
        try FileManager.default.createSymbolicLink(atPath: planted, withDestinationPath: secret)
        let status = try await CLITests.run(["relay", "status", "--inbox", inbox])
        #expect(status.stdout.contains("1 waiting") && status.stdout.contains("; 1 file in requests/ holds no readable request (the next drain moves it to rejected/)"),
                "\(status.stdout)")
        let watch = ChildProcess()
        watch.executableURL = CLITests.binary
        watch.arguments = ["relay", "watch", "--inbox", inbox, "--poll", "0.2"]
        let out = Pipe(), err = Pipe()
        watch.standardOutput = out
        watch.standardError = err
        try watch.run()
        let output = CLITests.LogCollector(out.fileHandleForReading)
        let log = CLITests.LogCollector(err.fileHandleForReading)
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline && !output.text.contains("plur://group/real") { try await Task.sleep(for: .milliseconds(50)) }
        watch.terminate()
        await watch.waitForExit()
        #expect(output.finished().contains("plur://group/real"))
        #expect(!output.text.contains("secret"), "\(output.text)")
        #expect(log.finished().contains("rejected 00000000000000000001-planted.json: a symbolic link (not read); moved to rejected/"), "\(log.text)")
        let kept = inbox + "/rejected/00000000000000000001-planted.json"
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: kept)) == secret, "the link itself was moved")
        let rejected = try FileManager.default.contentsOfDirectory(atPath: inbox + "/rejected")
        for name in rejected where name != "00000000000000000001-planted.json" {
            let text = (try? String(contentsOfFile: inbox + "/rejected/" + name, encoding: .utf8)) ?? ""
            #expect(!text.contains("secret"), "\(name) holds the secret's text")
        }
    }

    /// $HOME (and $XDG_STATE_HOME) decide where state goes, as the README says.
    @Test func stateFollowsHomeAndANonceFileThatIsADirectoryIsAUsageError() async throws {
        let home = try ErrorPathCLITests.temporaryDirectory()
        let key = home.appendingPathComponent("k1.key").path
        try Data((0..<32).map { UInt8($0) }).write(to: URL(fileURLWithPath: key))
        let url = try await CLITests.run(["callback", "build", "--scheme", "helper", "--action", "a", "--key", "k1=\(key)"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let environment = ["HOME": home.path, "XDG_STATE_HOME": ""]
        let verified = try await CLITests.run(["callback", "verify", url, "--key", "k1=\(key)"], environment: environment)
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(FileManager.default.fileExists(atPath: home.path + "/.local/state/switchyard/callback-nonces"))
        let status = try await CLITests.run(["relay", "status"], environment: environment.merging(["SWITCHYARD_INBOX": ""]) { $1 })
        #expect(status.stderr.contains("'\(home.path)/.local/state/switchyard/inbox'"), "\(status.stderr)")
        // A relative XDG_STATE_HOME is ignored, as the XDG rules say; an absolute one is used.
        let relative = try await CLITests.run(["relay", "status"], environment: ["HOME": home.path, "XDG_STATE_HOME": "relative/x", "SWITCHYARD_INBOX": ""])
        #expect(relative.stderr.contains("'\(home.path)/.local/state/switchyard/inbox'"), "\(relative.stderr)")
        let absolute = try await CLITests.run(["relay", "status"], environment: ["HOME": home.path, "XDG_STATE_HOME": home.path + "/xdg", "SWITCHYARD_INBOX": ""])
        #expect(absolute.stderr.contains("'\(home.path)/xdg/switchyard/inbox'"), "\(absolute.stderr)")
        // A relative HOME is not used either (the nonces would follow the working directory).
        let relativeHome = try await CLITests.run(["relay", "status"], environment: ["HOME": "relhome", "XDG_STATE_HOME": "", "SWITCHYARD_INBOX": ""])
        // (Status reads the account's own inbox, on stdout, when it exists; else it says it is missing.)
        let said = relativeHome.stdout + relativeHome.stderr
        #expect(!said.contains("relhome") && said.contains("/.local/state/switchyard/inbox"), "\(said)")
        // One key id, two files: refused (the last one was used, silently).
        let twice = try await CLITests.run(["callback", "verify", url, "--key", "k1=\(key)", "--key", "k1=\(key)"])
        #expect(twice.status == 2 && twice.stderr.contains("--key k1 is given more than once"), "\(twice.stderr)")

        // A FIFO as the nonce file would block the read: refused as not a regular file.
        let fifo = home.appendingPathComponent("nonces.fifo").path
        try #require(mkfifo(fifo, 0o600) == 0)
        let blocked = try await CLITests.run(["callback", "verify", url, "--key", "k1=\(key)", "--seen", fifo])
        #expect(blocked.status == 2 && blocked.stderr.contains("a FIFO (not read); the nonce file must be a regular file"), "\(blocked.stderr)")
        // A symbolic link planted at the lock's name is not followed: nothing is made at its target.
        let victim = home.path + "/victim.txt"
        try FileManager.default.createSymbolicLink(atPath: home.path + "/planted.lock", withDestinationPath: victim)
        let planted = try await CLITests.run(["callback", "verify", url, "--key", "k1=\(key)", "--seen", home.path + "/planted"])
        #expect(planted.status == 2 && planted.stderr.contains("planted.lock: a symbolic link (a lock file is never followed)"), "\(planted.stderr)")
        #expect(!FileManager.default.fileExists(atPath: victim))
        // A nonce file hard-linked to another file is not written through.
        let victim2 = home.path + "/victim2.txt"
        try Data("untouched\n".utf8).write(to: URL(fileURLWithPath: victim2))
        #expect(link(victim2, home.path + "/linked") == 0)
        let hardLinked = try await CLITests.run(["callback", "verify", url, "--key", "k1=\(key)", "--seen", home.path + "/linked"])
        #expect(hardLinked.status == 2 && hardLinked.stderr.contains("it has another hard link"), "\(hardLinked.stderr)")
        #expect(try String(contentsOfFile: victim2, encoding: .utf8) == "untouched\n")
        let empty = try await CLITests.run(["callback", "verify", url, "--key", "k1=\(key)", "--seen", ""])
        #expect(empty.status == 2 && empty.stderr.contains("the nonce file's path is empty"), "\(empty.stderr)")
        // A chosen file in a directory that does not exist is refused, not made with its
        // directories: a mistyped path would forget every nonce already accepted.
        let typo = home.path + "/no-such-dir/nonces"
        let mistyped = try await CLITests.run(["callback", "verify", url, "--key", "k1=\(key)", "--seen", typo])
        #expect(mistyped.status == 2 && mistyped.stderr.hasPrefix("error: --seen '\(typo)': there is no directory '\(home.path)/no-such-dir'"), "\(mistyped.stderr)")
        #expect(!FileManager.default.fileExists(atPath: home.path + "/no-such-dir"))
        for seen in [".", home.path, home.path + "/"] {
            let r = try await CLITests.run(["callback", "verify", url, "--key", "k1=\(key)", "--seen", seen])
            #expect(r.status == 2, "\(seen): \(r.stderr)")
            #expect(r.stderr.contains("a directory, not a nonce file"), "\(seen): \(r.stderr)")
            #expect(!r.stderr.contains("crashed"))
        }
    }

    /// Bytes that are not UTF-8, in an argument or on stdin, are refused rather than stored as U+FFFD.
    @Test func relaySendRefusesBytesThatAreNotUTF8() async throws {
        let inbox = try ErrorPathCLITests.temporaryDirectory().appendingPathComponent("inbox").path
        let out = Pipe(), err = Pipe(), input = Pipe()
        // The argument as raw bytes (a Swift String cannot hold them): through the shell's printf.
        let pid = try ChildProcess.spawn("/bin/sh", ["-c", #"exec "$0" relay send "$(printf 'plur://group/\377')" --inbox "$1""#, CLITests.binary.path, inbox],
                                         environment: ProcessInfo.processInfo.environment, directory: nil,
                                         stdin: input.fileHandleForReading.fileDescriptor, stdout: out.fileHandleForWriting.fileDescriptor,
                                         stderr: err.fileHandleForWriting.fileDescriptor)
        try input.fileHandleForReading.close(); try input.fileHandleForWriting.close()
        try out.fileHandleForWriting.close(); try err.fileHandleForWriting.close()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(out.fileHandleForReading.readDataToEndOfFile().isEmpty)
        #expect(ChildProcess.wait(pid) == 1)
        #expect(stderr.contains("U+FFFD, the replacement for bytes that are not UTF-8"), "\(stderr)")
        // A source or metadata value decoded from such bytes holds U+FFFD: refused the same way.
        let source = try await CLITests.run(["relay", "send", "plur://group/s", "--source", "x\u{FFFD}", "--inbox", inbox])
        #expect(source.status == 1 && source.stderr.contains("the source contains the replacement character (U+FFFD)"), "\(source.stderr)")
        let meta = try await CLITests.run(["relay", "send", "plur://group/m", "--meta", "k=x\u{FFFD}", "--inbox", inbox])
        #expect(meta.status == 1, "\(meta.stderr)")
        let piped = try await CLITests.run(["relay", "send", "--stdin", "--inbox", inbox], stdin: "plur://group/ok\n")
        #expect(piped.status == 0)
        let status = try await CLITests.run(["relay", "status", "--inbox", inbox])
        #expect(status.stdout.contains("1 waiting"), "only the good one was stored: \(status.stdout)")
    }
}
