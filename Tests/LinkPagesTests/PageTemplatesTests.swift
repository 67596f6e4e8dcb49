import Foundation
@testable import LinkPages
import SwitchyardCore
import Testing

/// The page templates: the built-in ones, an operator's directory in their place, and what is
/// refused at load (with the file and line).
@Suite struct PageTemplatesTests {
    static func directory(_ files: [String: String]) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("switchyard-templates-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        for (name, text) in files { try text.write(toFile: path + "/" + name, atomically: true, encoding: .utf8) }
        return path
    }

    static let page = LandingPage(title: "Summer <rave> & \"friends\"", description: "Join us", pageURL: "https://e.com/i/abc",
                                  deepLink: "shop://party/1", appStoreURL: "https://apps.apple.com/app/id123")

    @Test func theBuiltInTemplatesMakeTheLandingAndMessagePages() throws {
        let templates = PageTemplates.standard
        #expect(templates.sources == [.landing: "built-in", .message: "built-in"])
        let html = Self.page.html(for: .iOS, templates: templates)
        #expect(html.hasPrefix("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"))
        #expect(html.contains("<h1>Summer &lt;rave&gt; &amp; &quot;friends&quot;</h1>\n"))
        #expect(html.contains(#"<a id="open-app" class="button" href="shop://party/1">Open in the app</a>"#))
        #expect(html.contains(#"<a id="fallback" class="button" data-audience="ios" href="https://apps.apple.com/app/id123">Get it on the App Store</a>"#))
        #expect(html.hasSuffix("</body></html>\n"))
        #expect(!html.contains("{{"), "every tag is replaced")
        let message = templates.render(.message, ["title": "Link <gone>", "message": "This link has expired.", "status": 410])
        #expect(message.contains("<title>Link &lt;gone&gt;</title>") && message.contains("<p>This link has expired.</p>"))
    }

