/// A small deterministic random number generator (SplitMix64) for the seeded property tests of
/// every test target, so that a failing case repeats exactly. Not for anything but tests.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    /// The generator's state; it advances on every `next()`, and
    /// restoring a saved value replays the sequence from there.
    public var state: UInt64

    /// A generator whose whole sequence is determined by `seed`.
    public init(seed: UInt64) { state = seed }

    /// The next value of the SplitMix64 sequence.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
