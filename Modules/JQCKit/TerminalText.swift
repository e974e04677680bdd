/// Foreign text made safe for a terminal (STYLE.md item 18, SHELL.md "Human output is terminal-safe"):
/// the one function every human renderer passes server strings, answers, file names and typed text
/// through before a terminal sees them. `--json` output never goes through it (JSON escapes for itself).
///
/// The scheme, chosen to stay readable and to never let a byte reach the terminal as a command:
/// - ESC is shown as `\e`, so a CSI or OSC sequence reads as text: `\e[2J`, `\e]52;c;aGk=^G`.
/// - NUL `\0`, TAB `\t`, CR `\r`, and LF `\n` (LF is kept as a line break only when the caller's own
///   layout put it there: ``sanitized(_:keepingLineFeeds:)``).
/// - Every other C0 control and DEL in caret notation: BEL `^G`, BS `^H`, DEL `^?`.
/// - C1 controls (U+0080–U+009F, which some terminals obey as CSI/OSC), bidirectional embeddings,
///   overrides and isolates (U+202A–U+202E, U+2066–U+2069), the invisible direction marks (U+200E, U+200F,
///   U+061C), the line and paragraph separators (U+2028, U+2029) and the byte-order mark (U+FEFF) as
///   `<U+202E>`: visible, and without effect on the text around them.
/// - Backslashes are left alone (a Windows path reads as itself); the escaped form is for reading,
///   not for parsing back — the exact value is in `--json`.
public enum TerminalText {
    /// `text` with every control character and invisible direction control shown escaped (see the type's
    /// scheme). Linear in the length of `text`; text that needs nothing is returned as it is.
    /// - Parameters:
    ///   - text: a string that did not come from this program (or a whole human output line).
    ///   - keepingLineFeeds: keep LF (U+000A) as a line break — for text whose line breaks are our
    ///     layout's (a whole output block) or meant by the person who typed them (a textarea answer);
    ///     `false` (the default) shows it as `\n`, for one-line cells and titles.
    /// - Returns: text holding no C0 or C1 control character (except LF when kept), no DEL and no
    ///   bidirectional control.
    public static func sanitized(_ text: String, keepingLineFeeds: Bool = false) -> String {
        guard text.unicodeScalars.contains(where: { needsEscape($0, keepingLineFeeds: keepingLineFeeds) }) else {
            return text
        }
        // Runs of safe text are copied as UTF-8 in one go; only the characters that need it are rewritten.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count + 64)
        let scalars = text.unicodeScalars
        var runStart = scalars.startIndex
        var index = scalars.startIndex
        while index < scalars.endIndex {
            let scalar = scalars[index]
            let next = scalars.index(after: index)
            if needsEscape(scalar, keepingLineFeeds: keepingLineFeeds) {
                bytes.append(contentsOf: text.utf8[runStart..<index])
                bytes.append(contentsOf: escape(scalar).utf8)
                runStart = next
            }
            index = next
        }
        bytes.append(contentsOf: text.utf8[runStart...])
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether `scalar` is shown escaped by ``sanitized(_:keepingLineFeeds:)``.
    /// - Parameters:
    ///   - scalar: one Unicode scalar.
    ///   - keepingLineFeeds: whether LF counts as safe.
    /// - Returns: `true` for C0 and C1 controls, DEL and the bidirectional and invisible controls listed
    ///   in the type's scheme.
    public static func needsEscape(_ scalar: Unicode.Scalar, keepingLineFeeds: Bool = false) -> Bool {
        switch scalar.value {
        case 0x0A: !keepingLineFeeds
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0x2028, 0x2029, 0xFEFF: true
        default: false
        }
    }

    /// The visible form of one character that needs escaping.
    private static func escape(_ scalar: Unicode.Scalar) -> String {
        switch scalar.value {
        case 0x00: return "\\0"
        case 0x09: return "\\t"
        case 0x0A: return "\\n"
        case 0x0D: return "\\r"
        case 0x1B: return "\\e"
        case 0x7F: return "^?"
        case 0x01...0x1F: return "^" + String(Unicode.Scalar(UInt8(scalar.value + 0x40)))
        default:
            let hex = String(scalar.value, radix: 16, uppercase: true)
            return "<U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + ">"
        }
    }
}
