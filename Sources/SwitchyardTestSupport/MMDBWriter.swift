import Foundation

/// Debian's libmaxmind-db-writer-perl, with which the geo tests write their own databases.
public enum MMDBWriter {
    /// Whether `perl` can load `MaxMind::DB::Writer::Tree`.
    public static let installed: Bool = {
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/perl")
        probe.arguments = ["-MMaxMind::DB::Writer::Tree", "-e", "1"]
        probe.standardError = FileHandle.nullDevice
        guard (try? probe.run()) != nil else { return false }
        probe.waitUntilExit()
        return probe.terminationStatus == 0
    }()
}
