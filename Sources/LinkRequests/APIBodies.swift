import Foundation
import Hummingbird
import LinkStorage
import SwitchyardCore

// The API's request and response bodies as types. Requests are read by `JSONValueDecoder`
// over the strict parser (duplicate keys and lone surrogates refused); what the decoder
// refuses becomes a 400 naming the JSON path. Responses are written by `JSONValueEncoder`, so
// every field is present, `null` when it has no value, in the order declared here (the order
// the OpenAPI document lists).

/// A request body: decoded strictly, its refusals answered with the endpoint's own codes.
package protocol APIRequestBody: Decodable {
    /// The code for a value of the wrong type or shape at `field` (a top-level member).
    static func invalidCode(field: String) -> ErrorCode
    /// The body's shape, appended to its refusals when a reminder helps (`{"token": "…"}`).
    static var shape: String? { get }
    /// What to say of a value of the wrong type or shape at `field`, when the decoder's words
    /// would not name the range the endpoint takes.
    static func invalidMessage(field: String) -> String?
}

extension APIRequestBody {
    package static func invalidCode(field: String) -> ErrorCode { .invalidField }
    package static var shape: String? { nil }
    package static func invalidMessage(field: String) -> String? { nil }

    /// The body read from `value`, or a 400 that names the path and why.
    package static func decode(_ value: JSONValue) throws(APIError) -> Self {
        do { return try JSONValueDecoder().decode(Self.self, from: value) } catch {
            throw apiError(error)
        }
    }

    package static func apiError(_ error: JSONDecodingError) -> APIError {
        let reminder = shape.map { ": the body is \($0)" } ?? ""
        guard let field = error.field else {
            return .badRequest(.notAnObject, "the body must be a JSON object\(reminder)")
        }
        switch error.problem {
        case .unknownField: return .badRequest(.unknownField, error.message, field: error.path)
        case .missing: return .badRequest(.missingField, error.message + reminder, field: error.path)
        case .wrongType, .invalid:
            let message = error.path == field ? invalidMessage(field: field) ?? error.message : error.message
            return .badRequest(invalidCode(field: field), message, field: error.path)
        }
    }
}

extension Response {
    /// A JSON response from a typed body.
    package static func json(_ body: some Encodable, status: HTTPResponse.Status = .ok, nilMembers: JSONValueEncoder.NilMembers = .null) throws(APIError) -> Response {
        json(try encoded(body, nilMembers: nilMembers), status: status)
    }

    /// `body` as a JSON value; a value JSON cannot hold is a 500 (never sent: the bodies hold
    /// strings, whole numbers and booleans).
    package static func encoded(_ body: some Encodable, nilMembers: JSONValueEncoder.NilMembers = .null) throws(APIError) -> JSONValue {
        do { return try JSONValueEncoder(nilMembers: nilMembers).encode(body) } catch {
            throw APIError(.internalServerError, .invalidValue, "the answer could not be written", cause: error)
        }
    }
}

// MARK: Links

