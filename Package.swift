// swift-tools-version: 6.1
import PackageDescription

/// One set of compiler settings for every target.
let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "Switchyard",
    // The floor: iOS 16 / macOS 13, for the Swift Concurrency clocks and `Duration`
    // (`ContinuousClock`, `Task.sleep(for:)`) and `URL(filePath:)`/`appending(path:)` the
    // app-facing modules use. Shared state uses the core's `Locked`, not `Synchronization`
    // (iOS 18 / macOS 15).
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .library(name: "SwitchyardCore", targets: ["SwitchyardCore"]),
        .library(name: "PatternMatching", targets: ["PatternMatching"]),
        .library(name: "UserAgents", targets: ["UserAgents"]),
        .library(name: "LinkRules", targets: ["LinkRules"]),
        .library(name: "SwitchyardDocuments", targets: ["SwitchyardDocuments"]),
        .library(name: "LinkRouting", targets: ["LinkRouting"]),
        .library(name: "AssociatedDomains", targets: ["AssociatedDomains"]),
        .library(name: "LinkStorage", targets: ["LinkStorage"]),
        .library(name: "LinkPages", targets: ["LinkPages"]),
        .library(name: "LinkConfiguration", targets: ["LinkConfiguration"]),
        .library(name: "LinkService", targets: ["LinkService"]),
        .library(name: "URLRelay", targets: ["URLRelay"]),
        .library(name: "CallbackURL", targets: ["CallbackURL"]),
        .library(name: "DeferredLinking", targets: ["DeferredLinking"]),
        .library(name: "SwitchyardNetwork", targets: ["SwitchyardNetwork"]),
        .library(name: "URLRelayService", targets: ["URLRelayService"]),
        .executable(name: "switchyard", targets: ["switchyard"]),
    ],
    traits: [
        // LinkRules on Apple platforms: look up JavaScriptCore.framework's private watchdog and
        // heap functions, for script time and memory limits in process. Off by default (an App
        // Review risk). No effect on Linux: no App Review there, and the shim declares them.
        .trait(name: "PrivateJavaScriptCore"),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-atomics", from: "1.3.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/vapor/sqlite-nio", from: "1.13.2"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // Documentation only: `swift package generate-documentation` (Scripts/build-docs.sh, run in CI).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CJavaScriptCore",
            pkgConfig: "javascriptcoregtk-4.1",
            providers: [.apt(["libjavascriptcoregtk-4.1-dev"])]
        ),
        .systemLibrary(
            name: "CMaxMindDB",
            pkgConfig: "libmaxminddb",
            providers: [.apt(["libmaxminddb-dev"]), .brew(["libmaxminddb"])]
        ),
        // Adapter: MaxMind-format geo databases (libmaxminddb).
        .target(name: "SwitchyardGeo", dependencies: ["SwitchyardCore", "CMaxMindDB"], swiftSettings: swiftSettings),
        .systemLibrary(
            name: "CQRCode",
            providers: [.apt(["libqrencode-dev", "libpng-dev"]), .brew(["qrencode", "libpng"])]
        ),
        .target(name: "SwitchyardCore", swiftSettings: swiftSettings),
        // glibc's posix_spawn file actions that Swift's Glibc module leaves out (Linux only).
        .target(name: "CSpawn"),
        // Adapter: QR codes (libqrencode, libpng) for the link service and the command line.
        .target(name: "SwitchyardQR", dependencies: ["SwitchyardCore", "CQRCode", "CSVG"], swiftSettings: swiftSettings),
        // SVG logos drawn into PNG QR codes (librsvg and cairo).
        .systemLibrary(
            name: "CSVG",
            providers: [.apt(["librsvg2-dev"]), .brew(["librsvg"])]
        ),
        // App-facing: ICU regexes with time budgets, and the required-literal index that tries an
        // input only against the patterns it can match (the rule engine's apps, user agents).
        // On Linux the regexes also run through ICU's C API directly (the ICU Foundation ships);
        // elsewhere through NSRegularExpression alone.
        .target(name: "PatternMatching", dependencies: ["SwitchyardCore"], swiftSettings: swiftSettings,
                linkerSettings: [.linkedLibrary("_FoundationICU", .when(platforms: [.linux]))]),
        // App-facing: browser, OS and device from a User-Agent, by ua-parser's regexes.yaml.
        .target(name: "UserAgents", dependencies: ["SwitchyardCore", "SwitchyardDocuments", "PatternMatching"], swiftSettings: swiftSettings),
        .target(
            name: "LinkRules",
            dependencies: [
                "SwitchyardCore", "PatternMatching",
                .target(name: "CJavaScriptCore", condition: .when(platforms: [.linux])),
                .target(name: "CSpawn", condition: .when(platforms: [.linux])),
            ],
            resources: [.copy("Resources/default-rules.json")],
            swiftSettings: swiftSettings
        ),
        .target(name: "SwitchyardDocuments", dependencies: ["SwitchyardCore", .product(name: "Yams", package: "Yams")], swiftSettings: swiftSettings),
        .target(
            name: "LinkRouting",
            dependencies: ["SwitchyardCore", "SwitchyardDocuments"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "AssociatedDomains",
            dependencies: ["SwitchyardCore", "LinkRouting"],
            swiftSettings: swiftSettings
        ),
        // Adapters: the network edge (AsyncHTTPClient) for the rule engine and the hosting check.
        .target(
            name: "SwitchyardNetwork",
            dependencies: [
                "LinkRules", "AssociatedDomains",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // Adapter: the service's channel handlers, in front of Hummingbird's router (through
        // HTTP1Channel's additionalChannelHandlers): the connection guard (limits and the request
        // timeout), the keep-alive rule, and the lane that answers requests whose whole response
        // is at hand on the event loop.
        .target(
            name: "ServiceTransport",
            dependencies: [
                "SwitchyardCore", "LinkConfiguration",
                .product(name: "Atomics", package: "swift-atomics"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
            ],
            swiftSettings: swiftSettings
        ),
        // Adapter: the link service's storage — links, clicks, visits, API tokens (issued and
        // hashed here), claims and the webhook outbox on SQLite or PostgreSQL, with their migrations.
        .target(
            name: "LinkStorage",
            dependencies: [
                "SwitchyardCore", "SwitchyardNetwork",
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Atomics", package: "swift-atomics"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        // Adapter: the pages people see — landing pages from Mustache templates (built-in or an
        // operator's), and who is visiting (previews and crawlers, in-app browsers).
        .target(
            name: "LinkPages",
            dependencies: ["SwitchyardCore", .product(name: "Mustache", package: "swift-mustache")],
            resources: [.copy("Resources/landing.mustache"), .copy("Resources/message.mustache"), .copy("Resources/password.mustache"),
                        .copy("Resources/dashboard.mustache"), .copy("Resources/dashboard-errors.mustache"),
                        .copy("Resources/dashboard-sign-in.mustache"), .copy("Resources/dashboard-message.mustache"),
                        .copy("Resources/dashboard-links.mustache"), .copy("Resources/dashboard-link.mustache"), .copy("Resources/dashboard-audience.mustache"),
                        .copy("Resources/dashboard-form.mustache"), .copy("Resources/dashboard-bulk.mustache"), .copy("Resources/launcher.mustache"),
                        .copy("Resources/preview-agents.json"), .copy("Resources/in-app-browsers.json")],
            swiftSettings: swiftSettings
        ),
        // Adapter: the service's configuration file — apps, hosts, routes, pages, limits, deferred
        // links, visits, webhooks — read and checked with errors that name the key, and `init`'s
        // starter configuration. No server stack: a tool can read and check a configuration.
        .target(
            name: "LinkConfiguration",
            dependencies: ["SwitchyardCore", "SwitchyardDocuments", "LinkRules", "LinkRouting", "AssociatedDomains", "LinkStorage", "LinkPages", "SwitchyardQR"],
            swiftSettings: swiftSettings
        ),
        // Adapter: webhook delivery — the outbox (LinkStorage) sent, signed, through the guarded fetcher.
        .target(
            name: "LinkWebhooks",
            dependencies: [
                "SwitchyardCore", "LinkStorage", "LinkConfiguration", "LinkRules", "SwitchyardNetwork",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        // Adapter: who visited — the place (a geo database or a trusted proxy's header), the
        // browser, OS and device (ua-parser's rules), the campaign and the visitor of the day —
        // made from what a request saw, off the event loop, in the batched visit flush.
        .target(
            name: "LinkAudience",
            dependencies: [
                "SwitchyardCore", "LinkStorage", "LinkConfiguration", "SwitchyardGeo", "UserAgents",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // Adapter: the landing pages' fast path — recently read links and their rendered pages in
        // memory, and clicks and visits added up and written once a second.
        .target(
            name: "LinkCache",
            dependencies: [
                "SwitchyardCore", "LinkStorage", "LinkConfiguration", "LinkPages", "LinkAudience",
                .product(name: "Atomics", package: "swift-atomics"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        // Adapter: what a link request says, checked against a configuration — the links API's
        // bodies and errors, a link's input rules, a Firebase Dynamic Link's parameters — shared by
        // the service and the importers.
        .target(
            name: "LinkRequests",
            dependencies: [
                "SwitchyardCore", "SwitchyardDocuments", "LinkRouting", "LinkStorage", "LinkConfiguration", "LinkPages",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // Adapter: importing links from other services' exports (Firebase Dynamic Links) and from
        // Switchyard's own CSV, and that export; checked as the links API checks a link. Used by
        // the command line, not by the running service.
        .target(
            name: "LinkImport",
            dependencies: ["SwitchyardCore", "SwitchyardDocuments", "LinkRouting", "LinkStorage", "LinkConfiguration", "LinkRequests"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "LinkService",
            dependencies: [
                "SwitchyardCore", "SwitchyardDocuments", "LinkRules", "LinkRouting", "AssociatedDomains", "SwitchyardNetwork", "SwitchyardQR",
                "ServiceTransport", "LinkRequests", "LinkCache", "LinkAudience", "LinkWebhooks", "LinkStorage", "LinkPages", "LinkConfiguration",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Atomics", package: "swift-atomics"),
            ],
            resources: [.copy("Resources/example-config.yaml"), .copy("Resources/openapi.json")],
            swiftSettings: swiftSettings
        ),
        // App-facing: deferred deep links, redeemed on the first launch after install.
        .target(name: "DeferredLinking", dependencies: ["SwitchyardCore", "LinkRouting"], swiftSettings: swiftSettings),
        .target(
            name: "URLRelay",
            dependencies: ["SwitchyardCore", .product(name: "CoreMetrics", package: "swift-metrics")],
            swiftSettings: swiftSettings
        ),
        // Adapter: the relay's drain loop as a ServiceLifecycle service.
        .target(
            name: "URLRelayService",
            dependencies: ["URLRelay", .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "CallbackURL",
            dependencies: ["SwitchyardCore", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "RelayLauncher",
            dependencies: ["URLRelay", "URLRelayService", "CallbackURL", "SwitchyardCore", "LinkPages", .product(name: "Hummingbird", package: "hummingbird"),
                           .product(name: "NIOPosix", package: "swift-nio"), .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "switchyard",
            dependencies: [
                "SwitchyardCore", "LinkRules", "LinkRouting", "AssociatedDomains", "LinkStorage", "LinkPages", "LinkConfiguration", "LinkService", "LinkImport", "LinkRequests", "URLRelay", "CallbackURL", "RelayLauncher",
                "SwitchyardNetwork", "URLRelayService", "SwitchyardQR", "UserAgents", "SwitchyardGeo",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),
        // Helpers shared by the test targets only (a seeded generator for property tests, a child
        // process runner that does not use Foundation's Process, fresh test databases).
        .target(name: "SwitchyardTestSupport", dependencies: ["SwitchyardCore", "LinkStorage", .target(name: "CSpawn", condition: .when(platforms: [.linux]))], swiftSettings: swiftSettings),
        .testTarget(name: "SwitchyardCoreTests", dependencies: ["SwitchyardCore", "SwitchyardTestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "PatternMatchingTests", dependencies: ["PatternMatching", "SwitchyardCore", "SwitchyardTestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "SwitchyardGeoTests", dependencies: ["SwitchyardGeo", "SwitchyardCore", "SwitchyardTestSupport"], exclude: ["Inputs"], swiftSettings: swiftSettings),
        .testTarget(name: "UserAgentsTests", dependencies: ["UserAgents", "SwitchyardCore", "SwitchyardDocuments", "SwitchyardTestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "LinkRulesTests", dependencies: ["LinkRules", "PatternMatching", "SwitchyardCore", "SwitchyardTestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "SwitchyardDocumentsTests", dependencies: ["SwitchyardDocuments", "SwitchyardCore", "SwitchyardTestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "LinkRoutingTests", dependencies: ["LinkRouting", "SwitchyardTestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "AssociatedDomainsTests", dependencies: ["AssociatedDomains", "LinkRouting", "SwitchyardCore", "SwitchyardTestSupport"], swiftSettings: swiftSettings),
        .testTarget(
            name: "LinkServiceTests",
            dependencies: ["LinkService", "LinkImport", "LinkRequests", "LinkCache", "LinkAudience", "SwitchyardDocuments", "LinkWebhooks", "ServiceTransport", "LinkConfiguration", "LinkStorage", "LinkPages", "AssociatedDomains", "SwitchyardQR", "DeferredLinking", "LinkRouting", "SwitchyardTestSupport", .product(name: "HummingbirdTesting", package: "hummingbird")],
            exclude: ["Inputs"],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "LinkConfigurationTests", dependencies: ["LinkConfiguration", "SwitchyardCore", "SwitchyardDocuments", "LinkRouting", "AssociatedDomains", "SwitchyardQR", "SwitchyardTestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "LinkPagesTests", dependencies: ["LinkPages", "SwitchyardCore", "SwitchyardTestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "LinkStorageTests", dependencies: ["LinkStorage", "SwitchyardCore", "SwitchyardTestSupport", "DeferredLinking"], swiftSettings: swiftSettings),
        .testTarget(
            name: "ServiceTransportTests",
            dependencies: ["ServiceTransport", "SwitchyardTestSupport", .product(name: "NIOEmbedded", package: "swift-nio"), .product(name: "HummingbirdTesting", package: "hummingbird")],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "URLRelayTests", dependencies: ["URLRelay", "URLRelayService", "SwitchyardTestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "SwitchyardNetworkTests", dependencies: ["SwitchyardNetwork", "LinkRules", "AssociatedDomains", "SwitchyardTestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "DeferredLinkingTests", dependencies: ["DeferredLinking", "LinkRouting", "SwitchyardTestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "CallbackURLTests", dependencies: ["CallbackURL", "URLRelay", "SwitchyardTestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "switchyardTests", dependencies: ["switchyard", "SwitchyardTestSupport"], exclude: ["Inputs", "Golden"], swiftSettings: swiftSettings),
    ]
)
