import Foundation

/// One violation, at a place in a file.
public struct Finding: Codable, Sendable, Equatable {
    /// The file, relative to the root (`Modules/JQCSync/Scheduler.swift`, `Package.swift`, `jqc-lint.json`).
    public var path: String
    /// The 1-based line.
    public var line: Int
    /// The 1-based column (UTF-8 bytes).
    public var column: Int
    /// The id of the rule broken (`layering`, `no-timer-in-sync`).
    public var rule: String
    /// What is wrong here, as a sentence.
    public var message: String
    /// Why the rule exists (the rule's `because`).
    public var note: String
    /// How to fix it.
    public var hint: String
    /// The target the file or declaration belongs to, when there is one.
    public var module: String?
    /// For import rules: the imported module.
    public var importedModule: String?

    /// Creates a finding.
    public init(
        path: String, line: Int, column: Int, rule: String, message: String, note: String, hint: String,
        module: String? = nil, importedModule: String? = nil
    ) {
        self.path = path
        self.line = line
        self.column = column
        self.rule = rule
        self.message = message
        self.note = note
        self.hint = hint
        self.module = module
        self.importedModule = importedModule
    }

    enum CodingKeys: String, CodingKey {
        case path, line, column, rule, message, note, hint, module
        case importedModule = "import"
    }

    /// The compiler-style text: `path:line:col: error: [rule] message`, then `note:` and `hint:` lines.
    public var text: String {
        var lines = ["\(path):\(line):\(column): error: [\(rule)] \(message)"]
        if !note.isEmpty { lines.append("    note: \(note)") }
        if !hint.isEmpty { lines.append("    hint: \(hint)") }
        return lines.joined(separator: "\n")
    }
}

/// The outcome of one run over a package.
public struct LintReport: Codable, Sendable, Equatable {
    /// Every finding, sorted by path, line and column.
    public var findings: [Finding]
    /// How many Swift files were read.
    public var filesChecked: Int
    /// How many targets were checked.
    public var targetsChecked: Int

    /// Creates a report.
    public init(findings: [Finding], filesChecked: Int, targetsChecked: Int) {
        self.findings = findings
        self.filesChecked = filesChecked
        self.targetsChecked = targetsChecked
    }

    /// Whether the run found nothing.
    public var isClean: Bool { findings.isEmpty }

    /// The findings as text, one block per finding, ending with a newline (empty when clean).
    public var text: String {
        findings.isEmpty ? "" : findings.map(\.text).joined(separator: "\n") + "\n"
    }

    /// The report as pretty-printed JSON (keys sorted) ending with a newline.
    public var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(self)) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// A one-line summary: `jqc-lint: 2 violations in 40 files of 31 targets.`
    public var summary: String {
        let count = findings.count
        let noun = count == 1 ? "violation" : "violations"
        let verdict = count == 0 ? "clean" : "\(count) \(noun)"
        return "jqc-lint: \(verdict) in \(filesChecked) files of \(targetsChecked) targets."
    }
}
