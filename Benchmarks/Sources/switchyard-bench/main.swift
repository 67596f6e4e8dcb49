import Foundation
import LinkRules

/// Every benchmark measures a baseline and the real thing in the same run and prints the ratio.
let arguments = CommandLine.arguments.dropFirst()
let which = arguments.first ?? "rules"

func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// Runs `body` over `inputs` repeatedly for at least `seconds`; returns ns per input.
func measure(_ inputs: [String], seconds: Double = 2, _ body: (String) -> Int) -> Double {
    var sink = 0
    for u in inputs.prefix(50) { sink &+= body(u) }  // warm-up
    var rounds = 0
    let start = now()
    var elapsed: UInt64 = 0
    repeat {
        for u in inputs { sink &+= body(u) }
        rounds += 1
        elapsed = now() - start
    } while Double(elapsed) < seconds * 1e9
    if sink == 42 { print("") }
    return Double(elapsed) / Double(rounds * inputs.count)
}

func fixturePath() -> String {
    if let i = arguments.firstIndex(of: "--manifest"), i + 1 < arguments.endIndex { return arguments[i + 1] }
    let here = URL(fileURLWithPath: #filePath)
    return here.deletingLastPathComponent().appendingPathComponent("../../../../shared/fixtures/opener/openerManifest-v4-sample.json").standardized.path
}

/// Real URLs (every test input of the manifest) plus random variants of them.
func urlSet(_ manifest: Manifest) -> [String] {
    var urls = manifest.actions.flatMap(\.testInputs).filter { !$0.contains("\n") }
    urls += manifest.browsers.flatMap(\.testInputs)
    urls += manifest.redirects.flatMap { $0.tests.map(\.input) }
    var rng = SystemRandomNumberGenerator()
    let hosts = ["example.com", "news.ycombinator.com", "www.nytimes.com", "en.wikipedia.org", "blog.example.org"]
    for i in 0..<200 {
        urls.append("https://\(hosts[i % hosts.count])/path/\(UInt32.random(in: 0...999_999, using: &rng))?q=\(i)")
    }
    return urls
}

switch which {
case "rules":
    let path = fixturePath()
    let manifest = try Manifest(contentsOf: path)
    let urls = urlSet(manifest)
    let indexed = LinkEngine(manifest: manifest, options: .init(offline: true, useIndex: true))
    let linear = LinkEngine(manifest: manifest, options: .init(offline: true, useIndex: false))
    // Sanity: both must agree before timing means anything.
    for u in urls where indexed.matchingActions(u) != linear.matchingActions(u) {
        print("MISMATCH on \(u)")
        exit(1)
    }
    print("manifest: \(path)")
    print("\(manifest.actions.count) actions, \(urls.count) URLs (fixture test inputs + 200 random)")
    let linearMatch = measure(urls) { linear.matchingActions($0).count }
    let indexMatch = measure(urls) { indexed.matchingActions($0).count }
    print(String(format: "action matching  linear scan: %9.2f µs/URL  (%8.0f URLs/s)", linearMatch / 1000, 1e9 / linearMatch))
    print(String(format: "action matching  index:       %9.2f µs/URL  (%8.0f URLs/s)", indexMatch / 1000, 1e9 / indexMatch))
    print(String(format: "ratio (index vs linear scan, action matching): %.1fx", linearMatch / indexMatch))
    let linearResolve = measure(urls) { linear.resolve($0).actions.count }
    let indexResolve = measure(urls) { indexed.resolve($0).actions.count }
    print(String(format: "full resolve     linear scan: %9.2f µs/URL", linearResolve / 1000))
    print(String(format: "full resolve     index:       %9.2f µs/URL", indexResolve / 1000))
    print(String(format: "ratio (index vs linear scan, full resolve incl. formats, scripts, browsers): %.1fx", linearResolve / indexResolve))
default:
    print("usage: switchyard-bench rules [--manifest PATH]")
    exit(2)
}
