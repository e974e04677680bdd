import Foundation

/// Checks a package against a policy: declared dependencies, every file's imports (re-exported doors included),
/// the text rules, and the doc comments of public declarations.
///
/// Every file is parsed once by the toolchain's SwiftParser (``ParsedSource``), so imports, attributes,
/// declarations, comments and literals are read as the compiler reads them: after a byte-order mark, past regex
/// literals holding `"""` or `/*`, in every `#if` branch. Nothing is cached between runs. Findings that an
/// exception of the policy matches are dropped; an exception that matches nothing becomes a `stale-exception`
/// finding.
public struct Linter: Sendable {
    /// The policy.
    public let policy: Policy
    /// The package's targets.
    public let package: PackageModel
    /// The package root; paths in findings are relative to it.
    public let root: URL
    /// The policy file's path relative to the root (used as the location of policy findings).
    public let policyPath: String
    /// The policy file's text (locates exceptions and module names); empty when unknown.
    public let policyText: String

    private static let layeringNote =
        "SPEC.md §2: calls go down the tiers and along the feature order; news goes "
        + "up through hooks the composition root plugs in. No cycles, no module reaching upwards."
    private static let layeringHint =
        "Move the code down to the module that owns it, or declare a small protocol "
        + "in the lower module and plug the higher module's implementation in at JQCComposition."

    /// Creates a linter.
    /// - Parameters:
    ///   - policy: the validated policy.
    ///   - package: the package's targets.
    ///   - root: the package root.
    ///   - policyPath: the policy's path relative to the root, for findings located in it.
    ///   - policyText: the policy file's text, to locate exceptions and names in it.
    public init(
        policy: Policy, package: PackageModel, root: URL, policyPath: String = "jqc-lint.json",
        policyText: String = ""
    ) {
        self.policy = policy
        self.package = package
        self.root = root.standardizedFileURL
        self.policyPath = policyPath
        self.policyText = policyText
    }

    // MARK: - Running

    /// Runs every check over the package on disk.
    /// - Returns: the report, findings sorted by path, line and column.
    /// - Throws: ``LintError`` (`package-unreadable`) when a source file cannot be read.
    public func run() throws -> LintReport {
        let context = Context(policy: policy, package: package)
        var findings = checkManifest(context)
        var sources: [String: String] = [:]
        var read: [(path: String, target: PackageModel.Target, source: String)] = []
        let checked = package.targets.filter { context.isChecked($0) }
        for target in checked {
            for path in try swiftFiles(of: target) {
                let url = root.appendingPathComponent(path)
                guard let data = FileManager.default.contents(atPath: url.path) else {
                    throw LintError(
                        .packageUnreadable,
                        "The source file \(path) cannot be read; check its "
                            + "permissions.")
                }
                let source = String(decoding: data, as: UTF8.self)
                sources[path] = source
                read.append((path, target, source))
            }
        }
        // Parsing is most of a run: the files are parsed on every core, then checked in order.
        let trees = ParsedSource.parseAll(read.map(\.source))
        let files = zip(read, trees).map { (path: $0.path, target: $0.target, parsed: $1) }
        // The doc-comment rule needs every protocol of the package and every conformance of a target first.
        var conformances = ConformanceIndex()
        for file in files { conformances.add(file.parsed, target: file.target.name) }
        for file in files {
            findings += check(
                file.parsed, path: file.path, target: file.target, context: context, conformances: conformances)
        }
        if let manifest = FileManager.default.contents(atPath: root.appendingPathComponent("Package.swift").path) {
            sources["Package.swift"] = String(decoding: manifest, as: UTF8.self)
        }
        findings = applyExceptions(to: findings, sources: sources)
        return LintReport(findings: Linter.sorted(findings), filesChecked: files.count, targetsChecked: checked.count)
    }

    /// Checks one source text as if it were a file of a target (imports, text rules and doc comments; the
    /// doc-comment rule knows only the protocols and conformances of this text).
    /// - Parameters:
    ///   - source: the Swift text.
    ///   - path: its path relative to the root (decides which text rules apply).
    ///   - target: the name of the target it belongs to (must be in ``package``).
    /// - Returns: the findings after the policy's exceptions, sorted (stale exceptions are not reported).
    public func check(source: String, path: String, target: String) -> [Finding] {
        let context = Context(policy: policy, package: package)
        guard let owner = package.targets.first(where: { $0.name == target }) else { return [] }
        let parsed = ParsedSource(source)
        var conformances = ConformanceIndex()
        conformances.add(parsed, target: owner.name)
        let findings = check(parsed, path: path, target: owner, context: context, conformances: conformances)
        return Linter.sorted(filterExceptions(findings, sources: [path: source]).kept)
    }

