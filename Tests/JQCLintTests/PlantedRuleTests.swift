import Foundation
import Testing

@testable import JQCLint

/// One rule, one planted offence (marked `⚑`) and its clean twin, checked with the repository's policy.
struct RuleCase: Sendable, CustomTestStringConvertible {
    let rule: String
    let target: String
    let path: String
    let bad: String
    let clean: String
    /// Where the clean twin lives when it differs (to show a rule's scope).
    var cleanTarget: String?
    var cleanPath: String?

    var testDescription: String { "\(rule) (\(path))" }
}

let ruleCases: [RuleCase] = [
    // Text rules.
    RuleCase(
        rule: "no-timer-in-sync", target: "JQCSync", path: "Modules/JQCSync/Poller.swift",
        bad: #"""
            import Foundation
            let poll = ⚑Timer.scheduledTimer(withTimeInterval: 60, repeats: true) { _ in }
            """#,
        clean: #"""
            import Foundation
            // Timer is banned here; a retryTimer is just a name.
            let retryTimer = "Timer"
            /* Timer */ let interval = 60
            """#),
    RuleCase(
        rule: "no-timer-in-sync", target: "JQCSync", path: "Modules/JQCSync/Poller.swift",
        bad: #"""
            let poll = Foundation.⚑Timer(timeInterval: 1, repeats: true) { _ in }
            """#,
        clean: #"""
            let poll = Foundation.Timer(timeInterval: 1, repeats: true) { _ in }
            """#, cleanTarget: "JQCKit", cleanPath: "Modules/JQCKit/Poller.swift"),
    RuleCase(
        rule: "no-urlsession", target: "JQCNetwork", path: "Modules/JQCNetwork/Client.swift",
        bad: #"""
            import Foundation
            let session = ⚑URLSession.shared
            """#,
        clean: #"""
            /* outer /* URLSession nested */ still a comment: URLSession */
            let note = "URLSession is banned"
            let raw = #"URLSession "quoted" inside"#
            """#),
    RuleCase(
        rule: "no-urlsession", target: "JQCNetwork", path: "Modules/JQCNetwork/Client.swift",
        bad: #"""
            let label = "session: \(⚑URLSession.shared)"
            """#,
        clean: #"""
            let label = "session: \(sessionName) URLSession"
            """#),
    RuleCase(
        rule: "no-hard-coded-server-url", target: "JQCSync", path: "Modules/JQCSync/Engine.swift",
        bad: #"""
            let base = ⚑"http://127.0.0.1:5055/api/v1"
            """#,
        clean: #"""
            // http://127.0.0.1:5055 in a comment is fine
            let scheme = "https"
            """#),
    RuleCase(
        rule: "no-hard-coded-server-url", target: "JQCSync", path: "Modules/JQCSync/Engine.swift",
        bad: #"""
            let other = 1
            let base = ⚑##"HTTPS://jqc.ltservicesinc.com/"##
            """#,
        clean: #"""
            let other = 1
            let base = ##"HTTPS://jqc.ltservicesinc.com/"##
            """#, cleanTarget: "JQCKitTests", cleanPath: "Tests/JQCKitTests/ServerTests.swift"),
    RuleCase(
        rule: "no-hard-coded-server-url", target: "JQCKit", path: "Modules/JQCKit/Defaults.swift",
        bad: #"""
            let text = ⚑"""
                Dial https://\(host)/api/v1 now
                """
            """#,
        clean: #"""
            let text = """
                Dial https://\(host)/api/v1 now
                """
            """#, cleanTarget: "JQCKit", cleanPath: "Modules/JQCKit/ServerConfig.swift"),
    RuleCase(
        rule: "sql-outside-storage", target: "JQCInspections", path: "Modules/JQCInspections/List.swift",
        bad: #"""
            let query = ⚑"""
                select id, name FROM inspections WHERE status = ?
                """
            """#,
        clean: #"""
            let title = "Select a facility"
            let banner = "Update required"
            let ask = "Delete this photo?"
            let start = "Begin inspection"
            """#),
    RuleCase(
        rule: "sql-outside-storage", target: "JQCInspections", path: "Modules/JQCInspections/List.swift",
        bad: #"""
            try db.execute(⚑"INSERT OR REPLACE INTO inspections (id) VALUES (\(id))")
            """#,
        clean: #"""
            try db.execute("INSERT OR REPLACE INTO inspections (id) VALUES (\(id))")
            """#, cleanTarget: "JQCInspections", cleanPath: "Modules/JQCInspections/InspectionStore.swift"),
    RuleCase(
        rule: "sql-outside-storage", target: "JQCSync", path: "Modules/JQCSync/Outbox.swift",
        bad: #"""
            try db.execute(⚑"BEGIN IMMEDIATE")
            """#,
        clean: #"""
            try db.execute("BEGIN IMMEDIATE")
            """#, cleanTarget: "JQCStorage", cleanPath: "Modules/JQCStorage/Database.swift"),
    RuleCase(
        rule: "no-print-in-libraries", target: "JQCPhotos", path: "Modules/JQCPhotos/Upload.swift",
        bad: #"""
            func upload() {
                ⚑print("uploaded")
            }
            """#,
        clean: #"""
            func upload(logger: Logger) {
                logger.print("uploaded")
                // print("debug")
                let text = "print(x)"
            }
            func print(_ line: String) {}
            """#),
    RuleCase(
        rule: "no-print-in-libraries", target: "JQCDevServer", path: "Tooling/JQCDevServer/Server.swift",
        bad: #"""
            ⚑print ("listening")
            """#,
        clean: #"""
            print ("listening")
            """#, cleanTarget: "jqc-devserver", cleanPath: "Apps/jqc-devserver/main.swift"),
    RuleCase(
        rule: "no-nonisolated-unsafe", target: "JQCKit", path: "Modules/JQCKit/Cache.swift",
        bad: #"""
            enum Cache {
                ⚑nonisolated(unsafe) static var hits = 0
            }
            """#,
        clean: #"""
            nonisolated enum Cache {
                static let hits = 0  // nonisolated(unsafe) is banned
                static let name = "nonisolated(unsafe)"
            }
            """#),
    RuleCase(
        rule: "unchecked-sendable-needs-because", target: "JQCStorage", path: "Modules/JQCStorage/Handle.swift",
        bad: #"""
            // Wraps the handle.
            final class Handle: ⚑@unchecked Sendable {}
            """#,
        clean: #"""
            final class Handle: @unchecked Sendable {}  // because: every call holds the connection's mutex.
            // because: the pointer is only touched on the serial queue.
            final class Other: @unchecked Sendable {}
            """#),
    // Import rules.
    RuleCase(
        rule: "layering", target: "JQCStorage", path: "Modules/JQCStorage/Store.swift",
        bad: #"""
            import Foundation
            import ⚑JQCSync
            """#,
        clean: #"""
            import Foundation
            import JQCKit
            """#),
    RuleCase(
        rule: "layering", target: "JQCPhotos", path: "Modules/JQCPhotos/Hooks.swift",
        bad: #"""
            @testable import ⚑JQCIssues
            """#,
        clean: #"""
            import JQCPhotos
            """#, cleanTarget: "JQCIssues", cleanPath: "Modules/JQCIssues/Hooks.swift"),
    RuleCase(
        rule: "layering", target: "JQCNetwork", path: "Modules/JQCNetwork/Images.swift",
        bad: #"""
            import struct ⚑JQCJPEG.Image
            """#,
        clean: #"""
            import struct JQCKit.JSONValue
            """#),
    RuleCase(
        rule: "layering", target: "JQCSync", path: "Modules/JQCSync/Stages.swift",
        bad: #"""
            #if canImport(JQCForms)
            @_exported import ⚑JQCForms
            #endif
            """#,
        clean: #"""
            #if canImport(Glibc)
            import Glibc
            #endif
            """#),
    RuleCase(
        rule: "forms-is-pure", target: "JQCForms", path: "Modules/JQCForms/Scorer.swift",
        bad: #"""
            public import ⚑JQCStorage
            """#,
        clean: #"""
            public import JQCKit
            """#),
    RuleCase(
        rule: "dev-server-imports", target: "JQCDevServer", path: "Tooling/JQCDevServer/Photos.swift",
        bad: #"""
            import ⚑JQCPhotos
            """#,
        clean: #"""
            import JQCForms
            import JQCStorage
            """#),
    RuleCase(
        rule: "linter-is-standalone", target: "JQCLint", path: "Tooling/JQCLint/Extra.swift",
        bad: #"""
            import ⚑JQCKit
            """#,
        clean: #"""
            import Foundation
            """#),
    RuleCase(
        rule: "client-never-imports-dev-server", target: "JQCComposition",
        path: "Modules/JQCComposition/Root.swift",
        bad: #"""
            @testable import ⚑JQCDevServer
            """#,
        clean: #"""
            import JQCDevServer
            """#, cleanTarget: "jqc-shell", cleanPath: "Apps/jqc-shell/main.swift"),
    RuleCase(
        rule: "dev-server-never-uses-client-sync", target: "JQCDevServer",
        path: "Tooling/JQCDevServer/Sync.swift",
        bad: #"""
            import ⚑JQCSync
            """#,
        clean: #"""
            import JQCKit
            """#),
    RuleCase(
        rule: "csqlite-door", target: "JQCSync", path: "Modules/JQCSync/Raw.swift",
        bad: #"""
            import ⚑CSQLite
            """#,
        clean: #"""
            import CSQLite
            """#, cleanTarget: "JQCStorage", cleanPath: "Modules/JQCStorage/Database.swift"),
    RuleCase(
        rule: "ccurl-door", target: "JQCSync", path: "Modules/JQCSync/Raw.swift",
        bad: #"""
            import ⚑CCurl
            """#,
        clean: #"""
            import CCurl
            """#, cleanTarget: "JQCNetwork", cleanPath: "Modules/JQCNetwork/Curl.swift"),
    RuleCase(
        rule: "cjpeg-door", target: "JQCPhotos", path: "Modules/JQCPhotos/Raw.swift",
        bad: #"""
            import ⚑CJPEG
            """#,
        clean: #"""
            import JQCJPEG
            """#),
    RuleCase(
        rule: "cjpegshim-door", target: "JQCPhotos", path: "Modules/JQCPhotos/Raw.swift",
        bad: #"""
            import ⚑CJPEGShim
            """#,
        clean: #"""
            import CJPEGShim
            """#, cleanTarget: "JQCJPEG", cleanPath: "Modules/JQCJPEG/Codec.swift"),
    RuleCase(
        rule: "cexif-door", target: "JQCPhotos", path: "Modules/JQCPhotos/Raw.swift",
        bad: #"""
            import ⚑CExif
            """#,
        clean: #"""
            import CExif
            """#, cleanTarget: "JQCJPEG", cleanPath: "Modules/JQCJPEG/Orientation.swift"),
    RuleCase(
        rule: "cedit-door", target: "JQCComposition", path: "Modules/JQCComposition/Prompt.swift",
        bad: #"""
            import ⚑CEdit
            """#,
        clean: #"""
            import CEdit
            """#, cleanTarget: "jqc-shell", cleanPath: "Apps/jqc-shell/LineEditor.swift"),
    RuleCase(
        rule: "cmicrohttpd-door", target: "jqc-devserver", path: "Apps/jqc-devserver/main.swift",
        bad: #"""
            import ⚑CMicroHTTPD
            """#,
        clean: #"""
            import CMicroHTTPD
            """#, cleanTarget: "JQCDevServer", cleanPath: "Tooling/JQCDevServer/Daemon.swift"),
    RuleCase(
        rule: "ccrypto-door", target: "JQCNetwork", path: "Modules/JQCNetwork/Signing.swift",
        bad: #"""
            import ⚑CCrypto
            """#,
        clean: #"""
            import CCrypto
            """#, cleanTarget: "JQCDevServer", cleanPath: "Tooling/JQCDevServer/Tokens.swift"),
    RuleCase(
        rule: "test-frameworks-in-tests", target: "JQCKit", path: "Modules/JQCKit/Checks.swift",
        bad: #"""
            import ⚑Testing
            """#,
        clean: #"""
            import Testing
            """#, cleanTarget: "JQCKitTests", cleanPath: "Tests/JQCKitTests/ChecksTests.swift"),
    RuleCase(
        rule: "xctest-in-tests", target: "jqc-shell", path: "Apps/jqc-shell/main.swift",
        bad: #"""
            import ⚑XCTest
            """#,
        clean: #"""
            import XCTest
            """#, cleanTarget: "JQCTestSupport", cleanPath: "Tests/JQCTestSupport/Extra.swift"),
    RuleCase(
        rule: "undeclared-dependency", target: "JQCPhotos", path: "Modules/JQCPhotos/Forms.swift",
        bad: #"""
            import ⚑JQCForms
            """#,
        clean: #"""
            import JQCJPEG
            import JQCSync
            """#),
    RuleCase(
        rule: "undeclared-dependency", target: "JQCKitTests", path: "Tests/JQCKitTests/Cross.swift",
        bad: #"""
            import Testing
            @testable import ⚑JQCStorage
            """#,
        clean: #"""
            import Testing
            @testable import JQCKit
            import JQCTestSupport
            """#),
    RuleCase(
        rule: "unknown-import", target: "JQCNetwork", path: "Modules/JQCNetwork/Client.swift",
        bad: #"""
            import Foundation
            import ⚑Alamofire
            """#,
        clean: #"""
            import Foundation
            import FoundationNetworking
            import Synchronization
            """#),
]

/// The four places the hand-written lexer misread (issue 19), each with its clean twin: SwiftParser reads them
/// as the compiler does.
let lexerMissCases: [RuleCase] = [
    // A byte-order mark glued to the first `import` made one word of them.
    RuleCase(
        rule: "csqlite-door", target: "JQCSync", path: "Modules/JQCSync/Raw.swift",
        bad: "\u{FEFF}import ⚑CSQLite\n",
        clean: "\u{FEFF}import CSQLite\n", cleanTarget: "JQCStorage", cleanPath: "Modules/JQCStorage/Database.swift"),
    // A bare regex literal holding `"""` opened a multi-line string that swallowed the rest of the file.
    RuleCase(
        rule: "ccurl-door", target: "JQCSync", path: "Modules/JQCSync/Quotes.swift",
        bad: #"""
            let quotes = /"""/
            import ⚑CCurl
            """#,
        clean: #"""
            let quotes = /"""/
            import JQCKit
            """#),
    // A bare regex literal holding `/*` opened a block comment that swallowed the rest of the file.
    RuleCase(
        rule: "cjpeg-door", target: "JQCPhotos", path: "Modules/JQCPhotos/Slashes.swift",
        bad: #"""
            let slashes = /\/*/
            import ⚑CJPEG
            """#,
        clean: #"""
            let slashes = /\/*/
            import JQCJPEG
            """#),
    // The owner of a door re-exporting it hands the C library to every importer: a finding even in the owner.
    RuleCase(
        rule: "re-exported-door", target: "JQCStorage", path: "Modules/JQCStorage/Database.swift",
        bad: #"""
            @_exported import ⚑CSQLite
            """#,
        clean: #"""
            import CSQLite
            @_exported import JQCKit
            """#),
]

/// The rules added with the syntax tree (issue 19): the toolchain's SwiftSyntax modules are the linter's alone,
/// and every public declaration of a non-test target has a `///` comment.
let syntaxRuleCases: [RuleCase] = [
    RuleCase(
        rule: "swiftsyntax-in-linter", target: "JQCKit", path: "Modules/JQCKit/Tree.swift",
        bad: #"""
            import ⚑SwiftSyntax
            """#,
        clean: #"""
            import SwiftSyntax
            """#, cleanTarget: "JQCLint", cleanPath: "Tooling/JQCLint/Tree.swift"),
    RuleCase(
        rule: "swiftparser-in-linter", target: "jqc-shell", path: "Apps/jqc-shell/Parse.swift",
        bad: #"""
            @preconcurrency import ⚑SwiftParser
            """#,
        clean: #"""
            @preconcurrency import SwiftParser
            """#, cleanTarget: "JQCLint", cleanPath: "Tooling/JQCLint/Parse.swift"),
    RuleCase(
        rule: "re-exported-door", target: "JQCNetwork", path: "Modules/JQCNetwork/Curl.swift",
        bad: #"""
            #if canImport(CCurl)
            @_exported @preconcurrency import ⚑CCurl
            #endif
            """#,
        clean: #"""
            #if canImport(CCurl)
            @preconcurrency import CCurl
            #endif
            """#),
    RuleCase(
        rule: "undocumented-public", target: "JQCKit", path: "Modules/JQCKit/Logger.swift",
        bad: #"""
            /// Logs at the debug level.
            public func debug(_ message: String) {}
            ⚑public func info(_ message: String) {}
            """#,
        clean: #"""
            /// Logs at the debug level.
            public func debug(_ message: String) {}

            /** Logs at the info level. */
            public func info(_ message: String) {}
            func warning(_ message: String) {}
            """#),
    RuleCase(
        rule: "undocumented-public", target: "JQCStorage", path: "Modules/JQCStorage/DatabaseQueue.swift",
        bad: #"""
            /// The local store.
            // because: the connection is touched only while `lock` is held.
            ⚑public final class DatabaseQueue: @unchecked Sendable {}
            """#,
        clean: #"""
            /// The local store.
            public final class DatabaseQueue: @unchecked Sendable {}  // because: touched only under `lock`.
            """#),
    RuleCase(
        rule: "undocumented-public", target: "JQCKit", path: "Modules/JQCKit/Inline.swift",
        bad: #"""
            ⚑@inlinable
            /// A doc comment after an attribute belongs to nothing.
            public func twice(_ value: Int) -> Int { value * 2 }
            """#,
        clean: #"""
            /// Doubles a value.
            @inlinable
            public func twice(_ value: Int) -> Int { value * 2 }
            """#),
    RuleCase(
        rule: "undocumented-public", target: "JQCKit", path: "Modules/JQCKit/Level.swift",
        bad: #"""
            /// A level.
            public struct Level {
                ⚑public var description: String { "level" }
            }
            """#,
        clean: #"""
            /// A level.
            public struct Level: CustomStringConvertible {
                public var description: String { "level" }
            }

            extension Level: Codable, Equatable {
                public init(from decoder: any Decoder) throws { self.init() }
                public func encode(to encoder: any Encoder) throws {}
                public static func == (lhs: Level, rhs: Level) -> Bool { true }
            }
            """#),
    RuleCase(
        rule: "undocumented-public", target: "JQCKit", path: "Modules/JQCKit/Sink.swift",
        bad: #"""
            /// Where lines go.
            public protocol Sink {
                /// Writes one line.
                func write(_ line: String)
            }

            /// Drops every line.
            public struct DroppingSink: Sink {
                public func write(_ line: String) {}
                ⚑public func flush() {}
            }
            """#,
        clean: #"""
            /// Where lines go.
            public protocol Sink {
                /// Writes one line.
                func write(_ line: String)
            }

            extension Sink {
                public func write(_ line: String) {}
            }

            /// Drops every line.
            public struct DroppingSink: Sink {
                public func write(_ line: String) {}
                override public func copy() -> Any { self }
            }
            """#),
    RuleCase(
        rule: "undocumented-public", target: "JQCKit", path: "Modules/JQCKit/Severity.swift",
        bad: #"""
            /// How much an issue matters.
            public enum Severity: String {
                /// Can wait.
                case low
                ⚑case high
            }
            """#,
        clean: #"""
            /// How much an issue matters.
            enum Severity: String {
                case low
                public var label: String { rawValue }
            }

            private extension Severity {
                var shouted: String { rawValue.uppercased() }
            }
            """#),
    RuleCase(
        rule: "undocumented-public", target: "JQCKit", path: "Modules/JQCKit/Extensions.swift",
        bad: #"""
            /// A source of lines.
            public protocol Source {
                ⚑func next() -> String?
            }

            public extension String {
                /// The text with its first letter upper-cased.
                var capitalisedFirst: String { prefix(1).uppercased() + dropFirst() }
            }
            """#,
        clean: #"""
            public extension String {
                /// The text with its first letter upper-cased.
                var capitalisedFirst: String { prefix(1).uppercased() + dropFirst() }
                internal var quiet: String { self }
            }
            """#),
    RuleCase(
        rule: "undocumented-public", target: "JQCKit", path: "Modules/JQCKit/Extensions.swift",
        bad: #"""
            public extension String {
                ⚑var shouted: String { uppercased() }
            }
            """#,
        clean: #"""
            public extension String {
                var shouted: String { uppercased() }
            }
            """#, cleanTarget: "JQCKitTests", cleanPath: "Tests/JQCKitTests/Extensions.swift"),
]

/// Every planted case: the 36 of issue 10, the four lexer misses and the rules of issue 19.
let plantedCases = ruleCases + lexerMissCases + syntaxRuleCases

@Suite("Planted sources: every rule finds its marked offence and nothing in the clean twin")
struct PlantedRuleTests {
    @Test("a planted offence gives exactly one finding at the marked line and column", arguments: plantedCases)
    func offenceIsFound(_ ruleCase: RuleCase) throws {
        let planted = PlantedSource(ruleCase.bad)
        let findings = try Repository.linter().check(
            source: planted.source, path: ruleCase.path,
            target: ruleCase.target)
        let found = findings.map { "\($0.rule)@\($0.line):\($0.column)" }
        #expect(found == ["\(ruleCase.rule)@\(planted.line ?? 0):\(planted.column ?? 0)"])
        #expect(findings.allSatisfy { $0.path == ruleCase.path && !$0.note.isEmpty && !$0.hint.isEmpty })
    }

    @Test("the clean twin of a planted offence gives no finding", arguments: plantedCases)
    func cleanTwinIsClean(_ ruleCase: RuleCase) throws {
        let findings = try Repository.linter().check(
            source: ruleCase.clean, path: ruleCase.cleanPath ?? ruleCase.path,
            target: ruleCase.cleanTarget ?? ruleCase.target)
        #expect(findings.map(\.text) == [])
    }

    @Test("every rule of the policy and every built-in file rule has a planted case")
    func everyRuleIsPlanted() throws {
        let policy = try Repository.policy.get()
        let planted = Set(plantedCases.map(\.rule))
        let rules =
            policy.textRules.map(\.id) + policy.protected.map(\.id) + policy.forbidden.map(\.id)
            + (policy.moduleRules ?? []).map(\.id)
            + [BuiltInRule.layering, BuiltInRule.undeclaredDependency, BuiltInRule.unknownImport]
            + [BuiltInRule.reExportedDoor, BuiltInRule.undocumentedPublic]
        #expect(Set(rules).subtracting(planted).sorted() == [])
    }
}

@Suite("Findings explain themselves")
struct FindingMessageTests {
    @Test("an upward import names both tiers and what the importer may import")
    func upwardImportMessage() throws {
        let findings = try Repository.linter().check(
            source: "import JQCSync\n", path: "Modules/JQCStorage/Store.swift", target: "JQCStorage")
        #expect(
            findings.map(\.text) == [
                """
                Modules/JQCStorage/Store.swift:1:8: error: [layering] JQCStorage (tier 1 adapters) imports JQCSync \
                (tier 2 engine); tier 1 adapters may import tier 0 foundation.
                    note: SPEC.md §2: calls go down the tiers and along the feature order; news goes up through hooks \
                the composition root plugs in. No cycles, no module reaching upwards.
                    hint: Move the code down to the module that owns it, or declare a small protocol in the lower \
                module and plug the higher module's implementation in at JQCComposition.
                """
            ])
    }

    @Test("a later feature in the order is named with the whole order")
    func featureOrderMessage() throws {
        let findings = try Repository.linter().check(
            source: "import JQCScheduling\n", path: "Modules/JQCIssues/Hook.swift", target: "JQCIssues")
        #expect(
            findings.map(\.message) == [
                "JQCIssues imports JQCScheduling, which comes later in the features order (JQCForms → JQCFacilities → JQCPhotos → "
                    + "JQCInspections → JQCIssues → JQCScheduling → JQCFollowUps → JQCNotifications); a module "
                    + "imports only earlier ones."
            ])
    }

    @Test("a string-literal finding quotes what it matched")
    func stringExcerpt() throws {
        let findings = try Repository.linter().check(
            source: "let q = \"\"\"\n    DELETE   FROM\n      photos WHERE id = ?\n    \"\"\"\n",
            path: "Modules/JQCPhotos/Cleanup.swift", target: "JQCPhotos")
        #expect(
            findings.map(\.message) == [
                "A string literal holds an SQL statement outside JQCStorage and the *Store.swift files. "
                    + "Found: \"DELETE FROM\"."
            ])
    }

    @Test("a door re-exported by a module that may not import it is two findings: the door and the re-export")
    func reExportOutsideTheOwner() throws {
        let findings = try Repository.linter().check(
            source: "@_exported import CSQLite\n", path: "Modules/JQCSync/Raw.swift", target: "JQCSync")
        #expect(
            findings.map { "\($0.rule)@\($0.line):\($0.column)" } == ["csqlite-door@1:19", "re-exported-door@1:19"])
        #expect(
            findings.last?.message
                == "JQCSync re-exports CSQLite (@_exported import), which hands it to every module that imports "
                + "JQCSync.")
        #expect(findings.last?.note.hasPrefix("STYLE.md item 2: C stays behind one door;") == true)
        #expect(findings.last?.note.contains("Only JQCStorage may import CSQLite ([csqlite-door])") == true)
    }

    @Test("a doc comment cut off by a plain comment is named in the finding, with the way to fix it")
    func cutOffDocComment() throws {
        let findings = try Repository.linter().check(
            source:
                "/// The store.\n// because: only under the lock.\npublic final class Queue: @unchecked Sendable {}\n",
            path: "Modules/JQCStorage/Queue.swift", target: "JQCStorage")
        #expect(
            findings.map(\.message) == [
                "The public class Queue has no /// doc comment directly above it: the comment "
                    + "`// because: only under the lock.` cuts its doc comment off."
            ])
        #expect(findings.first?.hint.hasPrefix("Move the plain comment to the end of the declaration's line") == true)
    }
}
