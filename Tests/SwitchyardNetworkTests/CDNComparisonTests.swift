import Testing
import SwitchyardNetwork

@Suite struct CDNComparisonTests {
    /// Only URLs on the domain compared can be decided by its files; a port on the domain is not
    /// part of the host a URL names.
    @Test func aURLMustBeOnTheDomain() {
        #expect(CDNComparison.urlProblem("https://shop.example/buy/1", domain: "shop.example") == nil)
        #expect(CDNComparison.urlProblem("https://SHOP.example/buy/1", domain: "shop.example") == nil)
        #expect(CDNComparison.urlProblem("https://localhost/g/x", domain: "localhost:18443") == nil)
        #expect(CDNComparison.urlProblem("https://[::1]:8443/g/x", domain: "[::1]:8443") == nil)
        #expect(CDNComparison.urlProblem("https://localhost/g/x", domain: "[::1]:8443") != nil)
        #expect(CDNComparison.urlProblem("https://www.shop.example/buy/1", domain: "shop.example") == "not on shop.example: only shop.example's URLs are decided by its file")
        #expect(CDNComparison.urlProblem("notaurl", domain: "shop.example")?.hasPrefix("not an absolute URL") == true)
    }

    /// A route table's examples are asked of the domain: their paths and queries on its host, once each.
    @Test func routeExamplesAreMovedToTheDomain() {
        let moved = CDNComparison.moved(["https://rabble.community/g/x?sy_extra=1", "http://user:pw@www.rabble.community:8443/g/x?sy_extra=1", "https://rabble.community/i/a"], to: "localhost:18443")
        #expect(moved == ["https://localhost/g/x?sy_extra=1", "https://localhost/i/a"])
        #expect(CDNComparison.moved(["https://rabble.community/g/x"], to: "[::1]:8443") == ["https://[::1]/g/x"])
    }

    /// DOMAIN is a host and a port as browsers send them: anything else is refused before a
    /// fetch, with the form to write where there is one.
    @Test func theDomainIsAHostAndAPortOnly() {
        for fine in ["shop.example", "localhost:8443", "127.0.0.1:8443", "[::1]:8443", "xn--bcher-kva.example"] {
            #expect(CDNComparison.domainProblem(fine) == nil, "\(fine)")
        }
        #expect(CDNComparison.domainProblem("LOCALHOST:8443") == "write DOMAIN as localhost:8443, the host as browsers send it")
        #expect(CDNComparison.domainProblem("bücher.example") == "write DOMAIN as xn--bcher-kva.example, the host as browsers send it")
        #expect(CDNComparison.domainProblem("localhost:") == "write DOMAIN as localhost, the host as browsers send it")
        #expect(CDNComparison.domainProblem("localhost:99999")?.contains("port") == true)
        for bad in ["", "user:pw@shop.example", "shop.example#x", "shop.example/x", "https://shop.example", "shop.example?x", "localhost:8443:1", "::1", ".localhost", "localhost..", "a b"] {
            #expect(CDNComparison.domainProblem(bad)?.hasPrefix("DOMAIN must be a host name") == true, "\(bad): \(String(describing: CDNComparison.domainProblem(bad)))")
        }
    }

    /// A --url with credentials is refused without being repeated.
    @Test func aURLWithCredentialsIsRefused() {
        for url in ["https://u:SECRETPW@localhost:8443/x/1", "https://u%3ASECRETPW@localhost:8443/x/1", "https://u:SECRETPW@evil.example/x"] {
            #expect(CDNComparison.urlProblem(url, domain: "localhost:8443") == "holds a user name or password: devices ask without any")
        }
    }
}