    @Test func anOperatorsLandingTemplateReplacesTheBuiltInOneWithPartialsAndEscaping() throws {
        let dir = try Self.directory([
            "landing.mustache": "<h1>{{title}}</h1>{{#openApp}}<a href=\"{{.}}\">Open</a>{{/openApp}}{{> footer}}\n{{{title}}}\n",
            "footer.mustache": "<footer>{{description}} · {{audience}}</footer>",
        ])
        let templates = try PageTemplates(directory: dir)
        #expect(templates.sources[.landing] == dir + "/landing.mustache")
        #expect(templates.sources[.message] == "built-in", "a page the directory does not have keeps its built-in template")
        #expect(Self.page.html(for: .android, templates: templates)
                == "<h1>Summer &lt;rave&gt; &amp; &quot;friends&quot;</h1><a href=\"shop://party/1\">Open</a><footer>Join us · android</footer>\nSummer <rave> & \"friends\"\n")
        // The same page from the built-in templates is untouched by another library's existence.
        #expect(Self.page.html(for: .android).contains("<title>"))
    }

    /// A brand template that extends the built-in page replaces only its blocks: the page keeps
    /// its buttons, fallbacks and scripts.
    @Test func aTemplateCanExtendTheBuiltInPageAndReplaceOnlyItsBlocks() throws {
        let dir = try Self.directory(["landing.mustache": """
            {{<switchyard-landing}}
            {{$style}}
            <link rel="stylesheet" href="https://e.com/brand.css">
            {{/style}}
            {{$footer}}
            <footer>© Plur · {{title}}</footer>
            {{/footer}}
            {{/switchyard-landing}}
            """])
        let templates = try PageTemplates(directory: dir)
        let branded = Self.page.html(for: .iOS, templates: templates), plain = Self.page.html(for: .iOS)
        #expect(branded.contains("<link rel=\"stylesheet\" href=\"https://e.com/brand.css\">\n</head>"))
        #expect(!branded.contains("<style>") && plain.contains("<style>"))
        #expect(branded.contains("<footer>© Plur · Summer &lt;rave&gt; &amp; &quot;friends&quot;</footer>\n</main>"))
        // Everything else is the built-in page's, line for line.
        let kept = plain.split(separator: "\n").filter { !$0.hasPrefix("<style>") && !$0.hasPrefix("main{") && !$0.hasPrefix("#open-app{") && !$0.hasPrefix(".icon{") }
        let brandedLines = branded.split(separator: "\n").filter { !$0.hasPrefix("<link rel=\"stylesheet\"") && !$0.hasPrefix("<footer>") }
        #expect(brandedLines == kept)
    }

    struct Refusal: CustomTestStringConvertible, Sendable {
        var name: String
        var files: [String: String]
        var message: String
        var line: Int?
        var testDescription: String { name }
    }

    static let refusals = [
        Refusal(name: "a misspelt value", files: ["landing.mustache": "<h1>{{title}}</h1>\n<p>{{descripton}}</p>\n"],
                message: "landing pages have no value named \"descripton\"; did you mean description? (docs/operator-guide.md lists them)", line: 2),
        Refusal(name: "a misspelt section", files: ["landing.mustache": "\n\n{{#openApps}}x{{/openApps}}"],
                message: "landing pages have no value named \"openApps\"; did you mean openApp? (docs/operator-guide.md lists them)", line: 3),
        Refusal(name: "a landing value on the message page", files: ["message.mustache": "{{title}} {{pageURL}}"],
                message: "message pages have no value named \"pageURL\" (docs/operator-guide.md lists them)", line: 1),
        Refusal(name: "an unclosed section", files: ["landing.mustache": "<h1>{{title}}</h1>\n{{#icon}}<img src=\"{{.}}\">\n"],
                message: "the template does not parse (expectedSectionEnd)", line: nil),
        Refusal(name: "a template that includes itself", files: ["landing.mustache": "<h1>{{title}}</h1>\n{{> footer}}", "footer.mustache": "<p>{{description}}</p>{{> landing}}"],
                message: "footer includes itself (footer → landing → footer): it would never end", line: 1),
        Refusal(name: "a partial that is not there", files: ["landing.mustache": "<h1>{{title}}</h1>\n\n{{> fotoer}}", "footer.mustache": "<p>{{description}}</p>"],
                message: "includes \"fotoer\", which is no template here (there are: footer, switchyard-landing, switchyard-message)", line: 3),
        Refusal(name: "a dynamic partial", files: ["landing.mustache": "{{>*title}}"],
                message: "{{>*title}}: a dynamic partial is not allowed (a value would choose the template); name the partial", line: 1),
        Refusal(name: "a misspelt value in a partial", files: ["landing.mustache": "{{> footer}}", "footer.mustache": "\n<p>{{descripton}}</p>"],
                message: "landing pages, which include this partial, have no value named \"descripton\"; did you mean description? (docs/operator-guide.md lists them)", line: 2),
        Refusal(name: "other delimiters", files: ["landing.mustache": "{{=<% %>=}}\n<%> landing%>"],
                message: "{{=<% %>=}}: changing the delimiters is not supported; keep {{ and }}", line: 1),
        Refusal(name: "a file named as a built-in template", files: ["landing.mustache": "{{title}}", "switchyard-landing.mustache": "x"],
                message: "switchyard-landing.mustache: the names switchyard-… are the built-in templates'; name the file otherwise", line: nil),
        Refusal(name: "no page template at all", files: ["landng.mustache": "{{title}}"],
                message: "holds no landing.mustache or message.mustache, so it would change no page", line: nil),
    ]

    @Test(arguments: refusals)
    func aTemplateThatCannotBeUsedIsRefusedSayingWhereAndWhy(_ refusal: Refusal) throws {
        let dir = try Self.directory(refusal.files)
        do {
            _ = try PageTemplates(directory: dir)
            Issue.record("accepted")
        } catch {
            #expect(error.code == .invalidTemplate)
            #expect(error.message.hasSuffix(refusal.message), "\(error.message)")
            if let line = refusal.line {
                #expect(error.location?.line == line, "\(error)")
                #expect(error.location?.file?.hasPrefix(dir + "/") == true)
                #expect("\(error)".hasPrefix("\(dir)/"), "the description names the file: \(error)")
            }
        }
    }

    @Test func aDirectoryThatIsNotThereIsSaidSo() {
        #expect(throws: PageError.self) { try PageTemplates(directory: "/nonexistent/brand") }
        do { _ = try PageTemplates(directory: "/nonexistent/brand") } catch {
            #expect(error.message == "/nonexistent/brand: no such directory of page templates")
        }
    }

    @Test func tagNamesAreReadWithTheirLines() {
        let tags = PageTemplates.tags(in: "a {{title}}\n{{! a comment {{ }}\n{{#stores}}{{url}}{{/stores}}\n{{> footer}} {{{raw}}} {{& amp}} {{.}} {{ spaced }}")
        #expect(tags.map(\.name) == ["title", "stores", "url", "stores", "raw", "amp", "spaced"])
        #expect(tags.map(\.line) == [1, 3, 3, 3, 4, 4, 4])
    }
}
