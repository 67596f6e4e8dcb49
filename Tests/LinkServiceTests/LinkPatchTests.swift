@testable import LinkService
@testable import LinkRequests
import SwitchyardCore
import Testing

/// A `PATCH` body as a typed patch: each field absent (kept), `null` (cleared) or a value, applied
/// to the link's own fields; a new target replaces the other one as a create's would.
@Suite struct LinkPatchTests {
    static func patch(_ json: String) throws -> LinkPatch { try LinkPatch.decode(try JSONParser.parse(json)) }

    static var routed: LinkRequest {
        var body = LinkRequest()
        body.route = "appGroup"
        body.parameters = OrderedMembers([("groupId", LinkRequest.ParameterValue("g1"))])
        body.title = "Old"
        body.webURL = "https://rabble.community/g/g1"
        body.maxUses = 5
        return body
    }

    @Test func absentFieldsAreKeptNullOnesClearedAndValuesSet() throws {
        let edited = try Self.patch(#"{"title": null, "maxUses": 3, "description": "New"}"#).applied(to: Self.routed)
        #expect(edited.title == nil && edited.maxUses == 3 && edited.description == "New")
        #expect(edited.route == "appGroup" && edited.parameters?.members.first?.value.text == "g1" && edited.webURL == "https://rabble.community/g/g1")
        let untouched = try Self.patch("{}").applied(to: Self.routed)
        #expect(untouched.title == "Old" && untouched.maxUses == 5 && untouched.route == "appGroup")
    }

    @Test func aNewTargetReplacesTheOther() throws {
        let toDeepLink = try Self.patch(#"{"deepLink": "plur://group/x"}"#).applied(to: Self.routed)
        #expect(toDeepLink.deepLink == "plur://group/x" && toDeepLink.route == nil && toDeepLink.parameters == nil)
        var direct = LinkRequest()
        direct.deepLink = "plur://group/y"
        let toRoute = try Self.patch(#"{"route": "appGroup", "parameters": {"groupId": 7}}"#).applied(to: direct)
        #expect(toRoute.deepLink == nil && toRoute.route == "appGroup" && toRoute.parameters?.members.first?.value.text == "7")
        // Clearing a target keeps the other one as it is.
        let cleared = try Self.patch(#"{"deepLink": null}"#).applied(to: Self.routed)
        #expect(cleared.route == "appGroup" && cleared.deepLink == nil)
    }

    @Test func aValueOfTheWrongTypeIsRefusedWithItsField() throws {
        do {
            _ = try Self.patch(#"{"maxUses": "three"}"#)
            Issue.record("a string for maxUses was taken")
        } catch let error as APIError {
            #expect(error.field == "maxUses" && error.code == .invalidMaxUses, "\(error)")
        }
    }
}
