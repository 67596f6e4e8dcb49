// The floor of the router path: Hummingbird's stock HTTP/1 server with one route that answers a
// file's bytes, no middleware, Swift Concurrency on NIO's event loops as in `switchyard serve`.
// `service-wrk.sh --floor` measures it beside the service's routed AASA, so the part of that
// path that is Hummingbird's own shows as a figure of the same run.
//   hummingbird-floor --port P --file F [--path /.well-known/apple-app-site-association]
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOPosix

_ = NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()

var options: [String: String] = ["--path": "/.well-known/apple-app-site-association"]
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let name = arguments.next() {
    guard let value = arguments.next() else { fatalError("usage: hummingbird-floor --port P --file F [--path PATH]") }
    options[name] = value
}
guard let port = options["--port"].flatMap(Int.init), let file = options["--file"], let path = options["--path"],
      let bytes = FileManager.default.contents(atPath: file) else {
    fatalError("usage: hummingbird-floor --port P --file F [--path PATH]")
}

let body = ByteBuffer(bytes: bytes)
let router = Router()
router.get(RouterPath(path)) { _, _ in
    Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: body))
}
var logger = Logger(label: "hummingbird-floor")
logger.logLevel = .warning
let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)), logger: logger)
try await app.runService()
