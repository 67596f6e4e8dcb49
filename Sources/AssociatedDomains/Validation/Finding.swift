import SwitchyardCore

/// One problem found in an association file, an Info.plist or entitlements, with where it is
/// and what to do about it: the core's `Diagnostic` under this module's name for it.
/// `finding.path` is its JSON path (`applinks.details[0].appIDs[1]`, `$` for the file).
public typealias Finding = Diagnostic
