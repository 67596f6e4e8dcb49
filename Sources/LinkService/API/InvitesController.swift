import LinkCache
import LinkRequests
import Foundation
import HTTPTypes
import Hummingbird
import LinkConfiguration
import LinkPages
import LinkStorage
import Prometheus
import SwitchyardCore
import SwitchyardDocuments

/// `/api/invite`: Plur-compatible invites. Creating one takes a `links:write` token (from
/// `X-Invite-Token` or `Authorization`); reading one decides itself: a use-limited invite read
/// without a token is a use, as a visit to its page is.
struct InvitesController: Sendable {
    /// The `invites` section; nil when the configuration has none (every route answers 404).
    let invites: ServiceConfiguration.Invites?
    let store: LinkStore
    let newLinks: NewLinks
    let answers: LinkAnswers
    let uses: LinkUses
    let limits: RequestLimits
    let tokens: TokenVerifier
    let bodies: RequestBodies
    let now: @Sendable () -> Date

    static let notConfigured = APIError(.notFound, .invitesNotConfigured, "this service has no invites section in its configuration")
    /// The header Plur's client sends its token in when it creates an invite.
    static let tokenHeader = HTTPField.Name("X-Invite-Token")!

    func addRoutes(to router: Router<ServiceContext>) {
        if invites != nil {
            router.group("/api").add(middleware: AddressLimit(limits: limits))
                .add(middleware: RequiresToken(tokens: tokens, scope: .linksWrite, header: Self.tokenHeader))
                .post("invite") { request, context in try await create(request, context) }
        } else {
            router.post("/api/invite") { _, _ -> Response in throw Self.notConfigured }
        }
        router.get("/api/invite/{code}") { request, context in try await get(request, context) }
    }

    func create(_ request: Request, _ context: ServiceContext) async throws -> Response {
        guard let invites else { throw Self.notConfigured }
        let token = try context.verifiedToken()
        let body = try await bodies.decode(InviteRequest.self, request)
        for (key, _) in body.fields.members where !invites.fields.contains(where: { $0.field == key }) {
            let known = invites.fields.map(\.field)
            let meant = DocumentShape.suggestion(for: key, among: known).map { "; did you mean \(JSONWriter.quote($0))?" } ?? ""
            throw APIError.badRequest(.unknownField, "unknown field \(JSONWriter.quote(key))\(meant) (known: \(known.joined(separator: ", ")))", field: key)
        }
        var link = StoredLink(code: "", createdAt: now())
        link.kind = .invite
        link.route = invites.route
        link.createdBy = token.id
        let given = body.fields.members
        for (field, parameter) in invites.fields {
            // Plur's client sends strings; a number is not silently made one.
            let value: String
            switch given.last(where: { $0.key == field })?.value {
            case nil, .null?:
                if invites.required.contains(field) { throw APIError.badRequest(.missingField, "\(field) is required", field: field) }
                continue
            case .string(let s)?: value = s
            case let other?: throw APIError.badRequest(.invalidField, "\(field) must be a string, not \(other.typeName)", field: field)
            }
            if value.isEmpty && invites.required.contains(field) { throw APIError.badRequest(.missingField, "\(field) is required and must not be empty", field: field) }
            try LinkInput.checkText(value, field: field)
            link.parameters.append((parameter, value))
        }
        try await newLinks.insert(&link, chosenCode: false)
        uses.metrics.linksCreated.increment()
        // A superset of both shapes Plur's client decodes: `{code, url}` (InviteCreateResponse)
        // and `{code, groupId, relay}` (InviteResponse), the fields in configuration order.
        var answer = fields(link, invites)
        answer.members.insert(("url", answers.pageURL(of: link)), at: 1)
        return try Response.json(answer, status: .created)
    }

    func get(_ request: Request, _ context: ServiceContext) async throws -> Response {
        guard let invites else { throw Self.notConfigured }
        let code = try answers.input.code(in: context)
        guard let link = try await store.link(code: code), link.kind == .invite else {
            throw APIError(.notFound, .notFound, "no invite with code \(code)", field: "code")
        }
        if let e = link.expiresAt, e <= now() { throw APIError(.gone, .expired, "invite \(code) expired") }
        // As its page answers: an invite used as often as it may be is gone.
        if let max = link.maxUses, link.clicks >= max { throw APIError(.gone, .usedUp, "invite \(code) has been used \(max) times, its limit") }
        if link.maxUses != nil, request.headers[.authorization] == nil, request.method == .get {
            // A use-limited invite's fields are what its uses protect: reading them without a
            // token is a use, counted as a visit to its page counts one (the app that a universal
            // link opened reads the invite instead of visiting the page). With a token
            // (`links:read`) it is an administrator's read and counts nothing.
            try await limits.address(request, context)
            let date = now()
            let audience = LandingPage.Audience(userAgent: request.headers[.userAgent])
            let address = { limits.addresses.address(request, context) }
            let visit = uses.hot.visit(code, platform: audience, at: date, bot: false, referer: request.headers[.referer], address: address,
                                       userAgent: request.headers[.userAgent], linkCampaign: link.campaign)
            switch try await uses.countUse(code, audience, at: date, visit: visit, address: address) {
            case .counted: break
            case .exhausted: throw APIError(.gone, .usedUp, "invite \(code) has been used \(link.maxUses ?? 0) times, its limit")
            case .missing: throw APIError(.notFound, .notFound, "no invite with code \(code)", field: "code")
            }
        } else if link.maxUses != nil, request.headers[.authorization] != nil {
            _ = try await tokens.authenticateCounted(request, context, .linksRead)
        } else if link.maxUses != nil {
            // HEAD without a token: the status and headers of the read, no use counted and no body.
            return Response(status: .ok, headers: [.contentType: "application/json"])
        }
        return try Response.json(fields(link, invites))
    }

    /// `code`, then every invite field (null when the invite has none).
    func fields(_ link: StoredLink, _ invites: ServiceConfiguration.Invites) -> OrderedMembers<String?> {
        var fields = OrderedMembers<String?>([("code", link.code)])
        for (field, parameter) in invites.fields where parameter != invites.codeParameter {
            fields.members.append((field, link.parameter(parameter)))
        }
        return fields
    }
}
