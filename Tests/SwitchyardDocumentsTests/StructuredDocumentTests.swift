import SwitchyardTestSupport
import Foundation
import SwitchyardCore
import SwitchyardDocuments
import Testing

@Suite struct StructuredDocumentTests {
    static func file(_ text: String, _ name: String) throws -> String {
        let directory = TestTemporary.root.appendingPathComponent("documents-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    /// YAML floats are numbers, as YAML 1.2's core schema reads them; what is not one stays text.
    @Test func yamlFloatsAreNumbers() throws {
        let path = try Self.file("[1.5, -0.25, +2.0, 1e3, .inf, .nan, 1.2.3, 1e, e3, '0.5', 0.5x]", "floats.yaml")
        let values = try #require(try StructuredDocument.read(contentsOf: path).arrayValue)
        #expect(values.map(JSONWriter.compact) == ["1.5", "-0.25", "2.0", "1e3", #"".inf""#, #"".nan""#, #""1.2.3""#, #""1e""#, #""e3""#, #""0.5""#, #""0.5x""#])
    }

    /// Key order is kept, from YAML and from JSON.
    @Test func keyOrderIsKept() throws {
        let yaml = try StructuredDocument.parse(yaml: "z: 1\na: 2\nm: {y: 3, b: 4}\n")
        #expect(JSONWriter.compact(yaml) == #"{"z":1,"a":2,"m":{"y":3,"b":4}}"#)
        let json = try StructuredDocument.read(contentsOf: try Self.file(#"{"z": 1, "a": [true, null]}"#, "t.json"))
        #expect(JSONWriter.compact(json) == #"{"z":1,"a":[true,null]}"#)
    }

    /// Every failure has its code, says where (the file; the line and column of a JSON syntax
    /// error), and keeps the reader's error as its cause.
    @Test func everyFailureSaysWhereAndKeepsItsCause() throws {
        let json = try Self.file("{\"a\": 1,\n  \"b\" 2}", "bad.json")
        do { _ = try StructuredDocument.read(contentsOf: json); Issue.record("bad JSON read") } catch {
            #expect(error.code == .jsonSyntax)
            #expect(error.location == SourceLocation(file: json, line: 2, column: 7), "\(String(describing: error.location))")
            #expect(error.cause is JSONParser.SyntaxError)
            #expect(error.description == "\(json):2:7: \((error.cause as? JSONParser.SyntaxError)?.reason ?? "")")
        }
        let yaml = try Self.file("a: [1, 2\nb: 3\n", "bad.yaml")
        do { _ = try StructuredDocument.read(contentsOf: yaml); Issue.record("bad YAML read") } catch {
            #expect(error.code == .yamlSyntax)
            #expect(error.location?.file == yaml)
            #expect(error.cause != nil)
            #expect(error.description.hasPrefix("\(yaml): invalid YAML: line "), "\(error)")
        }
        // A key given twice, in JSON as in YAML.
        for (text, name) in [(#"{"hosts": ["a.com"], "hosts": ["b.com"]}"#, "dup.json"), ("hosts: [a.com]\nhosts: [b.com]\n", "dup.yaml")] {
            let path = try Self.file(text, name)
            do { _ = try StructuredDocument.read(contentsOf: path); Issue.record("\(name) read") } catch {
                #expect(error.description.contains("hosts"), "\(error)")
                #expect(error.code == (name.hasSuffix(".json") ? .jsonSyntax : .yamlSyntax))
            }
        }
        let empty = try Self.file("# nothing\n", "empty.yaml")
        do { _ = try StructuredDocument.read(contentsOf: empty); Issue.record("empty read") } catch {
            #expect(error.code == .emptyDocument && error.description == "\(empty): the file is empty")
        }
        let missing = empty + ".missing"
        do { _ = try StructuredDocument.read(contentsOf: missing); Issue.record("missing file read") } catch {
            #expect(error.code == .io)
            #expect(error.cause is FileError)
            #expect(error.description.contains(missing), "\(error)")
        }
    }

    /// A YAML file that is not UTF-8 is refused with the line and byte (not read with a
    /// replacement character); a tag for a value this reader does not make is refused with its
    /// line, while the tags YAML implies for plain values, and !!str, are read.
    @Test func bytesThatAreNotUTF8AndUnknownTagsAreRefused() throws {
        let directory = TestTemporary.root.appendingPathComponent("documents-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let latin1 = directory.appendingPathComponent("latin1.yaml")
        try Data("hosts: [x.example]\nname: \"a".utf8 + [0xFF] + Data("\"\n".utf8)).write(to: latin1)
        do { _ = try StructuredDocument.read(contentsOf: latin1.path); Issue.record("Latin-1 read") } catch {
            #expect(error.description == "\(latin1.path): not UTF-8 text: line 2, byte 0xFF is not UTF-8 here (save the file as UTF-8)")
        }
        for (text, tag, line) in [("hosts: !!python/object/apply:os.system [\"id\"]\n", "!!python/object/apply:os.system", 1),
                                  ("a: 1\nb: !custom x\n", "!custom", 2), ("a:\n  - !!binary aGk=\n", "!!binary", 2)] {
            let path = try Self.file(text, "tag.yaml")
            do { _ = try StructuredDocument.read(contentsOf: path); Issue.record("\(tag) read") } catch {
                #expect(error.description == "\(path):\(line): the YAML tag '\(tag)' is not read here: a document holds plain values, lists and mappings; remove the tag", "\(error)")
            }
        }
        let plain = try StructuredDocument.parse(yaml: "a: !!str x\nb: 2001-12-14\nc: =\nd: !!map {e: !!seq [1]}\n")
        #expect(JSONWriter.compact(plain) == #"{"a":"x","b":"2001-12-14","c":"=","d":{"e":[1]}}"#)
    }

    /// Aliases that repeat each other ("billion laughs") are refused, not expanded.
    @Test func aliasesThatExpandWithoutBoundAreRefused() throws {
        var yaml = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
        for i in 1..<9 { yaml += "a\(i): &a\(i) [*a\(i - 1), *a\(i - 1), *a\(i - 1), *a\(i - 1), *a\(i - 1), *a\(i - 1), *a\(i - 1), *a\(i - 1), *a\(i - 1), *a\(i - 1)]\n" }
        do { _ = try StructuredDocument.parse(yaml: yaml, source: "laughs.yaml"); Issue.record("expanded") } catch {
            #expect(error.code == .documentTooLarge)
            #expect(error.description == "laughs.yaml: the document expands to more than 100000 values, more than its size allows without YAML aliases repeating each other; refused", "\(error)")
        }
    }

    /// A large document without aliases is read whole (40,000 routes were refused as if they
    /// were aliases); a byte order mark before the first key is skipped.
    @Test func aLargePlainDocumentAndAByteOrderMarkAreRead() throws {
        var yaml = "\u{FEFF}hosts: [a.com]\nroutes:\n"
        for i in 0..<40_000 { yaml += "  - {name: r\(i), pattern: /r\(i)}\n" }
        let routes = try #require(try StructuredDocument.parse(yaml: yaml)["routes"]?.arrayValue)
        #expect(routes.count == 40_000)
        #expect(try StructuredDocument.parse(yaml: "\u{FEFF}a: 1\n")["a"] == .int(1))
    }
}
