import LinkConfiguration
import SwitchyardCore

/// The error and finding codes LinkService uses. Compare with these constants, never with string literals.
extension ErrorCode {
    /// A transaction id that was verified once already (verification is single use).
    public static let alreadyVerified = ErrorCode("already-verified")
    /// A link body that gives both `deepLink` and `route`; it must give one.
    public static let ambiguousTarget = ErrorCode("ambiguous-target")
    /// A dashboard form whose token is not one this sign-in issued (a stale or forged form).
    public static let badFormToken = ErrorCode("bad-form-token")
    /// Eight randomly drawn short codes in a row were taken; `links.length` should be raised.
    public static let codeSpaceExhausted = ErrorCode("code-space-exhausted")
    /// The short code a request chose for a new link belongs to another link.
    public static let codeTaken = ErrorCode("code-taken")
    /// A state-changing dashboard request started by another site (`Sec-Fetch-Site` or `Origin`).
    public static let crossSite = ErrorCode("cross-site")
    /// A Firebase Dynamic Links domain (`domainUriPrefix`, a long link's prefix) that is not one
    /// of the service's hosts.
    public static let unknownDomain = ErrorCode("unknown-domain")
    /// An edit whose body names no field to change.
    public static let emptyEdit = ErrorCode("empty-edit")
    /// A URL with a scheme that is never accepted, whatever the configuration.
    public static let forbiddenScheme = ErrorCode("forbidden-scheme")
    /// A fallback URL whose host is not a configured host, a store, or in `service.redirectHosts`.
    public static let hostNotAllowed = ErrorCode("host-not-allowed")
    /// An edit that tries to change a link's code, which never changes.
    public static let immutableField = ErrorCode("immutable-field")
    /// A valid API token that lacks the scope the endpoint needs (for example `links:write`).
    public static let insufficientScope = ErrorCode("insufficient-scope")
    /// A Firebase Dynamic Link whose `isi` is not a numeric App Store ID.
    public static let invalidAppStoreID = ErrorCode("invalid-app-store-id")
    /// A deferred-link claim request whose token is not shaped like a claim token.
    public static let invalidClaimToken = ErrorCode("invalid-claim-token")
    /// A short code with a bad length or characters outside the configured alphabet.
    public static let invalidCode = ErrorCode("invalid-code")
    /// A list request's `cursor` that this service did not hand out.
    public static let invalidCursor = ErrorCode("invalid-cursor")
    /// A stats request's `days` that is not a whole number from 1 to 366.
    public static let invalidDays = ErrorCode("invalid-days")
    /// A deep link on a scheme that is not an app scheme of the configuration, or an https one off its hosts.
    public static let invalidDeepLink = ErrorCode("invalid-deep-link")
    /// A `domain` (in a body or a query) that names no configured domain, or one the token may not use.
    public static let invalidDomain = ErrorCode("invalid-domain")
    /// A bad `expiresAt` or `expiresIn`: not RFC 3339, in the past, over ten years ahead, not positive, or both given.
    public static let invalidExpiry = ErrorCode("invalid-expiry")
    /// A request field of the wrong type or out of its bounds (too long, out of range).
    public static let invalidField = ErrorCode("invalid-field")
    /// A path segment that is not shaped like a transaction id.
    public static let invalidID = ErrorCode("invalid-id")
    /// A list request's `limit` that is not a whole number from 1 to 200.
    public static let invalidLimit = ErrorCode("invalid-limit")
    /// A `maxUses` that is not a whole number of at least 1.
    public static let invalidMaxUses = ErrorCode("invalid-max-uses")
    /// Route parameters that are not an object of strings or numbers, or that come with a `deepLink`.
    public static let invalidParameters = ErrorCode("invalid-parameters")
    /// A deferred match request whose platform is not "ios" or "android".
    public static let invalidPlatform = ErrorCode("invalid-platform")
    /// A `route` the configuration does not have, or parameters that do not fit it.
    public static let invalidRoute = ErrorCode("invalid-route")
    /// A link `password` that is empty, too long or holds control characters.
    public static let invalidPassword = ErrorCode("invalid-password")
    /// A QR code `size` outside the accepted range of pixels.
    public static let invalidSize = ErrorCode("invalid-size")
    /// QR code options (`foreground`, `background`, `margin`, `errorCorrection`, `logo`) that are
    /// not values, or that give a code phones read badly (contrast below 3:1, an inverted code).
    public static let invalidQRStyle = ErrorCode("invalid-qr-style")
    /// A text field that contains a control character it does not allow.
    public static let invalidText = ErrorCode("invalid-text")
    /// An API token that is unknown, revoked or mistyped, or an `Authorization` header not of the form `Bearer <token>`.
    public static let invalidToken = ErrorCode("invalid-token")
    /// An invite request to a service whose configuration has no `invites` section.
    public static let invitesNotConfigured = ErrorCode("invites-not-configured")
    /// A dashboard form body that is not valid URL form encoding.
    public static let malformedForm = ErrorCode("malformed-form")
    /// A request body that is not valid JSON.
    public static let malformedJSON = ErrorCode("malformed-json")
    /// A probabilistic deferred match while `deferred.probabilisticMatching` is off.
    public static let matchingDisabled = ErrorCode("matching-disabled")
    /// An invite request without a field that `invites.required` lists, or with it empty.
    public static let missingField = ErrorCode("missing-field")
    /// A Firebase Dynamic Link without its `link` parameter.
    public static let missingLink = ErrorCode("missing-link")
    /// A new link that gives neither `deepLink` nor `route`.
    public static let missingTarget = ErrorCode("missing-target")
    /// A request to a protected endpoint that carries no API token.
    public static let missingToken = ErrorCode("missing-token")
    /// A resolve request without the `url` query parameter.
    public static let missingURL = ErrorCode("missing-url")
    /// A dashboard deletion submitted without its confirmation box ticked.
    public static let notConfirmed = ErrorCode("not-confirmed")
    /// No link has the requested code.
    public static let notFound = ErrorCode("not-found")
    /// The link has been used as many times as its `maxUses` allows (410).
    public static let usedUp = ErrorCode("used-up")
    /// The path exists, but not with this method (405, with an Allow header).
    public static let methodNotAllowed = ErrorCode("method-not-allowed")
    /// A request refused by the per-token or per-address rate limit (HTTP 429).
    public static let rateLimited = ErrorCode("rate-limited")
    /// Too many QR images are already being drawn or waiting to be (HTTP 503).
    public static let qrBusy = ErrorCode("qr-busy")
    /// Too many password checks of protected links are running or waiting; try again shortly.
    public static let passwordBusy = ErrorCode("password-busy")
    /// Too many `/api/resolve` requests are already running or waiting (HTTP 503).
    public static let resolveBusy = ErrorCode("resolve-busy")
    /// Work refused because the service is stopping.
    public static let shuttingDown = ErrorCode("shutting-down")
    /// The API's answer when the database fails: nothing was stored (HTTP 503).
    public static let storageUnavailable = ErrorCode("storage-unavailable")
    /// A transaction id the service does not know.
    public static let unknownTransaction = ErrorCode("unknown-transaction")
    /// A dashboard form not sent as `application/x-www-form-urlencoded`.
    public static let unsupportedMediaType = ErrorCode("unsupported-media-type")
    /// A link import file that cannot be imported at all: not CSV, no header, or missing columns.
    public static let invalidImport = ErrorCode("invalid-import")
    /// A CSV file that is not well formed.
    public static let csvSyntax = ErrorCode("csv-syntax")
}