    static func sorted(_ findings: [Finding]) -> [Finding] {
        findings.sorted { ($0.path, $0.line, $0.column, $0.rule) < ($1.path, $1.line, $1.column, $1.rule) }
    }

    func swiftFiles(of target: PackageModel.Target) throws -> [String] {
        let folder = root.appendingPathComponent(target.path)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory), isDirectory.boolValue
        else { return [] }
        let excluded = target.exclude.map { "\(target.path)/\($0)" }
        guard let enumerator = FileManager.default.enumerator(atPath: folder.path) else { return [] }
        var result: [String] = []
        while let relative = enumerator.nextObject() as? String {
            guard relative.hasSuffix(".swift") else { continue }
            let path = "\(target.path)/\(relative)"
            if excluded.contains(where: { path == $0 || path.hasPrefix($0 + "/") }) { continue }
            result.append(path)
        }
        return result.sorted()
    }

    // MARK: - Policy of imports

    /// The policy resolved against the package: who may import whom.
    struct Context {
        let policy: Policy
        let targets: [String: PackageModel.Target]
        let testTargets: [String]
        let tierOf: [String: Int]
        let cTargets: Set<String>
        let allowed: [String: Set<String>]
        let protectedRules: [String: (rule: Policy.ProtectedModule, importers: Set<String>)]
        let forbiddenRules: [(rule: Policy.ForbiddenImport, importers: Set<String>, modules: Set<String>)]
        let moduleRules: [String: Policy.ModuleRule]
        /// Every target's dependencies, direct and transitive.
        let closures: [String: Set<String>]
        /// The compiled pattern of each string-literal rule, by rule id.
        let expressions: [String: NSRegularExpression]

        init(policy: Policy, package: PackageModel) {
            self.policy = policy
            targets = Dictionary(package.targets.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            let tests = package.targets.filter(\.isTest).map(\.name)
            testTargets = tests
            var tierOf: [String: Int] = [:]
            for (index, tier) in policy.tiers.enumerated() {
                for module in tier.modules { tierOf[module] = index }
            }
            self.tierOf = tierOf
            cTargets = Set(policy.protected.map(\.module)).union(policy.cTargets ?? [])
            var protectedRules: [String: (rule: Policy.ProtectedModule, importers: Set<String>)] = [:]
            for rule in policy.protected {
                protectedRules[rule.module] = (rule, policy.resolve(rule.onlyFrom, testTargets: tests))
            }
            self.protectedRules = protectedRules
            forbiddenRules = policy.forbidden.map {
                ($0, policy.resolve($0.from, testTargets: tests), policy.resolve($0.modules, testTargets: tests))
            }
            var moduleRules: [String: Policy.ModuleRule] = [:]
            for rule in policy.moduleRules ?? [] { moduleRules[rule.module] = rule }
            self.moduleRules = moduleRules
            var allowed: [String: Set<String>] = [:]
            for tier in policy.tiers {
                let fromTier = policy.resolve(tier.mayImport)
                for (position, module) in tier.modules.enumerated() {
                    if let rule = moduleRules[module] {
                        allowed[module] = policy.resolve(rule.mayImportOnly)
                    } else {
                        allowed[module] = fromTier.union(tier.ordered == true ? tier.modules[..<position] : [])
                    }
                }
            }
            self.allowed = allowed
            var closures: [String: Set<String>] = [:]
            for target in package.targets {
                var seen = Set<String>()
                var pending = target.dependencies
                while let next = pending.popLast() {
                    guard seen.insert(next).inserted else { continue }
                    pending += targets[next]?.dependencies ?? []
                }
                closures[target.name] = seen
            }
            self.closures = closures
            var expressions: [String: NSRegularExpression] = [:]
            for rule in policy.textRules {
                if let pattern = rule.pattern, let expression = try? NSRegularExpression(pattern: pattern) {
                    expressions[rule.id] = expression
                }
            }
            self.expressions = expressions
        }

        /// The targets a target may import by its declarations: its dependencies and theirs, as SwiftPM's
        /// `--explicit-target-dependency-import-check` counts them.
        func reachable(from target: String) -> Set<String> { closures[target] ?? [] }

        /// Whether a target's own dependencies and files are checked (C and system targets are not).
        func isChecked(_ target: PackageModel.Target) -> Bool {
            !cTargets.contains(target.name) && ["regular", "executable", "test", "macro"].contains(target.type)
        }

        func label(_ module: String) -> String {
            guard let index = tierOf[module] else { return module }
            let tier = policy.tiers[index]
            return tier.tier.map { "tier \($0) \(tier.name)" } ?? tier.name
        }

        /// The first rule an import breaks, in the order protected → forbidden → module rule → layering.
        func violation(importer: PackageModel.Target, imported: String) -> (
            rule: String, message: String,
            note: String, hint: String
        )? {
            let name = importer.name
            if let (rule, importers) = protectedRules[imported] {
                if importers.contains(name) { return nil }
                let owners = rule.onlyFrom.joined(separator: ", ")
                return (
                    rule.id, "\(name) imports \(imported), which only \(owners) may import.", rule.because,
                    rule.hint ?? "Call \(owners) instead of \(imported)."
                )
            }
            for (rule, importers, modules) in forbiddenRules
            where importers.contains(name) && modules.contains(imported) {
                return (
                    rule.id, "\(name) imports \(imported), which it must never import.", rule.because,
                    rule.hint ?? "Remove the import of \(imported) from \(name)."
                )
            }
            if importer.isTest || policy.platformModules.contains(imported) { return nil }
            guard let importerTier = tierOf[name], tierOf[imported] != nil else { return nil }
            if allowed[name]?.contains(imported) == true { return nil }
            if let rule = moduleRules[name] {
                let list = rule.mayImportOnly.isEmpty ? "platform modules" : rule.mayImportOnly.joined(separator: ", ")
                return (
                    rule.id, "\(name) imports \(imported), but it may import only \(list).", rule.because,
                    rule.hint ?? Linter.layeringHint
                )
            }
            let tier = policy.tiers[importerTier]
            let message: String
            if tierOf[imported] == importerTier {
                if tier.ordered == true {
                    let order = tier.modules.joined(separator: " → ")
                    message =
                        "\(name) imports \(imported), which comes later in the \(tier.name) order (\(order)); "
                        + "a module imports only earlier ones."
                } else {
                    message =
                        "\(name) imports \(imported) from its own tier (\(label(name))); modules of one "
                        + "tier are independent."
                }
            } else {
                let groups = tier.mayImport.map { group in
                    policy.tiers.first { $0.name == group }.map { found in
                        found.tier.map { "tier \($0) \(found.name)" } ?? found.name
                    } ?? group
                }
                let may = groups.isEmpty ? "platform modules only" : groups.joined(separator: ", ")
                message =
                    "\(name) (\(label(name))) imports \(imported) (\(label(imported))); \(label(name)) may "
                    + "import \(may)."
            }
            return (BuiltInRule.layering, message, Linter.layeringNote, Linter.layeringHint)
        }
    }

    // MARK: - Package.swift

    func checkManifest(_ context: Context) -> [Finding] {
        let manifestText =
            FileManager.default.contents(atPath: root.appendingPathComponent("Package.swift").path)
            .map { String(decoding: $0, as: UTF8.self) } ?? ""
        let manifest = SourceFacts(ParsedSource(manifestText)).strings
        func locate(_ name: String, after start: Int = 0) -> (index: Int, line: Int, column: Int)? {
            var index = start
            while index < manifest.count {
                if manifest[index].text == name {
                    return (index, manifest[index].line, manifest[index].column)
                }
                index += 1
            }
            return nil
        }
        func locateTarget(_ name: String) -> (index: Int, line: Int, column: Int) {
            if let found = locate(name) { return found }
            if name.hasSuffix("Tests"), let found = locate(String(name.dropLast(5))) { return found }
            return (0, 1, 1)
        }
        var findings: [Finding] = []
        for target in package.targets {
            let place = locateTarget(target.name)
            let placed = context.tierOf[target.name] != nil
            if !placed && !target.isTest && context.isChecked(target) {
                findings.append(
                    Finding(
                        path: "Package.swift", line: place.line, column: place.column, rule: BuiltInRule.unplacedTarget,
                        message: "The target \(target.name) is in no tier of the policy.",
                        note: "Every module has a place in SPEC.md §2's tiers, so the linter knows what it may import.",
                        hint: "Add \(target.name) to a tier's \"modules\" in \(policyPath).", module: target.name))
            }
            guard context.isChecked(target) else { continue }
            for dependency in target.dependencies {
                guard let broken = context.violation(importer: target, imported: dependency) else { continue }
                let spot = locate(dependency, after: place.index + 1) ?? place
                findings.append(
                    Finding(
                        path: "Package.swift", line: spot.line, column: spot.column, rule: broken.rule,
                        message: "Package.swift declares that \(broken.message)", note: broken.note, hint: broken.hint,
                        module: target.name, importedModule: dependency))
            }
        }
        let policyLocations = PolicyLocations(policyText)
        let declared = Set(package.targets.map(\.name))
        for module in policy.placedModules where !declared.contains(module) {
            let token = policyLocations.firstString(module)
            findings.append(
                Finding(
                    path: policyPath, line: token?.line ?? 1, column: token?.column ?? 1,
                    rule: BuiltInRule.unknownPolicyModule,
                    message: "The policy places \(module), which Package.swift does not declare.",
                    note: "A policy naming modules that do not exist no longer describes the package.",
                    hint: "Fix the name, or remove \(module) from the policy.", module: module))
        }
        return findings
    }

    // MARK: - Files

    func check(
        _ file: ParsedSource, path: String, target: PackageModel.Target, context: Context,
        conformances: ConformanceIndex
    ) -> [Finding] {
        let facts = SourceFacts(file)
        var findings: [Finding] = []
        for declaration in facts.imports where declaration.module != target.name {
            let module = declaration.module
            let isTarget = context.targets[module] != nil
            func finding(_ rule: String, _ message: String, _ note: String, _ hint: String) -> Finding {
                Finding(
                    path: path, line: declaration.line, column: declaration.column, rule: rule, message: message,
                    note: note, hint: hint, module: target.name, importedModule: module)
            }
            if declaration.isExported, let door = context.protectedRules[module]?.rule {
                let owners = door.onlyFrom.joined(separator: ", ")
                findings.append(
                    finding(
                        BuiltInRule.reExportedDoor,
                        "\(target.name) re-exports \(module) (@_exported import), which hands it to every module "
                            + "that imports \(target.name).",
                        "\(door.because) Only \(owners) may import \(module) ([\(door.id)]); an @_exported import "
                            + "lets every importer of \(target.name) reach it without an import of its own, so no "
                            + "door rule sees them (issue 19).",
                        "Import \(module) without @_exported, and give importers what they need through "
                            + "\(target.name)'s own API."))
            }
            if !isTarget && !policy.platformModules.contains(module) && context.protectedRules[module] == nil {
                findings.append(
                    finding(
                        BuiltInRule.unknownImport,
                        "\(target.name) imports \(module), which is neither a target of Package.swift nor a platform "
                            + "module of the policy.",
                        "SPEC.md §2: no package from outside the toolchain can be fetched; C libraries enter only "
                            + "through their system-library targets.",
                        "Use a module of the package, or add \(module) to \"platformModules\" in \(policyPath) if the "
                            + "toolchain provides it."))
                continue
            }
            if let broken = context.violation(importer: target, imported: module) {
                findings.append(finding(broken.rule, broken.message, broken.note, broken.hint))
                continue
            }
            if isTarget && !context.reachable(from: target.name).contains(module) {
                findings.append(
                    finding(
                        BuiltInRule.undeclaredDependency,
                        "\(target.name) imports \(module), which neither its target in Package.swift nor any of its "
                            + "dependencies declares.",
                        "Such an import builds only by accident of the build order, and fails "
                            + "--explicit-target-dependency-import-check.",
                        "Add \"\(module)\" to \(target.name)'s dependencies in Package.swift, if the policy allows it.")
                )
            }
        }
        let fileName = (path as NSString).lastPathComponent
        let comments = file.comments()
        for rule in policy.textRules {
            if let scope = rule.in, !matches(scope, path: path, fileName: fileName, target: target, context: context) {
                continue
            }
            if let scope = rule.except, matches(scope, path: path, fileName: fileName, target: target, context: context)
            {
                continue
            }
            let spots = TextRuleMatcher.matches(
                of: rule, expression: context.expressions[rule.id], in: facts, comments: comments)
            for spot in spots {
                findings.append(
                    Finding(
                        path: path, line: spot.line, column: spot.column, rule: rule.id,
                        message: spot.excerpt.map { "\(rule.message) Found: \"\($0)\"." }
                            ?? rule.message,
                        note: rule.because, hint: rule.hint ?? "", module: target.name))
            }
        }
        if !target.isTest {
            for miss in DocCommentRule.misses(in: file, conformances: conformances, target: target.name) {
                let message: String
                var hint = DocCommentRule.hint
                if let cut = miss.cutOffBy {
                    let shown = cut.count > 40 ? String(cut.prefix(39)) + "…" : cut
                    message =
                        "The public \(miss.declaration) has no /// doc comment directly above it: the comment "
                        + "`\(shown)` cuts its doc comment off."
                    hint =
                        "Move the plain comment to the end of the declaration's line (a `// because:` is read there "
                        + "too), or make it a line of the /// comment."
                } else {
                    message = "The public \(miss.declaration) has no /// doc comment."
                }
                findings.append(
                    Finding(
                        path: path, line: miss.line, column: miss.column, rule: BuiltInRule.undocumentedPublic,
                        message: message, note: DocCommentRule.note, hint: hint, module: target.name))
            }
        }
        return findings
    }

    func matches(
        _ scope: Policy.Scope, path: String, fileName: String, target: PackageModel.Target,
        context: Context
    ) -> Bool {
        if let modules = scope.modules,
            policy.resolve(modules, testTargets: context.testTargets).contains(target.name)
        {
            return true
        }
        for prefix in scope.paths ?? [] where prefix.hasSuffix("/") ? path.hasPrefix(prefix) : path == prefix {
            return true
        }
        for pattern in scope.fileNames ?? [] where Linter.glob(pattern, matches: fileName) { return true }
        return false
    }

    /// Whether a file name matches a pattern where `*` stands for any run of characters.
    static func glob(_ pattern: String, matches name: String) -> Bool {
        let parts = pattern.split(separator: "*", omittingEmptySubsequences: false).map(String.init)
        guard parts.count > 1 else { return pattern == name }
        guard name.hasPrefix(parts[0]), name.count >= parts[0].count + parts[parts.count - 1].count,
            name.hasSuffix(parts[parts.count - 1])
        else { return false }
        var rest = Substring(name.dropFirst(parts[0].count).dropLast(parts[parts.count - 1].count))
        for middle in parts.dropFirst().dropLast() where !middle.isEmpty {
            guard let range = rest.range(of: middle) else { return false }
            rest = rest[range.upperBound...]
        }
        return true
    }

    // MARK: - Exceptions

    func filterExceptions(_ findings: [Finding], sources: [String: String]) -> (kept: [Finding], used: Set<Int>) {
        var used = Set<Int>()
        var kept: [Finding] = []
        var lines: [String: [Substring]] = [:]
        for finding in findings {
            let match = policy.exceptions.indices.first { index in
                let exception = policy.exceptions[index]
                guard exception.rule == finding.rule else { return false }
                if let path = exception.path,
                    !(path.hasSuffix("/") ? finding.path.hasPrefix(path) : finding.path == path)
                {
                    return false
                }
                if let module = exception.module, module != finding.module { return false }
                if let imported = exception.importedModule, imported != finding.importedModule { return false }
                if let text = exception.contains {
                    if lines[finding.path] == nil {
                        lines[finding.path] = (sources[finding.path] ?? "")
                            .split(separator: "\n", omittingEmptySubsequences: false)
                    }
                    let fileLines = lines[finding.path] ?? []
                    guard finding.line - 1 < fileLines.count, fileLines[finding.line - 1].contains(text) else {
                        return false
                    }
                }
                return true
            }
            if let match {
                used.insert(match)
            } else {
                kept.append(finding)
            }
        }
        return (kept, used)
    }

    func applyExceptions(to findings: [Finding], sources: [String: String]) -> [Finding] {
        var (kept, used) = filterExceptions(findings, sources: sources)
        let starts = exceptionLocations()
        for (index, exception) in policy.exceptions.enumerated() where !used.contains(index) {
            let place = index < starts.count ? starts[index] : (line: 1, column: 1)
            let scope = [exception.path, exception.module].compactMap { $0 }.joined(separator: " in ")
            kept.append(
                Finding(
                    path: policyPath, line: place.line, column: place.column, rule: BuiltInRule.staleException,
                    message: "The exception for [\(exception.rule)] at \(scope) matches no finding.",
                    note: "An exception that matches nothing hides nothing today and would silently hide a new "
                        + "violation tomorrow (issue 10).",
                    hint: "Delete exceptions[\(index)] from \(policyPath)."))
        }
        return kept
    }

    /// The line and column of each `{` that opens an entry of the policy's `exceptions` array.
    func exceptionLocations() -> [(line: Int, column: Int)] {
        PolicyLocations(policyText).exceptionEntries()
    }
}
