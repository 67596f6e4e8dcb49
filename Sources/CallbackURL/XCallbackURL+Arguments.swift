import Foundation
import SwitchyardCore

extension XCallbackURL {
    /// A request as a command line gives it (`switchyard callback build`): its parts, its
    /// parameters as `name=value`, and for a signed request the key `ID=FILE`, a request id and
    /// seconds until it expires. ``problem`` names the option a mistake is in; ``request(now:)``
    /// builds the URL, signed when there is a key.
    package struct Arguments: Sendable {
        package var scheme: String
        package var action: String
        package var source: String?
        package var success: String?
        package var error: String?
        package var cancel: String?
        /// `name=value` each (``XCallbackURL/parameter(argument:)``).
        package var parameters: [String]
        /// `ID=FILE` (``CallbackKey/init(argument:)``).
        package var key: String?
        /// The request id of a signed request (default: a new UUID, lowercased).
        package var id: String?
        /// Seconds until a signed request expires, above 0 and at most 30 days (default 300).
        package var expiresIn: Double?

        package init(scheme: String, action: String, source: String?, success: String?, error: String?, cancel: String?,
                     parameters: [String], key: String?, id: String?, expiresIn: Double?) {
            (self.scheme, self.action, self.source, self.success, self.error, self.cancel) = (scheme, action, source, success, error, cancel)
            (self.parameters, self.key, self.id, self.expiresIn) = (parameters, key, id, expiresIn)
        }

        /// What is wrong with the arguments, starting with the option it is about (`--scheme …`),
        /// or nil. Nothing is read: a key file is read by ``request(now:)``.
        package var problem: String? {
            if let problem = XCallbackURL.schemeProblem(scheme) { return "--scheme \(problem)" }
            // The id comes back from `callback verify` on a terminal: printable text, as the others.
            let texts = [("--success", success), ("--error", error), ("--cancel", cancel), ("--source", source), ("--action", action), ("--id", id)]
            for (name, value) in texts {
                if let value, let problem = XCallbackURL.textProblem(value) { return "\(name) \(problem)" }
            }
            for (name, value) in texts.prefix(3) {
                if let value, let reason = XCallbackURL.callbackProblem(value) { return "\(name) \(reason)" }
            }
            if let expiresIn, !(expiresIn > 0 && expiresIn <= 30 * 86400) { return "--expires-in must be a number of seconds above 0, at most 2592000 (30 days)" }
            if key == nil && (id != nil || expiresIn != nil) { return "--id and --expires-in are parts of a signed request: give --key too" }
            if action.isEmpty { return "--action is empty" }
            for p in parameters {
                do { _ = try XCallbackURL.parameter(argument: p) } catch { return "--param \(error.message)" }
            }
            if let key, let problem = CallbackKey.argumentProblem(key) { return "--key \(problem)" }
            if id?.isEmpty == true { return "--id is empty" }
            return nil
        }

        /// The request, signed with the key when there is one (its id, or a new UUID; expiring
        /// `expiresIn` seconds, default 300, after `now`). Throws ``problem`` as an invalid value,
        /// or why the key file cannot be used.
        package func request(now: Date) throws(CallbackKeyError) -> XCallbackURL {
            if let problem { throw CallbackKeyError(.invalidValue, problem) }
            var request = XCallbackURL(scheme: scheme, action: action, source: source, success: success, error: error, cancel: cancel)
            request.parameters = parameters.compactMap { try? XCallbackURL.parameter(argument: $0) }  // each one checked by `problem`
            guard let key else { return request }
            let k = try CallbackKey(argument: key)
            return CallbackSigner(keyID: k.id, secret: k.secret)
                .sign(request, requestID: id ?? UUID().uuidString.lowercased(), expires: now.addingTimeInterval(expiresIn ?? 300))
        }
    }
}
