// swift-tools-version:6.0
// The JanitorialQC engine: tiered library modules, the shell, the dev server and the linter.
// Layout and tiers: Docs/ARCHITECTURE.md (SPEC.md §2). Targets are listed in tier order; each sits
// beside its test target, dependency lists are sorted, and shared settings are applied by one loop.
import PackageDescription

/// A system library reached through pkg-config, installed by `make deps` from Debian's package.
func systemLibrary(_ name: String, pkgConfig: String, apt: String) -> Target {
    .systemLibrary(name: name, path: "Modules/\(name)", pkgConfig: pkgConfig, providers: [.apt([apt])])
}

/// A library module under `Modules/` with its test target under `Tests/` (which also gets `testDependencies`).
func module(
    _ name: String, _ dependencies: [Target.Dependency], resources: [Resource]? = nil,
    testDependencies: [Target.Dependency] = []
) -> [Target] {
    [
        .target(name: name, dependencies: dependencies, path: "Modules/\(name)", resources: resources),
        .testTarget(
            name: "\(name)Tests", dependencies: [.target(name: name), "JQCTestSupport"] + testDependencies,
            path: "Tests/\(name)Tests"),
    ]
}

var targets: [Target] = [
    // C libraries: each behind exactly one Swift door (STYLE.md item 2).
    systemLibrary("CSQLite", pkgConfig: "sqlite3", apt: "libsqlite3-dev"),
    systemLibrary("CCurl", pkgConfig: "libcurl", apt: "libcurl4-openssl-dev"),
    systemLibrary("CJPEG", pkgConfig: "libjpeg", apt: "libjpeg-dev"),
    systemLibrary("CExif", pkgConfig: "libexif", apt: "libexif-dev"),
    systemLibrary("CEdit", pkgConfig: "libedit", apt: "libedit-dev"),
    systemLibrary("CMicroHTTPD", pkgConfig: "libmicrohttpd", apt: "libmicrohttpd-dev"),
    systemLibrary("CCrypto", pkgConfig: "libcrypto", apt: "libssl-dev"),
    // libjpeg's setjmp/longjmp error handling stays in C (STYLE.md pitfalls).
    .target(
        name: "CJPEGShim", dependencies: ["CJPEG"], path: "Modules/CJPEGShim",
        linkerSettings: [.linkedLibrary("jpeg")]),
]

/// Test targets of modules that send requests also get the scripted transport (test support, never shipped).
let scripted: [Target.Dependency] = ["JQCNetworkTestSupport"]

// Tier 0 — foundation
targets += module("JQCKit", [])
// Tier 1 — adapters
targets += module("JQCStorage", ["CSQLite", "JQCKit"])
targets += module("JQCNetwork", ["CCurl", "JQCKit"], testDependencies: scripted)
targets += module("JQCJPEG", ["CExif", "CJPEGShim", "JQCKit"])
// Tier 2 — engine
targets += module("JQCSync", ["JQCKit", "JQCNetwork", "JQCStorage"], testDependencies: ["JQCStorage"])
// Tier 3 — features, in their order (JQCForms is pure: JQCKit only)
targets += module("JQCForms", ["JQCKit"])
// Reference data: contracts, facilities, areas, templates (pulled, pruned, read by the start cascades).
targets += module(
    "JQCFacilities", ["JQCForms", "JQCKit", "JQCNetwork", "JQCStorage", "JQCSync"], testDependencies: scripted)
targets += module(
    "JQCPhotos", ["JQCJPEG", "JQCKit", "JQCNetwork", "JQCStorage", "JQCSync"], testDependencies: scripted)
targets += module(
    "JQCInspections", ["JQCFacilities", "JQCForms", "JQCKit", "JQCNetwork", "JQCPhotos", "JQCStorage", "JQCSync"],
    testDependencies: scripted)
targets += module(
    "JQCIssues", ["JQCFacilities", "JQCInspections", "JQCKit", "JQCNetwork", "JQCPhotos", "JQCStorage", "JQCSync"],
    testDependencies: scripted)
targets += module(
    "JQCScheduling", ["JQCForms", "JQCInspections", "JQCKit", "JQCNetwork", "JQCStorage", "JQCSync"],
    testDependencies: scripted)
targets += module(
    "JQCFollowUps",
    ["JQCFacilities", "JQCForms", "JQCInspections", "JQCKit", "JQCNetwork", "JQCScheduling", "JQCStorage", "JQCSync"],
    testDependencies: scripted)
