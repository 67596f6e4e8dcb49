import LinkConfiguration

/// What one domain's pages are made with: its landing pages and its claims.
struct DomainPages: Sendable {
    let pages: LandingPages
    let claims: Claims
}
