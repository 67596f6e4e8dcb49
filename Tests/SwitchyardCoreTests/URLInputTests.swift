import Testing
import SwitchyardCore

/// The input check's port rule, read from the text: a port no integer type holds is refused, not
/// dropped (a parser that cannot hold it reports no port, and the default one would be used).
@Suite struct URLInputTests {
    @Test(arguments: [
        ("https://127.0.0.1:18446744073709551616/", "the port 18446744073709551616 is not from 0 to 65535"),
        ("https://example.com:999999999999999999999999/x", "the port 999999999999999999999999 is not from 0 to 65535"),
        ("https://example.com:65536", "the port 65536 is not from 0 to 65535"),
        ("https://u:p@example.com:99999/", "the port 99999 is not from 0 to 65535"),
        ("https://[::1]:70000/", "the port 70000 is not from 0 to 65535"),
        ("https://example.com:abc/", "the port 'abc' is not a number"),
        ("https://example.com:-1/", "the port '-1' is not a number"),
        ("plur://group:x1/a", "the port 'x1' is not a number"),
    ])
    func portsThatCannotBeAreRefused(_ url: String, _ problem: String) {
        #expect(URLInput.problem(url) == problem)
    }

    @Test(arguments: ["https://example.com:65535/", "https://example.com:0/", "https://example.com:000443/", "https://example.com:/",
                      "https://[::1]/x", "https://[::1]:8443/", "https://u:p@example.com/", "https://example.com/a:b?c=d:e#f:g",
                      "mailto:a@example.com", "plur://group/x"])
    func portsThatCanBeAndURLsWithoutOnePass(_ url: String) {
        #expect(URLInput.problem(url) == nil, "\(url)")
    }
}
