import SwitchyardTestSupport
import Foundation
@testable import LinkPages
import SwitchyardCore
import Testing

/// The page templates: the built-in ones, an operator's directory in their place, and what is
/// refused at load (with the file and line).
@Suite struct PageTemplatesTests {
    static func directory(_ files: [String: String]) throws -> String {
        let path = TestTemporary.root.appendingPathComponent("switchyard-templates-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        for (name, text) in files { try text.write(toFile: path + "/" + name, atomically: true, encoding: .utf8) }
        return path
    }

    static let page = LandingPage(title: "Summer <rave> & \"friends\"", description: "Join us", pageURL: "https://e.com/i/abc",
                                  deepLink: "shop://party/1", appStoreURL: "https://apps.apple.com/app/id123")

    @Test func theBuiltInTemplatesMakeTheLandingAndMessagePages() throws {
        let templates = PageTemplates.standard
        #expect(templates.sources == [.landing: "built-in", .message: "built-in", .password: "built-in"])
        let html = Self.page.html(for: .iOS, templates: templates)
        #expect(html.hasPrefix("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"))
        #expect(html.contains("<h1>Summer &lt;rave&gt; &amp; &quot;friends&quot;</h1>\n"))
        #expect(html.contains(#"<a id="open-app" class="button" href="shop://party/1">Open in the app</a>"#))
        #expect(html.contains(#"<a id="fallback" class="button" data-audience="ios" href="https://apps.apple.com/app/id123">Get it on the App Store</a>"#))
        #expect(html.hasSuffix("</body></html>\n"))
        #expect(!html.contains("{{"), "every tag is replaced")
        let message = templates.render(MessageView(title: "Link <gone>", message: "This link has expired.", status: 410))
        #expect(message.contains("<title>Link &lt;gone&gt;</title>") && message.contains("<p>This link has expired.</p>"))
    }

    /// The operator guide says to copy a built-in template to start from: the copies load and make
    /// the same pages as the built-in ones.
    @Test func copiesOfTheBuiltInTemplatesLoadAndMakeTheSamePages() throws {
        let resources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Sources/LinkPages/Resources").standardized.path
        let dir = try Self.directory([:])
        for name in ["landing.mustache", "message.mustache"] { try FileManager.default.copyItem(atPath: resources + "/" + name, toPath: dir + "/" + name) }
        let copies = try PageTemplates(directory: dir)
        #expect(copies.sources[.landing] == dir + "/landing.mustache" && copies.sources[.message] == dir + "/message.mustache")
        for audience in [LandingPage.Audience.iOS, .android, .desktop] {
            #expect(Self.page.html(for: audience, templates: copies) == Self.page.html(for: audience, templates: .standard))
        }
        let view = MessageView(title: "Link <gone>", message: "This link has expired.", status: 410)
        #expect(copies.render(view) == PageTemplates.standard.render(view))
    }

    @Test func anOperatorsLandingTemplateReplacesTheBuiltInOneWithPartials() throws {
        let dir = try Self.directory([
            "landing.mustache": "<h1>{{title}}</h1>{{#openApp}}<a href=\"{{.}}\">Open</a>{{/openApp}}{{> footer}}\n",
            "footer.mustache": "<footer>{{description}} · {{audience}}</footer>",
        ])
        let templates = try PageTemplates(directory: dir)
        #expect(templates.sources[.landing] == dir + "/landing.mustache")
        #expect(templates.sources[.message] == "built-in", "a page the directory does not have keeps its built-in template")
        #expect(Self.page.html(for: .android, templates: templates)
                == "<h1>Summer &lt;rave&gt; &amp; &quot;friends&quot;</h1><a href=\"shop://party/1\">Open</a><footer>Join us · android</footer>\n")
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

    /// Escaping is by Unicode scalar: a quote followed by a combining mark is one Character,
    /// which Mustache's own escaping would let through to close an attribute.
    @Test func aQuoteWithACombiningMarkIsEscapedOnEveryPage() throws {
        let hostile = "0;url=https://evil.example/\"\u{301} http-equiv=refresh x<\u{301}b>&\u{301}'\u{301}"
        let page = LandingPage(title: hostile, description: hostile, pageURL: "https://e.com/i/abc")
        let dir = try Self.directory(["landing.mustache": "{{<switchyard-landing}}{{$footer}}<img alt=\"{{title}}\">{{> credit}}{{/footer}}{{/switchyard-landing}}",
                                      "credit.mustache": "<p title=\"{{description}}\"></p>"])
        let pages = [page.html(for: .desktop), page.html(for: .desktop, templates: try PageTemplates(directory: dir)),
                     DashboardPages.render(DashboardMessageView(heading: hostile), title: hostile, user: DashboardUser(name: hostile, scopes: "links:read", csrf: "c"), errors: [hostile]),
                     LauncherPage(inbox: hostile, token: "00", quickTests: [hostile]).html]
        for html in pages {
            #expect(!html.unicodeScalars.contains { $0 == "\"" } || !html.contains("\"\u{301}"), "a raw quote before the mark")
            for raw in ["\"\u{301}", "<\u{301}", "&\u{301}", "'\u{301}"] { #expect(!html.contains(raw), "\(raw) raw in \(html)") }
            #expect(html.contains("&quot;\u{301} http-equiv=refresh x&lt;\u{301}b&gt;&amp;\u{301}&#39;\u{301}"))
        }
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
                message: "landing pages have no value named \"descripton\"; did you mean description? (the operator guide, “Your own page templates”, lists them)", line: 2),
        Refusal(name: "a misspelt section", files: ["landing.mustache": "\n\n{{#openApps}}x{{/openApps}}"],
                message: "landing pages have no value named \"openApps\"; did you mean openApp? (the operator guide, “Your own page templates”, lists them)", line: 3),
        Refusal(name: "a landing value on the message page", files: ["message.mustache": "{{title}} {{pageURL}}"],
                message: "message pages have no value named \"pageURL\" (the operator guide, “Your own page templates”, lists them)", line: 1),
        Refusal(name: "an unclosed section", files: ["landing.mustache": "<h1>{{title}}</h1>\n{{#icon}}<img src=\"{{.}}\">\n"],
                message: "the template does not parse: a section is not closed (its {{/name}} is missing)", line: nil),
        Refusal(name: "a page included as a partial", files: ["landing.mustache": "<h1>{{title}}</h1>\n{{> footer}}", "footer.mustache": "<p>{{description}}</p>{{> landing}}"],
                message: "includes the page landing as a partial; a page is extended ({{<switchyard-…}}), never included", line: 1),
        Refusal(name: "partials that include each other", files: ["landing.mustache": "<h1>{{title}}</h1>\n{{> a}}", "a.mustache": "{{> b}}", "b.mustache": "\n{{> a}}"],
                message: "a includes itself through its partials: it would never end", line: 1),
        Refusal(name: "the built-in page included from a block (it would recurse)", files: [
            "landing.mustache": "{{<switchyard-landing}}{{$footer}}{{> foot}}{{/footer}}{{/switchyard-landing}}", "foot.mustache": "{{> switchyard-landing}}"],
                message: "includes the page switchyard-landing as a partial; a page is extended ({{<switchyard-…}}), never included", line: 1),
        Refusal(name: "a block inside a block of the same name", files: ["landing.mustache": "{{<switchyard-landing}}{{$header}}{{$header}}<header>Plur</header>{{/header}}{{/header}}{{/switchyard-landing}}"],
                message: "the block {{$header}} stands inside another block or a section; a block stands at the template's top level, or right inside {{<switchyard-…}}", line: 1),
        Refusal(name: "a block in a section", files: ["landing.mustache": "{{#hasDescription}}\n{{$header}}x{{/header}}{{/hasDescription}}"],
                message: "the block {{$header}} stands inside another block or a section; a block stands at the template's top level, or right inside {{<switchyard-…}}", line: 2),
        Refusal(name: "a block in a partial", files: ["landing.mustache": "{{> p}}", "p.mustache": "{{$header}}x{{/header}}"],
                message: "the block {{$header}} is in a partial; blocks belong to landing.mustache and message.mustache", line: 1),
        Refusal(name: "a parent inside a block", files: ["landing.mustache": "{{<switchyard-landing}}{{$header}}\n{{<switchyard-landing}}{{/switchyard-landing}}{{/header}}{{/switchyard-landing}}"],
                message: "{{<switchyard-landing}} must stand at the template's top level, once, before any block", line: 2),
        Refusal(name: "a page's own block, then the parent", files: ["landing.mustache": "{{$header}}<h1>{{title}}</h1>{{/header}}\n{{<switchyard-landing}}{{/switchyard-landing}}"],
                message: "{{<switchyard-landing}} must stand at the template's top level, once, before any block", line: 2),
        Refusal(name: "a page's own block of another name", files: ["landing.mustache": "{{$heder}}<h1>{{title}}</h1>{{/heder}}"],
                message: "the built-in landing page has no block named \"heder\"; did you mean header? (its blocks: head, style, header, footer)", line: 1),
        Refusal(name: "a partial that extends", files: ["landing.mustache": "{{> p}}", "p.mustache": "{{<p}}{{$b}}{{/b}}{{/p}}"],
                message: "a partial cannot extend a template ({{<p}}); only landing.mustache and message.mustache can", line: 1),
        Refusal(name: "another page's parent", files: ["landing.mustache": "{{<switchyard-message}}{{/switchyard-message}}"],
                message: "landing.mustache can extend only its built-in page, {{<switchyard-landing}}", line: 1),
        Refusal(name: "a misspelt block", files: ["landing.mustache": "{{<switchyard-landing}}\n{{$heder}}x{{/heder}}\n{{/switchyard-landing}}"],
                message: "the built-in landing page has no block named \"heder\"; did you mean header? (its blocks: head, style, header, footer)", line: 2),
        Refusal(name: "a block filled twice", files: ["landing.mustache": "{{<switchyard-landing}}{{$footer}}a{{/footer}}{{$footer}}b{{/footer}}{{/switchyard-landing}}"],
                message: "the block footer is filled twice", line: 1),
        Refusal(name: "sections nested too deep", files: ["landing.mustache": String(repeating: "{{#title}}", count: 3000) + String(repeating: "{{/title}}", count: 3000)],
                message: "sections nested more than 16 deep", line: 1),
        Refusal(name: "lists nested until the page is huge", files: ["landing.mustache": "{{#stores}}{{#stores}}{{#stores}}{{#stores}}{{#stores}}{{#stores}}{{#stores}}{{#stores}}{{#stores}}{{#stores}}{{url}}{{/stores}}{{/stores}}{{/stores}}{{/stores}}{{/stores}}{{/stores}}{{/stores}}{{/stores}}{{/stores}}{{/stores}}"],
                message: "its pages could be 8192 KiB, over the 2048 KiB a page may have (lists nested in each other, or partials included many times)", line: nil),
        Refusal(name: "a diamond of partials", files: ["landing.mustache": "{{> d0}}"].merging((0..<12).map { ("d\($0).mustache", "{{title}}{{> d\($0 + 1)}}{{> d\($0 + 1)}}") } + [("d12.mustache", "{{title}}")]) { a, _ in a },
                message: "its pages could be 8192 KiB, over the 2048 KiB a page may have (lists nested in each other, or partials included many times)", line: nil),
        Refusal(name: "a diamond of empty partials", files: ["landing.mustache": "{{title}}{{> e0}}"].merging((0..<24).map { ("e\($0).mustache", "{{> e\($0 + 1)}}{{> e\($0 + 1)}}") } + [("e24.mustache", "")]) { a, _ in a },
                message: "its pages could be 8192 KiB, over the 2048 KiB a page may have (lists nested in each other, or partials included many times)", line: nil),
        Refusal(name: "a value written unescaped", files: ["landing.mustache": "<h1>{{{title}}}</h1>"],
                message: "{{{title}}} writes the value without escaping; write {{title}} (link creators supply the values)", line: 1),
        Refusal(name: "a value written unescaped with &", files: ["landing.mustache": "\n<p>{{& description}}</p>"],
                message: "{{{description}}} writes the value without escaping; write {{description}} (link creators supply the values)", line: 2),
        Refusal(name: "a member outside its section", files: ["landing.mustache": "<a href=\"{{url}}\">"],
                message: "landing pages have no value named \"url\" (the operator guide, “Your own page templates”, lists them)", line: 1),
        Refusal(name: "another section's member", files: ["landing.mustache": "{{#fallback}}{{href}}{{/fallback}}"],
                message: "landing pages have no value named \"href\" here (the operator guide, “Your own page templates”, lists them)", line: 1),
        Refusal(name: "a dotted name", files: ["landing.mustache": "{{title.length}}"],
                message: "{{title.length}}: dotted names are not supported; open the section ({{#a}}{{b}}{{/a}})", line: 1),
        Refusal(name: "the whole view", files: ["landing.mustache": "<pre>{{.}}</pre>"],
                message: "{{.}} outside a section would write the page's whole view; name a value", line: 1),
        Refusal(name: "an empty page", files: ["landing.mustache": " \n"],
                message: "landing.mustache: is empty: every such page would be blank", line: nil),
        Refusal(name: "a name a partial cannot be included by", files: ["landing.mustache": "{{title}}", "with space.mustache": "x"],
                message: "with space.mustache: a template's name is letters, digits, - and _ (a partial is included by it: {{> name}})", line: nil),
        Refusal(name: "a NUL byte", files: ["landing.mustache": "{{title}}\u{0}"],
                message: "landing.mustache: holds a NUL byte (at byte 9); a template is text", line: nil),
        Refusal(name: "a partial that is not there", files: ["landing.mustache": "<h1>{{title}}</h1>\n\n{{> fotoer}}", "footer.mustache": "<p>{{description}}</p>"],
                message: "includes \"fotoer\", which is no partial here (there are: footer)", line: 3),
        Refusal(name: "a dynamic partial", files: ["landing.mustache": "{{>*title}}"],
                message: "{{>*title}}: a dynamic partial is not allowed (a value would choose the template); name the partial", line: 1),
        Refusal(name: "a misspelt value in a partial", files: ["landing.mustache": "{{> footer}}", "footer.mustache": "\n<p>{{descripton}}</p>"],
                message: "landing pages, which include this partial, have no value named \"descripton\"; did you mean description? (the operator guide, “Your own page templates”, lists them)", line: 2),
        Refusal(name: "other delimiters", files: ["landing.mustache": "{{=<% %>=}}\n<%> landing%>"],
                message: "{{=<% %>=}}: changing the delimiters is not supported; keep {{ and }}", line: 1),
        Refusal(name: "a file named as a built-in template", files: ["landing.mustache": "{{title}}", "switchyard-landing.mustache": "x"],
                message: "switchyard-landing.mustache: the names switchyard-… are the built-in templates'; name the file otherwise", line: nil),
        // Issue 41: values where escaping does not keep them inert, and work without output.
        Refusal(name: "a title as a link", files: ["landing.mustache": "<h1>{{title}}</h1>\n<a class=\"x\" href=\"{{title}}\">go</a>"],
                message: "{{title}} stands at the start of a URL (href=), where a link creator's javascript:… would run; only the page's URL values may start one (appIntent, browserHref, claimURL, href, icon, openApp, pageURL, previewImage, qrImage, storeURL, url, web), or put a fixed https://host/ or /path before it", line: 2),
        Refusal(name: "an unquoted attribute", files: ["landing.mustache": "<a href={{description}}>x</a>"],
                message: "{{description}} stands in an unquoted attribute value (href=…), where a space in the value would add attributes; quote it: href=\"{{description}}\"", line: 1),
        Refusal(name: "a value in a script", files: ["landing.mustache": "<p>{{title}}</p>\n<script>\nvar t = \"{{title}}\";</script>"],
                message: "{{title}} stands in a <script> element, where HTML escaping does not keep a value from running as script; write it in the page's text or in a quoted attribute", line: 3),
        Refusal(name: "a value in a style element", files: ["landing.mustache": "<STYLE>h1::after{content:'{{title}}'}</STYLE>"],
                message: "{{title}} stands in a <style> element, where HTML escaping does not keep a value from running as style; write it in the page's text or in a quoted attribute", line: 1),
        Refusal(name: "a value in an event handler", files: ["landing.mustache": "<a href=\"/x\" onmouseover=\"alert('{{title}}')\">x</a>"],
                message: "{{title}} stands in the event-handler attribute onmouseover, which runs as script; values may not stand there", line: 1),
        Refusal(name: "a value in a style attribute", files: ["landing.mustache": "<p style='color:{{title}}'>x</p>"],
                message: "{{title}} stands in the style attribute, which is read as style; values may not stand there", line: 1),
        Refusal(name: "a value inside a tag", files: ["landing.mustache": "<div {{title}}>x</div>"],
                message: "{{title}} stands inside a tag but outside a quoted attribute value, where it could add attributes; put it in the page's text or in a quoted attribute", line: 1),
        Refusal(name: "a refresh to a value", files: ["landing.mustache": "<meta http-equiv=\"refresh\" content=\"0;url={{title}}\">"],
                message: "{{title}} stands at the start of a URL (<meta http-equiv> content), where a link creator's javascript:… would run; only the page's URL values may start one (appIntent, browserHref, claimURL, href, icon, openApp, pageURL, previewImage, qrImage, storeURL, url, web), or put a fixed https://host/ or /path before it", line: 1),
        Refusal(name: "an include inside an attribute", files: ["landing.mustache": "{{title}}<a href=\"{{> p}}\">x</a>", "p.mustache": "{{title}}"],
                message: "{{> p}} includes a partial inside the attribute href of <a>; an include stands in the page's text", line: 1),
        Refusal(name: "empty list sections nested 15 deep", files: ["landing.mustache": "{{title}}\n" + String(repeating: "{{#stores}}", count: 15) + String(repeating: "{{#stores}}{{/stores}}", count: 100) + String(repeating: "{{/stores}}", count: 15)],
                message: "rendering one of its pages could take over 80000 section, value and include evaluations, over the 20000 a page may take (each list section repeats what it holds for every item, so list sections nested in each other multiply: here 16 deep)", line: 2),
        // The fresh-eyes pass on issue 41: places a browser reads otherwise than the first check did.
        Refusal(name: "a script that does not end at </scriptx>", files: ["landing.mustache": "<script>/*</scriptx>*/\n{{title}}\n</script>"],
                message: "{{title}} stands in a <script> element, where HTML escaping does not keep a value from running as script; write it in the page's text or in a quoted attribute", line: 2),
        Refusal(name: "a double-escaped script", files: ["landing.mustache": "<script><!--<script></script>\n{{title}}\n</script>"],
                message: "a <script> element holds \"<!--\", which changes where a browser ends the element; remove it", line: 1),
        Refusal(name: "a self-closed script", files: ["landing.mustache": "<script/>{{title}}</script>"],
                message: "{{title}} stands in a <script> element, where HTML escaping does not keep a value from running as script; write it in the page's text or in a quoted attribute", line: 1),
        Refusal(name: "a comment closed by --!>", files: ["landing.mustache": "<!-- --!> <script>\n{{title}}\n</script> -->"],
                message: "{{title}} stands in a <script> element, where HTML escaping does not keep a value from running as script; write it in the page's text or in a quoted attribute", line: 2),
        Refusal(name: "an empty comment <!-->", files: ["landing.mustache": "<!--> <script>\n{{title}}\n</script> -->"],
                message: "{{title}} stands in a <script> element, where HTML escaping does not keep a value from running as script; write it in the page's text or in a quoted attribute", line: 2),
        Refusal(name: "an empty comment <!--->", files: ["landing.mustache": "<!---> <script>\n{{title}}\n</script> -->"],
                message: "{{title}} stands in a <script> element, where HTML escaping does not keep a value from running as script; write it in the page's text or in a quoted attribute", line: 2),
        Refusal(name: "a value right after <", files: ["landing.mustache": "<p><{{title}}</p>"],
                message: "{{title}} stands right after \"<\", where a browser would read it as a tag; put a space or text between them", line: 1),
        Refusal(name: "a value after a section that may be empty", files: ["landing.mustache": "<a href=\"{{#icon}}{{.}}{{/icon}}{{title}}\">x</a>"],
                message: "{{title}} stands at the start of a URL (href=), where a link creator's javascript:… would run; only the page's URL values may start one (appIntent, browserHref, claimURL, href, icon, openApp, pageURL, previewImage, qrImage, storeURL, url, web), or put a fixed https://host/ or /path before it", line: 1),
        Refusal(name: "an SVG animation to a value", files: ["landing.mustache": "<svg><a><set attributeName=\"href\" to=\"{{title}}\"/></a></svg>"],
                message: "{{title}} stands at the start of a URL (to=), where a link creator's javascript:… would run; only the page's URL values may start one (appIntent, browserHref, claimURL, href, icon, openApp, pageURL, previewImage, qrImage, storeURL, url, web), or put a fixed https://host/ or /path before it", line: 1),
        Refusal(name: "a value in a srcset after a fixed URL", files: ["landing.mustache": "<img srcset=\"https://x.example/a.png {{title}}\">"],
                message: "{{title}} stands at the start of a URL (srcset=), where a link creator's javascript:… would run; only the page's URL values may start one (appIntent, browserHref, claimURL, href, icon, openApp, pageURL, previewImage, qrImage, storeURL, url, web), or put a fixed https://host/ or /path before it", line: 1),
        Refusal(name: "a style that does not end at </stylex>", files: ["landing.mustache": "<style>/*</stylex>*/ {{title}}</style>"],
                message: "{{title}} stands in a <style> element, where HTML escaping does not keep a value from running as style; write it in the page's text or in a quoted attribute", line: 1),
        Refusal(name: "no page template at all", files: ["landng.mustache": "{{title}}"],
                message: "holds none of landing.mustache, message.mustache and password.mustache, so it would change no page", line: nil),
    ]

    /// Values where HTML keeps them inert load: text, quoted attributes that are no URL, the
    /// page's URL values in URL attributes, and a value after a fixed start of a URL.
    @Test func valuesWhereEscapingKeepsThemInertLoad() throws {
        let text = """
            <!doctype html><title>{{title}}</title><meta property="og:title" content="{{title}}">
            <!-- {{description}} -->
            <a href="https://x.example/share?text={{title}}&amp;u={{pageURL}}" title='{{description}}' data-x="{{title}}">{{title}}</a>
            <a href="/search?q={{title}}">s</a><a href="{{pageURL}}#{{title}}">p</a>
            {{#stores}}<a href="{{url}}">{{label}}</a>{{/stores}}{{#icon}}<img src="{{.}}" alt="{{title}}">{{/icon}}
            <script>var ok = 1;</script><p>{{description}}</p>
            """
        let templates = try PageTemplates(directory: try Self.directory(["landing.mustache": text]))
        let html = Self.page.html(for: .desktop, templates: templates)
        #expect(html.contains("<p>Join us</p>") && html.contains("share?text=Summer &lt;rave&gt;"), "\(html)")
    }

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

    /// A template that is a symbolic link to a file of its own directory is read (a Kubernetes
    /// ConfigMap mounts files as links into `..data/`); one to a file outside it is refused,
    /// page or partial, so no file of the host can become a public page.
    @Test func aSymbolicLinkMustStayInsideTheDirectory() throws {
        let dir = try Self.directory([:])
        try FileManager.default.createDirectory(atPath: dir + "/..data", withIntermediateDirectories: true)
        try "<p>{{title}}</p>".write(toFile: dir + "/..data/landing.mustache", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: dir + "/landing.mustache", withDestinationPath: "..data/landing.mustache")
        _ = try PageTemplates(directory: dir)

        let outside = try Self.directory(["secret.txt": "root:x:0:0"])
        for (file, text) in [("landing.mustache", nil), ("footer.mustache", "{{> footer}}")] as [(String, String?)] {
            let dir = try Self.directory(text.map { ["landing.mustache": $0] } ?? [:])
            try FileManager.default.createSymbolicLink(atPath: dir + "/" + file, withDestinationPath: outside + "/secret.txt")
            let error = #expect(throws: PageError.self) { try PageTemplates(directory: dir) }
            #expect(error?.message.contains("\(file): is a symbolic link to \(URL(fileURLWithPath: outside).resolvingSymlinksInPath().path)/secret.txt, outside the directory") == true,
                    "\(String(describing: error))")
        }
    }

