import ArgumentParser
import Foundation
import LinkRules
import RelayLauncher
import SwitchyardCore
import SwitchyardNetwork
import URLRelay
import URLRelayService

struct InboxOption: ParsableArguments {
    @Option(help: "Inbox directory (default: $SWITCHYARD_INBOX, else switchyard/inbox in $XDG_STATE_HOME or ~/.local/state).")
    var inbox: String?

    /// The inbox, created when missing — only commands that write to it (`send`, `watch`, `open`)
    /// may create it; `creating: false` (status) reports a missing inbox with exit status 2.
    func validate() throws {
        if inbox?.isEmpty == true { throw ValidationError("--inbox is empty; give the inbox directory, or leave the option out for the default") }
    }

    func open(creating: Bool = true) throws -> Inbox {
        try Output.orExit { try Inbox(directory: inbox ?? Inbox.defaultDirectory(), creating: creating) }
    }
}

struct RelayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "relay",
        abstract: "A durable inbox between processes: send URLs into it, watch and drain it.",
        subcommands: [RelaySend.self, RelayWatch.self, RelayStatus.self]
    )
}

struct RelaySend: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send", abstract: "Enqueue a URL durably; prints the request id.",
        discussion: "With --stdin, blank lines are skipped; a refused line is said on stderr with its line number and the reason, and the rest are still sent (exit status 1 at the end).")
    @Argument(help: "The URL to open (omit with --stdin).") var url: String?
    @Flag(help: "Send one URL per stdin line; each id is printed once its request is durable.") var stdin = false
    @Option(parsing: .unconditional, help: "With --stdin, commit this many lines at a time (group commit).") var batch = 1
    @OptionGroup var inboxOption: InboxOption
    @Option(help: "Who is sending (shown to the drainer).") var source = "switchyard relay send"
    @Option(name: .customLong("meta"), help: "Metadata key=value (repeatable).") var metadata: [String] = []

    func validate() throws {
        if case .failure(let problem) = RelayRequest.metadata(arguments: metadata) { throw ValidationError("--meta \(problem.message)") }
        if batch < 1 || batch > 10_000 { throw ValidationError("--batch must be 1–10000") }
        if stdin != (url == nil) { throw ValidationError("give a URL or --stdin, not both or neither") }
        if batch != 1 && !stdin { throw ValidationError("--batch is for --stdin (one URL is one commit)") }
        if url?.isEmpty == true { throw ValidationError("the URL is empty") }
    }

    func run() throws {
        let inbox = try inboxOption.open()
        let meta = try RelayRequest.metadata(arguments: metadata).get()  // checked in validate()
        // A line longer than any acceptable URL is not even kept in memory: refused as it streams by.
        let limit = inbox.policy.maximumLength
        let urls = Output.inputs(url.map { [$0] } ?? [], maximumLineBytes: limit + 1) { number, length in
            "refused: stdin line \(number) (\(length) bytes): the URL is longer than \(limit) bytes; nothing stored for it"
        }
        let refused: Int
        do {
            refused = try inbox.send(urls, source: source, metadata: meta, batch: batch,
                                     committed: { Output.line($0.map { $0.id.uuidString.lowercased() }.joined(separator: "\n")) },
                                     refused: { Output.error("refused: \(urls.lineNumber.map { "stdin line \($0): " } ?? "")\($0.displayExcerpt()): \($1)") })
        } catch {
            Output.error("error: \(error)")
            throw ExitCode(1)
        }
        try urls.finish()
        if refused > 0 || urls.skipped > 0 { throw ExitCode(1) }
    }
}

struct RelayWatch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Drain the inbox now and whenever a request arrives (inotify), until SIGTERM.",
        discussion: """
            With --open-with CMD, each request runs CMD with the URL as its last argument (the request id is in \
            $SWITCHYARD_REQUEST_ID; its stdin, stdout and stderr are /dev/null, so a handler that wants a log \
            writes one itself); exit status 0 acknowledges it, anything else leaves it first in line for a retry \
            with backoff (0.5 s doubling to 30 s). After --max-attempts failed deliveries the request is moved to \
            rejected/ with a .reason file and the requests behind it are delivered. Without --open-with, each request \
            is printed as a JSON line and acknowledged. Requests older than --ttl are dropped with a log line.
            """)
    @OptionGroup var inboxOption: InboxOption
    @Option(help: "Command that opens a URL, e.g. 'xdg-open' (split into words as a shell does: quote a path with spaces).") var openWith: String?
    @Option(parsing: .unconditional, help: "Seconds --open-with may run for one request; then it (and what it started) is stopped and the attempt fails.")
    var handlerTimeout: Double = 30
    @Option(help: "Append each request's record to FILE (fsynced; an id already in FILE is not written again) instead of opening it.")
    var record: String?
    @Option(parsing: .unconditional, help: "Seconds after which a waiting request is dropped.") var ttl: Double = 24 * 3600
    @Option(parsing: .unconditional, help: "Seconds between safety-net polls.") var poll: Double = 5
    @Option(parsing: .unconditional, help: "Failed deliveries before a request is moved to rejected/ (0: retry forever, holding back the requests behind it).")
    var maxAttempts = RelayWatcher.defaultMaxAttempts
    @Option(help: "Serve the launcher page on HOST:PORT (loopback only; port 0 picks one).") var http: String?

    func validate() throws {
        if maxAttempts < 0 { throw ValidationError("--max-attempts must be 0 (no limit) or more") }
        if !(ttl > 0 && ttl.isFinite) { throw ValidationError("--ttl must be a positive number of seconds") }
        if !(poll > 0 && poll <= 86_400) { throw ValidationError("--poll must be more than 0 and at most 86400 seconds") }
        if !(handlerTimeout > 0 && handlerTimeout <= 86_400) { throw ValidationError("--handler-timeout must be more than 0 and at most 86400 seconds") }
        if record?.isEmpty == true { throw ValidationError("--record is empty: give the file to append each request to") }
        if openWith != nil && record != nil { throw ValidationError("--open-with and --record cannot be given together (a recorded request is not opened)") }
        if let openWith {
            guard let program = CommandOpen.words(openWith)?.first else { throw ValidationError("--open-with has no command, or a quote or a backslash left open") }
            // A mistyped handler would spend every waiting request's retries and reject them all.
            guard CommandOpen.canRun(program) else { throw ValidationError("--open-with: '\(program)' is not an executable file or a program in PATH") }
        }
        if let http, Launcher.address(http) == nil { throw ValidationError("--http must be a loopback HOST:PORT such as 127.0.0.1:8765") }
    }

    func run() async throws {
        let inbox = try inboxOption.open()
        let delivery = try Output.orExit { try WatchDelivery.chosen(record: record, openWith: openWith, handlerTimeout: handlerTimeout, log: { Output.error("relay: \($0)") }) }
        let watcher = RelayWatcher(inbox: inbox, ttl: ttl, pollInterval: poll, maxAttempts: maxAttempts == 0 ? nil : maxAttempts,
                                   log: { Output.error("relay: \($0)") }) { [delivery] request in
            await delivery.deliver(request, output: Output.line, log: { Output.error("relay: \($0)") })
        }
        Output.error("relay: watching \(inbox.directory)")
        do { try await Launcher.watch(watcher, http: http.flatMap(Launcher.address), log: { Output.error("relay: \($0)") }) } catch {
            // An address the launcher cannot listen on is bad input (status 2), said with the address.
            guard let http, let failure = ListenFailure(error) else { throw error }
            Output.error("error: " + failure.message(address: http, hint: "stop the other watcher or choose another --http address"))
            throw ExitCode(2)
        }
    }
}

