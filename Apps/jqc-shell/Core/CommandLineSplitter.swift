/// Splits a command line into words like a POSIX shell (SHELL.md "Invocation"): single quotes take
/// everything literally, double quotes group words and honour `\"` and `\\`, a backslash outside quotes
/// escapes the next character, and `;` outside quotes separates commands.
enum CommandLineSplitter {
    /// A line that cannot be split.
    struct SplitError: Error, CustomStringConvertible {
        let description: String
    }

    /// The commands on `line`, each as its words; empty commands (`;;`, blank) are dropped.
    /// - Throws: ``SplitError`` for an unterminated quote or a trailing backslash.
    static func commands(_ line: String) throws -> [[String]] {
        var commands: [[String]] = []
        var words: [String] = []
        var word = ""
        var inWord = false
        var quote: Character?
        var escaping = false
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
                escaping = true
            case "'", "\"":
                quote = character
                inWord = true
            case ";":
                if inWord { words.append(word) }
                word = ""
                inWord = false
                if !words.isEmpty { commands.append(words) }
                words = []
            case _ where character.isWhitespace:
                if inWord { words.append(word) }
                word = ""
                inWord = false
            default:
                word.append(character)
                inWord = true
            }
        }
        if escaping { throw SplitError(description: "The line ends with a lone backslash; escape it as \\\\.") }
        if let quote { throw SplitError(description: "A \(quote) quote is not closed; close it or escape it with a backslash.") }
        if inWord { words.append(word) }
        if !words.isEmpty { commands.append(words) }
        return commands
    }
}
