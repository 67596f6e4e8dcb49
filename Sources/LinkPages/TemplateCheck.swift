import Foundation
import SwitchyardCore

/// The rules an operator's page templates are held to, checked before they are parsed, so that a
/// directory that loads renders every page, safely and in bounded time:
///
/// - files: at most ``mostFiles`` `.mustache` files of at most ``largestFile`` bytes, regular
///   files of UTF-8 text without NUL bytes, named with letters, digits, `-` and `_` (not
///   `switchyard-…`, the built-in templates' names); a page template is not empty; a symbolic
///   link leads to a file inside the directory (as a Kubernetes ConfigMap is mounted), never out
///   of it: the pages are public;
/// - values: written escaped (`{{name}}`; `{{{name}}}` and `{{& name}}` are refused: link
///   creators supply most values); a name is one the page has where it stands (a section's
///   members inside it), not dotted; `{{.}}` only inside a section;
/// - places: values only where HTML escaping keeps them inert, and URLs started only by the
///   page's checked URL values (``TemplateContexts``);
/// - structure: no delimiter change; sections nested at most ``deepest`` deep; a page template
///   may extend its own built-in page (`{{<switchyard-landing}}`) at its top level, filling only
///   that page's blocks, each once and none inside another, or, extending nothing, have those
///   blocks at its top level (as its built-in template does: a copy of it loads); a partial neither extends nor fills
///   blocks; partials are named (not `{{>*name}}`), exist, are not pages, and include no chain
///   that comes back to them;
/// - size: a page, with its partials and lists at their longest, stays under ``largestPage``;
/// - work: rendering a page, with its partials and lists at their longest, evaluates at most
///   ``mostWork`` values, sections and includes (empty sections nested in lists write nothing
///   but still cost their evaluations).
struct TemplateCheck {
    /// Files of a templates directory, at most.
    static let mostFiles = 64
    /// Bytes of one template file, at most.
    static let largestFile = 256 * 1024
    /// Sections (and parents and blocks) open at once, at most.
    static let deepest = 16
    /// The largest page a template may make, values at ``valueBytes`` and lists at two items.
    static let largestPage = 2 << 20
    /// The most evaluations (of a value, a section, an inverted section or an include, each
    /// item of a list once) one page may take: the built-in landing page takes about a hundred
    /// and fifty, and a render of the most a page may take is a few milliseconds.
    static let mostWork = 20_000
    /// What the built-in page around an operator's blocks is counted as: its own tags, with
    /// every list at two items.
    static let builtInWork = 400
    /// What one value is counted as in the size bound: the default request body limit, which no
    /// value a link is created with can exceed.
    static let valueBytes = 16 * 1024

    /// A template file of the directory.
    struct File {
        var name: String
        var path: String
        var text: String
        var page: PageTemplates.Page? { PageTemplates.Page(rawValue: name) }
    }

    let files: [File]