struct RelayStatus: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "status", abstract: "What is waiting in the inbox.")
    @OptionGroup var inboxOption: InboxOption
    @Flag(help: "One JSON object.") var json = false

    func run() throws {
        // A status check creates nothing: a missing inbox is reported (status 2).
        let inbox = try inboxOption.open(creating: false)
        let status = try Output.orExit { try inbox.status() }
        // Records are read back from files anyone may write: nothing in them reaches the terminal raw.
        try Output.report(json: json, try JSONValueEncoder().encode(status), lines: status.lines)
    }
}

struct OpenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "open",
        abstract: "Open a web link in the right app: resolve it, apply the open policy, then open directly and relay.",
        discussion: """
            The native URL is the first action the rules give, or the first from a --prefer app. It then goes through \
            the policy (javascript:, data: and file: are always refused) and the strategies: the direct command \
            (--open-with, default xdg-open), then always the relay inbox. Register as the desktop handler for web links:
              xdg-mime default switchyard-open.desktop x-scheme-handler/http x-scheme-handler/https
            with a .desktop file whose Exec line is `switchyard open %u`.
            """)
    @Argument(help: "The link.") var url: String
    @Flag(help: "Print what would happen; open nothing.") var dryRun = false
    @Option(help: "Preferred app id (repeatable, in order).") var prefer: [String] = []
    @Option(help: "Command that opens a URL (split into words as a shell does: quote a path with spaces).") var openWith = "xdg-open"
    @Flag(help: "Resolve without network access.") var offline = false
    @OptionGroup var manifestOption: ManifestOption
    @OptionGroup var inboxOption: InboxOption
    @OptionGroup var isolation: ScriptIsolationOption

    func validate() throws {
        if CommandOpen.words(openWith) == nil { throw ValidationError("--open-with has no command, or a quote or a backslash left open") }
    }

    func run() async throws {
        let manifest = try manifestOption.load()
        let engine = LinkEngine(manifest: manifest, options: .init(offline: offline, scriptIsolation: isolation.isolation).withHTTPFetcher())
        let resolution = await engine.resolve(url)
        let candidates = resolution.actions.compactMap { action in
            action.url.map { OpenTarget(url: $0, appId: action.appId, displayName: manifest.app(action.appId)?.name) }
        }
        let target = LinkOpening.choose(from: candidates, prefer: prefer, fallback: OpenTarget(url: resolution.unwrapped ?? url))
        let inbox = dryRun ? Inbox.unopened(directory: inboxOption.inbox ?? Inbox.defaultDirectory()) : try inboxOption.open()
        var opening = LinkOpening(opener: .standard(direct: CommandOpen(command: CommandOpen.words(openWith) ?? [openWith]), inbox: inbox),
                                  source: "switchyard open")
        let plan: LinkOpening.Plan
        switch opening.plan(target) {
        case .refused(let reason):
            Output.error("refused: \(target.url.displayExcerpt()): \(reason)")
            throw ExitCode(1)
        case .ready(let ready): plan = ready
        }
        if dryRun {
            Output.line(("would open \(target.url) (\(target.displayName))\(plan.delay > 0 ? " after \(plan.delay) s" : "")").terminalEscaped)
            Output.line("  1. \(openWith) \(target.url)".terminalEscaped)
            Output.line("  2. then always relay to \(inbox.directory)")
            return
        }
        let report = await opening.open(plan) { attempt in
            switch attempt.outcome {
            case .opened: Output.error("open: \(attempt.strategy): done".terminalEscaped)
            case .failed(let why): Output.error("open: \(attempt.strategy): \(why)".terminalEscaped)
            }
        }
        Output.line(report.summary.terminalEscaped)
        if !report.delivered { throw ExitCode(1) }
    }
}
