import Foundation

/// The architecture policy, decoded from `jqc-lint.json` at the repository root (SPEC.md §2, issue 10).
///
/// Names used in `mayImport`, `from`, `onlyFrom`, `mayImportOnly` and scopes are tier names, module
/// names, or `tests` (every test target). Unknown keys are refused, so a misspelling cannot widen a rule.
///
/// How an import is judged, in order: a protected module (`protected`) only from its owners; a forbidden
/// import (`forbidden`) never; test targets may then import anything they declare; platform modules
/// anywhere; otherwise the importer's `moduleRules` entry, or its tier's `mayImport` plus (in an `ordered`
/// tier) the modules listed before it. Imports must also be reachable through the target's declared
/// dependencies (`undeclared-dependency`), and every non-test Swift target must be placed in a tier.
///
/// Text rules (`textRules`) read the syntax tree SwiftParser builds, so comments, string contents and regex
/// literals never match a code rule: `reference` (a type or value used by one of `names`: `Timer`), `call` (a
/// free function of `names` called: `print`), `modifier` (a declaration modifier: `nonisolated(unsafe)`),
/// `attribute` (`@unchecked`), or `string-literal` (a regular expression over each literal's text, each
/// interpolation read as `{}`); each is limited by `in` and `except`, and may be excused by a comment on the
/// line or the line before (`unlessCommentContains`). Version 1's `tokens` rules (token sequences read by a
/// hand-written lexer) were replaced by these in version 2 (issue 19).
///
/// Built-in rules need no entry: the import and declaration rules (``BuiltInRule``), a door module re-exported
/// with `@_exported import` (`re-exported-door`, everywhere, owners included), and a `public` declaration of a
/// non-test target without a `///` comment (`undocumented-public`, see ``DocCommentRule``).
///
/// To accept a finding, add an entry to `exceptions` with the rule id, a `path` or `module` (plus
/// optionally `import` and `contains`) and a `because`; an exception that matches nothing fails the run
/// (`stale-exception`), so it is removed together with the code it excused.
public struct Policy: Codable, Sendable, Equatable {
    /// The policy format version; only `2` is understood (``Policy/currentVersion``).
    public var policyVersion: Int
    /// Modules of the toolchain any target may import (`Foundation`, `Synchronization`, `Glibc`, …).
    public var platformModules: [String]
    /// The tiers in order (SPEC.md §2), plus the tooling and test-support groups.
    public var tiers: [Tier]
    /// Per-module narrowing: a module that may import only the listed names (JQCForms, JQCDevServer).
    public var moduleRules: [ModuleRule]?
    /// Modules (C libraries, test frameworks) that only the listed importers may import.
    public var protected: [ProtectedModule]
    /// Targets written in C whose own dependencies are not checked (protected modules are such targets too).
    public var cTargets: [String]?
    /// Imports that are never allowed from the listed importers.
    public var forbidden: [ForbiddenImport]
    /// Rules over the text of the code.
    public var textRules: [TextRule]
    /// Findings that are accepted, each with a reason; an exception that matches nothing is an error.
    public var exceptions: [PolicyException]

    /// A group of modules at one level.
    public struct Tier: Codable, Sendable, Equatable {
        /// The tier number printed in the tier table (absent for tooling and test support).
        public var tier: Int?
        /// The tier's name (`foundation`, `features`, `tooling`).
        public var name: String
        /// The modules (target names) in the tier; for an ordered tier, in their order.
        public var modules: [String]
        /// Whether a module may import the modules listed before it in this tier (the feature order).
        public var ordered: Bool?
        /// Tier or module names whose modules this tier may import.
        public var mayImport: [String]
        /// What the tier is for, shown in the tier table.
        public var summary: String?
    }

    /// A module that may import only the listed names (instead of what its tier allows).
    public struct ModuleRule: Codable, Sendable, Equatable {
        /// The rule id printed in findings.
        public var id: String
        /// The importing module.
        public var module: String
        /// Tier or module names it may import (protected modules it owns stay allowed).
        public var mayImportOnly: [String]
        /// Why (printed as the finding's note).
        public var because: String
        /// How to fix a violation.
        public var hint: String?
    }

