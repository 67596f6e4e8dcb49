import SwitchyardCore
import Foundation

extension Manifest {
    /// Path of Switchyard's own default rule set (shipped as a resource of this module).
    public static var defaultRulesPath: String? {
        #if os(Linux)
        InstalledResources.path(bundle: "Switchyard_LinkRules", file: "default-rules.json")
        #else
        Bundle.module.path(forResource: "default-rules", ofType: "json")
        #endif
    }

    /// Switchyard's own rule set for popular services, used when no manifest is given.
    public static func defaultRules() throws(ManifestError) -> Manifest {
        guard let path = defaultRulesPath else {
            #if os(Linux)
            throw ManifestError(code: .io, message: "the default rule set: " + InstalledResources.missing(bundle: "Switchyard_LinkRules", file: "default-rules.json"))
            #else
            throw ManifestError(code: .io, message: "the default rule set is missing from the installation (default-rules.json)")
            #endif
        }
        return try Manifest(contentsOf: path, strict: true)
    }
}
