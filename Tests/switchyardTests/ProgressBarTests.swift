import Testing
@testable import switchyard

/// The terminal bar `manifest test` draws.
@Suite struct ProgressBarTests {
    @Test func theBarIsRedrawnOnlyWhenItGrowsAndEndsTheLine() {
        var bar = ProgressBar()
        bar.width = 4
        #expect(bar.update(done: 0, total: 8) == "\r···· 0/8")
        #expect(bar.update(done: 1, total: 8) == nil)
        #expect(bar.update(done: 2, total: 8) == "\r█··· 2/8")
        #expect(bar.update(done: 8, total: 8) == "\r████ 8/8\n")
        var empty = ProgressBar()
        #expect(empty.update(done: 0, total: 0)?.hasSuffix(" 0/0\n") == true)
    }
}
