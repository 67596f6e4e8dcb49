import Foundation
import SwitchyardCore

/// The files this module ships in `Resources/` (see `InstalledResources` for where they are found).
package enum PageResources {
    /// Every file the pages read from their resources.
    static let files = ["landing.mustache", "message.mustache", "launcher.mustache", "preview-agents.json", "in-app-browsers.json"]

    /// The path of one of `files`, or nil when the installation lacks it.
    static func path(_ file: String) -> String? {
        InstalledResources.path(bundle: "Switchyard_LinkPages", file: file, module: .module)
    }

    /// What to say when `file` is missing from the installation.
    static func missing(_ file: String) -> String { InstalledResources.missingFile(bundle: "Switchyard_LinkPages", file: file) }

    /// Why the pages cannot be made from this installation (a resource file is missing), or nil.
    package static var problem: String? {
        files.first(where: { path($0) == nil }).map(missing)
    }
}