/// `POST /api/links` (and the fields `PATCH` may change): see `LinkInput.read`.
package struct LinkRequest: APIRequestBody, Encodable {
    package var code: String?
    /// The name of the domain the link is made on (a `domains` list's `name`); nil: the first.
    package var domain: String?
    package var deepLink: String?
    package var route: String?
    package var parameters: OrderedMembers<ParameterValue>?
    package var webURL: String?
    package var appStoreURL: String?
    package var playStoreURL: String?
    package var title: String?
    package var description: String?
    package var image: String?
    package var expiresAt: String?
    package var expiresIn: Double?
    package var maxUses: Int64?
    package var utm: UTM?
    package var tags: [String]?
    /// Where visitors go once the link has expired or been used up.
    package var expiredURL: String?
    /// The password the link's page asks for before anything of the link is shown; kept only
    /// as a hash, never answered.
    package var password: String?

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case code, domain, deepLink, route, parameters, webURL, appStoreURL, playStoreURL, title, description, image, expiresAt, expiresIn, maxUses, utm, tags
        case expiredURL, password
    }

    /// A link's campaign values (`utm` in the API): each its `utm_*` parameter's value.
    package struct UTM: Codable, Equatable {
        package var source: String?
        package var medium: String?
        package var campaign: String?
        package var term: String?
        package var content: String?

        // Listed, so that a member of another name is refused with its path.
        package enum CodingKeys: String, CodingKey, CaseIterable { case source, medium, campaign, term, content }

        package init() {}

        package init(_ campaign: LinkCampaign) {
            (source, medium, self.campaign, term, content) = (campaign.source, campaign.medium, campaign.campaign, campaign.term, campaign.content)
        }
    }

    package static func invalidCode(field: String) -> ErrorCode {
        switch field {
        case "code": return .invalidCode
        case "parameters": return .invalidParameters
        case "expiresAt", "expiresIn": return .invalidExpiry
        case "maxUses": return .invalidMaxUses
        case "password": return .invalidPassword
        default: return .invalidField
        }
    }

    package static func invalidMessage(field: String) -> String? {
        field == "maxUses" ? "maxUses must be a whole number from 1 to \(LinkInput.mostUses)" : nil
    }

    /// The fields a body may name, in order.
    package static let fields = CodingKeys.allCases.map(\.rawValue)

    /// A route parameter's value: a string, or a number or boolean written as text (`42`, `true`).
    package struct ParameterValue: Codable {
        package var text: String

        package init(_ text: String) { self.text = text }

        package init(from decoder: any Decoder) throws {
            switch try decoder.singleValueContainer().decode(JSONValue.self) {
            case .string(let s): text = s
            case .number(_, let t): text = t
            case .bool(let b): text = b ? "true" : "false"
            case let other: throw JSONDecodingError(at: decoder.codingPath, .wrongType(expected: "a string or a number", found: other.typeName))
            }
        }

        package func encode(to encoder: any Encoder) throws {
            var single = encoder.singleValueContainer()
            try single.encode(text)
        }
    }

    package init() {}

    /// The create body that makes `link` again (its stored fields; the expiry is kept apart).
    package init(_ link: StoredLink) {
        deepLink = link.deepLink
        route = link.route
        if link.route != nil { parameters = OrderedMembers(link.parameters.map { ($0.0, ParameterValue($0.1)) }) }
        webURL = link.webURL
        appStoreURL = link.appStoreURL
        playStoreURL = link.playStoreURL
        title = link.title
        description = link.description
        image = link.imageURL
        maxUses = link.maxUses
        utm = link.campaign.isEmpty ? nil : UTM(link.campaign)
        tags = link.tags.isEmpty ? nil : link.tags
        expiredURL = link.expiredURL
    }
}

/// A field of a `PATCH` body: not given (left as it is), given as `null` (cleared), or a new value.
package enum PatchField<Value> {
    case absent, null, value(Value)

    /// What `field` becomes: unchanged, nil, or the new value.
    package func applied(to field: inout Value?) {
        switch self {
        case .absent: break
        case .null: field = nil
        case .value(let value): field = value
        }
    }

    /// Whether the body gives a value (not `null`).
    package var isValue: Bool { if case .value = self { return true } else { return false } }
}

extension KeyedDecodingContainer {
    /// The field as a patch gives it: absent, `null`, or a value of `Value`.
    package func patchField<Value: Decodable>(_ type: Value.Type, forKey key: Key) throws -> PatchField<Value> {
        guard contains(key) else { return .absent }
        if try decodeNil(forKey: key) { return .null }
        return .value(try decode(Value.self, forKey: key))
    }
}

