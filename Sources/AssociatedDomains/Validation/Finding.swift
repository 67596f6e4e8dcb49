import SwitchyardCore

/// One problem found in an association file, an Info.plist or entitlements, with where it is
/// and what to do about it: the core's `Diagnostic`, under the name this module has always
/// used. `finding.path` is its JSON path (`applinks.details[0].appIDs[1]`, `$` for the file).
public typealias Finding = Diagnostic
