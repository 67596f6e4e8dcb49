import Foundation
import Hummingbird
import LinkStorage
import Logging

extension LinkService {
    /// The API's 503 for a store that failed (`StoreFailures` maps every store error a handler
    /// throws to it; a page that catches one itself logs it through here).
    func storeFailure(_ error: StoreError) -> APIError {
        logger.error("storage failed", metadata: ["error": "\(error)", "statement": "\(error.statement ?? "")"])
        return APIError.storageUnavailable(cause: error)
    }

    func clientAddress(_ request: Request, _ context: ServiceContext) -> String { limits.addresses.address(request, context) }
}
