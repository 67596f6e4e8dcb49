import SwitchyardTestSupport
import SwitchyardCore
import CallbackURL
import Foundation
import Testing

@Suite struct CallbackTests {
    @Test func buildsAndParsesWithNestedURLsIntact() throws {
        let success = "myapp://x-callback-url/done?x-sy-id=r1&note=a%26b&u=https%3A%2F%2Fe.com%2F%3Fq%3D1"
        let request = XCallbackURL(scheme: "plur", action: "join group", source: "Helper", success: success, error: "myapp://err?x=1&y=2",
                                   cancel: "myapp://cancel", parameters: [("groupId", "g 1/ü"), ("relay", "wss://r.example/?a=1&b=2")])
        let text = request.url
        #expect(text.hasPrefix("plur://x-callback-url/join%20group?x-source=Helper&x-success=myapp%3A%2F%2Fx-callback-url%2Fdone%3Fx-sy-id%3Dr1%26note%3Da%2526b"))
        let parsed = try XCallbackURL(parsing: text)
        #expect(parsed == request)
        #expect(parsed.success == success)
        #expect(try XCallbackURL(parsing: parsed.success!).parameter("u") == "https://e.com/?q=1")
    }

    @Test(arguments: ["", "plur:/x-callback-url/a", "plur://other/a", "plur://x-callback-url/", "1ab://x-callback-url/a", "plur://x-callback-url/a?x=%zz", "plur://x-callback-url/a?x=%C3",
                      "plur://x-callback-url/a?x-success=a%3A%2F%2Fone&x-success=a%3A%2F%2Ftwo", "plur://x-callback-url/a?X-Success=a%3A%2F%2Fone",
                      "plur://x-callback-url/a?x-sy-sig=1&x-sy-sig=2", "plur://x-callback-url/a?x=1#x-success=javascript:alert(1)"])
    func malformedInputSaysWhy(_ text: String) {
        #expect(throws: CallbackError.self) { try XCallbackURL(parsing: text) }
    }

    /// A second x-success (or x-source) put in front of the signed one, or anything after "#", is
    /// not taken: the URL is malformed, whatever its signature (it verified before).
    @Test func aFieldAddedBesideTheSignedOneIsRefused() throws {
        let key = Array("0123456789abcdef0123456789abcdef".utf8)
        let signed = CallbackSigner(keyID: "k1", secret: key)
            .sign(XCallbackURL(scheme: "helper", action: "export", success: "plur://x-callback-url/done?job=7"), requestID: "req-8", expires: Date().addingTimeInterval(60))
        let verifier = CallbackVerifier(keys: ["k1": key])
        for forged in [signed.url.replacingOccurrences(of: "?", with: "?x-success=javascript%3Aalert(1)&"),
                       signed.url.replacingOccurrences(of: "?", with: "?x-source=Evil%20Bank&x-source=Plur&"),
                       signed.url + "#x-success=javascript:alert(1)"] {
            do { try verifier.verify(try XCallbackURL(parsing: forged)); Issue.record("accepted: \(forged)") } catch {
                #expect(error.code == .malformed, "\(error)")
            }
        }
        #expect(try verifier.verify(try XCallbackURL(parsing: signed.url)) == "req-8")
    }

    final class Clock: @unchecked Sendable {
        var now = Date(timeIntervalSince1970: 1_800_000_000)
    }

