import Foundation
import SwitchyardCore

/// Where an operator's template writes its values, as HTML reads the page: a value escaped for
/// HTML text is safe in text and in a quoted attribute, and nowhere else. ``TemplateCheck``
/// refuses, with the file, line and column:
///
/// - a value in a `<script>` or `<style>` element, in an event-handler attribute (`on…`), in a
///   `style` or `srcdoc` attribute, in an unquoted attribute value, or inside a tag outside any
///   attribute value (escaping does not stop script there);
/// - a value in a URL attribute (`href`, `src`, `action`, `formaction`, `srcset`, `poster`, …,
///   and a `<meta http-equiv>`'s `content`) unless it is one of the page's URL values
///   (``PageTemplates/Page/urlValues``, which the service checks before it renders them), or
///   it follows a fixed start that already decides where the URL goes (`https://host/…` or a
///   path `/x…`, or another URL value): a link creator's `javascript:…` title would run there;
/// - an include (`{{> partial}}`) anywhere but in text, since a partial is checked as text.
struct TemplateContexts {
    /// Attributes whose value the browser loads or follows as a URL.
    static let urlAttributes: Set<String> = [
        "href", "src", "action", "formaction", "srcset", "poster", "cite", "background", "data", "codebase", "ping",
        "manifest", "xlink:href", "longdesc", "usemap", "icon", "archive", "classid", "lowsrc", "dynsrc", "profile", "imagesrcset",
        // SVG animation sets any attribute, href included, to these.
        "to", "from", "values", "by",
    ]
    /// URL attributes that hold several URLs, each after a space or a comma.
    static let listsURLs: Set<String> = ["srcset", "imagesrcset", "ping", "archive"]
    /// Attributes whose value is script, style or markup.
    static let refusedAttributes: Set<String> = ["style", "srcdoc"]

    enum State {
        case data, comment, rawText(String), tagName, inTag, attributeName, afterAttributeName, beforeValue
        case quoted(UInt8), unquoted
    }

