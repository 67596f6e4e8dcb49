import DeferredLinking
import Foundation
@testable import LinkStorage
import SwitchyardCore
import Testing

/// Signed claim tokens: what a token carries comes back only under a key that signed it, and a
/// token has the shape apps already accept.
@Suite struct SignedClaimTokenTests {
    static let key = ClaimSigningKey(secret: "a-secret-of-at-least-32-characters-for-claims")!
    static let other = ClaimSigningKey(secret: "another-secret-of-at-least-32-characters-here")!
    static let issued = Date(timeIntervalSince1970: 1_790_000_000.25)
    static let created = Date(timeIntervalSince1970: 1_789_000_000.125)

    @Test(arguments: ["a", "Ph2ne555", "summer25", "ABCDEFGHIJKLMN", "z-_09Zy", "00000000000000"])
    func carriesTheCodePlatformAndIssueTime(_ code: String) throws {
        for platform in AppPlatform.allCases {
            let claim = SignedClaimToken(code: code, created: Self.created, platform: platform, issuedAt: Self.issued)
            let token = try #require(claim.token(signedWith: Self.key))
            // The shape the app library takes from a pasteboard or a Play referrer.
            #expect(token.utf8.count == 43 && DeferredLink.isToken(token), "\(token)")
            let read = try #require(SignedClaimToken.read(token, keys: [Self.key]))
            #expect(read == claim)
            #expect(read.issued == Date(timeIntervalSince1970: 1_790_000_000), "to the second")
            #expect(read.instance == SignedClaimToken.instance(of: Self.created))
        }
    }

    @Test func twoViewsGetTwoTokens() throws {
        let tokens = try (0..<1000).map { _ in try #require(SignedClaimToken(code: "summer25", created: Self.created, platform: .ios, issuedAt: Self.issued).token(signedWith: Self.key)) }
        #expect(Set(tokens).count == 1000)
    }

    @Test func anyChangedBitOrAnotherKeyIsRefused() throws {
        let token = try #require(SignedClaimToken(code: "summer25", created: Self.created, platform: .android, issuedAt: Self.issued).token(signedWith: Self.key))
        let bytes = try #require(Base64URL.decode(token))
        for index in bytes.indices {
            for bit in 0..<8 {
                var altered = bytes
                altered[index] ^= 1 << bit
                #expect(SignedClaimToken.read(Base64URL.encode(altered), keys: [Self.key]) == nil, "byte \(index) bit \(bit)")
            }
        }
        #expect(SignedClaimToken.read(token, keys: [Self.other]) == nil)
        // The last character carries two unused bits: only the canonical spelling is the token.
        let last = try #require(Base64URL.alphabet.firstIndex(of: token.utf8.last!))
        let spellings = (0..<4).map { String(token.dropLast()) + String(UnicodeScalar(Base64URL.alphabet[last & ~3 | $0])) }
        #expect(Set(spellings).count == 4 && spellings.contains(token))
        #expect(spellings.filter { SignedClaimToken.read($0, keys: [Self.key]) != nil } == [token])
        #expect(spellings.filter { Base64URL.decode($0) != nil } == [token], "one spelling per byte string")
        // Rotation: a new key first, the old one still accepted.
        #expect(SignedClaimToken.read(token, keys: [Self.other, Self.key])?.code == "summer25")
    }

    @Test func storedTokensAndOtherTextAreNotSigned() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let random = Base64URL.encode((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
            #expect(SignedClaimToken.read(random, keys: [Self.key]) == nil)
        }
        for text in ["", "short", String(repeating: "A", count: 43), String(repeating: "o", count: 44), "oAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA!"] {
            #expect(SignedClaimToken.read(text, keys: [Self.key]) == nil, "\(text)")
        }
    }

    @Test func codesItCannotCarryGetNoToken() {
        for code in ["", "ABCDEFGHIJKLMNO", "has.dot", "café"] {
            #expect(SignedClaimToken(code: code, created: Self.created, platform: .ios, issuedAt: Self.issued).token(signedWith: Self.key) == nil, "\(code)")
        }
        #expect(ClaimSigningKey(secret: "too short") == nil)
    }
}
