/// Where a problem is: a file, a line and column in it, a key path in a document
/// (`actions[12].formats[1].appId`, `service.publicURL`) — any of them, as far as known.
///
/// Printed the way compilers print locations, so editors and CI annotations pick it up:
/// `config.yaml:4:3: service.publicUrl`, `line 12, column 7`, or the path alone.
public struct SourceLocation: Hashable, Sendable, CustomStringConvertible {
    /// The file, as the user named it.
    public var file: String?
    /// 1-based line.
    public var line: Int?
    /// 1-based column, in characters.
    public var column: Int?
    /// The key path inside the document: `actions[12].formats[1].appId`.
    public var path: String?

    /// A location made of whatever is known; every part left out is unknown (nil).
    public init(file: String? = nil, line: Int? = nil, column: Int? = nil, path: String? = nil) {
        self.file = file
        self.line = line
        self.column = column
        self.path = path
    }

    /// True when nothing is known.
    public var isEmpty: Bool { file == nil && line == nil && path == nil }

    /// The same place in `file`.
    public func `in`(file: String?) -> SourceLocation {
        var copy = self
        copy.file = file
        return copy
    }

    /// `file:line:column` (`line L, column C` without a file), then the key path, joined by `: `; empty when nothing is known.
    public var description: String {
        var parts: [String] = []
        switch (file, line, column) {
        case let (file?, line?, column?): parts.append("\(file):\(line):\(column)")
        case let (file?, line?, nil): parts.append("\(file):\(line)")
        case let (file?, nil, _): parts.append(file)
        case let (nil, line?, column?): parts.append("line \(line), column \(column)")
        case let (nil, line?, nil): parts.append("line \(line)")
        case (nil, nil, _): break
        }
        if let path, !path.isEmpty { parts.append(path) }
        return parts.joined(separator: ": ")
    }
}
