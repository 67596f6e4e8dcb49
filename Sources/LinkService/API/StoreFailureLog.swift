import LinkStorage
import Logging

extension StoreError {
    /// How a store failure is logged: the error and the statement that failed (its start).
    var logMetadata: Logger.Metadata { ["error": "\(self)", "statement": "\(statement ?? "")"] }
}
