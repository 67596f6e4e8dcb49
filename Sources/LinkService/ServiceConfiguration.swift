import AssociatedDomains
import Foundation
import LinkRouting
import SwitchyardJSON

/// What the link service serves: the apps, and the route table that drives both the app and
/// the association files.
public struct ServiceConfiguration: Sendable {
    public struct AppleApp: Sendable, Equatable {
        public var teamID: String
        public var bundleID: String
        public var appStoreID: String?
        public var scheme: String?
        public var appID: String { "\(teamID).\(bundleID)" }
    }

    public struct AndroidApp: Sendable, Equatable {
        public var package: String
        public var fingerprints: [String]
    }

    public var apple: [AppleApp]
    public var android: [AndroidApp]
    public var webcredentials: Bool
    public var router: Router

    /// The example configuration shipped with Switchyard (served when no --config is given).
    public static var examplePath: String? { Bundle.module.path(forResource: "example-config", ofType: "yaml") }

    /// Loads a YAML or JSON configuration; errors say which key is wrong.
    public init(contentsOf path: String) throws(ConfigurationError) {
        let document: JSONValue
        do { document = try Router.document(contentsOf: path) } catch { throw ConfigurationError(error.message) }
        do { try self.init(document: document) } catch { throw ConfigurationError("\(path): \(error.message)") }
    }

    public init(document: JSONValue) throws(ConfigurationError) {
        guard case .object = document else { throw ConfigurationError("the configuration must be an object with apple, android, hosts and routes") }
        apple = []
        for (i, a) in (document["apple"]?.arrayValue ?? []).enumerated() {
            guard let team = a["teamId"]?.stringValue, let bundle = a["bundleId"]?.stringValue else {
                throw ConfigurationError("apple[\(i)]: needs teamId and bundleId")
            }
            let app = AppleApp(teamID: team, bundleID: bundle, appStoreID: a["appStoreId"]?.stringValue, scheme: a["scheme"]?.stringValue)
            if let problem = AppSiteAssociation.validate(appID: app.appID).first(where: { $0.severity == .error }) {
                throw ConfigurationError("apple[\(i)]: \(problem.message)")
            }
            apple.append(app)
        }
        android = []
        for (i, a) in (document["android"]?.arrayValue ?? []).enumerated() {
            guard let package = a["package"]?.stringValue else { throw ConfigurationError("android[\(i)]: needs package") }
            let fingerprints = (a["fingerprints"]?.arrayValue ?? []).compactMap(\.stringValue)
            android.append(AndroidApp(package: package, fingerprints: fingerprints))
        }
        webcredentials = document["webcredentials"] == .bool(true)
        do { router = try Router(document: document) } catch { throw ConfigurationError(error.message) }
        if !android.isEmpty, let problem = AssetLinks.validate(bytes: Array(JSONWriter.compact(assetLinks.json).utf8)).1.first(where: { $0.severity == .error }) {
            throw ConfigurationError("android: \(problem.message)")
        }
    }

    /// The apple-app-site-association generated from the routes.
    public var appSiteAssociation: JSONValue {
        AssociationGenerator.appSiteAssociation(router: router, appIDs: apple.map(\.appID), webcredentials: webcredentials)
    }

    /// The assetlinks.json statements, one per Android app.
    public var assetLinks: AssetLinks {
        AssetLinks(statements: android.flatMap { AssociationGenerator.assetLinks(packageName: $0.package, fingerprints: $0.fingerprints).statements })
    }
}

public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
