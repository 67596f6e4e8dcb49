import LinkRequests
import LinkPages
import NIOCore
import NIOPosix

/// Where landing pages are rendered from their templates: one thread of its own, never an event
/// loop, so a slow render (an operator's template at the most work ``TemplateCheck`` allows)
/// holds up other renders, not health checks, cached pages or the API.
final class PageRenders: Sendable {
    private let pool: NIOThreadPool

    init() {
        pool = NIOThreadPool(numberOfThreads: 1)
        pool.start()
    }

    deinit { pool.shutdownGracefully { _ in } }

    /// The page made on the render thread (made here only when the thread is gone, at shutdown).
    func body(_ page: LandingPage, for audience: LandingPage.Audience, inApp: String?, templates: PageTemplates) async -> ByteBuffer {
        do {
            return try await pool.runIfActive { ByteBuffer(string: page.html(for: audience, inApp: inApp, templates: templates)) }
        } catch {
            return ByteBuffer(string: page.html(for: audience, inApp: inApp, templates: templates))
        }
    }
}
