/// Keeps secrets out of the history (issue 14): the value of every `--password` on a line is replaced by
/// `***`, in every spelling the shell itself accepts — `--password P`, `--password=P`, quoted values
/// (`--password "a b"`, `--password='a b'`), a quoted option name, several commands after `;`, and an
/// unterminated quote (the rest of the line is the value). The rest of the line is kept as typed.
enum SecretMask {
    /// The options whose values are secrets.
    static let secretOptions: Set<String> = ["password"]
    /// What a secret value is replaced by.
    static let mask = "***"

    /// `line` with every secret option's value replaced by ``mask``; `line` itself when it holds none.
    static func masked(_ line: String) -> String {
        let characters = Array(line)
        var replacements: [(range: Range<Int>, text: String)] = []
        let words = SecretMask.words(characters)
        for (index, word) in words.enumerated() {
            guard word.value.hasPrefix("--") else { continue }
            let option = word.value.dropFirst(2)
            if secretOptions.contains(String(option)) {
                if index + 1 < words.count, words[index + 1].command == word.command {
                    replacements.append((words[index + 1].range, mask))
                }
            } else if let equals = option.firstIndex(of: "="), secretOptions.contains(String(option[..<equals])) {
                replacements.append((word.range, "--" + option[..<equals] + "=" + mask))
            }
        }
        guard !replacements.isEmpty else { return line }
        var result = characters
        for replacement in replacements.sorted(by: { $0.range.lowerBound > $1.range.lowerBound }) {
            result.replaceSubrange(replacement.range, with: Array(replacement.text))
        }
        return String(result)
    }

    /// The words of `characters` as ``CommandLineSplitter`` splits them (quotes, backslashes, `;`), each with
    /// its unquoted value, the range of characters it was typed as, and which `;`-separated command it is in.
    /// Never throws: an unterminated quote runs to the end of the line.
    private static func words(_ characters: [Character]) -> [(value: String, range: Range<Int>, command: Int)] {
        var words: [(value: String, range: Range<Int>, command: Int)] = []
        var index = 0
        var command = 0
        while index < characters.count {
            let character = characters[index]
            if character == ";" {
                command += 1
                index += 1
                continue
            }
            if character.isWhitespace {
                index += 1
                continue
            }
            let start = index
            var value = ""
            var quote: Character?
            while index < characters.count {
                let character = characters[index]
                if let open = quote {
                    if character == open {
                        quote = nil
                    } else if open == "\"" && character == "\\" && index + 1 < characters.count {
                        index += 1
                        value.append(characters[index])
                    } else {
                        value.append(character)
                    }
                    index += 1
                    continue
                }
                if character == "\\" {
                    if index + 1 < characters.count { value.append(characters[index + 1]) }
                    index += 2
                    continue
                }
                if character == "'" || character == "\"" {
                    quote = character
                    index += 1
                    continue
                }
                if character.isWhitespace || character == ";" { break }
                value.append(character)
                index += 1
            }
            index = min(index, characters.count)
            words.append((value, start..<index, command))
        }
        return words
    }
}
