import Foundation
import Mustache
import SwitchyardCore

/// The Mustache templates the service's pages are made from: the built-in ones shipped in
/// `Resources/`, with any of them replaced by an operator's own (`landing.templates` in the
/// configuration names the directory).
///
/// An operator's templates are checked when they are loaded (see ``TemplateCheck``): every
/// value is written escaped (`{{name}}`; `{{{name}}}` is refused, since link creators supply most
/// values), every name is one the page has, and nothing can recurse, nest without bound or grow
/// a page past ``TemplateCheck/largestPage``, so a template that loads renders every page.
///
/// ```swift
/// let templates = try PageTemplates(directory: "brand")   // brand/landing.mustache replaces the page
/// let html = page.html(for: .iOS, templates: templates)
/// ```
package struct PageTemplates: Sendable {
    /// A page the service makes from a template.
    package enum Page: String, Sendable, CaseIterable {
        /// The landing page of a link or route (`landing.mustache`).
        case landing
        /// A short page saying why there is no landing page (`message.mustache`).
        case message
        /// A protected link's form, until its password is given (`password.mustache`).
        case password

        /// The built-in template's name as a parent (`switchyard-landing`): an operator's template
        /// can extend it, `{{<switchyard-landing}}{{$style}}…{{/style}}{{/switchyard-landing}}`,
        /// replacing only its ``blocks``.
        package var builtInName: String { "switchyard-" + rawValue }

        /// The blocks of the built-in template an operator's template can replace.
        package var blocks: [String] { ["head", "style", "header", "footer"] }

        /// The names its view gives the template, read from the view's type.
        package var shape: ViewShape {
            switch self {
            case .landing: return Self.landingShape
            case .message: return Self.messageShape
            case .password: return Self.passwordShape
            }
        }

        private static let landingShape = ViewShape(of: LandingView.specimen)
        private static let messageShape = ViewShape(of: MessageView.specimen)
        private static let passwordShape = ViewShape(of: PasswordView.specimen)

        /// The names the page's view holds at its top level.
        package var variables: Set<String> { shape.variables }

        /// The names inside each section whose value is an object or a list of objects.
        package var members: [String: Set<String>] { shape.members }

        /// The values that are ``PageURL``s, checked before rendering: the only values that may
        /// start a URL attribute. A section's name stands for `{{.}}` inside it.
        package var urlValues: Set<String> { shape.urlValues }

        /// The sections whose value is a list (each repeats its content once per item).
        var lists: Set<String> { shape.lists }
    }

    private let library: MustacheLibrary
    /// Where each page's template came from: `built-in` or the operator's file.
    package let sources: [Page: String]

    /// The templates shipped with the service.
    package static let standard: PageTemplates = {
        do { return try PageTemplates(directory: nil) } catch {
            fatalError("the built-in page templates are broken: \(error)")
        }
    }()

    /// The built-in templates, each replaced by `directory/NAME.mustache` where that file exists
    /// (nil: the built-in ones only). Other `.mustache` files of the directory are partials the
    /// templates can include (`{{> footer}}`). Throws ``PageError`` naming the file and line of
    /// a template ``TemplateCheck`` refuses or Mustache cannot parse.
    package init(directory: String?) throws(PageError) {
        var library = MustacheLibrary()
        var sources: [Page: String] = [:]
        for page in Page.allCases {
            guard let path = PageResources.path("\(page.rawValue).mustache"),
                  let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw PageError(.invalidTemplate, PageResources.missing("\(page.rawValue).mustache"))
            }
            let template = try Self.parse(text, file: path)
            library.register(template, named: page.rawValue)
            // Always there as `switchyard-NAME`, for an operator's template to extend.
            library.register(template, named: page.builtInName)
            sources[page] = "built-in"
        }
        if let directory {
            let files = try TemplateCheck.read(directory: directory)
            try TemplateCheck(files: files).check()
            for file in files {
                library.register(try Self.parse(file.text, file: file.path), named: file.name)
                if let page = Page(rawValue: file.name) { sources[page] = file.path }
            }
        }
        self.library = library
        self.sources = sources
    }

    /// The page made from its template and `view`.
    package func render<View: PageView>(_ view: View) -> String {
        library.render(view, withTemplate: View.page.rawValue) ?? ""
    }

    /// The template `text` of `file`, or a ``PageError`` saying where and why it does not parse.
    static func parse(_ text: String, file: String) throws(PageError) -> MustacheTemplate {
        do { return try ScalarHTMLEscaping.template(text) } catch let error as MustacheTemplate.ParserError {
            // The pragma line before the text is not the file's.
            throw PageError(.invalidTemplate, "the template does not parse: \(Self.reason(error.error))",
                            location: SourceLocation(file: file, line: max(1, error.context.lineNumber - 1), column: error.context.columnNumber), cause: error)
        } catch {
            throw PageError(.invalidTemplate, "the template does not parse: \(error)", location: SourceLocation(file: file), cause: error)
        }
    }

    /// Mustache's parser error in words.
    static func reason(_ error: any Error) -> String {
        guard let error = error as? MustacheTemplate.Error else { return "\(error)" }
        switch error {
        case .sectionCloseNameIncorrect: return "a closing tag names another section than the one open"
        case .unfinishedName: return "a tag is not closed with }}"
        case .expectedSectionEnd: return "a section is not closed (its {{/name}} is missing)"
        case .invalidSetDelimiter: return "a delimiter change is malformed"
        case .transformAppliedToInheritanceSection: return "a transform is applied to a parent or block"
        case .illegalTokenInsideInheritSection: return "a parent holds a tag other than a block"
        case .textInsideInheritSection: return "a parent holds text outside its blocks"
        case .invalidConfigVariableSyntax, .unrecognisedConfigVariable: return "a {{% … }} tag is not one Mustache knows"
        }
    }
}

/// A page template that cannot be used: `invalid-template`, with the file, line and column.
package typealias PageError = DomainError<PageErrors>

/// The domain of ``PageError``.
package enum PageErrors: ErrorDomain {}

/// HTML escaping by Unicode scalar, the content type every page template is rendered with.
/// Mustache's own HTML escaping compares whole characters, so a `"` followed by a combining mark
/// (one character, `"́`) would pass unescaped and close an attribute; this one escapes every `&`,
/// `<`, `>`, `"` and `'` scalar wherever it stands.
struct ScalarHTMLEscaping: MustacheContentType {
    /// The pragma that selects it, on a line of its own before every template's text.
    static let pragma = "{{% CONTENT_TYPE: SWITCHYARD_HTML}}\n"
    /// Registers it with Mustache, once, before the first template is parsed.
    static let registered: Void = { MustacheContentTypes.register(ScalarHTMLEscaping(), named: "SWITCHYARD_HTML") }()

    func escapeText(_ text: String) -> String { LandingPage.escape(text) }

    /// `text` parsed with this escaping (a parser error's line is the text's own).
    static func template(_ text: String) throws -> MustacheTemplate {
        _ = registered
        return try MustacheTemplate(string: pragma + text)
    }
}
