// swift-tools-version: 6.1
import PackageDescription

// libFuzzer targets. Build and run with ./run.sh (it passes -sanitize=fuzzer).
let package = Package(
    name: "SwitchyardFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "Switchyard", path: "..")],
    targets: [
        .target(name: "CFuzzerDriver"),
        .executableTarget(
            name: "FuzzAASA",
            dependencies: ["CFuzzerDriver", .product(name: "AssociatedDomains", package: "Switchyard"), .product(name: "SwitchyardCore", package: "Switchyard")]
        ),
        .executableTarget(
            name: "FuzzRouter",
            dependencies: ["CFuzzerDriver", .product(name: "LinkRouting", package: "Switchyard")]
        ),
        .executableTarget(
            name: "FuzzManifest",
            dependencies: ["CFuzzerDriver", .product(name: "LinkRules", package: "Switchyard")]
        ),
        .executableTarget(
            name: "FuzzRelay",
            dependencies: ["CFuzzerDriver", .product(name: "URLRelay", package: "Switchyard"), .product(name: "CallbackURL", package: "Switchyard")]
        ),
    ]
)