    @Test func signedRequestsVerifyOnceAndForgeriesFail() throws {
        let key = Array("0123456789abcdef0123456789abcdef".utf8)
        let signer = CallbackSigner(keyID: "k1", secret: key)
        let clock = Clock()
        let verifier = CallbackVerifier(keys: ["k1": key], now: { clock.now })
        let base = XCallbackURL(scheme: "helper", action: "export", source: "Plur", success: "plur://x-callback-url/ok", parameters: [("file", "a.txt")])
        let signed = signer.sign(base, requestID: "req-1", expires: clock.now.addingTimeInterval(60), nonce: "nonce-n1-0123456789")
        let roundTripped = try XCallbackURL(parsing: signed.url)
        #expect(try verifier.verify(roundTripped) == "req-1")
        do { try verifier.verify(roundTripped); Issue.record("replay accepted") } catch { #expect(error.code == .replayed) }

        func expect(_ r: XCallbackURL, _ code: ErrorCode) {
            do { try verifier.verify(r); Issue.record("accepted: \(r.url)") } catch { #expect(error.code == code, "\(r.url)") }
        }
        var tampered = signer.sign(base, requestID: "req-2", expires: clock.now.addingTimeInterval(60), nonce: "nonce-n2-0123456789")
        tampered.parameters[0].value = "b.txt"
        expect(tampered, .badSignature)
        var redirected = signer.sign(base, requestID: "req-3", expires: clock.now.addingTimeInterval(60), nonce: "nonce-n3-0123456789")
        redirected.success = "evil://steal"
        expect(redirected, .badSignature)
        expect(CallbackSigner(keyID: "k1", secret: Array("wrong key wrong key wrong key!!".utf8)).sign(base, requestID: "r", expires: clock.now.addingTimeInterval(60)), .badSignature)
        expect(CallbackSigner(keyID: "k9", secret: key).sign(base, requestID: "r", expires: clock.now.addingTimeInterval(60)), .unknownKey)
        expect(base, .unsigned)
        let expiring = signer.sign(base, requestID: "req-4", expires: clock.now.addingTimeInterval(10), nonce: "nonce-n4-0123456789")
        clock.now += 11
        expect(expiring, .expired)
    }

    @Test func pendingRequestsSurviveAndAnswerOnce() throws {
        let dir = TestTemporary.root.appendingPathComponent("pending-\(UUID().uuidString)").path
        let store = try PendingRequests(directory: dir)
        try store.register(PendingRequest(id: "req-1", action: "export", expires: Date(timeIntervalSince1970: 1_900_000_000)))
        // A new instance (the app was killed and relaunched) sees the same state.
        let reopened = try PendingRequests(directory: dir)
        #expect(reopened.waiting() == ["req-1"])
        #expect(try reopened.answer(id: "req-1").action == "export")
        do { _ = try reopened.answer(id: "req-1"); Issue.record("answered twice") } catch { #expect(error.code == .alreadyAnswered) }
        do { _ = try reopened.answer(id: "req-2"); Issue.record("unknown accepted") } catch { #expect(error.code == .unknownRequest) }
        do { _ = try reopened.answer(id: "../../etc/passwd"); Issue.record("path accepted") } catch { #expect(error.code == .unknownRequest) }
        #expect(throws: CallbackError.self) { try store.register(PendingRequest(id: "a/b", action: "x", expires: Date())) }
    }

    @Test func aSignedURLForAnotherSchemeOrActionIsRefused() throws {
        let key = Array("0123456789abcdef0123456789abcdef".utf8)
        let signer = CallbackSigner(keyID: "k1", secret: key)
        let verifier = CallbackVerifier(keys: ["k1": key])
        let request = XCallbackURL(scheme: "helper", action: "export", success: "plur://x-callback-url/ok")
        let expires = Date().addingTimeInterval(60)
        // A request signed for the helper is not an answer to Plur, though the key is shared.
        do { try verifier.verify(signer.sign(request, requestID: "a", expires: expires, nonce: "nonce-a-0123456789"), expectingScheme: "plur"); Issue.record("another app's URL accepted") } catch {
            #expect(error.code == .notAllowed && error.message.contains("helper:"), "\(error)")
        }
        do { try verifier.verify(signer.sign(request, requestID: "b", expires: expires, nonce: "nonce-b-0123456789"), expectingScheme: "helper", action: "delete"); Issue.record("another action accepted") } catch {
            #expect(error.code == .notAllowed && error.message.contains("export"), "\(error)")
        }
        #expect(try verifier.verify(signer.sign(request, requestID: "c", expires: expires, nonce: "nonce-c-0123456789"), expectingScheme: "HELPER", action: "export") == "c")
        // An x-sy-exp that is no number is malformed, whatever the signature.
        var bad = signer.sign(request, requestID: "d", expires: expires, nonce: "nonce-d-0123456789")
        bad.parameters = bad.parameters.map { $0.name == "x-sy-exp" ? ($0.name, "soon") : $0 }
        do { try verifier.verify(bad); Issue.record("malformed expiry accepted") } catch { #expect(error.code == .malformed, "\(error)") }
    }

    /// A well-signed request whose callback runs code or reads files is refused by the library
    /// (not only by the CLI), before its nonce is recorded: an app verifying it gets the same answer.
    @Test(arguments: ["javascript:alert(1)", "JavaScript:alert(1)", "data:text/html,x", "file:///etc/passwd", "not a url"])
    func aSignedRequestWithADangerousCallbackIsRefused(_ callback: String) throws {
        let key = Array("0123456789abcdef0123456789abcdef".utf8)
        let signer = CallbackSigner(keyID: "k1", secret: key)
        let verifier = CallbackVerifier(keys: ["k1": key])
        let expires = Date().addingTimeInterval(60)
        for field in ["x-success", "x-error", "x-cancel"] {
            var request = XCallbackURL(scheme: "helper", action: "export", success: "plur://x-callback-url/ok")
            switch field {
            case "x-success": request.success = callback
            case "x-error": request.error = callback
            default: request.cancel = callback
            }
            let signed = signer.sign(request, requestID: "r", expires: expires, nonce: "nonce-0123456789-\(field)")
            do { try verifier.verify(signed); Issue.record("\(field)=\(callback) accepted") } catch {
                #expect(error.code == .deniedCallback && error.message.hasPrefix("\(field) "), "\(error)")
            }
            // Refused before the nonce was recorded: the same request, made safe, is the first use.
            request.success = "plur://x-callback-url/ok"; request.error = nil; request.cancel = nil
            #expect(try verifier.verify(signer.sign(request, requestID: "r", expires: expires, nonce: "nonce-0123456789-\(field)")) == "r")
        }
        #expect(XCallbackURL.callbackProblem("plur://x-callback-url/ok") == nil)
        #expect(XCallbackURL.reservedParameterProblem("X-Success") == "x-success is an x-callback-url parameter")
        #expect(XCallbackURL.reservedParameterProblem("x-sy-nonce") == "x-sy-nonce: names starting with x-sy- belong to the signature")
        #expect(XCallbackURL.reservedParameterProblem("groupId") == nil)
    }

    @Test func aPlusInAParameterIsAPlusSign() throws {
        let parsed = try XCallbackURL(parsing: "plur://x-callback-url/call?phone=+15551234&name=a%2Bb+c")
        #expect(parsed.parameter("phone") == "+15551234")
        #expect(parsed.parameter("name") == "a+b+c")
        // And it survives a round trip.
        let built = XCallbackURL(scheme: "plur", action: "call", parameters: [("phone", "+1 555")])
        #expect(try XCallbackURL(parsing: built.url).parameter("phone") == "+1 555")
    }

    @Test func anExpiredRequestIsNotAnsweredAndIsCleanedUp() throws {
        let dir = TestTemporary.root.appendingPathComponent("pending-\(UUID().uuidString)").path
        let store = try PendingRequests(directory: dir)
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        try store.register(PendingRequest(id: "soon", action: "export", expires: t0.addingTimeInterval(10)))
        try store.register(PendingRequest(id: "later", action: "export", expires: t0.addingTimeInterval(100)))
        try store.register(PendingRequest(id: "answered", action: "export", expires: t0.addingTimeInterval(20)))
        #expect(try store.answer(id: "answered", now: t0).id == "answered")
        #expect(store.waiting(now: t0) == ["later", "soon"])
        // Past its expiry a request is neither waiting nor answerable, and its record goes.
        #expect(store.waiting(now: t0.addingTimeInterval(11)) == ["later"])
        do { _ = try store.answer(id: "soon", now: t0.addingTimeInterval(11)); Issue.record("expired request answered") } catch {
            #expect(error.code == .expired, "\(error)")
        }
        do { _ = try store.answer(id: "soon", now: t0.addingTimeInterval(11)); Issue.record("answered after removal") } catch {
            #expect(error.code == .unknownRequest, "\(error)")
        }
        // removeExpired clears expired records and the answered ids that no longer matter; an
        // answered id still within its expiry stays answered.
        try store.register(PendingRequest(id: "stale", action: "export", expires: t0.addingTimeInterval(15)))
        #expect(try store.removeExpired(now: t0.addingTimeInterval(16)) == ["stale"])
        do { _ = try store.answer(id: "answered", now: t0.addingTimeInterval(16)); Issue.record("answered twice") } catch { #expect(error.code == .alreadyAnswered) }
        #expect(try store.removeExpired(now: t0.addingTimeInterval(21)) == [])
        let answeredFile = try String(contentsOfFile: dir + "/answered", encoding: .utf8)
        #expect(!answeredFile.contains("answered"), "\(answeredFile)")
        #expect(try store.answer(id: "later", now: t0.addingTimeInterval(21)).id == "later")
    }

    @Test func callbacksOpenOnlyWhenAllowed() throws {
        let allow = CallbackAllowlist(["plur://x-callback-url/", "https://rabble.community/cb/"])
        try allow.check("plur://x-callback-url/ok?x=1")
        try allow.check("HTTPS://rabble.community/cb/1")
        #expect(throws: CallbackError.self) { try allow.check("https://rabble.community.evil.example/cb/") }
        #expect(throws: CallbackError.self) { try allow.check("javascript:alert(1)") }
    }

    /// A repeated name's values are signed in their order: swapping `file=a.txt` and
    /// `file=b.txt` breaks the signature; a request without repeats signs as it always did.
    @Test func theSignatureCoversTheOrderOfARepeatedName() throws {
        let key = Array("0123456789abcdef0123456789abcdef".utf8)
        let signer = CallbackSigner(keyID: "k1", secret: key)
        let request = XCallbackURL(scheme: "helper", action: "export", parameters: [("file", "a.txt"), ("file", "b.txt"), ("a-b", "1"), ("a", "2")])
        let signed = signer.sign(request, requestID: "r1", expires: Date().addingTimeInterval(60))
        #expect(signed.url.contains("file=a.txt&file=b.txt"))
        let swapped = signed.url.replacingOccurrences(of: "file=a.txt&file=b.txt", with: "file=b.txt&file=a.txt")
        do { try CallbackVerifier(keys: ["k1": key]).verify(try XCallbackURL(parsing: swapped)); Issue.record("accepted: \(swapped)") } catch {
            #expect(error.code == .badSignature, "\(error)")
        }
        #expect(try CallbackVerifier(keys: ["k1": key]).verify(try XCallbackURL(parsing: signed.url)) == "r1")
    }

    /// An empty callback field signs as an absent one, so it is refused when parsed: adding
    /// `x-source=` to a signed URL does not verify.
    @Test func anEmptyCallbackFieldIsMalformed() throws {
        let key = Array("0123456789abcdef0123456789abcdef".utf8)
        let signed = CallbackSigner(keyID: "k1", secret: key).sign(XCallbackURL(scheme: "helper", action: "export"), requestID: "r", expires: Date().addingTimeInterval(60))
        for field in ["x-source", "x-success", "x-error", "x-cancel"] {
            do { _ = try XCallbackURL(parsing: signed.url + "&\(field)="); Issue.record("accepted an empty \(field)") } catch {
                #expect(error.code == .malformed && error.message.contains("\(field) is empty"))
            }
        }
    }

    /// A nonce outside the nonce alphabet is malformed, however well signed, and writes nothing
    /// to the nonce file (a line break in it planted a second line there).
    @Test(arguments: ["abc\n9999999999 k1/victimnonce0123456", "short", "has space in it 0123456", String(repeating: "n", count: 65), "ünïcode-0123456789abcdef"])
    func aNonceOutsideTheAlphabetIsMalformedAndWritesNothing(_ nonce: String) throws {
        let key = Array("0123456789abcdef0123456789abcdef".utf8)
        let file = TestTemporary.root.appendingPathComponent("nonces-\(UUID().uuidString)").path
        let verifier = CallbackVerifier(keys: ["k1": key], seen: SeenNonces(path: file))
        let signed = CallbackSigner(keyID: "k1", secret: key).sign(XCallbackURL(scheme: "helper", action: "export"), requestID: "r", expires: Date().addingTimeInterval(60), nonce: nonce)
        do { try verifier.verify(try XCallbackURL(parsing: signed.url)); Issue.record("accepted nonce \(nonce)") } catch {
            #expect(error.code == .malformed, "\(error)")
        }
        let written = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
        #expect(written.isEmpty, "\(written)")
        do { try SeenNonces(path: file).insert("k1/a\nb", until: Date().addingTimeInterval(60), now: Date()); Issue.record("a key with a line break was written") } catch {
            #expect(error.code == .malformed)
        }
    }
}

/// Keys named `ID=FILE`: the shape, a printable id, a readable file of at least 16 bytes.
@Suite struct CallbackKeyTests {
    @Test func aKeyIsReadFromItsFileAndEveryRefusalSaysWhy() throws {
        let file = TestTemporary.root.appendingPathComponent("key-\(UUID().uuidString)").path
        try Data(repeating: 7, count: 32).write(to: URL(fileURLWithPath: file))
        let key = try CallbackKey(argument: "k1=\(file)")
        #expect(key.id == "k1" && key.secret == [UInt8](repeating: 7, count: 32))
        #expect(CallbackKey.argumentProblem("k1") == "'k1' is not ID=FILE")
        #expect(CallbackKey.argumentProblem("=f")?.hasSuffix("is not ID=FILE") == true)
        #expect(CallbackKey.argumentProblem("k\u{1B}=f")?.contains("(it holds U+001B)") == true)
        try Data(repeating: 7, count: 15).write(to: URL(fileURLWithPath: file))
        #expect(throws: CallbackKeyError.self) { try CallbackKey(argument: "k1=\(file)") }
        let missing = #expect(throws: CallbackKeyError.self) { try CallbackKey(argument: "k1=/nonexistent/key") }
        #expect(missing?.message.contains("/nonexistent/key") == true, "\(String(describing: missing))")
    }
}

/// `callback build --param`'s reading of `name=value`, and the scheme and key checks' messages.
@Suite struct CallbackArgumentTests {
    @Test func aParameterIsNameEqualsValue() throws {
        #expect(try XCallbackURL.parameter(argument: "a=b=c") == ("a", "b=c"))
        #expect(try XCallbackURL.parameter(argument: "emoji=🙂") == ("emoji", "🙂"))
        #expect(try XCallbackURL.parameter(argument: "empty=") == ("empty", ""))
    }

    @Test(arguments: [
        ("=v", "'=v' is not name=value (a name before the =)"),
        ("novalue", "'novalue' is not name=value (a name before the =)"),
        (" x-sy-id=1", "the name ' x-sy-id' starts or ends with a space"),
        ("x-sy-id =1", "the name 'x-sy-id ' starts or ends with a space"),
        ("a=\u{202E}b", #"'a=\u{202E}b' contains a control, bidirectional or replacement character"#),
    ])
    func aParameterThatCannotBeOneSaysWhy(argument: String, message: String) {
        #expect(throws: CallbackError(.malformed, message)) { try XCallbackURL.parameter(argument: argument) }
    }

    @Test func theSignatureAndCallbackFieldsAreNotParameters() {
        for name in ["x-sy-id", "X-SY-SIG", "x-success", "x-error"] {
            #expect(throws: CallbackError.self) { try XCallbackURL.parameter(argument: "\(name)=1") }
        }
    }

    /// A long text is shown cut, with its length, and the quote closed.
    @Test func longTextIsExcerptedWhole() {
        let long = String(repeating: "é", count: 100)
        #expect(XCallbackURL.schemeProblem(long) == "'\(String(repeating: "é", count: 80))…' (200 bytes) is not a URL scheme (a letter, then letters, digits, +, - or .)")
        #expect(XCallbackURL.schemeProblem("plur") == nil)
        #expect(XCallbackURL.schemeProblem("Javascript")?.contains("always denied") == true)
        #expect(CallbackKey.argumentProblem(String(repeating: "k", count: 90))?.hasSuffix("…' (90 bytes) is not ID=FILE") == true)
    }
}

@Suite struct CallbackJSONTests {
    /// A repeated parameter's values are an array in `callback parse`'s JSON: one member per name.
    @Test func repeatedParametersAreAnArray() throws {
        let request = XCallbackURL(scheme: "helper", action: "export", parameters: [("file", "a"), ("x", "1"), ("file", "b")])
        let parsed = try XCallbackURL(parsing: request.url)
        #expect(JSONWriter.compact(parsed.json).hasSuffix(#""parameters":{"file":["a","b"],"x":"1"}}"#), "\(JSONWriter.compact(parsed.json))")
        // And it reads back with the strict parser, which refuses duplicate keys.
        #expect(throws: Never.self) { try JSONParser.parse(JSONWriter.compact(parsed.json)) }
    }
}

/// `callback build` and `callback verify` as a command line gives them: the option a mistake is
/// in, a signed request that verifies, the nonce file's directory.
@Suite struct CallbackCommandLineTests {
    func arguments(key: String? = nil, id: String? = nil, expiresIn: Double? = nil, parameters: [String] = []) -> XCallbackURL.Arguments {
        .init(scheme: "helper", action: "export", source: "Me", success: "myapp://done", error: nil, cancel: nil,
              parameters: parameters, key: key, id: id, expiresIn: expiresIn)
    }

    @Test func eachMistakeNamesItsOption() {
        #expect(arguments().problem == nil)
        #expect(arguments(id: "r1").problem == "--id and --expires-in are parts of a signed request: give --key too")
        #expect(arguments(key: "k=/f", id: "").problem == "--id is empty")
        #expect(arguments(key: "k=/f", expiresIn: 0).problem?.hasPrefix("--expires-in must be") == true)
        #expect(arguments(key: "nofile").problem == "--key 'nofile' is not ID=FILE")
        #expect(arguments(parameters: ["=v"]).problem?.hasPrefix("--param ") == true)
        var wrong = arguments()
        wrong.success = "javascript:alert(1)"
        #expect(wrong.problem?.hasPrefix("--success ") == true)
        #expect(throws: CallbackKeyError.self) { try wrong.request(now: Date()) }
    }

    @Test func aSignedRequestVerifiesWithTheSameKeysAndIsRefusedOnce() throws {
        let directory = TestTemporary.root.appendingPathComponent("callback-cli-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try Data(repeating: 9, count: 32).write(to: URL(fileURLWithPath: directory + "/k"))
        let unsigned = try arguments(parameters: ["a=1"]).request(now: Date())
        #expect(unsigned.parameter("a") == "1" && unsigned.parameter("x-sy-sig") == nil)
        let signed = try arguments(key: "k1=\(directory)/k", id: "r7", expiresIn: 60, parameters: ["a=1"]).request(now: Date())
        let secrets = try CallbackKey.secrets(arguments: ["k1=\(directory)/k"])
        #expect(secrets == ["k1": [UInt8](repeating: 9, count: 32)])
        let verifier = CallbackVerifier(keys: secrets, seen: try SeenNonces(commandLine: directory + "/nonces"))
        #expect(try verifier.verify(try XCallbackURL(parsing: signed.url)) == "r7")
        #expect(throws: CallbackError.self) { try verifier.verify(try XCallbackURL(parsing: signed.url)) }
        // A chosen nonce file in a directory that does not exist is refused, saying which.
        let missing = #expect(throws: CallbackError.self) { try SeenNonces(commandLine: directory + "/no/such/nonces") }
        #expect(missing?.message.contains("there is no directory '\(directory)/no/such'") == true)
        #expect(throws: CallbackKeyError.self) { try CallbackKey.secrets(arguments: ["k1=\(directory)/missing"]) }
    }
}
