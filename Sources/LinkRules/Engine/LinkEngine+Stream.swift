import SwitchyardCore

extension LinkEngine {
    /// Resolves a stream of inputs with bounded memory, every core busy and answers in input
    /// order: chunks of `chunkSize` inputs go to the executor, a window of chunks at once, and
    /// each chunk's answers reach `emit` as the oldest chunk completes. Online, the window is
    /// wider (`onlineWindow` chunks), so chunks waiting on slow servers overlap with the rest. Before it waits for more
    /// input it emits every answer already asked for, so a slow producer (`tail -f log |`) sees
    /// each answer at once. An input `inputs` finds a problem with (not a URL, an over-long
    /// line) is answered by `refused` and never resolved; the others by `resolved`.
    package func resolve<Answer: Sendable>(
        stream inputs: InputLines, headers: [(String, String)] = [], chunkSize: Int = 32,
        refused: @escaping @Sendable (String, (code: ErrorCode, message: String)) -> Answer,
        resolved: @escaping @Sendable (Resolution) -> Answer,
        emit: ([Answer]) -> Void
    ) async {
        let window = max(2, executor.threadCount * 2, options.offline ? 0 : Self.onlineWindow)
        var inFlight: [Task<[Answer], Never>] = []
        while true {
            if !inputs.hasBufferedLine {
                for task in inFlight { emit(await task.value) }
                inFlight.removeAll()
            }
            let chunk = inputs.next(chunkSize)
            if chunk.isEmpty { break }
            let problems = chunk.map { inputs.problem($0) }
            inFlight.append(Task {
                var answers = [Answer?](repeating: nil, count: chunk.count)
                var valid: [(Int, String)] = []
                for (i, input) in chunk.enumerated() {
                    if let problem = problems[i] { answers[i] = refused(input, problem) } else { valid.append((i, input)) }
                }
                let results = await self.resolve(batch: valid.map(\.1), headers: headers)
                for ((i, _), r) in zip(valid, results) { answers[i] = resolved(r) }
                return answers.map { $0! }
            })
            if inFlight.count >= window { emit(await inFlight.removeFirst().value) }
        }
        for task in inFlight { emit(await task.value) }
    }

    /// Chunks in flight at once when redirects are followed over the network: a chunk waiting on
    /// a slow server holds no executor thread, so up to this many wait together.
    package static let onlineWindow = 32
}