    /// The `.mustache` files of `directory`, each checked as a file (see the type's rules).
    static func read(directory: String) throws(PageError) -> [File] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) else {
            throw PageError(.invalidTemplate, "\(directory): no such directory of page templates")
        }
        guard isDirectory.boolValue else { throw PageError(.invalidTemplate, "\(directory): is a file, not a directory of page templates") }
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".mustache") }.sorted() } catch {
            throw PageError(.invalidTemplate, "\(directory): cannot be read (\(error.localizedDescription))", cause: error)
        }
        guard names.count <= mostFiles else {
            throw PageError(.invalidTemplate, "\(directory): holds \(names.count) templates; at most \(mostFiles) are read")
        }
        guard names.contains(where: { PageTemplates.Page(rawValue: String($0.dropLast(".mustache".count))) != nil }) else {
            let known = PageTemplates.Page.allCases.map { "\($0.rawValue).mustache" }
            throw PageError(.invalidTemplate, "\(directory): holds none of \(known.dropLast().joined(separator: ", ")) and \(known.last ?? ""), so it would change no page")
        }
        let inside = URL(fileURLWithPath: directory).resolvingSymlinksInPath().path + "/"
        var files: [File] = []
        for file in names {
            let name = String(file.dropLast(".mustache".count))
            let path = (directory as NSString).appendingPathComponent(file)
            func refuse(_ why: String) -> PageError { PageError(.invalidTemplate, "\(path): \(why)") }
            guard !name.isEmpty, name.utf8.allSatisfy({ $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") || (0x30...0x39).contains($0)
                                                          || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }) else {
                throw refuse("a template's name is letters, digits, - and _ (a partial is included by it: {{> name}})")
            }
            if name.hasPrefix("switchyard-") { throw refuse("the names switchyard-… are the built-in templates'; name the file otherwise") }
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                var status = stat()
                let loop = stat(path, &status) != 0 && errno == ELOOP
                throw refuse(loop ? "is a loop of symbolic links: it never reaches a file" : "is a symbolic link to nothing")
            }
            guard !isDirectory.boolValue else { throw refuse("is a directory, not a template") }
            let target = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
            guard target.hasPrefix(inside) else { throw refuse("is a symbolic link to \(target), outside the directory; a template's text is served publicly, so it must be a file of the directory") }
            let attributes = try? FileManager.default.attributesOfItem(atPath: target)
            guard attributes?[.type] as? FileAttributeType == .typeRegular else { throw refuse("is not a regular file") }
            if let size = attributes?[.size] as? Int, size > largestFile { throw refuse("is \(size) bytes; a template has at most \(largestFile)") }
            guard let data = FileManager.default.contents(atPath: target) else { throw refuse("cannot be read") }
            guard data.count <= largestFile else { throw refuse("is \(data.count) bytes; a template has at most \(largestFile)") }
            if let nul = data.firstIndex(of: 0) { throw refuse("holds a NUL byte (at byte \(nul - data.startIndex)); a template is text") }
            guard let text = String(data: data, encoding: .utf8) else { throw refuse("is not UTF-8 text") }
            if PageTemplates.Page(rawValue: name) != nil, text.allSatisfy(\.isWhitespace) { throw refuse("is empty: every such page would be blank") }
            files.append(File(name: name, path: path, text: text))
        }
        return files
    }

    /// Checks the files' structure, names, includes and size; the first problem is thrown.
    func check() throws(PageError) {
        let byName = Dictionary(files.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var scanned: [String: [TemplateTag]] = [:]
        for file in files {
            let tags = TemplateTag.scan(file.text)
            scanned[file.name] = tags
            try checkStructure(file, tags, byName)
        }
        // Where values stand in the HTML: a page's own URL values, or its partials' pages'.
        for file in files {
            let urls = file.page.map(\.urlValues) ?? Set(PageTemplates.Page.allCases.flatMap(\.urlValues))
            try TemplateContexts.check(file.text, file: file.path, urlValues: urls)
        }
        // Includes: no chain comes back to where it started.
        for file in files where includesItself(file.name, scanned) {
            let first = scanned[file.name]?.first { if case .partial = $0.kind { return true } else { return false } }
            throw PageError(.invalidTemplate, "\(file.name) includes itself through its partials: it would never end",
                            location: SourceLocation(file: file.path, line: first?.line))
        }
        // Names: a page's own where they stand; a partial's, those of every page including it.
        for file in files {
            guard let page = file.page else { continue }
            try checkNames(file, page, scanned)
            for partial in reached(from: file.name, scanned).sorted() {
                if let other = byName[partial] { try checkNames(other, page, scanned) }
            }
        }
        // Size and work: a page at its longest, and at its slowest.
        var costs: [String: Cost] = [:]
        for file in files {
            guard file.page != nil else { continue }
            let worst = cost(file.name, scanned, byName, &costs)
            guard worst.bytes <= Self.largestPage else {
                throw PageError(.invalidTemplate, "its pages could be \(worst.bytes / 1024) KiB, over the \(Self.largestPage / 1024) KiB a page may have (lists nested in each other, or partials included many times)",
                                location: SourceLocation(file: file.path))
            }
            guard worst.work <= Self.mostWork else {
                let (line, depth) = deepestLists(file, scanned)
                throw PageError(.invalidTemplate, "rendering one of its pages could take \(worst.work >= Self.mostWork * 4 ? "over \(Self.mostWork * 4)" : "\(worst.work)") section, value and include evaluations, over the \(Self.mostWork) a page may take (each list section repeats what it holds for every item, so list sections nested in each other multiply: here \(depth) deep)",
                                location: SourceLocation(file: file.path, line: line))
            }
        }
    }

    /// Where list sections of `file` (or of a partial it includes) stand nested deepest, and how deep.
    private func deepestLists(_ file: File, _ scanned: [String: [TemplateTag]]) -> (line: Int?, depth: Int) {
        let lists: Set<String> = Set(PageTemplates.Page.allCases.flatMap(\.lists))
        var best: (line: Int?, depth: Int) = (nil, 0)
        var open: [String] = []
        for tag in scanned[file.name] ?? [] {
            switch tag.kind {
            case .section, .inverted:
                open.append(tag.name)
                let depth = open.filter(lists.contains).count
                if tag.kind == .section, lists.contains(tag.name), depth > best.depth { best = (tag.line, depth) }
            case .close: if open.last == tag.name { open.removeLast() }
            default: break
            }
        }
        return best
    }

    private func checkStructure(_ file: File, _ tags: [TemplateTag], _ byName: [String: File]) throws(PageError) {
        func refuse(_ why: String, _ line: Int) -> PageError { PageError(.invalidTemplate, why, location: SourceLocation(file: file.path, line: line)) }
        var open: [TemplateTag] = []
        var filled: Set<String> = []
        var extended = false
        for tag in tags {
            switch tag.kind {
            case .delimiters:
                throw refuse("{{\(tag.name)}}: changing the delimiters is not supported; keep {{ and }}", tag.line)
            case .pragma:
                throw refuse("{{\(tag.name)}}: pragmas are not supported (the pages' content type and escaping are the service's)", tag.line)
            case .unescaped:
                throw refuse("{{{\(tag.name)}}} writes the value without escaping; write {{\(tag.name)}} (link creators supply the values)", tag.line)
            case .value, .section, .inverted:
                if tag.kind != .value { open.append(tag) }
                guard open.count <= Self.deepest else { throw refuse("sections nested more than \(Self.deepest) deep", tag.line) }
            case .close:
                if open.last?.name == tag.name { open.removeLast() }
            case .parent:
                guard let page = file.page else { throw refuse("a partial cannot extend a template ({{<\(tag.name)}}); only landing.mustache and message.mustache can", tag.line) }
                guard open.isEmpty, !extended, filled.isEmpty else { throw refuse("{{<\(tag.name)}} must stand at the template's top level, once, before any block", tag.line) }
                guard tag.name == page.builtInName else {
                    throw refuse("\(page.rawValue).mustache can extend only its built-in page, {{<\(page.builtInName)}}", tag.line)
                }
                extended = true
                open.append(tag)
            case .block:
                // A block fills the built-in page's right inside {{<switchyard-…}}, or, at the top
                // level of a page that extends nothing (a copy of its built-in template), stands
                // for itself and is written as it is.
                guard let page = file.page else {
                    throw refuse("the block {{$\(tag.name)}} is in a partial; blocks belong to landing.mustache and message.mustache", tag.line)
                }
                guard (open.count == 1 && open.last?.kind == .parent) || (open.isEmpty && !extended) else {
                    throw refuse("the block {{$\(tag.name)}} stands inside another block or a section; a block stands at the template's top level, or right inside {{<switchyard-…}}", tag.line)
                }
                guard page.blocks.contains(tag.name) else {
                    let hint = DocumentShape.suggestion(for: tag.name, among: page.blocks).map { "; did you mean \($0)?" } ?? ""
                    throw refuse("the built-in \(page.rawValue) page has no block named \(JSONWriter.quote(tag.name))\(hint) (its blocks: \(page.blocks.joined(separator: ", ")))", tag.line)
                }
                guard filled.insert(tag.name).inserted else { throw refuse("the block \(tag.name) is filled twice", tag.line) }
                open.append(tag)
            case .partial:
                if tag.name.hasPrefix("*") {
                    throw refuse("{{>\(tag.name)}}: a dynamic partial is not allowed (a value would choose the template); name the partial", tag.line)
                }
                guard let target = byName[tag.name], target.page == nil else {
                    if PageTemplates.Page(rawValue: tag.name) != nil || tag.name.hasPrefix("switchyard-") {
                        throw refuse("includes the page \(tag.name) as a partial; a page is extended ({{<switchyard-…}}), never included", tag.line)
                    }
                    let known = byName.values.filter { $0.page == nil }.map(\.name).sorted()
                    throw refuse("includes \(JSONWriter.quote(tag.name)), which is no partial here (\(known.isEmpty ? "the directory has none" : "there are: " + known.joined(separator: ", ")))", tag.line)
                }
                guard open.count < Self.deepest else { throw refuse("sections nested more than \(Self.deepest) deep", tag.line) }
            }
        }
    }

    /// Each value and section name of `file` is one `page` has where it stands.
    private func checkNames(_ file: File, _ page: PageTemplates.Page, _ scanned: [String: [TemplateTag]]) throws(PageError) {
        var open: [String] = []
        for tag in scanned[file.name] ?? [] {
            switch tag.kind {
            case .value, .section, .inverted:
                let location = SourceLocation(file: file.path, line: tag.line)
                if tag.name == "." {
                    // In a partial it may be inside a section of the page that includes it.
                    guard !open.isEmpty || file.page == nil else {
                        throw PageError(.invalidTemplate, "{{.}} outside a section would write the page's whole view; name a value", location: location)
                    }
                } else {
                    guard !tag.name.contains("."), !tag.name.isEmpty else {
                        throw PageError(.invalidTemplate, "{{\(tag.name)}}: dotted names are not supported; open the section ({{#a}}{{b}}{{/a}})", location: location)
                    }
                    var known = page.variables
                    for name in open { known.formUnion(page.members[name] ?? []) }
                    if file.page == nil { for members in page.members.values { known.formUnion(members) } }
                    guard known.contains(tag.name) else {
                        let hint = DocumentShape.suggestion(for: tag.name, among: known.sorted()).map { "; did you mean \($0)?" } ?? ""
                        let whose = file.page == nil ? "\(page.rawValue) pages, which include this partial, have" : "\(page.rawValue) pages have"
                        throw PageError(.invalidTemplate, "\(whose) no value named \(JSONWriter.quote(tag.name))\(open.isEmpty ? "" : " here")\(hint) (the operator guide, “Your own page templates”, lists them)", location: location)
                    }
                }
                if tag.kind != .value { open.append(tag.name) }
            case .close:
                if open.last == tag.name { open.removeLast() }
            case .parent, .block, .partial, .delimiters, .unescaped, .pragma:
                continue
            }
        }
    }

    private func reached(from name: String, _ scanned: [String: [TemplateTag]]) -> Set<String> {
        var reached: Set<String> = [], stack = [name]
        while let next = stack.popLast() {
            for tag in scanned[next] ?? [] { if case .partial = tag.kind, reached.insert(tag.name).inserted { stack.append(tag.name) } }
        }
        return reached
    }

    private func includesItself(_ name: String, _ scanned: [String: [TemplateTag]]) -> Bool { reached(from: name, scanned).contains(name) }

    /// What a template costs at its worst: the bytes it can write, and the work of rendering it
    /// (each value, section, inverted section and include evaluated, each item of a list once).
    struct Cost {
        var bytes = 0
        var work = 0
    }

    /// What `name` costs at its worst: its text, values at ``valueBytes``, partials at their
    /// largest plus 64 bytes for the include itself; every tag one evaluation; all of it
    /// doubled inside every list section around it (lists have at most two items). Both
    /// figures stop growing a little past their bounds (``largestPage``, ``mostWork``).
    private func cost(_ name: String, _ scanned: [String: [TemplateTag]], _ byName: [String: File], _ costs: inout [String: Cost]) -> Cost {
        if let known = costs[name] { return known }
        let lists: Set<String> = Set(PageTemplates.Page.allCases.flatMap(\.lists))
        var total = Cost(), repeats = 1
        var open: [String] = []
        func add(bytes: Int, work: Int) {
            total.bytes = min(Self.largestPage * 4, total.bytes &+ min(Self.largestPage * 4, bytes) &* repeats)
            total.work = min(Self.mostWork * 4, total.work &+ min(Self.mostWork * 4, work) &* repeats)
            if total.bytes < 0 { total.bytes = Self.largestPage * 4 }
            if total.work < 0 { total.work = Self.mostWork * 4 }
        }
        for tag in scanned[name] ?? [] {
            switch tag.kind {
            case .section, .inverted:
                // The section's own evaluation, once per item of the lists around it.
                add(bytes: 0, work: 1)
                open.append(tag.name)
                if tag.kind == .section, lists.contains(tag.name) { repeats = min(repeats * 2, Self.mostWork * 4) }
            case .close:
                if open.last == tag.name {
                    if lists.contains(tag.name), repeats > 1 { repeats /= 2 }
                    open.removeLast()
                }
            case .value: add(bytes: Self.valueBytes, work: 1)
            // An include costs its work even when the partial writes nothing.
            case .partial:
                let partial = cost(tag.name, scanned, byName, &costs)
                add(bytes: 64 &+ partial.bytes, work: 1 &+ partial.work)
            case .parent: add(bytes: 40 &* Self.valueBytes, work: Self.builtInWork)  // the built-in page around the blocks, with its values
            case .block, .delimiters, .unescaped, .pragma: break
            }
            add(bytes: tag.textBefore, work: 0)
        }
        // The text after the last tag (and, counted again, the tags' own bytes: a bound, not a count).
        if let file = byName[name] {
            let before = repeats
            repeats = 1
            add(bytes: max(0, file.text.utf8.count - (scanned[name] ?? []).reduce(0) { $0 + $1.textBefore }), work: 0)
            repeats = before
        }
        costs[name] = total
        return total
    }
}