    /// A link whose target is gone and a loop of links are told apart.
    @Test func aBrokenOrLoopingLinkIsSaidSo() throws {
        let dir = try Self.directory(["landing.mustache": "<p>{{title}}</p>"])
        try FileManager.default.createSymbolicLink(atPath: dir + "/gone.mustache", withDestinationPath: "nowhere.mustache")
        var error = #expect(throws: PageError.self) { try PageTemplates(directory: dir) }
        #expect(error?.message == "\(dir)/gone.mustache: is a symbolic link to nothing")
        try FileManager.default.removeItem(atPath: dir + "/gone.mustache")
        try FileManager.default.createSymbolicLink(atPath: dir + "/a.mustache", withDestinationPath: "b.mustache")
        try FileManager.default.createSymbolicLink(atPath: dir + "/b.mustache", withDestinationPath: "a.mustache")
        error = #expect(throws: PageError.self) { try PageTemplates(directory: dir) }
        #expect(error?.message == "\(dir)/a.mustache: is a loop of symbolic links: it never reaches a file")
    }

    @Test func aDirectoryThatIsNotThereIsSaidSo() {
        #expect(throws: PageError.self) { try PageTemplates(directory: "/nonexistent/brand") }
        do { _ = try PageTemplates(directory: "/nonexistent/brand") } catch {
            #expect(error.message == "/nonexistent/brand: no such directory of page templates")
        }
    }

