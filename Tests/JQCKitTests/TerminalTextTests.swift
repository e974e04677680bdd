import JQCKit
import Testing

/// STYLE.md item 18: the one function foreign text passes through before a terminal sees it.
@Suite("TerminalText: foreign text made safe for a terminal")
struct TerminalTextTests {
    @Test("escape sequences, CR, BEL, NUL and DEL are shown, never sent")
    func controls() {
        #expect(TerminalText.sanitized("a\u{1B}[2Jb") == #"a\e[2Jb"#)
        #expect(TerminalText.sanitized("\u{1B}]52;c;aGk=\u{07}") == #"\e]52;c;aGk=^G"#)
        #expect(TerminalText.sanitized("x\ry\u{0}z\u{7F}") == #"x\ry\0z^?"#)
        #expect(TerminalText.sanitized("tab\there\u{08}") == #"tab\there^H"#)
        #expect(TerminalText.sanitized("\u{01}\u{1A}\u{1C}\u{1F}") == "^A^Z^\\^_")
    }

    @Test("C1 controls, bidirectional overrides and isolates, and invisible marks are shown as code points")
    func unicodeControls() {
        #expect(TerminalText.sanitized("\u{9B}2J") == "<U+009B>2J")
        #expect(TerminalText.sanitized("abc\u{202E}fed") == "abc<U+202E>fed")
        #expect(TerminalText.sanitized("\u{2066}x\u{2069}\u{200F}\u{FEFF}") == "<U+2066>x<U+2069><U+200F><U+FEFF>")
        #expect(TerminalText.sanitized("line\u{2028}sep") == "line<U+2028>sep")
    }

    @Test("line feeds are escaped in a cell and kept where the caller's layout puts them")
    func lineFeeds() {
        #expect(TerminalText.sanitized("one\ntwo") == #"one\ntwo"#)
        #expect(TerminalText.sanitized("one\ntwo\u{1B}", keepingLineFeeds: true) == "one\ntwo\\e")
    }

    @Test("ordinary text is returned as it is: accents, CJK, emoji, joiners, box drawing, backslashes")
    func ordinaryText() {
        for text in ["Bälle Küche", "会議室", "🧹🧽👩‍🔧", "━━ ★★☆ │", #"C:\Temp\a"#, ""] {
            #expect(TerminalText.sanitized(text) == text)
        }
    }

    @Test("the result never holds a byte a terminal would obey, for every scalar from U+0000 to U+FFFF")
    func exhaustive() {
        let obeyed = (UInt32(0)...0xFFFF).compactMap(Unicode.Scalar.init).filter { scalar in
            TerminalText.sanitized("<" + String(Character(scalar)) + ">").unicodeScalars.contains { shown in
                shown.value < 0x20 || (0x7F...0x9F).contains(shown.value) || (0x202A...0x202E).contains(shown.value)
                    || (0x2066...0x2069).contains(shown.value)
            }
        }
        #expect(obeyed.isEmpty)
    }
}
