import SwitchyardCore
import Foundation

extension Manifest {
    /// Path of Switchyard's own default rule set (shipped as a resource of this module).
    public static var defaultRulesPath: String? {
        InstalledResources.path(bundle: "Switchyard_LinkRules", file: "default-rules.json", module: .module)
    }

    /// Switchyard's own rule set for popular services, used when no manifest is given.
    public static func defaultRules() throws(ManifestError) -> Manifest {
        guard let path = defaultRulesPath else {
            throw ManifestError(code: .io, message: "the default rule set: " + InstalledResources.missingFile(bundle: "Switchyard_LinkRules", file: "default-rules.json"))
        }
        return try Manifest(contentsOf: path, strict: true)
    }
}
