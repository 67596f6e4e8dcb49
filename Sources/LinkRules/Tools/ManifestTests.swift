import SwitchyardCore
import PatternMatching
/// Runs a manifest's own tests: every action test input against every format with
/// `testResults`, every browser test, and every redirect rule's `tests`.
///
/// A test whose script needed the network while offline is *skipped* (it cannot be decided).
public struct ManifestTestRunner: Sendable {
    /// One test's outcome.
    public struct Outcome: Sendable, Equatable {
        /// Whether the test passed, failed, or was skipped (it needed the network while offline).
        public enum Status: String, Sendable { case passed, failed, skipped }
        /// How the test ended.
        public var status: Status
        /// Where the test lives, e.g. `actions[3].formats[1] #2`.
        public var location: String
        /// The test input the rule was run on.
        public var input: String
        /// The expected result; nil when the test expects none (null).
        public var expected: String?
        /// What the rule produced; nil when it produced nothing or the test ended before a result.
        public var got: String?
        /// Why it failed or was skipped, when not a plain mismatch.
        public var reason: String?
    }

    /// Totals of a run.
    public struct Summary: Sendable, Equatable {
        /// Number of tests that passed.
        public var passed = 0
        /// Number of tests that failed.
        public var failed = 0
        /// Number of tests skipped because they needed the network while offline.
        public var skipped = 0
        /// The totals on one line: `12 passed, 1 failed, 0 skipped`.
        public var line: String { "\(passed) passed, \(failed) failed, \(skipped) skipped" }
    }

    /// The engine whose manifest's tests are run, and which runs them.
    public let engine: LinkEngine

    /// A runner for the tests of `engine`'s manifest.
    public init(engine: LinkEngine) { self.engine = engine }

    /// A test to run, so that callers can show progress.
    public struct Case: Sendable {
        let location: String
        let input: String
        let run: @Sendable (LinkEngine) -> Outcome
    }

    /// Every test the manifest declares, in manifest order.
    public func cases() -> [Case] {
        var cases: [Case] = []
        let manifest = engine.manifest
        for action in manifest.actions {
            let withResults = action.formats.filter { $0.testResults != nil }
            for (i, input) in action.testInputs.enumerated() {
                if withResults.isEmpty {
                    let loc = "actions[\(action.index)].testInputs[\(i)]"
                    cases.append(Case(location: loc, input: input) { engine in
                        switch action.pattern.match(input, budget: engine.options.regexTimeLimit) {
                        case .success(true): Outcome(status: .passed, location: loc, input: input)
                        case .success(false): Outcome(status: .failed, location: loc, input: input, reason: "the action's regex does not match")
                        case .failure(let timeout): Outcome(status: .failed, location: loc, input: input, reason: timeout.scriptError.message + " (regex-timeout)")
                        }
                    })
                }
                for f in withResults {
                    guard let results = f.testResults, i < results.count else { continue }
                    let loc = "actions[\(action.index)].formats[\(f.index)] #\(i)"
                    let expected = results[i]
                    cases.append(Case(location: loc, input: input) { engine in
                        Self.check(engine, pattern: action.pattern, transform: f.transform, input: input, expected: expected, location: loc)
                    })
                }
            }
        }
        for b in manifest.browsers {
            for (i, input) in b.testInputs.enumerated() {
                guard let results = b.testResults, i < results.count else { continue }
                let loc = "browsers[\(b.index)] #\(i)"
                let expected = results[i]
                cases.append(Case(location: loc, input: input) { engine in
                    Self.check(engine, pattern: b.pattern, transform: b.transform, input: input, expected: expected, location: loc)
                })
            }
        }
        for rule in manifest.redirects {
            for (i, test) in rule.tests.enumerated() {
                let loc = "redirects[\(rule.index)] #\(i)"
                cases.append(Case(location: loc, input: test.input) { engine in
                    let got = engine.unwrap(test.input)
                    return Outcome(status: got == test.expected ? .passed : .failed, location: loc, input: test.input, expected: test.expected, got: got)
                })
            }
        }
        return cases
    }

    static func check(_ engine: LinkEngine, pattern: Pattern, transform: Manifest.Transform, input: String, expected: String?, location: String) -> Outcome {
        // A null expectation also covers inputs the regex is meant not to match. A script format
        // is judged by running the script on the input, as Opener's own test harness does.
        var isScript = false
        if case .script = transform { isScript = true }
        if !isScript || expected == nil {
            switch pattern.match(input, budget: engine.options.regexTimeLimit) {
            case .failure(let timeout):
                return Outcome(status: .failed, location: location, input: input, expected: expected, reason: timeout.scriptError.message + " (regex-timeout)")
            case .success(true): break
            case .success(false):
                return expected == nil
                    ? Outcome(status: .passed, location: location, input: input, expected: nil, got: nil)
                    : Outcome(status: .failed, location: location, input: input, expected: expected, reason: "the regex does not match the test input")
            }
        }
        switch engine.applyOnExecutor(transform, pattern: pattern, to: input) {
        case .success(let got):
            return Outcome(status: got == expected ? .passed : .failed, location: location, input: input, expected: expected, got: got)
        case .failure(let error) where error.code == .networkDisabled:
            return Outcome(status: .skipped, location: location, input: input, expected: expected, reason: "needs the network (offline)")
        case .failure(let error):
            return Outcome(status: .failed, location: location, input: input, expected: expected, reason: error.description)
        }
    }

    /// Runs every case on the engine's executor, reporting each outcome to `progress` as it
    /// completes.
    public func run(progress: (Int, Int, Outcome) -> Void = { _, _, _ in }) async -> (Summary, [Outcome]) {
        let all = cases()
        var summary = Summary()
        var outcomes: [Outcome] = []
        for (i, c) in all.enumerated() {
            let o = await engine.onExecutor { c.run($0) }
            switch o.status {
            case .passed: summary.passed += 1
            case .failed: summary.failed += 1
            case .skipped: summary.skipped += 1
            }
            outcomes.append(o)
            progress(i + 1, all.count, o)
        }
        return (summary, outcomes)
    }
}

extension ManifestTestRunner.Outcome {
    /// The outcome as a JSON object (for `manifest test --json`).
    public var json: JSONValue {
        .object([
            ("status", .string(status.rawValue)), ("location", .string(location)), ("input", .string(input)),
            ("expected", expected.map(JSONValue.string) ?? .null), ("got", got.map(JSONValue.string) ?? .null),
            ("reason", reason.map(JSONValue.string) ?? .null),
        ])
    }
}