targets += module("JQCNotifications", ["JQCKit", "JQCNetwork", "JQCStorage", "JQCSync"], testDependencies: scripted)
// Tier 4 — composition
targets += module(
    "JQCComposition",
    [
        "JQCFacilities", "JQCFollowUps", "JQCForms", "JQCInspections", "JQCIssues", "JQCJPEG", "JQCKit", "JQCNetwork",
        "JQCNotifications", "JQCPhotos", "JQCScheduling", "JQCStorage", "JQCSync",
    ])
// Tooling — the dev server (a stand-in backend; never imported by client modules) and the linter
targets += [
    .target(
        name: "JQCDevServer", dependencies: ["CCrypto", "CMicroHTTPD", "JQCForms", "JQCKit", "JQCStorage"],
        path: "Tooling/JQCDevServer", resources: [.copy("Resources/seed.json")]),
    .testTarget(
        name: "JQCDevServerTests", dependencies: ["JQCDevServer", "JQCTestSupport"],
        path: "Tests/JQCDevServerTests"),
    .target(name: "JQCLint", dependencies: [], path: "Tooling/JQCLint"),
    .testTarget(name: "JQCLintTests", dependencies: ["JQCLint", "JQCTestSupport"], path: "Tests/JQCLintTests"),
]
// Tier 5 — apps
targets += [
    .executableTarget(
        name: "jqc-shell", dependencies: ["CEdit", "JQCComposition", "JQCDevServer"],
        path: "Apps/jqc-shell"),
    .executableTarget(name: "jqc-devserver", dependencies: ["JQCDevServer"], path: "Apps/jqc-devserver"),
    .executableTarget(name: "jqc-lint", dependencies: ["JQCLint"], path: "Apps/jqc-lint"),
    // A helper process for the storage crash and two-process tests.
    .executableTarget(name: "jqc-storage-probe", dependencies: ["JQCStorage"], path: "Tooling/jqc-storage-probe"),
    // A helper process for the inspections crash test (submit is one transaction; issue 7).
    .executableTarget(
        name: "jqc-inspections-probe",
        dependencies: ["JQCFacilities", "JQCForms", "JQCInspections", "JQCKit", "JQCStorage"],
        path: "Tooling/jqc-inspections-probe"),
    // The benchmarks of SPEC.md §6 (`make bench`, issue 11); built in release mode by scripts/bench.sh.
    .executableTarget(
        name: "jqc-bench",
        dependencies: [
            "JQCComposition", "JQCInspections", "JQCIssues", "JQCJPEG", "JQCKit", "JQCNetwork", "JQCStorage",
        ],
        path: "Tooling/jqc-bench"),
]
// Tests shared by every test target: temporary directories, fixture paths. Integration runs real HTTP.
targets += [
    .target(name: "JQCTestSupport", dependencies: ["JQCKit"], path: "Tests/JQCTestSupport"),
    // A toy synced feature with a photo, installed by the integration tests through the feature contract.
    .target(
        name: "JQCToyFeature", dependencies: ["JQCKit", "JQCNetwork", "JQCPhotos", "JQCStorage", "JQCSync"],
        path: "Tests/JQCToyFeature"),
    // The scripted transport of unit tests (seed 004): test support over JQCNetwork, never shipped.
    .target(
        name: "JQCNetworkTestSupport", dependencies: ["JQCKit", "JQCNetwork"], path: "Tests/JQCNetworkTestSupport"),
    .testTarget(
        name: "JQCIntegrationTests",
        dependencies: [
            "JQCComposition", "JQCDevServer", "JQCKit", "JQCNetworkTestSupport", "JQCTestSupport", "JQCToyFeature",
        ],
        path: "Tests/JQCIntegrationTests"),
    .testTarget(name: "JQCShellTests", dependencies: ["JQCTestSupport"], path: "Tests/JQCShellTests"),
]

// Shared settings, applied once: Swift 6 language mode with complete concurrency checking.
for target in targets where target.type != .system {
    if target.name.hasPrefix("C") && target.name.hasSuffix("Shim") { continue }
    target.swiftSettings =
        (target.swiftSettings ?? []) + [
            .swiftLanguageMode(.v6),
            .enableUpcomingFeature("ExistentialAny"),
        ]
}

let package = Package(
    name: "JanitorialQC",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "jqc-shell", targets: ["jqc-shell"]),
        .executable(name: "jqc-devserver", targets: ["jqc-devserver"]),
        .executable(name: "jqc-lint", targets: ["jqc-lint"]),
    ],
    targets: targets
)
