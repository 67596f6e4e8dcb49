import SwitchyardTestSupport
import Foundation
@testable import LinkConfiguration
import SwitchyardCore
import Testing

/// Secrets the configuration reads from the environment, a file or its own text: deferred-link
/// signing keys and webhook secrets.
@Suite struct SecretSettingsTests {
    /// Signing keys are read as webhook secrets are: `env:NAME`, `file:PATH` or the text itself;
    /// a short or blank key, or a variable that is not set, stops the configuration.
    @Test func signingKeysComeFromTheEnvironmentOrAFile() throws {
        let file = TestTemporary.root.path + "/sy-key-" + UUID().uuidString
        try "a-signing-key-from-a-file-of-32-or-more-bytes\n".write(toFile: file, atomically: true, encoding: .utf8)
        let section = try JSONParser.parse(#"{"signingKeys": ["env:SY_TEST_KEY", "file:\#(file)", "a-literal-signing-key-of-32-characters!"]}"#)
        let settings = try DeferredSettings(section, environment: ["SY_TEST_KEY": "a-signing-key-from-the-environment-32+"])
        #expect(settings.signingKeys == ["a-signing-key-from-the-environment-32+", "a-signing-key-from-a-file-of-32-or-more-bytes",
                                         "a-literal-signing-key-of-32-characters!"])
        for (keys, message) in [
            (#"["env:SY_UNSET"]"#, "deferred.signingKeys[0]: the environment variable SY_UNSET is not set"),
            (#"["too-short-a-key-for-signing"]"#, "deferred.signingKeys[0]: a signing key is at least 32 characters, not all spaces (for example `openssl rand -base64 32`)"),
            ("[\"\(String(repeating: " ", count: 40))\"]", "deferred.signingKeys[0]: a signing key is at least 32 characters, not all spaces (for example `openssl rand -base64 32`)"),
        ] {
            #expect(throws: ConfigurationError(message)) { try DeferredSettings(try JSONParser.parse(#"{"signingKeys": \#(keys)}"#), environment: [:]) }
        }
    }

    @Test func secretsComeFromTheEnvironmentOrAFile() throws {
        let file = TestTemporary.root.path + "/sy-hook-" + UUID().uuidString
        try "from-a-file-0123456789\n".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try WebhookSettings.secret("file:" + file, "s", environment: [:]) == Array("from-a-file-0123456789".utf8))
        #expect(try WebhookSettings.secret("env:HOOK", "s", environment: ["HOOK": "from-the-environment"]) == Array("from-the-environment".utf8))
        #expect(try WebhookSettings.secret("literally-this-secret", "s", environment: [:]) == Array("literally-this-secret".utf8))
    }
}
