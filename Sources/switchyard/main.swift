import ArgumentParser
import NIOCore
import NIOPosix

// Swift Concurrency runs on NIO's event loops, so a request's handler runs on the thread that
// reads its socket instead of hopping to the cooperative pool and back. Blocking work (SQLite,
// scripts) already runs on NIO's thread pool. This must happen before any task starts, hence
// main.swift instead of @main.
_ = NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()

/// AsyncParsableCommand.main(), called from an async function so that the async overload is chosen.
func runCommandLine() async {
    await Switchyard.main(nil)
}
await runCommandLine()
