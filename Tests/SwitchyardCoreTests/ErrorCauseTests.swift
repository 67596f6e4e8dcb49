import SwitchyardCore
import Testing

/// A cancellation is told by the error's type, through the causes an error reports, never by
/// its text.
@Suite struct ErrorCauseTests {
    enum Wrapping: ErrorDomain {}
    struct Other: Error, CustomStringConvertible { var description: String { "CancellationError() in the text only" } }

    @Test func aCancellationIsFoundThroughCauses() {
        #expect(CancellationError().isCancellation)
        let wrapped = DomainError<Wrapping>(ErrorCode("failed"), "the statement failed", cause: CancellationError())
        #expect(wrapped.isCancellation)
        let twice = DomainError<Wrapping>(ErrorCode("failed"), "outer", cause: wrapped)
        #expect(twice.isCancellation)
        // Text that names a cancellation is not one.
        #expect(!Other().isCancellation)
        #expect(!DomainError<Wrapping>(ErrorCode("failed"), "CancellationError", cause: Other()).isCancellation)
        #expect(!DomainError<Wrapping>(ErrorCode("failed"), "no cause").isCancellation)
    }
}