    /// A module only some importers may import.
    public struct ProtectedModule: Codable, Sendable, Equatable {
        /// The rule id printed in findings.
        public var id: String
        /// The protected module.
        public var module: String
        /// Tier or module names (or `tests`) allowed to import it.
        public var onlyFrom: [String]
        /// Why (printed as the finding's note).
        public var because: String
        /// How to fix a violation.
        public var hint: String?
    }

    /// Imports the listed importers must never make.
    public struct ForbiddenImport: Codable, Sendable, Equatable {
        /// The rule id printed in findings.
        public var id: String
        /// Tier or module names (or `tests`) of the importers.
        public var from: [String]
        /// Tier or module names they must not import.
        public var modules: [String]
        /// Why (printed as the finding's note).
        public var because: String
        /// How to fix a violation.
        public var hint: String?
    }

    /// A rule over the code, read from its syntax tree: each kind (`check`) reads one kind of node.
    public struct TextRule: Codable, Sendable, Equatable {
        /// How a text rule finds its matches: which syntax node it reads.
        public enum Check: String, Codable, Sendable, CaseIterable {
            /// A type or value used by one of `names` (`Timer` in `Timer.scheduledTimer`, `Foundation.Timer`,
            /// `let t: Timer`); declarations and argument labels of that name do not match.
            case reference
            /// A call of a free function named in `names`, bare or `Swift.`-qualified (`print("x")`); a method
            /// of the same name (`logger.print`) or its declaration does not match.
            case call
            /// A declaration modifier, written without spaces (`nonisolated(unsafe)`, `private(set)`).
            case modifier
            /// An attribute of a declaration or type, written with its `@` (`@unchecked`, `@MainActor`).
            case attribute
            /// A regular expression searched in each string literal's text.
            case stringLiteral = "string-literal"
        }

        /// The rule id printed in findings.
        public var id: String
        /// How matches are found.
        public var check: Check
        /// For every kind but `string-literal`: the names that match (`Timer`, `print`, `nonisolated(unsafe)`,
        /// `@unchecked`).
        public var names: [String]?
        /// A match is allowed when a comment containing this text is on its line or the line before
        /// (`because:`).
        public var unlessCommentContains: String?
        /// For `string-literal`: an ICU regular expression (`(?i)` for case-insensitive).
        public var pattern: String?
        /// Where the rule applies; absent means every file.
        public var `in`: Scope?
        /// Where the rule does not apply.
        public var except: Scope?
        /// The finding's message.
        public var message: String
        /// Why (printed as the finding's note).
        public var because: String
        /// How to fix a violation.
        public var hint: String?
    }

    /// A set of files; a file is in the scope when any of the given criteria matches.
    public struct Scope: Codable, Sendable, Equatable {
        /// Tier or module names (or `tests`): files of those targets.
        public var modules: [String]?
        /// Paths relative to the root: a folder when ending in `/`, otherwise one file.
        public var paths: [String]?
        /// File-name patterns where `*` matches any run of characters (`*Store.swift`).
        public var fileNames: [String]?
    }

    /// An accepted finding. Every given field must match; `path` or `module` is required.
    public struct PolicyException: Codable, Sendable, Equatable {
        /// The rule id it silences.
        public var rule: String
        /// A file, or a folder when ending in `/`, relative to the root (`Package.swift` for declarations).
        public var path: String?
        /// The importing or containing target.
        public var module: String?
        /// For import rules: the imported module.
        public var importedModule: String?
        /// Text the offending line must contain.
        public var contains: String?
        /// Why the finding is accepted.
        public var because: String

        enum CodingKeys: String, CodingKey {
            case rule, path, module, contains, because
            case importedModule = "import"
        }
    }
}

