import Foundation
import CFuzzerDriver
import LinkRouting

let table: LinkRouter = {
    let yaml = """
        hosts: [rabble.community, www.rabble.community]
        routes:
          - {name: inviteEmbedded, pattern: '/i/{target:url}'}
          - {name: invite, pattern: '/i/{code}'}
          - {name: join, pattern: '/join/{groupId}', query: {code: code, relay: relay?}}
          - {name: item, pattern: '/items/{id:int}/{kind:a|b|c}', query: {page: 'page:int?'}}
          - {name: user, pattern: '/users/{id:uuid}'}
          - {name: files, pattern: '/files/{path:*}'}
          - {name: appGroup, pattern: 'plur://group/{groupId}', query: {relay: relay?}}
          - {name: appHome, pattern: 'plur://'}
        """
    return try! LinkRouter(yaml: yaml)
}()

/// Input: a URL. Routes it, builds the canonical URL back, routes that again (it must agree),
/// and compares with the linear scan.
func fuzzRouter(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data else { return 0 }
    let url = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let match = table.route(url).match
    let linear = table.routeLinearly(url)
    if match != linear { fatalError("trie and linear scan disagree on \(url.debugDescription)") }
    if let match, let built = table.url(for: match) {
        guard let again = table.route(built).match, again.route == match.route else {
            fatalError("\(built.debugDescription) (built from \(url.debugDescription)) does not route back to \(match.route)")
        }
    }
    return 0
}

// Top-level code: hand the process to libFuzzer with our callback.
var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzRouter(data, size) })
