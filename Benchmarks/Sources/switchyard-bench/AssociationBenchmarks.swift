import AssociatedDomains
import Foundation
import LinkRouting

/// The baseline a hand-written checker would use: translate each AASA pattern to a regex on
/// every call, then match.
enum RegexPerCallBaseline {
    static func regex(_ glob: String) -> NSRegularExpression {
        var out = "^"
        for ch in glob {
            switch ch {
            case "*": out += ".*"
            case "?": out += "."
            default: out += NSRegularExpression.escapedPattern(for: String(ch))
            }
        }
        return try! NSRegularExpression(pattern: out + "$", options: [.dotMatchesLineSeparators])
    }

    static func matches(_ glob: String, _ text: String) -> Bool {
        regex(glob).firstMatch(in: text, range: NSRange(location: 0, length: (text as NSString).length)) != nil
    }

    /// Components as (path, exclude) pairs; decides by path only, first match wins.
    static func decide(_ components: [(String, Bool)], _ url: String) -> AppSiteAssociation.Decision {
        guard let path = URLComponents(string: url)?.percentEncodedPath else { return .noMatch }
        let p = path.isEmpty ? "/" : path
        for (pattern, exclude) in components where matches(pattern, p) { return exclude ? .exclude : .match }
        return .noMatch
    }
}

enum AssociationBenchmarks {
    static func run() {
        // A realistic file: 40 components, excludes first, prefixes, exact paths, a catch-all last.
        var components: [(String, Bool)] = [("/account/*", true), ("/admin/*", true), ("/*.js", true), ("/*.css", true)]
        for i in 0..<35 { components.append((i % 3 == 0 ? "/section\(i)/*/detail/?*" : (i % 3 == 1 ? "/exact/page\(i)" : "/prefix\(i)/*"), false)) }
        components.append(("/*", false))
        let json = "{\"applinks\": {\"details\": [{\"appIDs\": [\"ABCDE12345.com.example.app\"], \"components\": ["
            + components.map { "{\"/\": \"\($0.0)\"" + ($0.1 ? ", \"exclude\": true}" : "}") }.joined(separator: ", ") + "]}]}}"
        let aasa = try! AppSiteAssociation(json: json)
        let urls = (0..<1_000).map { i -> String in
            switch i % 5 {
            case 0: return "https://example.com/section\(i % 35)/x/detail/\(i)"
            case 1: return "https://example.com/exact/page\(i % 35)"
            case 2: return "https://example.com/account/settings/\(i)"
            case 3: return "https://example.com/app\(i).js"
            default: return "https://example.com/unknown/\(i)/path"
            }
        }
        let app = "ABCDE12345.com.example.app"
        for u in urls where aasa.decide(u, for: app) != RegexPerCallBaseline.decide(components, u) {
            print("MISMATCH \(u): \(aasa.decide(u, for: app)) vs \(RegexPerCallBaseline.decide(components, u))")
            exit(1)
        }
        let compiled = measure(urls) { aasa.decide($0, for: app) == .match ? 1 : 0 }
        let baseline = measure(urls, seconds: 1) { RegexPerCallBaseline.decide(components, $0) == .match ? 1 : 0 }
        print("AASA decisions (\(components.count) components, \(urls.count) URLs):")
        print(String(format: "  regex per call: %8.2f µs/decision (%9.0f/s)   compiled: %6.3f µs/decision (%9.0f/s)   ratio %.1fx",
                     baseline / 1000, 1e9 / baseline, compiled / 1000, 1e9 / compiled, baseline / compiled))
    }
}

enum RouterBenchmarks {
    static func run() {
        let words = ["users", "items", "groups", "posts", "shop", "help", "news", "docs", "events", "media"]
        var routes: [Route] = []
        for i in 0..<1_000 {
            let a = words[i % words.count], b = words[(i / words.count) % words.count]
            let pattern: String
            switch i % 4 {
            case 0: pattern = "/\(a)\(i)/{id:int}"
            case 1: pattern = "/\(a)/\(b)\(i)/{slug}"
            case 2: pattern = "/\(b)\(i)/{id:uuid}/\(a)"
            default: pattern = "/\(a)\(i)/\(b)"
            }
            routes.append(try! Route(name: "r\(i)", pattern: pattern, query: i % 7 == 0 ? [("ref", "ref?")] : []))
        }
        let router = try! LinkRouter(hosts: ["example.com"], routes: routes)
        var urls: [String] = []
        for i in stride(from: 0, to: 1_000, by: 3) {
            let a = words[i % words.count], b = words[(i / words.count) % words.count]
            switch i % 4 {
            case 0: urls.append("https://example.com/\(a)\(i)/\(i * 7)")
            case 1: urls.append("https://example.com/\(a)/\(b)\(i)/some-slug")
            case 2: urls.append("https://example.com/\(b)\(i)/3f2504e0-4f89-11d3-9a0c-0305e82c3301/\(a)")
            default: urls.append("https://example.com/\(a)\(i)/\(b)?ref=x")
            }
        }
        urls.append("https://example.com/nothing/here")
        for u in urls where router.route(u).match != router.routeLinearly(u) {
            print("MISMATCH on \(u)")
            exit(1)
        }
        let trie = measure(urls) { router.route($0).match == nil ? 0 : 1 }
        let linear = measure(urls) { router.routeLinearly($0) == nil ? 0 : 1 }
        print("Router (\(routes.count) routes, \(urls.count) URLs):")
        print(String(format: "  linear scan: %8.2f µs/URL   trie: %6.2f µs/URL (%8.0f URLs/s)   ratio %.1fx", linear / 1000, trie / 1000, 1e9 / trie, linear / trie))
    }
}