/// `PATCH /api/links/{code}` (and the dashboard's edit form): the fields of a link to change,
/// each absent, `null` or a value, applied to the link's own fields without re-encoding it.
package struct LinkPatch: APIRequestBody {
    package var deepLink: PatchField<String> = .absent
    package var route: PatchField<String> = .absent
    package var parameters: PatchField<OrderedMembers<LinkRequest.ParameterValue>> = .absent
    package var webURL: PatchField<String> = .absent
    package var appStoreURL: PatchField<String> = .absent
    package var playStoreURL: PatchField<String> = .absent
    package var title: PatchField<String> = .absent
    package var description: PatchField<String> = .absent
    package var image: PatchField<String> = .absent
    package var expiresAt: PatchField<String> = .absent
    package var expiresIn: PatchField<Double> = .absent
    package var maxUses: PatchField<Int64> = .absent
    package var utm: PatchField<LinkRequest.UTM> = .absent
    package var tags: PatchField<[String]> = .absent
    package var expiredURL: PatchField<String> = .absent
    /// A new password (hashed by the caller), or `null` to remove the link's.
    package var password: PatchField<String> = .absent

    package typealias CodingKeys = LinkRequest.CodingKeys

    package static func invalidCode(field: String) -> ErrorCode { LinkRequest.invalidCode(field: field) }
    package static func invalidMessage(field: String) -> String? { LinkRequest.invalidMessage(field: field) }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        deepLink = try c.patchField(String.self, forKey: .deepLink)
        route = try c.patchField(String.self, forKey: .route)
        parameters = try c.patchField(OrderedMembers<LinkRequest.ParameterValue>.self, forKey: .parameters)
        webURL = try c.patchField(String.self, forKey: .webURL)
        appStoreURL = try c.patchField(String.self, forKey: .appStoreURL)
        playStoreURL = try c.patchField(String.self, forKey: .playStoreURL)
        title = try c.patchField(String.self, forKey: .title)
        description = try c.patchField(String.self, forKey: .description)
        image = try c.patchField(String.self, forKey: .image)
        expiresAt = try c.patchField(String.self, forKey: .expiresAt)
        expiresIn = try c.patchField(Double.self, forKey: .expiresIn)
        maxUses = try c.patchField(Int64.self, forKey: .maxUses)
        utm = try c.patchField(LinkRequest.UTM.self, forKey: .utm)
        tags = try c.patchField([String].self, forKey: .tags)
        expiredURL = try c.patchField(String.self, forKey: .expiredURL)
        password = try c.patchField(String.self, forKey: .password)
    }

    /// The password a patch's members ask for (the last `password` named): a new one, `null`
    /// (remove it) or absent. Its text is checked by the edit (``LinkInput/edit(_:with:now:)``).
    package static func passwordChange(_ members: [(key: String, value: JSONValue)]) -> PatchField<String> {
        guard let value = members.last(where: { $0.key == "password" })?.value else { return .absent }
        if value == .null { return .null }
        return value.stringValue.map { .value($0) } ?? .absent
    }

    /// `body` with this patch applied: a new `deepLink` replaces the route and its parameters, a
    /// new `route` the deep link, as a create that names one target would.
    package func applied(to body: LinkRequest) -> LinkRequest {
        var body = body
        deepLink.applied(to: &body.deepLink)
        if deepLink.isValue { body.route = nil; body.parameters = nil }
        route.applied(to: &body.route)
        if route.isValue { body.deepLink = nil }
        parameters.applied(to: &body.parameters)
        webURL.applied(to: &body.webURL)
        appStoreURL.applied(to: &body.appStoreURL)
        playStoreURL.applied(to: &body.playStoreURL)
        title.applied(to: &body.title)
        description.applied(to: &body.description)
        image.applied(to: &body.image)
        expiresAt.applied(to: &body.expiresAt)
        expiresIn.applied(to: &body.expiresIn)
        maxUses.applied(to: &body.maxUses)
        // A new `utm` replaces the whole campaign, a new `tags` the whole list.
        utm.applied(to: &body.utm)
        tags.applied(to: &body.tags)
        expiredURL.applied(to: &body.expiredURL)
        password.applied(to: &body.password)
        return body
    }
}

/// A link as the API answers it, and as webhook events carry it.
package struct LinkResponse: Encodable {
    package var code: String
    /// The name of the link's domain.
    package var domain: String
    package var kind: String
    package var url: String
    package var deepLink: String?
    package var route: String?
    package var parameters: OrderedMembers<String>
    package var webURL: String?
    package var appStoreURL: String?
    package var playStoreURL: String?
    package var title: String?
    package var description: String?
    package var image: String?
    package var expiresAt: String?
    package var maxUses: Int64?
    package var createdAt: String
    package var updatedAt: String?
    package var clicks: Int64
    /// The campaign values set (`{}` when none).
    package var utm: OrderedMembers<String>
    package var tags: [String]
    /// Where visitors go once the link has ended (nil: the domain's default, or the 410 page).
    package var expiredURL: String?
    /// `active`, `expired` (past `expiresAt`) or `used-up` (clicked `maxUses` times): an ended
    /// link is still found, told apart from one that never existed (404).
    package var state: String
    /// Whether the link's page asks for a password (the password itself is never answered).
    package var protected: Bool
    /// What the service could not do for this link as asked (a page without an app button), or nil.
    package var warnings: [String]?

    package init(_ link: StoredLink, domain: String, url: String, deepLink: String?, now: Date) {
        code = LinkKey.code(of: link.code)
        self.domain = domain
        kind = link.kind.rawValue
        self.url = url
        self.deepLink = deepLink
        route = link.route
        parameters = OrderedMembers(link.parameters.map { ($0.0, $0.1) })
        webURL = link.webURL
        appStoreURL = link.appStoreURL
        playStoreURL = link.playStoreURL
        title = link.title
        description = link.description
        image = link.imageURL
        expiresAt = link.expiresAt.map { Timestamp.format($0) }
        maxUses = link.maxUses
        createdAt = Timestamp.format(link.createdAt)
        updatedAt = link.updatedAt.map { Timestamp.format($0) }
        clicks = link.clicks
        utm = OrderedMembers(LinkCampaign.fields.compactMap { f in link.campaign[keyPath: f.path].map { (f.name, $0) } })
        tags = link.tags
        expiredURL = link.expiredURL
        state = (LinkEnd(link, at: now)?.state).map(\.rawValue) ?? "active"
        protected = link.passwordHash != nil
    }

    /// The answer as a JSON value (a webhook event's data). Its fields are strings, whole
    /// numbers and objects of strings, which always encode.
    package var json: JSONValue { try! JSONValueEncoder().encode(self) }
}
