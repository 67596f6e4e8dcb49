import LinkRequests
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

    /// The configuration the commands use: the file at `path`; when nil, `./switchyard.yaml` if
    /// there is one (what `switchyard init` writes), else the shipped example. Returns it with
    /// the path it came from. Refused with the reason when the installation lacks a resource or
    /// the configuration cannot be used.
    package static func located(_ path: String?) throws(ConfigurationError) -> (path: String, configuration: ServiceConfiguration) {
        if let problem = ServiceResources.problem { throw ConfigurationError(problem) }
        guard let path = path ?? (FileManager.default.fileExists(atPath: "switchyard.yaml") ? "switchyard.yaml" : examplePath) else {
            throw ConfigurationError("the example configuration is missing from the installation")
        }
        return (path, try ServiceConfiguration(contentsOf: path))
    }
}
