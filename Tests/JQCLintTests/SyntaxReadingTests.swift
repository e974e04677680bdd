import Foundation
import Testing

@testable import JQCLint

@Suite("The linter reads sources through SwiftParser's syntax tree")
struct SyntaxReadingTests {
    func summary(_ imports: [ImportDeclaration]) -> [String] {
        imports.map { declaration in
            let extras = declaration.attributes + [declaration.accessLevel, declaration.kind].compactMap { $0 }
            let shown = extras.isEmpty ? "" : " " + extras.joined(separator: " ")
            return "\(declaration.path)@\(declaration.line):\(declaration.column)\(shown)"
        }
    }

    @Test("every import form is found with its attributes, access level, kind and the module name's position")
    func importForms() {
        let source = """
            import Foundation
            @testable import JQCKit
            @_exported import A
            @_spi(Internal) import B
            public import C
            import struct D.Thing
            #if canImport(E)
                import E
            #elseif os(Linux)
                @preconcurrency import F
            #endif
            @_implementationOnly import G
            package import `H`
            internal import func I.run
            let value = x.import  // import J
            let text = "import K"
            """
        #expect(
            summary(ImportScanner.imports(in: source)) == [
                "Foundation@1:8", "JQCKit@2:18 @testable", "A@3:19 @_exported", "B@4:24 @_spi", "C@5:15 public",
                "D.Thing@6:15 struct", "E@8:12", "F@10:28 @preconcurrency", "G@12:29 @_implementationOnly",
                "H@13:16 package", "I.run@14:22 internal func",
            ])
        #expect(
            ImportScanner.imports(in: source).map(\.isExported) == [false, false, true]
                + Array(repeating: false, count: 8))
    }

    @Test("an import after a byte-order mark, or after a regex literal holding quotes or a comment opener, is found")
    func lexerMisses() {
        let source = "\u{FEFF}import A\nlet quotes = /\"\"\"/\nimport B\nlet slashes = /\\/*/\nimport C\n"
        #expect(summary(ImportScanner.imports(in: source)) == ["A@1:11", "B@3:8", "C@5:8"])
    }

    @Test("references, calls, modifiers and attributes are read from their nodes, never from comments or literals")
    func codeFacts() {
        let file = ParsedSource(
            """
            let t: Timer = Foundation.Timer(timeInterval: 1, repeats: true) { _ in }  // Timer
            print("Timer")
            logger.print("x")
            func print(_ line: String) {}
            Swift.print(1)
            nonisolated(unsafe) var hits = 0
            final class Box: @unchecked Sendable {}
            let r = /Timer/
            """)
        let facts = SourceFacts(file)
        func places(_ occurrences: [SourceFacts.Occurrence], _ name: String) -> [String] {
            occurrences.filter { $0.text == name }.map { "\($0.line):\($0.column)" }
        }
        #expect(places(facts.references, "Timer") == ["1:8", "1:27"])
        #expect(places(facts.calls, "print") == ["2:1", "5:1"])
        #expect(places(facts.modifiers, "nonisolated(unsafe)") == ["6:1"])
        #expect(places(facts.attributes, "@unchecked") == ["7:18"])
        #expect(facts.strings.map(\.text) == ["Timer", "x"])
    }

    @Test("a string literal's text keeps escapes as written and reads each interpolation as {}")
    func stringContents() {
        let file = ParsedSource(
            #"""
            let a = "a\n\(f("b"))c"
            let b = #"raw "q" \(x)"#
            let c = """
                total 1
                """
            """#)
        let strings = SourceFacts(file).strings
        #expect(strings.map(\.text) == [#"a\n{}c"#, "b", #"raw "q" \(x)"#, "total 1"])
        #expect(strings.map { "\($0.line):\($0.column)" } == ["1:9", "1:17", "2:9", "3:9"])
    }

    @Test("comments are found with the lines they span")
    func comments() {
        let file = ParsedSource("/* a\n b */ let x = 1  // c\n/// d\nlet y = 2\n")
        #expect(
            file.comments().map { "\($0.text)@\($0.line)-\($0.endLine)" } == [
                "/* a\n b */@1-2", "// c@2-2", "/// d@3-3",
            ])
    }

    @Test("the policy's strings and exception entries are located in its JSON text")
    func policyLocations() {
        let text = "{\n  \"a\": \"x\\\"y\",\n  \"exceptions\": [\n    {\"rule\": \"r\"}, {\"rule\": \"s\"}\n  ]\n}\n"
        let locations = PolicyLocations(text)
        #expect(locations.firstString("rule").map { "\($0.line):\($0.column)" } == "4:6")
        #expect(locations.firstString(#"x\"y"#)?.column == 8)
        #expect(locations.exceptionEntries().map { "\($0.line):\($0.column)" } == ["4:5", "4:20"])
    }
}
