import Foundation

/// Splits a command line into words like a POSIX shell (SHELL.md "Invocation"): single quotes take
/// everything literally, double quotes group words and honour `\"` and `\\`, a backslash outside quotes
/// escapes the next character, and `;` outside quotes separates commands.
enum CommandLineSplitter {
    /// The commands on `line`, each as its words; empty commands (`;;`, blank) are dropped.
    /// - Throws: ``ShellError`` (`shell.syntax`) for an unterminated quote or a trailing backslash.
    /// An unquoted word that is `~` or starts with `~/` has `~` replaced by `home`, as a POSIX shell does.
    static func commands(_ line: String, home: String? = ShellEnvironment.variables["HOME"]) throws
        -> [[String]]
    {
        var commands: [[String]] = []
        var words: [String] = []
        var word = ""
        var inWord = false
        var quote: Character?
        var escaping = false
        var tildeStart = false  // the current word began with an unquoted `~`
        func finish() {
            if tildeStart, let home, word == "~" || word.hasPrefix("~/") { word = home + word.dropFirst() }
            words.append(word)
        }
        for character in line {
            if escaping {
                word.append(character)
                escaping = false
                inWord = true
                continue
            }
            switch quote {
            case "'":
                if character == "'" { quote = nil } else { word.append(character) }
                continue
            case "\"":
                if character == "\"" {
                    quote = nil
                } else if character == "\\" {
                    escaping = true
                } else {
                    word.append(character)
                }
                continue
            default:
                break
            }
            switch character {
            case "\\":
                if !inWord { tildeStart = false }
                escaping = true
            case "'", "\"":
                if !inWord { tildeStart = false }
                quote = character
                inWord = true
            case ";":
                if inWord { finish() }
                word = ""
                inWord = false
                if !words.isEmpty { commands.append(words) }
                words = []
            case _ where character.isWhitespace:
                if inWord { finish() }
                word = ""
                inWord = false
            default:
                if !inWord { tildeStart = character == "~" }
                word.append(character)
                inWord = true
            }
        }
        if escaping { throw ShellError(.syntax, "The line ends with a lone backslash; escape it as \\\\.") }
        if let quote {
            throw ShellError(.syntax, "A \(quote) quote is not closed; close it or escape it with a backslash.")
        }
        if inWord { finish() }
        if !words.isEmpty { commands.append(words) }
        return commands
    }
}
