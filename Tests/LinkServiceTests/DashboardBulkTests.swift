import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import LinkStorage
@testable import LinkService
import SwitchyardCore
import SwitchyardTestSupport
import Testing

/// The dashboard's "Create several": links as CSV, each made as the bulk API makes an item, and
/// a page that says what became of each line.
@Suite struct DashboardBulkTests {
    @Test func eachLineOfTheCSVIsMadeOrSaysWhyNot() async throws {
        let h = try await Harness.make()
        try await h.app().test(.router) { client in
            var browser = DashboardTests.Browser(client: client)
            _ = try await browser.signIn(h.writer)
            let list = try await browser.get("/admin")
            #expect(list.text.contains(#"id="bulk-links" href="/admin/bulk""#), "\(list.text)")
            let form = try await browser.get("/admin/bulk")
            #expect(form.status == .ok && form.text.contains(#"id="bulk-form""#) && form.text.contains("code,domain,deepLink"), "\(form.text)")
            let csv = """
            code,deepLink,route,parameters,title,tags,maxUses
            spring1,plur://group/spring,,,"Spring, in Zürich",spring email,5
            ,,appGroup,"{""groupId"":""ravers""}",Ravers,,
            bad1,https://evil.example/,,,,,
            spring1,plur://group/again,,,,,
            ,plur://group/many,,,,,lots
            short,plur://group/x
            """
            let answer = try await browser.post("/admin/bulk", [("csrf", try await browser.csrf("/admin/bulk")), ("csv", csv)])
            #expect(answer.status == .ok, "\(answer.text)")
            #expect(answer.text.contains("2 created, 4 not"), "\(answer.text)")
            #expect(answer.text.contains(#"<a href="/admin/links/spring1"><code>spring1</code></a> created"#), "\(answer.text)")
            #expect(answer.text.contains("Deep link: an https deep link must be on one of the configured hosts"), "\(answer.text)")
            #expect(answer.text.contains("Code: ") && answer.text.contains("already taken"), "\(answer.text)")
            #expect(answer.text.contains("Maximum uses: "), "\(answer.text)")
            #expect(answer.text.contains("2 values where the header names 7 columns"), "\(answer.text)")
            // The CSV is kept in the form for another try.
            #expect(answer.text.contains("plur://group/again"))
            let spring = try #require(try await h.store.link(code: "spring1"))
            #expect(spring.title == "Spring, in Zürich" && spring.tags == ["spring", "email"] && spring.maxUses == 5)
            #expect(try await h.store.searchLinks("", limit: 10).count == 2)

            // A header no new link has is said, and nothing is made.
            let export = try await browser.post("/admin/bulk", [("csrf", try await browser.csrf("/admin/bulk")), ("csv", "code,kind,deepLink\nx1,link,plur://group/x\n")])
            #expect(export.status == .badRequest && export.text.contains("kind is a column of an export"), "\(export.text)")
            let typo = try await browser.post("/admin/bulk", [("csrf", try await browser.csrf("/admin/bulk")), ("csv", "code,deeplink\nx1,plur://group/x\n")])
            #expect(typo.status == .badRequest && typo.text.contains("did you mean &quot;deepLink&quot;?"), "\(typo.text)")
            #expect(try await h.store.searchLinks("", limit: 10).count == 2)
        }
    }

    /// 1,000 links are more than the single-link form's body limit, and within the bulk one;
    /// a reader sees no way to make them.
    @Test func aThousandLinksAtOnceAndNoneForAReader() async throws {
        let h = try await Harness.make()
        try await h.app().test(.router) { client in
            var browser = DashboardTests.Browser(client: client)
            _ = try await browser.signIn(h.writer)
            let csv = "deepLink,tags\n" + (0..<1000).map { "plur://group/bulk-\($0),batch" }.joined(separator: "\n")
            let answer = try await browser.post("/admin/bulk", [("csrf", try await browser.csrf("/admin/bulk")), ("csv", csv)])
            #expect(answer.status == .ok && answer.text.contains("1000 created, 0 not"), "\(answer.text.prefix(500))")
            let tooMany = try await browser.post("/admin/bulk", [("csrf", try await browser.csrf("/admin/bulk")), ("csv", csv + "\nplur://group/one-more,x")])
            #expect(tooMany.status == .badRequest && tooMany.text.contains("1001 links; at most 1000 at once"), "\(tooMany.text.prefix(500))")

            var reader = DashboardTests.Browser(client: client)
            _ = try await reader.signIn(h.reader)
            #expect(!(try await reader.get("/admin").text.contains(#"id="bulk-links""#)))
            #expect(try await reader.get("/admin/bulk").status == .forbidden)
        }
    }
}