/// Built-in rule ids (their notes are fixed by the linter, not the policy).
public enum BuiltInRule {
    /// A module imports a higher tier, a later feature, or an independent sibling.
    public static let layering = "layering"
    /// A file imports a package module its target does not declare as a dependency.
    public static let undeclaredDependency = "undeclared-dependency"
    /// A file imports a module that is neither a package target nor a platform module of the policy.
    public static let unknownImport = "unknown-import"
    /// A target of Package.swift that the policy places in no tier.
    public static let unplacedTarget = "unplaced-target"
    /// A module the policy names that Package.swift does not declare.
    public static let unknownPolicyModule = "unknown-policy-module"
    /// An exception that matched no finding.
    public static let staleException = "stale-exception"
    /// A protected module (a door) re-exported with `@_exported import`, which hands it to every importer of the
    /// re-exporting module; a finding everywhere, in the door's owner too (issue 19).
    public static let reExportedDoor = "re-exported-door"
    /// A `public` or `open` declaration of a non-test target without a `///` doc comment (``DocCommentRule``).
    public static let undocumentedPublic = "undocumented-public"
    /// Every built-in id.
    public static let all: [String] = [
        layering, undeclaredDependency, unknownImport, unplacedTarget, unknownPolicyModule, staleException,
        reExportedDoor, undocumentedPublic,
    ]
}

