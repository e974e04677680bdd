import Foundation
import JQCTestSupport

@testable import JQCLint

/// A small package on disk (Package.swift, sources, policy, dump JSON) for whole-run and CLI tests.
struct MiniPackage {
    static let manifest = """
        // swift-tools-version:6.0
        import PackageDescription

        let package = Package(name: "Mini", targets: [
            .systemLibrary(name: "CLib", path: "Sources/CLib"),
            .target(name: "Base", dependencies: ["CLib"]),
            .target(name: "Upper", dependencies: ["Base"]),
            .target(name: "Side", dependencies: ["Base", "Upper"]),
            .testTarget(name: "UpperTests", dependencies: ["Upper"]),
        ])
        """

    /// The policy, with `EXCEPTIONS` and `EXTRA` to fill in.
    static let policyTemplate = """
        {
          "policyVersion": 2,
          "platformModules": ["Foundation"],
          "tiers": [
            {"tier": 0, "name": "base", "modules": ["Base"], "mayImport": []},
            {"tier": 1, "name": "upper", "modules": ["Upper", "Side"EXTRA], "mayImport": ["base"]}
          ],
          "protected": [
            {"id": "clib-door", "module": "CLib", "onlyFrom": ["Base"], "because": "C stays behind one door."},
            {"id": "testing-in-tests", "module": "Testing", "onlyFrom": ["tests"], "because": "Tests only."}
          ],
          "forbidden": [],
          "textRules": [
            {"id": "no-print", "check": "call", "names": ["print"], "in": {"paths": ["Sources/"]},
             "message": "print is used.", "because": "Libraries log.", "hint": "Use the logger."}
          ],
          "exceptions": [EXCEPTIONS]
        }
        """

    static let sources: [String: String] = [
        "Sources/CLib/module.modulemap": "module CLib { header \"shim.h\" }\n",
        "Sources/Base/Base.swift": "import Foundation\nimport CLib\n\n/// The base value.\npublic let base = 1\n",
        "Sources/Upper/Upper.swift": "import Base\n\nfunc shout() {\n    print(\"up\")\n}\n",
        "Sources/Side/Side.swift": "import Base\n",
        "Tests/UpperTests/UpperTests.swift": "import Testing\n@testable import Upper\n",
    ]

    static let targets: [PackageModel.Target] = [
        .init(name: "CLib", type: "system", path: "Sources/CLib", dependencies: []),
        .init(name: "Base", type: "regular", path: "Sources/Base", dependencies: ["CLib"]),
        .init(name: "Upper", type: "regular", path: "Sources/Upper", dependencies: ["Base"]),
        .init(name: "Side", type: "regular", path: "Sources/Side", dependencies: ["Base", "Upper"]),
        .init(name: "UpperTests", type: "test", path: "Tests/UpperTests", dependencies: ["Upper"]),
    ]

    let directory = TemporaryDirectory(prefix: "jqc-lint-mini")
    let policyText: String
    /// The `line:column` of the `⚑` planted in the exceptions or extra modules (`0:0` when none).
    let policyMarker: String

    /// Writes the package. `exceptions` is the JSON inside the exceptions array; `extraModules` are placed in
    /// the upper tier; `targets` replaces the package description.
    init(
        exceptions: String = "", extraModules: [String] = [], targets: [PackageModel.Target] = MiniPackage.targets,
        sources: [String: String] = MiniPackage.sources
    ) throws {
        let extra = extraModules.map { name in
            name.hasPrefix("⚑") ? ", ⚑\"\(name.dropFirst())\"" : ", \"\(name)\""
        }.joined()
        let planted = PlantedSource(
            MiniPackage.policyTemplate.replacingOccurrences(of: "EXCEPTIONS", with: exceptions)
                .replacingOccurrences(of: "EXTRA", with: extra))
        policyText = planted.source
        policyMarker = "\(planted.line ?? 0):\(planted.column ?? 0)"
        var files = sources
        files["Package.swift"] = MiniPackage.manifest
        files["jqc-lint.json"] = policyText
        files["package.json"] = MiniPackage.dumpJSON(targets)
        try writeTree(files, in: directory)
        self.targets = targets
    }

    let targets: [PackageModel.Target]

    var root: URL { directory.url }

    func linter() throws -> Linter {
        let policy = try Policy.decode(Data(policyText.utf8), source: "jqc-lint.json")
        return Linter(policy: policy, package: PackageModel(targets: targets), root: root, policyText: policyText)
    }

    /// The JSON `swift package dump-package` would print for these targets (only the keys the linter reads).
    static func dumpJSON(_ targets: [PackageModel.Target]) -> String {
        let list: [[String: Any]] = targets.map { target in
            [
                "name": target.name, "type": target.type, "path": target.path, "exclude": target.exclude,
                "dependencies": target.dependencies.map { ["byName": [$0, NSNull()]] },
            ]
        }
        let data = try? JSONSerialization.data(
            withJSONObject: ["name": "Mini", "targets": list], options: [.sortedKeys])
        return String(decoding: data ?? Data(), as: UTF8.self)
    }
}
