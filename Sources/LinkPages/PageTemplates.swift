import Foundation
import Mustache
import SwitchyardCore

/// The Mustache templates the service's pages are made from: the built-in ones shipped in
/// `Resources/`, with any of them replaced by an operator's own (`landing.templates` in the
/// configuration names the directory).
///
/// Every `{{name}}` is HTML-escaped; `{{{name}}}` is not, so an operator's template is as safe as
/// the built-in one unless it asks otherwise. Templates are parsed and their variable names checked
/// when they are loaded, so a typo stops the service at start instead of rendering an empty value.
///
/// ```swift
/// let templates = try PageTemplates(directory: "brand")   // brand/landing.mustache replaces the page
/// let html = page.html(for: .iOS, templates: templates)
/// ```
public struct PageTemplates: Sendable {
    /// A page the service makes from a template.
    public enum Page: String, Sendable, CaseIterable {
        /// The landing page of a link or route (`landing.mustache`).
        case landing
        /// A short page saying why there is no landing page (`message.mustache`).
        case message

        /// The built-in template's name as a partial (`switchyard-landing`): an operator's template
        /// can extend it, `{{<switchyard-landing}}{{$style}}…{{/style}}{{/switchyard-landing}}`,
        /// replacing only its blocks.
        public var builtInName: String { "switchyard-" + rawValue }

        /// The names the page's view holds; a tag naming anything else is refused at load.
        public var variables: Set<String> {
            switch self {
            case .landing:
                return ["title", "description", "hasDescription", "pageURL", "audience", "twitterCard", "previewImage", "icon",
                        "deepLink", "smartBanner", "qrImage", "openApp", "openBrowser", "href", "name", "inAppBrowser",
                        "inAppAndroid", "inAppIOS", "getApp", "claimURL", "storeURL", "fallback", "url", "label", "stores",
                        "web", "fallbackTimer", "copiesClaim"]
            case .message:
                return ["title", "message", "status"]
            }
        }
    }

    private let library: MustacheLibrary
    /// Where each page's template came from: `built-in` or the operator's file.
    public let sources: [Page: String]

    /// The templates shipped with the service.
    public static let standard: PageTemplates = {
        do { return try PageTemplates(directory: nil) } catch {
            fatalError("the built-in page templates are broken: \(error)")
        }
    }()

