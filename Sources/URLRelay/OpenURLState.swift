import SwitchyardCore
import Foundation

/// State-driven opening: a feature keeps `urlToOpen`; setting it causes exactly one open.
/// Plain value semantics, no UI framework: the owner calls `next()` to get the work to do and
/// `finish(_:)` with its result.
///
/// ```swift
/// var state = OpenURLState()
/// state.urlToOpen = URL(string: "plur://group/abc")
/// if case .open(let url)? = state.next() { state.finish(await opener.open(url) ? .success : .failure("no app")) }
/// state.urlToOpen   // nil again after success
/// ```
public struct OpenURLState: Sendable, Equatable {
    /// Where the state is: idle, an open handed out and not finished, or the last open failed.
    public enum Phase: Sendable, Equatable {
        case idle
        case opening(URL)
        case failed(URL, reason: String)
    }

    /// What the owner has to do next.
    public enum Work: Sendable, Equatable {
        case open(URL)
    }

    /// What the owner reports to `finish(_:)`.
    public enum Result: Sendable, Equatable {
        case success
        case failure(String)
    }

    /// Set this to open a URL. Reset to nil after a successful open.
    public var urlToOpen: URL? {
        didSet { if urlToOpen != oldValue { handedOut = nil } }
    }
    /// The current phase; only `next()` and `finish(_:)` change it.
    public private(set) var phase: Phase = .idle
    /// The URL already handed out for opening (so it is opened once, not once per call).
    private var handedOut: URL?

    /// A state, with a URL already waiting to be opened if given.
    public init(urlToOpen: URL? = nil) { self.urlToOpen = urlToOpen }

    /// The open to perform now, if any; each value of `urlToOpen` is handed out once.
    public mutating func next() -> Work? {
        guard let url = urlToOpen, handedOut != url else { return nil }
        handedOut = url
        phase = .opening(url)
        return .open(url)
    }

    /// Records the result of the open handed out last.
    public mutating func finish(_ result: Result) {
        guard case .opening(let url) = phase else { return }
        switch result {
        case .success:
            phase = .idle
            if urlToOpen == url { urlToOpen = nil }
            handedOut = nil
        case .failure(let reason):
            phase = .failed(url, reason: reason)
        }
    }
}
