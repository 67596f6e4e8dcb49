import Foundation

/// The data files a module ships, found where an installation keeps them: SwiftPM copies each
/// module's resources into a `Switchyard_MODULE.resources` directory beside the built binary,
/// and installing the binary means copying those directories beside it too. Only that place is
/// searched (not the build directory a binary was built in), so a copy that lacks them fails at
/// once on the machine it was copied to and on the one it was built on alike.
///
/// Apple platforms use `Bundle.module` instead: an app carries its resources inside its bundle.
public enum InstalledResources {
    /// The directory of the running executable, symbolic links resolved (`/proc/self/exe` on
    /// Linux; the main bundle's executable elsewhere).
    public static let executableDirectory: String = {
        #if os(Linux)
        if let resolved = realpath("/proc/self/exe", nil) {
            defer { free(resolved) }
            return (String(cString: resolved) as NSString).deletingLastPathComponent
        }
        #endif
        let executable = Bundle.main.executableURL?.resolvingSymlinksInPath().path ?? CommandLine.arguments[0]
        return (executable as NSString).deletingLastPathComponent
    }()

    /// `executableDirectory/BUNDLE.resources/FILE` when that is a file, else nil.
    public static func path(bundle: String, file: String) -> String? {
        let path = location(bundle: bundle, file: file)
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue ? path : nil
    }

    /// Where `file` of `bundle` is looked for.
    public static func location(bundle: String, file: String) -> String {
        executableDirectory + "/" + bundle + ".resources/" + file
    }

    /// What to say when `file` of `bundle` is not there.
    public static func missing(bundle: String, file: String) -> String {
        "\(location(bundle: bundle, file: file)) is missing: an installed switchyard needs the Switchyard_*.resources directories of its build beside the binary (see \"Installing\" in docs/operator-guide.md)"
    }

    /// `file` of the module whose resource bundle is `bundle` (`Switchyard_LinkPages`): beside
    /// the executable on Linux, in `module` (the caller's `Bundle.module`, asked only there) on
    /// Apple platforms. Nil when the installation lacks it.
    public static func path(bundle: String, file: String, module: @autoclosure () -> Bundle) -> String? {
        #if os(Linux)
        return path(bundle: bundle, file: file)
        #else
        let name = file as NSString
        return module().path(forResource: name.deletingPathExtension, ofType: name.pathExtension)
        #endif
    }

    /// What to say when `file` of `bundle` is missing, on any platform.
    public static func missingFile(bundle: String, file: String) -> String {
        #if os(Linux)
        return missing(bundle: bundle, file: file)
        #else
        return "\(file) is missing from the installation"
        #endif
    }
}
