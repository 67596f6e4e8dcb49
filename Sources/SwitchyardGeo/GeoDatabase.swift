import CMaxMindDB
import Foundation
import SwitchyardCore

#if canImport(Glibc)
import Glibc
#endif

/// A MaxMind-format database (`.mmdb`: DB-IP's Lite files, GeoLite2, a commercial file) opened
/// with libmaxminddb, which maps the file and answers lookups from the mapping; any number of
/// threads may look up at once.
///
/// ```swift
/// let geo = try GeoDatabase(path: "dbip-city-lite.mmdb")
/// let place = try geo.lookup("81.2.69.160")
/// place.country   // "GB"
/// ```
public final class GeoDatabase: @unchecked Sendable {
    // libmaxminddb reads an opened MMDB_s without writing to it, so lookups from several
    // threads are safe; it is closed once, when the last reference goes.
    private var mmdb = MMDB_s()
    /// The file as given.
    public let path: String
    /// The file's `database_type` (`GeoLite2-City`, `DBIP-City-Lite`, …).
    public let databaseType: String
    /// 4 or 6: the addresses the file's tree holds.
    public let ipVersion: Int

    /// What the file says of one address: its network and the place, each nil (or empty) where
    /// the file has none.
    public struct Place: Sendable, Equatable {
        /// The address looked up, as given.
        public var address: String
        /// The network of the file's record, `81.2.69.160/27`; nil when the file has none for it.
        public var network: String?
        /// The continent code (`EU`).
        public var continent: String?
        /// The country's ISO 3166-1 code (`GB`).
        public var country: String?
        /// The subdivisions' ISO 3166-2 codes, largest first (`ENG`).
        public var subdivisions: [String]
        /// The city's English name.
        public var city: String?

        /// A place with these fields.
        public init(address: String, network: String? = nil, continent: String? = nil, country: String? = nil, subdivisions: [String] = [], city: String? = nil) {
            (self.address, self.network, self.continent, self.country, self.subdivisions, self.city) = (address, network, continent, country, subdivisions, city)
        }
    }

    /// Opens `path`; throws a ``GeoError`` with the path and what is wrong: no such file, not a
    /// MaxMind database, a corrupt one (its metadata, or a search tree that does not answer).
    public convenience init(path: String) throws(GeoError) {
        try self.init(opening: path, named: path)
    }

