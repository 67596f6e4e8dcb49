import LinkRequests
import HTTPTypes
import SwitchyardCore

/// What the service answers, by path and method, as its OpenAPI document lists it: the 404 or
/// the 405 (with Allow) for a request no route takes. Made at start from the document the
/// service serves.
struct ServiceEndpoints: Sendable {
    /// The paths and methods the service answers, from the OpenAPI document (`OpenAPITests`
    /// keeps it equal to the router). A `{name}` is one segment; `{path}` and `{rest}` at the end
    /// are the router's catch-alls (one segment or more).
    let endpoints: [(segments: [Substring], methods: [String])]

    /// The endpoints of the OpenAPI document `openAPI` (read at start); none without one.
    init(openAPI text: String?) {
        guard let text, let document = try? JSONParser.parse(text) else { endpoints = []; return }
        endpoints = (document["paths"]?.objectMembers ?? []).map { member in
            let methods = (member.value.objectMembers ?? []).map(\.key).filter { ["get", "post", "put", "patch", "delete"].contains($0) }
            return (member.key.split(separator: "/"), methods.map { $0.uppercased() })
        }
    }

    /// The answer for a method and path no route takes: 405 naming the methods that path has,
    /// or 404.
    func unmatched(method: HTTPRequest.Method, path: String) -> APIError {
        let segments = path.split(separator: "/")
        var allowed: [String] = []
        for endpoint in endpoints {
            let template = endpoint.segments
            // No route's page is served under /api/, /admin/ or /v1/: the service's own paths.
            if template == ["{path}"], let first = segments.first, ["api", "admin", "v1"].contains(first) { continue }
            let catchAll = template.last == "{path}" || template.last == "{rest}"
            guard catchAll ? segments.count >= template.count : segments.count == template.count else { continue }
            guard zip(template, segments).allSatisfy({ $0.hasPrefix("{") || $0 == $1 }) else { continue }
            for m in endpoint.methods where !allowed.contains(m) { allowed.append(m) }
        }
        if allowed.contains("GET") { allowed.append("HEAD") }
        let order = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"]
        allowed.sort { order.firstIndex(of: $0)! < order.firstIndex(of: $1)! }
        guard !allowed.isEmpty, !allowed.contains(method.rawValue) else { return APIError(.notFound, .notFound, "nothing is served at \(path)") }
        var error = APIError(.methodNotAllowed, .methodNotAllowed, "\(method) is not served at \(path); it answers \(allowed.joined(separator: ", "))")
        error.allow = allowed
        return error
    }
}
