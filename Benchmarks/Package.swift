// swift-tools-version: 6.1
import PackageDescription

// Benchmarks live outside the main package so that `swift test` never builds or runs them.
// Run: swift run -c release --package-path Benchmarks switchyard-bench rules
let package = Package(
    name: "SwitchyardBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Switchyard", path: ".."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    ],
    targets: [
        .executableTarget(
            name: "switchyard-bench",
            dependencies: [
                .product(name: "LinkRules", package: "Switchyard"),
                .product(name: "LinkRouting", package: "Switchyard"),
                .product(name: "AssociatedDomains", package: "Switchyard"),
                .product(name: "URLRelay", package: "Switchyard"),
                .product(name: "UserAgents", package: "Switchyard"),
            ],
            path: "Sources/switchyard-bench",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // Hummingbird alone, one route: the floor `service-wrk.sh --floor` measures the router path against.
        .executableTarget(
            name: "hummingbird-floor",
            dependencies: [.product(name: "Hummingbird", package: "hummingbird")],
            path: "Sources/hummingbird-floor",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // SwiftNIO alone, one handler: the floor `service-wrk.sh --nio-floor` measures the lane against.
        .executableTarget(
            name: "nio-floor",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Sources/nio-floor",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
