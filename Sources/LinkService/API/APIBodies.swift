import Foundation
import Hummingbird
import LinkRequests
import LinkStorage
import SwitchyardCore

// The API's bodies that only the service's controllers read or write; the links API's own
// request, patch and answer (shared with the importers) are in LinkRequests.

/// `GET /api/links`: a page of links, newest first, and the cursor of the next page.
struct LinkListResponse: Encodable {
    var links: [LinkResponse]
    var nextCursor: String?
}

/// `GET /api/links/{code}/stats`.
struct LinkStatsResponse: Encodable {
    struct Clicks: Encodable {
        var human: Int64
        var bot: Int64
    }

    struct Day: Encodable {
        var day: String
        var human: Int64
        var bot: Int64
    }

    struct Referrer: Encodable {
        var host: String
        var count: Int64
    }

    var code: String
    var clicks: Clicks
    var byPlatform: OrderedMembers<Int64>
    var byDay: [Day]
    var referrers: [Referrer]
}

// MARK: Transactions

/// `POST /api/transactions` `{"purpose"?, "ttl"?}`.
struct TransactionRequest: APIRequestBody {
    var purpose: String?
    var ttl: Double?
    enum CodingKeys: String, CodingKey, CaseIterable { case purpose, ttl }
}

/// A transaction just created.
struct TransactionCreated: Encodable {
    var id: String
    var expiresAt: String
    var purpose: String?
}

/// A transaction verified just now.
struct TransactionVerified: Encodable {
    var id: String
    var valid: Bool
    var purpose: String?
}

// MARK: Deferred deep links

/// `POST /api/deferred/claim`.
struct ClaimRequest: APIRequestBody {
    var token: String
    enum CodingKeys: String, CodingKey, CaseIterable { case token }
    static func invalidCode(field: String) -> ErrorCode { .invalidClaimToken }
    static var shape: String? { #"{"token": "…"}"# }
}

/// `POST /api/deferred/match`.
struct MatchRequest: APIRequestBody {
    /// Absent is refused as a platform that is not one (400 `invalid-platform`).
    var platform: String?
    enum CodingKeys: String, CodingKey, CaseIterable { case platform }
    static func invalidCode(field: String) -> ErrorCode { .invalidPlatform }
    static var shape: String? { #"{"platform": "ios" or "android"}"# }
}

// MARK: Invites

/// `POST /api/invite`: the configured invite fields (each a string or null, checked after the
/// names, so an unknown field is said first).
struct InviteRequest: APIRequestBody {
    var fields: OrderedMembers<JSONValue>

    init(from decoder: any Decoder) throws { fields = try OrderedMembers(from: decoder) }
}
