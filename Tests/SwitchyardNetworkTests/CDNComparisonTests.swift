import Testing
import SwitchyardNetwork

@Suite struct CDNComparisonTests {
    /// Only URLs on the domain compared can be decided by its files; a port on the domain is not
    /// part of the host a URL names.
    @Test func aURLMustBeOnTheDomain() {
        #expect(CDNComparison.urlProblem("https://shop.example/buy/1", domain: "shop.example") == nil)
        #expect(CDNComparison.urlProblem("https://SHOP.example/buy/1", domain: "shop.example") == nil)
        #expect(CDNComparison.urlProblem("https://localhost/g/x", domain: "localhost:18443") == nil)
        #expect(CDNComparison.urlProblem("https://www.shop.example/buy/1", domain: "shop.example") == "not on shop.example: only shop.example's URLs are decided by its file")
        #expect(CDNComparison.urlProblem("notaurl", domain: "shop.example")?.hasPrefix("not an absolute URL") == true)
    }

    /// A route table's examples are asked of the domain: their paths and queries on its host, once each.
    @Test func routeExamplesAreMovedToTheDomain() {
        let moved = CDNComparison.moved(["https://rabble.community/g/x?sy_extra=1", "http://user:pw@www.rabble.community:8443/g/x?sy_extra=1", "https://rabble.community/i/a"], to: "localhost:18443")
        #expect(moved == ["https://localhost/g/x?sy_extra=1", "https://localhost/i/a"])
    }
}