/// One tag of a template, as ``TemplateCheck`` reads it (comments are skipped).
struct TemplateTag: Equatable {
    enum Kind: Equatable { case value, unescaped, section, inverted, close, partial, parent, block, delimiters, pragma }
    var kind: Kind
    var name: String
    var line: Int
    /// Bytes of text between the previous tag and this one.
    var textBefore: Int

    static func scan(_ text: String) -> [TemplateTag] {
        var found: [TemplateTag] = []
        var line = 1
        var rest = Substring(text)
        while let open = rest.range(of: "{{") {
            let before = rest[..<open.lowerBound]
            line += before.filter { $0 == "\n" }.count
            let after = rest[open.upperBound...]
            guard let close = after.range(of: "}}") else { break }
            let raw = after[..<close.lowerBound]
            rest = after[close.upperBound...]
            let tagLine = line
            line += raw.filter { $0 == "\n" }.count
            var body = raw.trimmingCharacters(in: .whitespaces)
            guard let first = body.first, first != "!" else { continue }
            let kind: Kind
            switch first {
            case "=": kind = .delimiters
            case "%": kind = .pragma
            case "{":
                kind = .unescaped
                if rest.hasPrefix("}") { rest = rest.dropFirst() }
            case "&": kind = .unescaped
            case "#": kind = .section
            case "^": kind = .inverted
            case "/": kind = .close
            case ">": kind = .partial
            case "<": kind = .parent
            case "$": kind = .block
            default: kind = .value
            }
            if kind != .value, kind != .delimiters, kind != .pragma { body = String(body.dropFirst()).trimmingCharacters(in: .whitespaces) }
            // A transform, `uppercased(name)`, applies to the name inside.
            if let open = body.firstIndex(of: "("), let close = body.lastIndex(of: ")"), open < close {
                body = String(body[body.index(after: open)..<close]).trimmingCharacters(in: .whitespaces)
            }
            found.append(TemplateTag(kind: kind, name: body, line: tagLine, textBefore: before.utf8.count))
        }
        return found
    }
}