extension Policy {
    /// Reads and validates a policy file.
    /// - Parameter url: the JSON file.
    /// - Returns: the policy.
    /// - Throws: ``LintError`` (`policy-unreadable` or `policy-invalid`) with a sentence naming the problem.
    public static func load(from url: URL) throws -> Policy {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw LintError(
                .policyUnreadable,
                "The policy file \(url.path) cannot be read; "
                    + "create it or pass --policy FILE.")
        }
        return try decode(data, source: url.path)
    }

    /// Decodes and validates a policy.
    /// - Parameters:
    ///   - data: the JSON text.
    ///   - source: the file name used in error messages.
    /// - Returns: the policy.
    /// - Throws: ``LintError`` (`policy-unreadable` or `policy-invalid`) with a sentence naming the problem.
    public static func decode(_ data: Data, source: String) throws -> Policy {
        if let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let version = object["policyVersion"] as? Int, version != currentVersion
        {
            throw LintError(.policyInvalid, versionMessage(version, source: source))
        }
        let policy: Policy
        do {
            policy = try JSONDecoder().decode(Policy.self, from: data)
        } catch let error as DecodingError {
            throw LintError(.policyUnreadable, describe(error, source: source))
        } catch {
            throw LintError(.policyUnreadable, "The policy file \(source) cannot be decoded: \(error).")
        }
        if let object = try? JSONSerialization.jsonObject(with: data) {
            try checkKeys(object, shape: .policy, path: "", source: source)
        }
        try policy.validate(source: source)
        return policy
    }

    private static func describe(_ error: DecodingError, source: String) -> String {
        func path(_ keys: [any CodingKey]) -> String {
            var text = ""
            for key in keys {
                if let index = key.intValue {
                    text += "[\(index)]"
                } else {
                    text += (text.isEmpty ? "" : ".") + key.stringValue
                }
            }
            return text.isEmpty ? "the top level" : text
        }
        switch error {
        case .keyNotFound(let key, let context):
            let location = path(context.codingPath)
            return "The policy file \(source) lacks the key \"\(key.stringValue)\" at \(location); add it."
        case .typeMismatch(let type, let context):
            return "The policy file \(source) has a value of the wrong type at \(path(context.codingPath)) "
                + "(expected \(type)); correct it."
        case .valueNotFound(let type, let context):
            return "The policy file \(source) has null at \(path(context.codingPath)) where \(type) is "
                + "expected; give a value."
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty {
                let cause = context.underlyingError.map { " (\($0.localizedDescription))" } ?? ""
                return "The policy file \(source) is not valid JSON\(cause); fix its syntax."
            }
            return "The policy file \(source) has an invalid value at \(path(context.codingPath)): "
                + "\(context.debugDescription) Correct it."
        @unknown default:
            return "The policy file \(source) cannot be decoded: \(error)."
        }
    }

    /// Every module the policy places in a tier, in tier order.
    public var placedModules: [String] { tiers.flatMap(\.modules) }

    /// The policy format this jqc-lint reads: 2 (issue 19: text rules name syntax nodes instead of tokens).
    public static let currentVersion = 2

    static func versionMessage(_ version: Int, source: String) -> String {
        let upgrade =
            version == 1
            ? " Version 2 reads the syntax tree: replace each \"check\": \"tokens\" rule by a reference, call, "
                + "modifier or attribute rule with \"names\" (see Policy in Tooling/JQCLint/Policy.swift), drop "
                + "\"notAfter\", and set \"policyVersion\": 2."
            : ""
        return "The policy file \(source) has policyVersion \(version); this jqc-lint understands version "
            + "\(currentVersion) only.\(upgrade)"
    }

    /// The names `tests` stands for: every test target.
    public static let testsName = "tests"

    /// Resolves tier names, module names and `tests` to module names.
    /// - Parameters:
    ///   - names: the names to resolve.
    ///   - testTargets: the package's test targets (what `tests` stands for).
    /// - Returns: the module names.
    public func resolve(_ names: [String], testTargets: [String] = []) -> Set<String> {
        var result = Set<String>()
        for name in names {
            if let tier = tiers.first(where: { $0.name == name }) {
                result.formUnion(tier.modules)
            } else if name == Policy.testsName {
                result.formUnion(testTargets)
            } else {
                result.insert(name)
            }
        }
        return result
    }

    func validate(source: String) throws {
        func invalid(_ message: String) -> LintError {
            LintError(.policyInvalid, "The policy file \(source) \(message)")
        }
        guard policyVersion == Policy.currentVersion else {
            throw LintError(.policyInvalid, Policy.versionMessage(policyVersion, source: source))
        }
        var tierNames = Set<String>()
        var placed = Set<String>()
        for (index, tier) in tiers.enumerated() {
            guard tierNames.insert(tier.name).inserted else {
                throw invalid("names the tier \"\(tier.name)\" twice (tiers[\(index)]); give each tier its own name.")
            }
            for module in tier.modules where !placed.insert(module).inserted {
                throw invalid("places the module \(module) in more than one tier; keep it in one.")
            }
        }
        let protectedModules = Set(protected.map(\.module))
        let known = placed.union(tierNames).union(protectedModules).union(platformModules).union(cTargets ?? [])
            .union([Policy.testsName])
        func checkNames(_ names: [String], _ location: String) throws {
            for name in names where !known.contains(name) {
                throw invalid(
                    "names \"\(name)\" in \(location), which is neither a tier nor a module the policy "
                        + "places; fix the spelling or place the module in a tier.")
            }
        }
        var ids = Set(BuiltInRule.all)
        func checkRule(_ id: String, _ because: String, _ location: String) throws {
            guard !id.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw invalid("has an empty rule id at \(location); give the rule an id.")
            }
            guard ids.insert(id).inserted else {
                throw invalid("uses the rule id \"\(id)\" twice (again at \(location)); rule ids must be unique.")
            }
            guard !because.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                throw invalid("has an empty \"because\" for rule \"\(id)\"; say why the rule exists.")
            }
        }
        for (index, tier) in tiers.enumerated() {
            try checkNames(tier.mayImport, "tiers[\(index)].mayImport")
        }
        for (index, rule) in (moduleRules ?? []).enumerated() {
            try checkRule(rule.id, rule.because, "moduleRules[\(index)]")
            try checkNames([rule.module] + rule.mayImportOnly, "moduleRules[\(index)]")
        }
        for (index, rule) in protected.enumerated() {
            try checkRule(rule.id, rule.because, "protected[\(index)]")
            try checkNames(rule.onlyFrom, "protected[\(index)].onlyFrom")
        }
        for (index, rule) in forbidden.enumerated() {
            try checkRule(rule.id, rule.because, "forbidden[\(index)]")
            try checkNames(rule.from + rule.modules, "forbidden[\(index)]")
        }
        for (index, rule) in textRules.enumerated() {
            let location = "textRules[\(index)]"
            try checkRule(rule.id, rule.because, location)
            try checkNames((rule.in?.modules ?? []) + (rule.except?.modules ?? []), location)
            switch rule.check {
            case .reference, .call, .modifier, .attribute:
                guard let names = rule.names, !names.isEmpty, !names.contains(where: \.isEmpty) else {
                    throw invalid(
                        "has the \(rule.check.rawValue) rule \"\(rule.id)\" without a \"names\" list; list the "
                            + "names it matches.")
                }
                if rule.check == .attribute, let name = names.first(where: { !$0.hasPrefix("@") }) {
                    throw invalid(
                        "names \"\(name)\" in the attribute rule \"\(rule.id)\"; write an attribute with its @ "
                            + "(\"@\(name)\").")
                }
                if let name = names.first(where: { $0.contains(where: \.isWhitespace) }) {
                    throw invalid(
                        "names \"\(name)\" in the rule \"\(rule.id)\"; write names without spaces, as in "
                            + "\"nonisolated(unsafe)\".")
                }
            case .stringLiteral:
                guard let pattern = rule.pattern, (try? NSRegularExpression(pattern: pattern)) != nil else {
                    throw invalid(
                        "has the string-literal rule \"\(rule.id)\" without a valid \"pattern\"; "
                            + "give an ICU regular expression.")
                }
            }
        }
        for (index, exception) in exceptions.enumerated() {
            let location = "exceptions[\(index)]"
            guard ids.contains(exception.rule), exception.rule != BuiltInRule.staleException else {
                throw invalid(
                    "has an exception for the unknown rule \"\(exception.rule)\" at \(location); "
                        + "use the id of a rule the policy or the linter defines.")
            }
            guard !exception.because.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                throw invalid("has an exception without a reason at \(location); fill in \"because\".")
            }
            guard exception.path != nil || exception.module != nil else {
                throw invalid(
                    "has an exception naming neither \"path\" nor \"module\" at \(location); "
                        + "narrow it so it cannot silence the rule everywhere.")
            }
        }
    }
}

