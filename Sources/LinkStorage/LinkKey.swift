/// A link's stored key, which every table keyed by a link's code holds: the code itself for a
/// link of the first domain (every link stored before domains, and every link of a service of
/// one domain), `name/code` for a link of another domain. A code never holds `/`, so the same
/// code on two domains is two links, and a first domain's key is its code as it always was.
package enum LinkKey {
    /// The key of `code` on the domain named `domain`; nil: the first domain.
    package static func key(code: String, domain: String?) -> String {
        domain.map { $0 + "/" + code } ?? code
    }

    /// The name of the domain `key` belongs to; nil: the first domain.
    package static func domain(of key: String) -> String? {
        key.firstIndex(of: "/").map { String(key[..<$0]) }
    }

    /// The code of `key`, as its domain's pages and the API show it.
    package static func code(of key: String) -> String {
        key.firstIndex(of: "/").map { String(key[key.index(after: $0)...]) } ?? key
    }
}
