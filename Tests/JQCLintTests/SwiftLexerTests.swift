import Testing

@testable import JQCLint

@Suite("The lexer tells code from comments and string contents")
struct SwiftLexerTests {
    func summary(_ source: String) -> [String] {
        SwiftLexer.tokenize(source).map { token in
            let kind = "\(token.kind)"
            let shown = token.kind == .string ? "\(token.text)⟨\(token.content)⟩" : token.text
            return "\(kind) \(shown) \(token.line):\(token.column)"
        }
    }

    @Test("a raw string with quotes and a trailing line comment are one string and one comment")
    func rawStringAndComment() {
        #expect(
            summary(##"let s = #"a "q" \(x)"# // c"##) == [
                "word let 1:1", "word s 1:5", "punctuation = 1:7", ##"string #"⟨a "q" \(x)⟩ 1:9"##,
                "lineComment // c 1:24",
            ])
    }

    @Test("interpolated code is lexed as code, after its string, with its own positions")
    func interpolation() {
        #expect(
            summary(#"x = "a\(f("b"))c""#) == [
                "word x 1:1", "punctuation = 1:3", #"string "⟨a{}c⟩ 1:5"#, "word f 1:9", "punctuation ( 1:10",
                #"string "⟨b⟩ 1:11"#, "punctuation ) 1:14",
            ])
    }

    @Test("nested block comments and multi-line strings keep the line count right")
    func linesAfterMultiLineTokens() {
        let source = "/* a /* b */\n c */ let\nq = \"\"\"\n  SELECT 1\n  \"\"\"\nend"
        let tokens = SwiftLexer.tokenize(source)
        #expect(tokens.map(\.kind) == [.blockComment, .word, .word, .punctuation, .string, .word])
        #expect(tokens[0].endLine == 2)
        #expect(tokens[1].line == 2 && tokens[1].column == 7)
        #expect(tokens[4].content == "\n  SELECT 1\n  ")
        #expect(tokens[4].line == 3 && tokens[4].endLine == 5)
        #expect(tokens[5].line == 6 && tokens[5].column == 1)
    }

    @Test("a regex literal, a backticked name and an unterminated string do not derail the lexer")
    func oddities() {
        let source = "let r = #/ab\"c/#\nlet `Timer` = 1\nlet broken = \"open\nlet next = 2"
        let words = SwiftLexer.tokenize(source).filter { $0.kind == .word }.map { "\($0.text)@\($0.line)" }
        #expect(words == ["let@1", "r@1", "let@2", "Timer@2", "let@3", "broken@3", "let@4", "next@4"])
    }

    @Test("imports are found in every form, with the module name's position")
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
            #endif
            let value = x.import  // not an import
            """
        let found = ImportScanner.imports(in: SwiftLexer.tokenize(source)).map {
            "\($0.module)@\($0.line):\($0.column)"
        }
        #expect(found == ["Foundation@1:8", "JQCKit@2:18", "A@3:19", "B@4:24", "C@5:15", "D@6:15", "E@8:8"])
    }
}
