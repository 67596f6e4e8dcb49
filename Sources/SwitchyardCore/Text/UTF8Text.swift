/// Text that must be UTF-8 (route tables, configurations, CSV exports): the string, or where the
/// bytes stop being UTF-8, said as a person can find it in an editor.
public enum UTF8Text {
    /// Where bytes stop being UTF-8: the line (from 1) and the first byte that is not.
    public struct Invalid: Error, Sendable, Equatable, CustomStringConvertible {
        /// The line the byte is on, from 1.
        public var line: Int
        /// The byte.
        public var byte: UInt8

        /// `line 2, byte 0xE9 is not UTF-8 here`.
        public var description: String {
            let hex = String(byte, radix: 16, uppercase: true)
            return "line \(line), byte 0x\(hex.count == 1 ? "0" : "")\(hex) is not UTF-8 here"
        }
    }

    /// `bytes` as a string, or where they stop being UTF-8.
    public static func decode(_ bytes: [UInt8]) -> Result<String, Invalid> {
        if let text = String(validating: bytes, as: UTF8.self) { return .success(text) }
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        while case .valid(let scalar) = parser.parseScalar(from: &iterator) { offset += scalar.count }
        let line = 1 + bytes[..<offset].lazy.filter { $0 == 0x0A }.count
        return .failure(Invalid(line: line, byte: bytes[offset]))
    }
}
