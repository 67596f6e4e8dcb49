import Foundation
import Hummingbird
import LinkRequests
import LinkStorage
import Prometheus
import SwitchyardCore

/// `POST /api/links/bulk`: the answer, one result per item in the order given.
struct BulkLinksResponse: Encodable {
    /// One item's outcome: 201 with the link, or the status and error `POST /api/links` would
    /// have answered for it alone.
    struct Result: Encodable {
        var index: Int
        var status: Int
        var link: LinkResponse?
        var error: ErrorBody?
    }

    /// An item's error, as the API's `{"error": …}` carries it.
    struct ErrorBody: Encodable {
        var code: String
        var message: String
        var field: String?
    }

    var created: Int
    var failed: Int
    var results: [Result]
}

extension LinksController {
    /// The most links one bulk request may carry (the dashboard's CSV form too).
    static let mostBulkLinks = 1000
    /// Links of a bulk request that count as one request against `rateLimit.perToken`.
    static let linksPerRequest = 100

    /// `POST /api/links/bulk` with `{"links": [item, …]}`: each item a `POST /api/links` body,
    /// made by ``NewLinks/createEach(_:domain:token:now:)`` (its domain from the item, else
    /// `?domain=`). The answer is 200 with a result per item; the request itself is refused
    /// (400) only when it is not such a list, or holds more than ``mostBulkLinks`` items.
    func bulk(_ request: Request, _ context: ServiceContext) async throws -> Response {
        let token = try context.verifiedToken()
        let items = try Self.bulkItems(try await bulkBodies.json(request))
        let queried = try Self.domainParameter(request)
        // Every 100 links count as one request of the token's (the guard took the first).
        for _ in 1..<((items.count + Self.linksPerRequest - 1) / Self.linksPerRequest) { try await limits.token(token) }
        // Each link is held to the size POST /api/links takes.
        let most = self.bodies.maximumBytes
        let requests = items.map { item in Swift.Result { () throws(APIError) in
            let size = JSONWriter.compact(item).utf8.count
            guard size <= most else {
                throw APIError(.contentTooLarge, .bodyTooLarge, "this link is \(size) bytes as JSON, more than \(most) (service.maximumBodyBytes), the most one link may be")
            }
            return try LinkRequest.decode(item)
        } }
        let outcomes = await newLinks.createEach(requests, domain: queried, token: token, now: now)
        var results: [BulkLinksResponse.Result] = []
        for (index, outcome) in outcomes.enumerated() {
            switch outcome {
            case .success(let link):
                metrics.linksCreated.increment()
                results.append(.init(index: index, status: 201, link: answers.response(link, now: now())))
            case .failure(let error):
                results.append(.init(index: index, status: Int(error.status.code), error: .init(code: error.code.name, message: error.message, field: error.field)))
            }
        }
        let created = results.count { $0.status == 201 }
        return try Response.json(BulkLinksResponse(created: created, failed: results.count - created, results: results))
    }

    /// The items of a bulk body: `{"links": [object, …]}` with 1 to ``mostBulkLinks`` of them.
    static func bulkItems(_ body: JSONValue) throws(APIError) -> [JSONValue] {
        guard let members = body.objectMembers else {
            throw APIError.badRequest(.notAnObject, "the body must be a JSON object: {\"links\": [link, …]}, each link a POST /api/links body")
        }
        for (name, _) in members where name != "links" {
            throw APIError.badRequest(.unknownField, "unknown field \(JSONWriter.quote(name)); the body is {\"links\": [link, …]}", field: name)
        }
        guard let value = members.first(where: { $0.0 == "links" })?.1 else {
            throw APIError.badRequest(.missingField, "links is missing: the body is {\"links\": [link, …]}", field: "links")
        }
        guard case .array(let items) = value else {
            throw APIError.badRequest(.invalidField, "links must be an array of links, each a POST /api/links body", field: "links")
        }
        guard !items.isEmpty else { throw APIError.badRequest(.invalidField, "links is empty; give 1 to \(mostBulkLinks) links", field: "links") }
        guard items.count <= mostBulkLinks else {
            throw APIError.badRequest(.invalidField, "links holds \(items.count) links; at most \(mostBulkLinks) in one request", field: "links")
        }
        return items
    }
}