    @Test func tagsAreReadWithTheirKindsAndLines() {
        let tags = TemplateTag.scan("a {{title}}\n{{! a comment {{ }}\n{{#stores}}{{url}}{{/stores}}\n{{> footer}} {{{raw}}} {{& amp}} {{.}} {{ spaced }} {{<p}}{{$b}}")
        #expect(tags.map(\.name) == ["title", "stores", "url", "stores", "footer", "raw", "amp", ".", "spaced", "p", "b"])
        #expect(tags.map(\.kind) == [.value, .section, .value, .close, .partial, .unescaped, .unescaped, .value, .value, .parent, .block])
        #expect(tags.map(\.line) == [1, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4])
    }

    /// The message page extends its built-in page as the landing page does.
    @Test func theMessagePageCanExtendItsBuiltInPage() throws {
        let dir = try Self.directory(["message.mustache": "{{<switchyard-message}}{{$footer}}<footer>Plur</footer>{{/footer}}{{/switchyard-message}}"])
        let html = try PageTemplates(directory: dir).render(MessageView(title: "Gone", message: "This link has expired.", status: 410))
        #expect(html.contains("<p>This link has expired.</p><footer>Plur</footer></main>"), "\(html)")
        #expect(PageTemplates.standard.render(MessageView(title: "Gone", message: "m", status: 410))
                == "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>Gone</title></head>\n<body><main><h1>Gone</h1><p>m</p></main></body></html>\n")
    }

    /// The names a template may use are read from the view types: each specimen fills every
    /// optional and list (else the names under them would be refused), URL values are exactly the
    /// `PageURL` ones, and the operator guide documents every top-level name.
    @Test func theTemplateNamesComeFromTheViewTypes() throws {
        #expect(ViewShape.gaps(in: LandingView.specimen).isEmpty, "\(ViewShape.gaps(in: LandingView.specimen))")
        #expect(ViewShape.gaps(in: MessageView.specimen).isEmpty)
        var partial = LandingView.specimen
        partial.getApp = nil
        partial.stores = []
        #expect(ViewShape.gaps(in: partial) == ["getApp", "stores"], "a gap is found where it is")

        let landing = PageTemplates.Page.landing
        #expect(landing.members["getApp"] == ["claimURL", "storeURL"] && landing.lists == ["stores", "webviewEscapes"])
        #expect(landing.urlValues.isSuperset(of: ["pageURL", "openApp", "href", "url", "browserHref", "appIntent"]))
        #expect(landing.urlValues.isDisjoint(with: ["title", "deepLink", "smartBanner", "name", "label", "globals"]))
        #expect(PageTemplates.Page.message.variables == ["title", "message", "status"])

        let guide = try String(contentsOfFile: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../docs/operator-guide.md").standardized.path, encoding: .utf8)
        let section = try #require(guide.components(separatedBy: "## Your own page templates").dropFirst().first?.components(separatedBy: "\n## ").first)
        for name in landing.variables.union(PageTemplates.Page.message.variables) {
            #expect(section.contains("`\(name)`"), "the operator guide does not list \(name)")
        }
    }
}
