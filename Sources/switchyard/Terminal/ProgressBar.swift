/// A progress bar for a terminal, `\r██████········ 12/40`, redrawn only when it grows.
struct ProgressBar: Sendable {
    /// Cells in the bar.
    var width = 30
    private var drawn = -1

    /// A bar that has drawn nothing yet.
    init() {}

    /// The text that redraws the bar for `done` of `total`, ending the line when all are done;
    /// nil when the bar looks as it did.
    mutating func update(done: Int, total: Int) -> String? {
        let filled = total == 0 ? width : done * width / total
        guard filled != drawn || done == total else { return nil }
        drawn = filled
        return "\r" + String(repeating: "█", count: filled) + String(repeating: "·", count: width - filled) + " \(done)/\(total)" + (done == total ? "\n" : "")
    }
}
