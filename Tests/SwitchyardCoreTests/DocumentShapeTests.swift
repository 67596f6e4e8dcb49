import Testing
@testable import SwitchyardCore

@Suite struct DocumentShapeTests {
    static let shape = DocumentShape.object([
        "service": .object(["publicURL": .string, "maximumBodyBytes": .int, "hosts": .array(.string)]),
        "apple": .array(.object(["teamId": .string, "appStoreId": .oneOf([.string, .int])])),
        "pages": .map(.oneOf([.string, .object(["app": .string])])),
        "webhooks": .array(.object(["secret": .string, "apiToken": .string])),
    ])

    struct Case: Sendable, CustomStringConvertible {
        let json: String
        let problems: [String]
        var description: String { json }
    }

    @Test(arguments: [
        Case(json: #"{"service": {"publicURL": "https://a.example"}}"#, problems: []),
        Case(json: #"{"service": {"publicUrl": "https://a.example"}}"#, problems: ["service.publicUrl: unknown key — did you mean publicURL?"]),
        Case(json: #"{"servce": {}}"#, problems: ["servce: unknown key — did you mean service?"]),
        Case(json: #"{"zzz": 1}"#, problems: ["zzz: unknown key (known: apple, pages, service, webhooks)"]),
        Case(json: #"{"apple": [{"teamId": 12}]}"#, problems: ["apple[0].teamId: expected a string, got 12"]),
        Case(json: #"{"apple": [{"teamId": "T", "appStoreId": 123}, {"appStoreId": true}]}"#, problems: ["apple[1].appStoreId: expected a string or an integer, got true"]),
        Case(json: #"{"service": {"maximumBodyBytes": "big", "hosts": ["a", 2]}}"#,
             problems: [#"service.maximumBodyBytes: expected an integer, got "big""#, "service.hosts[1]: expected a string, got 2"]),
        Case(json: #"{"service": []}"#, problems: ["service: expected a mapping, got a list"]),
        Case(json: #"{"pages": {"join": "appJoin", "group": {"app": "x", "titel": "y"}}}"#, problems: ["pages.group.titel: unknown key (known: app)"]),
        Case(json: #"{"pages": {"join": 5}}"#, problems: ["pages.join: expected a string or a mapping, got 5"]),
        // A secret of the wrong type is never echoed: only its kind.
        Case(json: #"{"webhooks": [{"secret": 98765432109876543210987, "apiToken": true}]}"#,
             problems: ["webhooks[0].secret: expected a string, got a number (not shown: it is a secret)", "webhooks[0].apiToken: expected a string, got true or false"]),
        Case(json: #"{"webhooks": ["SEKRIT-value"]}"#, problems: ["webhooks[0]: expected a mapping, got a string"]),
    ])
    func reportsEveryProblemWithItsPath(_ c: Case) throws {
        #expect(Self.shape.problems(in: try JSONParser.parse(c.json)) == c.problems)
    }

    @Test func suggestsOnlyCloseKeys() {
        #expect(DocumentShape.suggestion(for: "PUBLICURL", among: ["publicURL"]) == "publicURL")
        #expect(DocumentShape.suggestion(for: "hostz", among: ["hosts", "routes"]) == "hosts")
        #expect(DocumentShape.suggestion(for: "database", among: ["hosts", "routes"]) == nil)
    }
}