    /// Checks every value and include of `text` (the template `file`), with `urlValues` the names
    /// whose values are checked URLs.
    static func check(_ text: String, file: String, urlValues: Set<String>) throws(PageError) {
        let bytes = Array(text.utf8)
        var state = State.data
        var tagName = "", attribute = "", valueStart = 0, tagStart = 0
        var afterURLValue = false   // the attribute value so far holds a URL value
        var conditional = false     // a section stood in the attribute value before: its start may be left out
        var sections: [String] = []
        var line = 1, lineStart = 0
        var i = 0
        func refuse(_ why: String, at index: Int) -> PageError {
            let column = String(decoding: bytes[lineStart..<index], as: UTF8.self).count + 1
            return PageError(.invalidTemplate, why, location: SourceLocation(file: file, line: line, column: column))
        }
        func lower(_ b: UInt8) -> UInt8 { (0x41...0x5A).contains(b) ? b + 32 : b }
        func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0C || b == 0x0D }
        func isLetter(_ b: UInt8) -> Bool { (0x41...0x5A).contains(b) || (0x61...0x7A).contains(b) }
        func starts(_ word: String, at k: Int, ignoringCase: Bool = true) -> Bool {
            let w = Array(word.utf8)
            guard k + w.count <= bytes.count else { return false }
            for j in 0..<w.count where (ignoringCase ? lower(bytes[k + j]) : bytes[k + j]) != w[j] { return false }
            return true
        }
        while i < bytes.count {
            let b = bytes[i]
            if b == 0x0A { line += 1; lineStart = i + 1 }
            // A Mustache tag: values and includes are checked where they stand; other tags write
            // no text, so the HTML around them reads as if they were not there.
            if b == UInt8(ascii: "{"), i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "{") {
                guard let end = Self.tagEnd(bytes, from: i + 2) else { return }
                let raw = String(decoding: bytes[(i + 2)..<end], as: UTF8.self)
                var body = raw.trimmingCharacters(in: .whitespaces)
                let first = body.first
                if let first, "#^/>!<$=&{%".contains(first) { body = String(body.dropFirst()).trimmingCharacters(in: .whitespaces) }
                switch first {
                case "#"?, "^"?, "/"?:
                    if first == "/" { if sections.last == body { sections.removeLast() } } else { sections.append(body) }
                    // Inside an attribute value, what stands before a section may be left out:
                    // a value after it may start the URL.
                    if case .quoted = state { conditional = true; afterURLValue = false }
                    if case .unquoted = state { conditional = true; afterURLValue = false }
                case ">"?:
                    if case .data = state {} else {
                        throw refuse("{{> \(body)}} includes a partial inside \(Self.describe(state, tagName, attribute)); an include stands in the page's text", at: i)
                    }
                case "!"?, "<"?, "$"?, "="?, "&"?, "{"?, "%"?: break
                default:
                    let name = body == "." ? (sections.last ?? ".") : body
                    try checkValue(name, shown: body, at: i)
                }
                // Line counting inside the tag.
                for k in i..<end where bytes[k] == 0x0A { line += 1; lineStart = k + 1 }
                i = end + (bytes[end...].starts(with: Array("}}}".utf8)) && first == "{" ? 3 : 2)
                continue
            }
            switch state {
            case .data:
                if b == UInt8(ascii: "<") {
                    if starts("<!--", at: i) {
                        // "<!-->" and "<!--->" are whole (empty) comments to a browser.
                        if starts("<!-->", at: i) { i += 5; continue }
                        if starts("<!--->", at: i) { i += 6; continue }
                        state = .comment; i += 4; continue
                    }
                    if i + 1 < bytes.count, isLetter(bytes[i + 1]) || bytes[i + 1] == UInt8(ascii: "/") || bytes[i + 1] == UInt8(ascii: "!") {
                        state = .tagName
                        tagName = ""
                        tagStart = i
                    }
                }
            case .comment:
                if starts("-->", at: i) { state = .data; i += 3; continue }
                if starts("--!>", at: i) { state = .data; i += 4; continue }
            case .rawText(let element):
                // The element ends only at "</script" followed by a space, "/" or ">" (as a browser reads it).
                if starts("</" + element, at: i) {
                    let after = i + 2 + element.utf8.count
                    if after >= bytes.count || isSpace(bytes[after]) || bytes[after] == UInt8(ascii: "/") || bytes[after] == UInt8(ascii: ">") {
                        state = .tagName; tagName = ""; tagStart = i
                    }
                } else if starts("<!--", at: i) {
                    // Inside a script, "<!--" with "<script" after it changes where the element
                    // ends for a browser (the "double-escaped" state); no template needs it.
                    throw refuse("a <\(element)> element holds \"<!--\", which changes where a browser ends the element; remove it", at: i)
                }
            case .tagName:
                // "<script/>" opens a script element: "/" ends the name as a space does.
                if isSpace(b) || b == UInt8(ascii: "/") && !tagName.isEmpty { state = .inTag } else if b == UInt8(ascii: ">") { state = Self.after(tagName) } else if b != UInt8(ascii: "<") { tagName.append(Character(Unicode.Scalar(lower(b)))) }
            case .inTag:
                if b == UInt8(ascii: ">") { state = Self.after(tagName) } else if !isSpace(b) && b != UInt8(ascii: "/") {
                    state = .attributeName
                    attribute = String(Unicode.Scalar(lower(b)))
                }
            case .attributeName:
                if b == UInt8(ascii: "=") { state = .beforeValue } else if isSpace(b) { state = .afterAttributeName } else if b == UInt8(ascii: ">") { state = Self.after(tagName) } else {
                    attribute.append(Character(Unicode.Scalar(lower(b))))
                }
            case .afterAttributeName:
                if b == UInt8(ascii: "=") { state = .beforeValue } else if b == UInt8(ascii: ">") { state = Self.after(tagName) } else if !isSpace(b) {
                    state = .attributeName
                    attribute = String(Unicode.Scalar(lower(b)))
                }
            case .beforeValue:
                if b == UInt8(ascii: "\"") || b == UInt8(ascii: "'") {
                    state = .quoted(b)
                    valueStart = i + 1
                    afterURLValue = false
                    conditional = false
                } else if b == UInt8(ascii: ">") {
                    state = Self.after(tagName)
                } else if !isSpace(b) {
                    state = .unquoted
                    valueStart = i
                }
            case .quoted(let quote):
                if b == quote { state = .inTag }
            case .unquoted:
                if isSpace(b) { state = .inTag } else if b == UInt8(ascii: ">") { state = Self.after(tagName) }
            }
            i += 1
        }

        func checkValue(_ name: String, shown: String, at index: Int) throws(PageError) {
            let value = "{{\(shown)}}"
            switch state {
            case .data:
                // Right after "<" or "</" a value would be read as a tag ("<{{title}}" with a
                // title "img src=x onerror=…").
                var k = index - 1
                while k >= 0, bytes[k] == UInt8(ascii: "/") { k -= 1 }
                if k >= 0, bytes[k] == UInt8(ascii: "<") {
                    throw refuse("\(value) stands right after \"<\", where a browser would read it as a tag; put a space or text between them", at: index)
                }
                return
            case .comment: return
            case .rawText(let element):
                throw refuse("\(value) stands in a <\(element)> element, where HTML escaping does not keep a value from running as \(element == "script" ? "script" : "style"); write it in the page's text or in a quoted attribute", at: index)
            case .unquoted, .beforeValue:
                throw refuse("\(value) stands in an unquoted attribute value (\(attribute)=…), where a space in the value would add attributes; quote it: \(attribute)=\"\(value)\"", at: index)
            case .quoted:
                if attribute.hasPrefix("on") {
                    throw refuse("\(value) stands in the event-handler attribute \(attribute), which runs as script; values may not stand there", at: index)
                }
                if refusedAttributes.contains(attribute) {
                    throw refuse("\(value) stands in the \(attribute) attribute, which is read as \(attribute == "style" ? "style" : "HTML"); values may not stand there", at: index)
                }
                let meta = tagName == "meta" && attribute == "content" && Self.tag(bytes, from: tagStart).contains("http-equiv")
                guard urlAttributes.contains(attribute) || meta else { return }
                if urlValues.contains(name) { afterURLValue = true; return }
                let before = String(decoding: bytes[valueStart..<index], as: UTF8.self)
                // In a srcset every space or comma may start another URL; after a section, the
                // text before it may be left out.
                if !Self.listsURLs.contains(attribute), !conditional, afterURLValue || Self.decidesWhereItGoes(before) { return }
                let known = urlValues.sorted().joined(separator: ", ")
                throw refuse("\(value) stands at the start of a URL (\(meta ? "<meta http-equiv> content" : attribute + "=")), where a link creator's javascript:… would run; only the page's URL values may start one (\(known)), or put a fixed https://host/ or /path before it", at: index)
            case .tagName, .inTag, .attributeName, .afterAttributeName:
                throw refuse("\(value) stands inside a tag but outside a quoted attribute value, where it could add attributes; put it in the page's text or in a quoted attribute", at: index)
            }
        }
    }

    /// Where the text of a tag's element starts reading: script and style elements are raw text.
    static func after(_ tagName: String) -> State {
        tagName == "script" || tagName == "style" ? .rawText(tagName) : .data
    }

    /// The text of the tag that starts at `start`, lower-cased, up to its `>`.
    static func tag(_ bytes: [UInt8], from start: Int) -> String {
        var end = start
        while end < bytes.count, bytes[end] != UInt8(ascii: ">") { end += 1 }
        return String(decoding: bytes[start..<end], as: UTF8.self).lowercased()
    }

    /// Whether the fixed text before a value already decides where the URL goes: an http(s) URL
    /// with its host and a slash after it, or a path of this site (`/x…`, not `//`).
    static func decidesWhereItGoes(_ before: String) -> Bool {
        let lowered = before.lowercased()
        for scheme in ["https://", "http://"] where lowered.hasPrefix(scheme) {
            return lowered.dropFirst(scheme.count).contains("/")
        }
        return before.hasPrefix("/") && !before.hasPrefix("//") && before.count >= 2
    }

    /// Where a Mustache tag's `}}` starts (nil: unclosed, which the parser reports).
    static func tagEnd(_ bytes: [UInt8], from start: Int) -> Int? {
        var k = start
        while k + 1 < bytes.count {
            if bytes[k] == UInt8(ascii: "}") && bytes[k + 1] == UInt8(ascii: "}") { return k }
            k += 1
        }
        return nil
    }

    static func describe(_ state: State, _ tagName: String, _ attribute: String) -> String {
        switch state {
        case .rawText(let element): return "a <\(element)> element"
        case .comment, .data: return "text"
        case .quoted, .unquoted: return "the attribute \(attribute) of <\(tagName)>"
        default: return "the tag <\(tagName)>"
        }
    }
}
