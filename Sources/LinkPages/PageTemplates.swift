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
    /// templates can include (`{{> footer}}`). Throws ``PageError`` naming the file, line and
    /// column of a template that does not parse, or a tag whose name the page does not have.
    public init(directory: String?) throws(PageError) {
        var library = MustacheLibrary()
        var sources: [Page: String] = [:]
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
                let text: String
                do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
                    throw PageError(.invalidTemplate, "\(path): cannot be read as UTF-8 text", cause: error)
                }
                try Self.register(text, named: name, file: path, page: Page(rawValue: name), into: &library)
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
            if sources[page] == nil {
                try Self.register(text, named: page.rawValue, file: path, page: page, into: &library)
                sources[page] = "built-in"
            }
        }
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

    /// The variable and section names of a template's tags, with their lines (comments,
    /// partials and `.` are not names; `a.b` is checked by its first part). Delimiters changed
    /// with `{{=<% %>=}}` are not followed.
    static func tags(in text: String) -> [(name: String, line: Int)] {
        var found: [(String, Int)] = []
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
            guard let first = tag.first, !"!>=".contains(first) else { continue }
            if "#^/&{$<".contains(first) { tag = String(tag.dropFirst()).trimmingCharacters(in: .whitespaces) }
            if "$<".contains(first) { notValues.insert(tag); continue }
            if first == "/", notValues.contains(tag) { continue }
            // A transform, `uppercased(name)`, applies to the name inside.
            if let open = tag.firstIndex(of: "("), let close = tag.lastIndex(of: ")"), open < close {
                tag = String(tag[tag.index(after: open)..<close])
            }
            let name = String(tag.prefix { $0 != "." && $0 != " " })
            guard !name.isEmpty else { continue }
            found.append((name, line))
        }
        return found
    }
}

/// A page template that cannot be used: `invalid-template`, with the file, line and column.
public typealias PageError = DomainError<PageErrors>

/// The domain of ``PageError``.
public enum PageErrors: ErrorDomain {}