extension Policy {
    /// The keys each kind of JSON object in a policy may have (a misspelt optional key would otherwise be
    /// ignored silently and widen a rule).
    enum Shape {
        case policy, tier, moduleRule, protected, forbidden, textRule, scope, exception

        var keys: Set<String> {
            switch self {
            case .policy:
                [
                    "policyVersion", "platformModules", "tiers", "moduleRules", "protected", "cTargets",
                    "forbidden", "textRules", "exceptions", "description",
                ]
            case .tier: ["tier", "name", "modules", "ordered", "mayImport", "summary"]
            case .moduleRule: ["id", "module", "mayImportOnly", "because", "hint"]
            case .protected: ["id", "module", "onlyFrom", "because", "hint"]
            case .forbidden: ["id", "from", "modules", "because", "hint"]
            case .textRule:
                [
                    "id", "check", "names", "unlessCommentContains", "pattern", "in", "except",
                    "message", "because", "hint",
                ]
            case .scope: ["modules", "paths", "fileNames"]
            case .exception: ["rule", "path", "module", "import", "contains", "because"]
            }
        }

        /// The shape of the objects under a key (or in the array under it).
        func child(_ key: String) -> Shape? {
            switch (self, key) {
            case (.policy, "tiers"): .tier
            case (.policy, "moduleRules"): .moduleRule
            case (.policy, "protected"): .protected
            case (.policy, "forbidden"): .forbidden
            case (.policy, "textRules"): .textRule
            case (.policy, "exceptions"): .exception
            case (.textRule, "in"), (.textRule, "except"): .scope
            default: nil
            }
        }
    }

    static func checkKeys(_ value: Any, shape: Shape, path: String, source: String) throws {
        if let list = value as? [Any] {
            for (index, element) in list.enumerated() {
                try checkKeys(element, shape: shape, path: "\(path)[\(index)]", source: source)
            }
            return
        }
        guard let object = value as? [String: Any] else { return }
        for key in object.keys.sorted() {
            let location = path.isEmpty ? key : "\(path).\(key)"
            guard shape.keys.contains(key) else {
                let place = path.isEmpty ? "the top level" : path
                throw LintError(
                    .policyInvalid,
                    "The policy file \(source) has the unknown key \"\(key)\" at \(place); fix its spelling or "
                        + "remove it.")
            }
            if let child = shape.child(key), let nested = object[key] {
                try checkKeys(nested, shape: child, path: location, source: source)
            }
        }
    }
}
