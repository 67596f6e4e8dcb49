import LinkRequests
import Hummingbird
import LinkRules
import SwitchyardCore

/// `GET /api/resolve?url=`: the rule engine's answer for a web link, behind the address limit.
/// The engine runs matching and scripts (and their network calls) on its own threads; a request
/// that would wait behind more than a few per thread is turned away at once (503 `resolve-busy`).
struct ResolveController: Sendable {
    let engine: LinkEngine
    /// Resolves waiting for or running on the engine's threads.
    let gate: AdmissionGate

    func addRoutes(to group: RouterGroup<ServiceContext>) {
        group.get("resolve") { request, _ in try await resolve(request) }
    }

    func resolve(_ request: Request) async throws -> Response {
        guard let url = request.uri.queryParameters["url"].map(String.init), !url.isEmpty else {
            throw APIError.badRequest(.missingURL, "give the link to resolve as ?url=…", field: "url")
        }
        guard url.utf8.count <= 4096 else { throw APIError.badRequest(.invalidURL, "url is longer than 4096 bytes", field: "url") }
        // The same check as `switchyard resolve`: an absolute URL without spaces or control characters.
        if let problem = URLInput.problem(url) { throw APIError.badRequest(.invalidURL, "url \(LinkInput.excerpt(url)): \(problem)", field: "url") }
        let gate = gate
        return try await gate.enter(busy: { others in
            var busy = APIError(.serviceUnavailable, .resolveBusy, "\(others) resolves are already running or waiting (the limit is \(gate.limit)); try again shortly")
            busy.retryAfter = 1
            return busy
        }) { () async throws(APIError) -> Response in
            Response.json(await engine.resolve(url).json)
        }
    }
}
