import ArgumentParser
import Foundation
import LinkRules

/// Writing to stdout/stderr with explicit flushing, so that batch output streams line by line.
enum Output {
    static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    static func error(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    static var stderrIsTerminal: Bool { isatty(STDERR_FILENO) != 0 }

    /// Inputs from the arguments, or — when there are none — from stdin, one per line, lazily.
    static func inputs(_ arguments: [String]) -> AnySequence<String> {
        if !arguments.isEmpty { return AnySequence(arguments) }
        return AnySequence(AnyIterator {
            while let line = readLine(strippingNewline: true) {
                let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
                if !trimmed.isEmpty { return trimmed }
            }
            return nil
        })
    }
}

/// Options shared by the commands that load a manifest.
struct ManifestOption: ParsableArguments {
    @Option(name: .long, help: "An Opener-format manifest (default: Switchyard's own rule set).")
    var manifest: String?

    func load() throws -> Manifest {
        do {
            if let manifest { return try Manifest(contentsOf: manifest) }
            return try Manifest.defaultRules()
        } catch {
            Output.error("error: \(manifest ?? "default rules"): \(error)")
            throw ExitCode(2)
        }
    }
}

