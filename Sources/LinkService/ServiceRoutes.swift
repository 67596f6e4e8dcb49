import LinkRequests
import Hummingbird
import LinkStorage
import ServiceTransport

/// Every route the service answers, in one place: which controller answers it and which guards
/// stand in front (the per-address limit, a token's scope). Each controller holds only what it
/// uses; the router and the lane are made from here.
struct ServiceRoutes: Sendable {
    let limits: RequestLimits
    let tokens: TokenVerifier
    let metrics: ServiceMetrics
    let endpoints: ServiceEndpoints
    let association: AssociationController
    let health: HealthController
    let links: LinksController
    let invites: InvitesController
    let transactions: TransactionsController
    let resolve: ResolveController
    let landing: LandingController
    let qr: QRController
    let deferred: DeferredController
    let dashboard: DashboardController
    let firebaseAPI: FirebaseAPIController

    /// The Hummingbird router: association files, health, metrics, the APIs, landing pages, QR
    /// codes, deferred links and the dashboard, behind a middleware that counts and logs requests
    /// and one that answers store failures.
    func router() -> Router<ServiceContext> {
        // HEAD answers as GET without the body, on every GET route (handlers count clicks and issue
        // claims on GET only, so a HEAD never uses a link).
        let router = Router(context: ServiceContext.self, options: .autoGenerateHeadEndpoints)
        router.add(middleware: ObservabilityMiddleware(metrics: metrics, endpoints: endpoints))
        router.add(middleware: StoreFailures())
        router.add(middleware: DomainGuard(hosts: association.hosts))
        association.addRoutes(to: router)
        health.addRoutes(to: router)
        // The API's guards: the per-address limit, then the token and its scope.
        // The links API checks each request's domain against a token limited to some.
        let reading = router.group("/api").add(middleware: RequiresToken(tokens: tokens, scope: .linksRead, someDomains: true))
        links.breakdowns.addRoutes(reading: reading)
        links.addRoutes(reading: reading,
                        writing: router.group("/api").add(middleware: AddressLimit(limits: limits))
                            .add(middleware: RequiresToken(tokens: tokens, scope: .linksWrite, someDomains: true)))
        invites.addRoutes(to: router)
        transactions.addRoutes(to: router.group("/api").add(middleware: AddressLimit(limits: limits))
            .add(middleware: RequiresToken(tokens: tokens, scope: .transactions)))
        let limited = router.group("/api").add(middleware: AddressLimit(limits: limits))
        resolve.addRoutes(to: limited)
        qr.addRoutes(to: router)
        landing.addRoutes(to: router)
        dashboard.addRoutes(to: router)
        deferred.addRoutes(to: router, limited: limited)
        // Firebase's REST API: its own error shape around the address limit; the key is checked
        // by the handlers (it may come in the query, as Firebase's did).
        firebaseAPI.addRoutes(to: router.group("/v1").add(middleware: FirebaseAPIErrors(metrics: metrics)).add(middleware: AddressLimit(limits: limits)))
        return router
    }

    /// The routes whose answer may be complete at once — the documents, and landing pages in the
    /// hot cache — answered on the lane when they can be.
    var laneRoutes: [LaneRoute] { association.laneRoutes + [landing.laneRoute] }
}