    /// The built-in templates, each replaced by `directory/NAME.mustache` where that file exists
    /// (nil: the built-in ones only). Other `.mustache` files of the directory are partials the
    /// templates can include (`{{> footer}}`). Throws ``PageError`` naming the file and line of a
    /// template that does not parse, names a value its page does not have, includes a template
    /// that is not there or itself, or changes the delimiters.
    public init(directory: String?) throws(PageError) {
        var library = MustacheLibrary()
        var sources: [Page: String] = [:]
        // Each template's file and text, for the check of what includes what.
        var texts: [String: (file: String, text: String)] = [:]
        if let directory {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw PageError(.invalidTemplate, "\(directory): no such directory of page templates")
            }
            let files: [String]
            do { files = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".mustache") }.sorted() } catch {
                throw PageError(.invalidTemplate, "\(directory): cannot be read (\(error.localizedDescription))", cause: error)
            }
            guard files.contains(where: { Page(rawValue: String($0.dropLast(".mustache".count))) != nil }) else {
                let known = Page.allCases.map { "\($0.rawValue).mustache" }.joined(separator: " or ")
                throw PageError(.invalidTemplate, "\(directory): holds no \(known), so it would change no page")
            }
            for file in files {
                let name = String(file.dropLast(".mustache".count))
                let path = (directory as NSString).appendingPathComponent(file)
                if name.hasPrefix("switchyard-") {
                    throw PageError(.invalidTemplate, "\(path): the names switchyard-… are the built-in templates'; name the file otherwise")
                }
                let text: String
                do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
                    throw PageError(.invalidTemplate, "\(path): cannot be read as UTF-8 text", cause: error)
                }
                // Other delimiters would hide the tags after them from the checks below.
                if let change = Self.scan(text).first(where: { $0.kind == .delimiters }) {
                    throw PageError(.invalidTemplate, "{{\(change.name)}}: changing the delimiters is not supported; keep {{ and }}",
                                    location: SourceLocation(file: path, line: change.line))
                }
                try Self.register(text, named: name, file: path, page: Page(rawValue: name), into: &library)
                texts[name] = (path, text)
                if let page = Page(rawValue: name) { sources[page] = path }
            }
        }
        for page in Page.allCases {
            guard let path = PageResources.path("\(page.rawValue).mustache"),
                  let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw PageError(.invalidTemplate, PageResources.missing("\(page.rawValue).mustache"))
            }
            // Always there as `switchyard-NAME`, for an operator's template to extend.
            try Self.register(text, named: page.builtInName, file: path, page: page, into: &library)
            texts[page.builtInName] = (path, text)
            if sources[page] == nil {
                try Self.register(text, named: page.rawValue, file: path, page: page, into: &library)
                texts[page.rawValue] = (path, text)
                sources[page] = "built-in"
            }
        }
        try Self.checkIncludes(texts)
        self.library = library
        self.sources = sources
    }

    /// The page made from its template and `view` (the names ``Page/variables`` lists).
    public func render(_ page: Page, _ view: [String: Any]) -> String {
        library.render(view, withTemplate: page.rawValue) ?? ""
    }

    /// Parses `text` into the library under `name`, checking the names its tags use (for a page
    /// template; a partial is checked by the page that includes it only at render time).
    private static func register(_ text: String, named name: String, file: String, page: Page?, into library: inout MustacheLibrary) throws(PageError) {
        let template: MustacheTemplate
        do { template = try MustacheTemplate(string: text) } catch let error as MustacheTemplate.ParserError {
            throw PageError(.invalidTemplate, "the template does not parse (\(error.error))",
                            location: SourceLocation(file: file, line: error.context.lineNumber, column: error.context.columnNumber), cause: error)
        } catch {
            throw PageError(.invalidTemplate, "the template does not parse (\(error))", location: SourceLocation(file: file), cause: error)
        }
        if let page {
            for tag in tags(in: text) where !page.variables.contains(tag.name) {
                let hint = DocumentShape.suggestion(for: tag.name, among: page.variables.sorted()).map { "; did you mean \($0)?" } ?? ""
                throw PageError(.invalidTemplate, "\(page.rawValue) pages have no value named \(JSONWriter.quote(tag.name))\(hint) (docs/operator-guide.md lists them)",
                                location: SourceLocation(file: file, line: tag.line))
            }
        }
        library.register(template, named: name)
    }

    /// Refuses an include of a template that is not there (it would render as nothing), a dynamic
    /// one (`{{>*name}}`, which a value could point at any template), a template that includes
    /// itself through any chain (it would never end), and, in a partial a page includes, a value
    /// that page does not have.
    static func checkIncludes(_ texts: [String: (file: String, text: String)]) throws(PageError) {
        var graph: [String: [(name: String, line: Int)]] = [:]
        for (name, entry) in texts {
            graph[name] = includes(in: entry.text)
            for include in graph[name] ?? [] {
                let location = SourceLocation(file: entry.file, line: include.line)
                if include.name.hasPrefix("*") {
                    throw PageError(.invalidTemplate, "{{>\(include.name)}}: a dynamic partial is not allowed (a value would choose the template); name the partial", location: location)
                }
                guard texts[include.name] != nil else {
                    let known = texts.keys.filter { Page(rawValue: $0) == nil }.sorted().joined(separator: ", ")
                    throw PageError(.invalidTemplate, "includes \(JSONWriter.quote(include.name)), which is no template here (there are: \(known))", location: location)
                }
            }
        }
        // A chain that comes back to where it started.
        func cycle(from start: String) -> [String]? {
            var stack: [(String, [String])] = [(start, [start])]
            var seen: Set<String> = []
            while let (name, path) = stack.popLast() {
                for next in graph[name] ?? [] {
                    if next.name == start { return path + [start] }
                    if seen.insert(next.name).inserted { stack.append((next.name, path + [next.name])) }
                }
            }
            return nil
        }
        for name in graph.keys.sorted() {
            if let chain = cycle(from: name), let entry = texts[name], let first = graph[name]?.first(where: { $0.name == chain[1] }) {
                throw PageError(.invalidTemplate, "\(name) includes itself (\(chain.joined(separator: " → "))): it would never end",
                                location: SourceLocation(file: entry.file, line: first.line))
            }
        }
        // The values of a partial are the values of the pages it is part of.
        for page in Page.allCases {
            var reached: Set<String> = [], stack = [page.rawValue]
            while let name = stack.popLast() {
                for next in graph[name] ?? [] where reached.insert(next.name).inserted { stack.append(next.name) }
            }
            for partial in reached.sorted() where Page(rawValue: partial) == nil && !partial.hasPrefix("switchyard-") {
                guard let entry = texts[partial] else { continue }
                for tag in tags(in: entry.text) where !page.variables.contains(tag.name) {
                    let hint = DocumentShape.suggestion(for: tag.name, among: page.variables.sorted()).map { "; did you mean \($0)?" } ?? ""
                    throw PageError(.invalidTemplate, "\(page.rawValue) pages, which include this partial, have no value named \(JSONWriter.quote(tag.name))\(hint) (docs/operator-guide.md lists them)",
                                    location: SourceLocation(file: entry.file, line: tag.line))
                }
            }
        }
    }

    /// The variable and section names of a template's tags, with their lines (comments,
    /// partials and `.` are not names; `a.b` is checked by its first part). Delimiters changed
    /// with `{{=<% %>=}}` are not followed.
    static func tags(in text: String) -> [(name: String, line: Int)] {
        scan(text).filter { $0.kind == .value }.map { ($0.name, $0.line) }
    }

    /// What a template includes: partials (`{{> footer}}`) and parents (`{{<switchyard-landing}}`), with their lines.
    static func includes(in text: String) -> [(name: String, line: Int)] {
        scan(text).filter { $0.kind == .include }.map { ($0.name, $0.line) }
    }

    /// A tag of a template: a value or section name, or the name of a template it includes.
    struct Tag: Equatable {
        enum Kind: Equatable { case value, include, delimiters }
        var kind: Kind
        var name: String
        var line: Int
    }

    static func scan(_ text: String) -> [Tag] {
        var found: [Tag] = []
        // Blocks (`$name`) and parents (`<name`) are not values: nor are the tags that close them.
        var notValues: Set<String> = []
        var line = 1
        var rest = Substring(text)
        while let open = rest.range(of: "{{") {
            line += rest[..<open.lowerBound].filter { $0 == "\n" }.count
            let after = rest[open.upperBound...]
            guard let close = after.range(of: "}}") else { break }
            var tag = after[..<close.lowerBound].trimmingCharacters(in: .whitespaces)
            rest = after[close.upperBound...]
            if rest.hasPrefix("}") { rest = rest.dropFirst() }
            line += tag.filter { $0 == "\n" }.count
            guard let first = tag.first, first != "!" else { continue }
            if first == "=" { found.append(Tag(kind: .delimiters, name: tag, line: line)); continue }
            if "#^/&{$<>".contains(first) { tag = String(tag.dropFirst()).trimmingCharacters(in: .whitespaces) }
            if first == ">" { found.append(Tag(kind: .include, name: tag, line: line)); continue }
            if first == "<" { found.append(Tag(kind: .include, name: tag, line: line)) }
            if "$<".contains(first) { notValues.insert(tag); continue }
            if first == "/", notValues.contains(tag) { continue }
            // A transform, `uppercased(name)`, applies to the name inside.
            if let open = tag.firstIndex(of: "("), let close = tag.lastIndex(of: ")"), open < close {
                tag = String(tag[tag.index(after: open)..<close])
            }
            let name = String(tag.prefix { $0 != "." && $0 != " " })
            guard !name.isEmpty else { continue }
            found.append(Tag(kind: .value, name: name, line: line))
        }
        return found
    }
}

/// A page template that cannot be used: `invalid-template`, with the file, line and column.
public typealias PageError = DomainError<PageErrors>

/// The domain of ``PageError``.
public enum PageErrors: ErrorDomain {}
