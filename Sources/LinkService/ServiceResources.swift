import Foundation
import LinkConfiguration
import LinkPages
import SwitchyardCore

/// The files this module ships in `Resources/` (see `InstalledResources` for where they are found).
package enum ServiceResources {
    /// Every file the service reads from its resources.
    static let files = ["example-config.yaml", "openapi.json"]

    /// The path of one of `files`, or nil when the installation lacks it.
    static func path(_ file: String) -> String? {
        InstalledResources.path(bundle: "Switchyard_LinkService", file: file, module: .module)
    }

    /// Why the service cannot start from this installation (a resource file of this module or
    /// of the pages is missing), or nil.
    package static var problem: String? {
        guard let file = files.first(where: { path($0) == nil }) else { return PageResources.problem }
        return InstalledResources.missingFile(bundle: "Switchyard_LinkService", file: file)
    }
}

extension ServiceConfiguration {
    /// The example configuration shipped with Switchyard (served when no --config is given).
    public static var examplePath: String? { ServiceResources.path("example-config.yaml") }
}