    /// Opens a copy of `path` in memory of its own (Linux: an unlinked temporary file, mapped),
    /// so the file may then be replaced or rewritten in place without changing what this
    /// database answers; elsewhere, the file itself.
    public convenience init(snapshotOf path: String) throws(GeoError) {
        #if os(Linux)
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw GeoError(.invalidDatabase, "\(path): \(FileManager.default.fileExists(atPath: path) ? "cannot be read" : "no such file")")
        }
        var template = Array((NSTemporaryDirectory() + "/switchyard-geo-XXXXXX").utf8CString)
        let fd = mkstemp(&template)
        guard fd >= 0 else { throw GeoError(.invalidDatabase, "\(path): no temporary file for its copy (\(String(cString: strerror(errno))))") }
        defer { close(fd) }
        unlink(template)
        let written = data.withUnsafeBytes { raw -> Bool in
            var offset = 0
            while offset < raw.count {
                let n = write(fd, raw.baseAddress! + offset, raw.count - offset)
                guard n > 0 else { return false }
                offset += n
            }
            return true
        }
        guard written else { throw GeoError(.invalidDatabase, "\(path): its copy cannot be written (\(String(cString: strerror(errno))))") }
        try self.init(opening: "/proc/self/fd/\(fd)", named: path)
        #else
        try self.init(opening: path, named: path)
        #endif
    }

    private init(opening file: String, named path: String) throws(GeoError) {
        self.path = path
        let status = MMDB_open(file, UInt32(MMDB_MODE_MMAP), &mmdb)
        guard status == MMDB_SUCCESS else {
            let reason = status == MMDB_FILE_OPEN_ERROR ? (FileManager.default.fileExists(atPath: path) ? "cannot be read" : "no such file")
                : "not a usable MaxMind database (\(String(cString: MMDB_strerror(status))))"
            throw GeoError(.invalidDatabase, "\(path): \(reason)")
        }
        databaseType = mmdb.metadata.database_type.map { String(cString: $0) } ?? ""
        ipVersion = Int(mmdb.metadata.ip_version)
        // (deinit closes the file: every property is set by now.)
        do { try verify() } catch { throw GeoError(.invalidDatabase, "\(path): \(error.message)") }
    }

    /// Reads every node of the search tree and decodes every record it points to, once each, so
    /// a damaged tree or data section is refused when the file is opened, not found on the
    /// visits whose address lands on the damage.
    func verify() throws(GeoError) {
        let nodes = mmdb.metadata.node_count
        var decoded = Set<UInt32>()
        var node = MMDB_search_node_s()
        for number in 0..<nodes {
            let status = MMDB_read_node(&mmdb, number, &node)
            guard status == MMDB_SUCCESS else {
                throw GeoError(.invalidDatabase, "the search tree is corrupt: node \(number) cannot be read (\(String(cString: MMDB_strerror(status))))")
            }
            for (type, entry) in [(node.left_record_type, node.left_record_entry), (node.right_record_type, node.right_record_entry)] {
                switch Int32(type) {
                case MMDB_RECORD_TYPE_INVALID:
                    throw GeoError(.invalidDatabase, "the search tree is corrupt: node \(number) points outside the file")
                case MMDB_RECORD_TYPE_DATA:
                    guard decoded.insert(entry.offset).inserted else { continue }
                    var list: UnsafeMutablePointer<MMDB_entry_data_list_s>?
                    var start = entry
                    let decodeStatus = MMDB_get_entry_data_list(&start, &list)
                    defer { MMDB_free_entry_data_list(list) }
                    guard decodeStatus == MMDB_SUCCESS else {
                        throw GeoError(.invalidDatabase, "the data section is corrupt: the record at offset \(entry.offset) cannot be read (\(String(cString: MMDB_strerror(decodeStatus))))")
                    }
                    // libmaxminddb does not check text: a damaged string shows as bytes that are no UTF-8.
                    var item = list
                    while let current = item {
                        let data = current.pointee.entry_data
                        if data.type == UInt32(MMDB_DATA_TYPE_UTF8_STRING), let text = data.utf8_string,
                           String(validating: UnsafeRawBufferPointer(start: text, count: Int(data.data_size)), as: UTF8.self) == nil {
                            throw GeoError(.invalidDatabase, "the data section is corrupt: the record at offset \(entry.offset) holds text that is not UTF-8")
                        }
                        item = current.pointee.next
                    }
                default:
                    continue
                }
            }
        }
    }

    deinit { MMDB_close(&mmdb) }

    /// The place of `address` (IPv4 or IPv6, numeric: nothing is resolved). Throws
    /// `invalid-address` for text that is no address, and `invalid-database` for a lookup the
    /// file cannot answer (a damaged tree, an IPv6 address in an IPv4-only file).
    public func lookup(_ address: String) throws(GeoError) -> Place {
        var place = Place(address: address, subdivisions: [])
        guard let bytes = Self.addressBytes(address) else {
            throw GeoError(.invalidAddress, "\(address.displayExcerpt()) is not an IPv4 or IPv6 address")
        }
        var gaiError: Int32 = 0, mmdbError: Int32 = 0
        var result = MMDB_lookup_string(&mmdb, address, &gaiError, &mmdbError)
        guard gaiError == 0 else { throw GeoError(.invalidAddress, "\(address.displayExcerpt()) is not an IPv4 or IPv6 address") }
        guard mmdbError == MMDB_SUCCESS else {
            throw GeoError(.invalidDatabase, "looking up \(address) failed: \(String(cString: MMDB_strerror(mmdbError)))")
        }
        guard result.found_entry else { return place }
        place.network = Self.network(bytes, netmask: Int(result.netmask), treeIsIPv6: ipVersion == 6)
        place.continent = try text(&result.entry, ["continent", "code"])
        place.country = try text(&result.entry, ["country", "iso_code"])
        var index = 0
        while index < 8, let code = try text(&result.entry, ["subdivisions", String(index), "iso_code"]) {
            place.subdivisions.append(code)
            index += 1
        }
        place.city = try text(&result.entry, ["city", "names", "en"])
        return place
    }

    /// The UTF-8 string at `path` of an entry, nil when the entry has none there.
    private func text(_ entry: inout MMDB_entry_s, _ path: [String]) throws(GeoError) -> String? {
        var data = MMDB_entry_data_s()
        let cStrings = path.map { strdup($0) }
        defer { cStrings.forEach { free($0) } }
        var pointers: [UnsafePointer<CChar>?] = cStrings.map { UnsafePointer($0) } + [nil]
        let status = pointers.withUnsafeMutableBufferPointer { MMDB_aget_value(&entry, &data, $0.baseAddress) }
        // A path the record does not have (no city in a country file) is no error here.
        if status == MMDB_LOOKUP_PATH_DOES_NOT_MATCH_DATA_ERROR || status == MMDB_INVALID_LOOKUP_PATH_ERROR { return nil }
        guard status == MMDB_SUCCESS else {
            throw GeoError(.invalidDatabase, "reading \(path.joined(separator: ".")) failed: \(String(cString: MMDB_strerror(status)))")
        }
        guard data.has_data, data.type == UInt32(MMDB_DATA_TYPE_UTF8_STRING), let start = data.utf8_string else { return nil }
        let bytes = UnsafeRawBufferPointer(start: start, count: Int(data.data_size))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The 4 or 16 bytes of a numeric IPv4 or IPv6 address, or nil.
    static func addressBytes(_ text: String) -> [UInt8]? {
        guard !text.isEmpty, text.utf8.count <= 64, text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }

    /// `address/prefix` of the record's network: `netmask` counts bits of the tree, whose IPv4
    /// addresses sit under 96 bits of zeros when the tree is IPv6.
    static func network(_ bytes: [UInt8], netmask: Int, treeIsIPv6: Bool) -> String {
        let v4 = bytes.count == 4
        let prefix = max(0, v4 && treeIsIPv6 ? netmask - 96 : netmask)
        var masked = bytes
        for i in masked.indices {
            let keep = max(0, min(8, prefix - i * 8))
            masked[i] &= keep == 8 ? 0xFF : UInt8(truncatingIfNeeded: 0xFF << (8 - keep))
        }
        if v4 { return masked.map(String.init).joined(separator: ".") + "/\(prefix)" }
        var address = in6_addr()
        withUnsafeMutableBytes(of: &address) { $0.copyBytes(from: masked) }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        inet_ntop(AF_INET6, &address, &text, socklen_t(text.count))
        return String(cString: text) + "/\(prefix)"
    }
}

/// A geo database or address that cannot be used: `invalid-database` (with the file and what is
/// wrong) or `invalid-address`.
public typealias GeoError = DomainError<GeoErrors>

/// The domain of ``GeoError``.
public enum GeoErrors: ErrorDomain {}

extension ErrorCode {
    /// A `.mmdb` file that is missing, unreadable, not a MaxMind database, or damaged.
    public static let invalidDatabase = ErrorCode("invalid-database")
    /// Text given as an address that is no numeric IPv4 or IPv6 address.
    public static let invalidAddress = ErrorCode("invalid-address")
}
