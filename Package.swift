// swift-tools-version:6.0
// The JanitorialQC engine: tiered library modules, the shell, the dev server and the linter.
// Layout and tiers: Docs/ARCHITECTURE.md (SPEC.md §2). Targets are listed in tier order; each sits
// beside its test target, dependency lists are sorted, and shared settings are applied by one loop.
import Foundation
import PackageDescription

/// The toolchain's SwiftSyntax and SwiftParser host libraries (`usr/lib/swift/host` beside the compiler), which
/// JQCLint is built on (issue 19); nothing outside the toolchain is fetched. `JQC_SWIFT_HOST_LIBS`, when set,
/// names the folder; otherwise it is found beside the `libPackageDescription.so` this manifest runs with (the
/// toolchain in use, however `swift` was invoked), else beside the first `swift` on PATH. `nil`, with a warning
/// saying how to fix it, when the folder holds no `SwiftParser.swiftmodule` (then JQCLint, jqc-lint and the test
/// build fail with "no such module 'SwiftParser'"; nothing else depends on it).
let swiftSyntaxHost: String? = {
    let environment = ProcessInfo.processInfo.environment
    func holdsParser(_ folder: String) -> Bool {
        FileManager.default.fileExists(atPath: folder + "/SwiftParser.swiftmodule")
    }
    func warn(_ text: String) -> String? {
        FileHandle.standardError.write(Data(("JQCLint needs the toolchain's SwiftSyntax host libraries: " + text).utf8))
        return nil
    }
    if let given = environment["JQC_SWIFT_HOST_LIBS"], !given.isEmpty {
        return holdsParser(given)
            ? given
            : warn(
                "JQC_SWIFT_HOST_LIBS=\(given) holds no SwiftParser.swiftmodule; point it at the toolchain's "
                    + "usr/lib/swift/host, or unset it to use the toolchain running this build.\n")
    }
    var candidates: [String] = []
    let manifestAPI = "/pm/ManifestAPI/libPackageDescription.so"
    if let maps = try? String(contentsOfFile: "/proc/self/maps", encoding: .utf8),
        let line = maps.split(separator: "\n").first(where: { $0.hasSuffix(manifestAPI) }),
        let start = line.firstIndex(of: "/")
    {
        candidates.append(String(line[start...].dropLast(manifestAPI.count)) + "/host")
    }
    for folder in (environment["PATH"] ?? "").split(separator: ":") {
        let swift = URL(fileURLWithPath: String(folder)).appendingPathComponent("swift")
        guard FileManager.default.isExecutableFile(atPath: swift.path) else { continue }
        let usr = swift.resolvingSymlinksInPath().deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(usr.appendingPathComponent("lib/swift/host").path)
        break
    }
    if let found = candidates.first(where: holdsParser) { return found }
    let looked = candidates.isEmpty ? "nowhere (no swift on PATH)" : candidates.joined(separator: ", ")
    return warn(
        "no SwiftParser.swiftmodule in \(looked). Use a Swift 6 toolchain from swift.org (it ships them in "
            + "usr/lib/swift/host), or set JQC_SWIFT_HOST_LIBS to the folder that holds them.\n")
}()

/// `-I` for the targets that import SwiftSyntax or SwiftParser (JQCLint, its tests, jqc-lint).
let swiftSyntaxImport: [SwiftSetting] = swiftSyntaxHost.map { [.unsafeFlags(["-I", $0])] } ?? []

/// Links JQCLint (and whatever contains it) against the host libraries, with an rpath to find them at run time.
let swiftSyntaxLink: [LinkerSetting] =
    swiftSyntaxHost.map { host in
        [
            .unsafeFlags(["-L", host, "-Xlinker", "-rpath", "-Xlinker", host]),
            .linkedLibrary("SwiftParser"), .linkedLibrary("SwiftSyntax"),
        ]
    } ?? []

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
    // The linter reads sources with the toolchain's own SwiftParser (the host libraries found above).
    .target(
        name: "JQCLint", dependencies: [], path: "Tooling/JQCLint", swiftSettings: swiftSyntaxImport,
        linkerSettings: swiftSyntaxLink),
    .testTarget(
        name: "JQCLintTests", dependencies: ["JQCLint", "JQCTestSupport"], path: "Tests/JQCLintTests",
        swiftSettings: swiftSyntaxImport),
]
// Tier 5 — apps
targets += [
    .executableTarget(
        name: "jqc-shell", dependencies: ["CEdit", "JQCComposition", "JQCDevServer"],
        path: "Apps/jqc-shell"),
    .executableTarget(name: "jqc-devserver", dependencies: ["JQCDevServer"], path: "Apps/jqc-devserver"),
    .executableTarget(
        name: "jqc-lint", dependencies: ["JQCLint"], path: "Apps/jqc-lint", swiftSettings: swiftSyntaxImport),
    // A helper process for the storage crash and two-process tests.
    .executableTarget(name: "jqc-storage-probe", dependencies: ["JQCStorage"], path: "Tooling/jqc-storage-probe"),
    // A helper process for the inspections crash test (submit is one transaction; issue 7).
    .executableTarget(
        name: "jqc-inspections-probe",
        dependencies: ["JQCFacilities", "JQCForms", "JQCInspections", "JQCKit", "JQCStorage"],
        path: "Tooling/jqc-inspections-probe"),
    // A helper process for the network edge's bounded-memory tests (issue 21).
    .executableTarget(
        name: "jqc-network-probe", dependencies: ["JQCKit", "JQCNetwork"], path: "Tooling/jqc-network-probe"),
    // The benchmarks of SPEC.md §6 (`make bench`, issue 11); built in release mode by scripts/bench.sh.
    .executableTarget(
        name: "jqc-bench",
        dependencies: [
            "JQCComposition", "JQCForms", "JQCInspections", "JQCIssues", "JQCJPEG", "JQCKit", "JQCNetwork",
            "JQCStorage",
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
