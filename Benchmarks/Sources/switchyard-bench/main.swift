import Foundation
import LinkRules

/// Every benchmark measures a baseline and the real thing in the same run and prints the ratio.
let arguments = CommandLine.arguments.dropFirst()
let which = arguments.first ?? "rules"

func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// Runs `body` over `inputs` in rounds for about `seconds` in total and returns the best
/// round's ns per input (the minimum is the least disturbed by other work on the machine).
func measure(_ inputs: [String], seconds: Double = 2, _ body: (String) -> Int) -> Double {
    var sink = 0
    for u in inputs.prefix(50) { sink &+= body(u) }  // warm-up
    var best = Double.infinity
    let start = now()
    repeat {
        let roundStart = now()
        for u in inputs { sink &+= body(u) }
        best = min(best, Double(now() - roundStart) / Double(inputs.count))
    } while Double(now() - start) < seconds * 1e9
    if sink == 42 { print("") }
    return best
}

func option(_ name: String) -> String? {
    guard let i = arguments.firstIndex(of: name), i + 1 < arguments.endIndex else { return nil }
    return arguments[i + 1]
}

func fixturePath() -> String {
    if let i = arguments.firstIndex(of: "--manifest"), i + 1 < arguments.endIndex { return arguments[i + 1] }
    let here = URL(fileURLWithPath: #filePath)
    return here.deletingLastPathComponent().appendingPathComponent("../../../../shared/fixtures/opener/openerManifest-v4-sample.json").standardized.path
}

/// Every test input of the manifest: each is a link some action is meant to handle (or to
/// reject on purpose), so this set is the worst case for an index.
func fixtureURLs(_ manifest: Manifest) -> [String] {
    manifest.actions.flatMap(\.testInputs).filter { !$0.contains("\n") }
}

/// Ordinary web links that no app claims (articles, docs, shops), generated with a fixed seed.
func ordinaryURLs(count: Int) -> [String] {
    var state: UInt64 = 0x5717_C4A2
    func next(_ n: Int) -> Int {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return Int((state >> 33) % UInt64(n))
    }
    let hosts = ["www.nytimes.com", "news.ycombinator.com", "developer.apple.com", "www.bbc.co.uk", "docs.swift.org", "blog.example.org",
                 "www.theverge.com", "arstechnica.com", "www.wired.com", "stackoverflow.com", "www.npr.org", "www.lemonde.fr",
                 "www.spiegel.de", "en.wikipedia.org", "www.etsy.com", "www.ikea.com", "forums.swift.org", "www.kernel.org"]
    let words = ["2026", "tech", "swift", "review", "how-to", "news", "world", "article", "guide", "products", "story", "a1b2"]
    return (0..<count).map { i in
        let path = (0..<(1 + next(4))).map { _ in words[next(words.count)] }.joined(separator: "/")
        return "https://\(hosts[next(hosts.count)])/\(path)" + (i % 3 == 0 ? "?utm_source=share&id=\(next(100_000))" : "")
    }
}

func compare(_ title: String, _ urls: [String], _ indexed: LinkEngine, _ linear: LinkEngine) {
    for u in urls where indexed.matchingActions(u) != linear.matchingActions(u) {
        print("MISMATCH on \(u)")
        exit(1)
    }
    let linearMatch = measure(urls) { linear.matchingActions($0).count }
    let indexMatch = measure(urls) { indexed.matchingActions($0).count }
    print("\(title): \(urls.count) URLs")
    print(String(format: "  linear scan: %8.2f µs/URL (%7.0f URLs/s)   index: %6.2f µs/URL (%7.0f URLs/s)   ratio %.1fx",
                 linearMatch / 1000, 1e9 / linearMatch, indexMatch / 1000, 1e9 / indexMatch, linearMatch / indexMatch))
}

switch which {
case "rules":
    let path = fixturePath()
    let manifest = try Manifest(contentsOf: path)
    let indexed = LinkEngine(manifest: manifest, options: .init(offline: true, useIndex: true))
    let linear = LinkEngine(manifest: manifest, options: .init(offline: true, useIndex: false))
    print("manifest: \(path) (\(manifest.actions.count) actions); action matching, release build")
    let fixture = fixtureURLs(manifest)
    let ordinary = ordinaryURLs(count: fixture.count)
    compare("fixture test inputs (every URL is meant for an action)", fixture, indexed, linear)
    compare("ordinary web links (no app claims them)", ordinary, indexed, linear)
    compare("mixed 1:1", zip(fixture, ordinary).flatMap { [$0, $1] }, indexed, linear)
case "resolve":
    try await ResolveBenchmark.run(manifestPath: fixturePath(), binary: option("--binary") ?? "../.build/release/switchyard")
case "aasa":
    AssociationBenchmarks.run()
case "routes":
    RouterBenchmarks.run()
case "relay":
    RelayBenchmarks.run()
case "scripts":
    await ScriptBenchmarks.run()
case "agents":
    guard let agents = option("--agents") else {
        print("usage: switchyard-bench agents --agents FILE [--regexes FILE]")
        exit(2)
    }
    try AgentBenchmark.run(agentsPath: agents, regexes: option("--regexes") ?? "/usr/share/uap-core/regexes.yaml")
default:
    print("usage: switchyard-bench rules [--manifest PATH] | resolve [--manifest PATH] [--binary PATH] | aasa | routes | relay | scripts | agents --agents FILE [--regexes FILE]")
    exit(2)
}
