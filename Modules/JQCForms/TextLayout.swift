import JQCKit

/// Small text helpers for the renderers: widths are counted in `Character`s (one terminal column
/// each; the box-drawing characters, `★` and `…` are one column wide). Every helper is linear in the
/// text it reads and stops early where it can, so a megabyte answer costs what its shown lines cost.
/// Foreign text is passed through ``clean(_:)`` (or ``paragraphs(_:)``) before it is measured, so a
/// control character neither reaches the terminal nor throws a column out of line.
enum TextLayout {
    /// `text` made terminal-safe for one line: control characters, escape sequences and line breaks shown
    /// escaped (``TerminalText/sanitized(_:keepingLineFeeds:)``, STYLE.md item 18).
    static func clean(_ text: String) -> String { TerminalText.sanitized(text) }

    /// `text` made terminal-safe keeping its line breaks (CRLF and CR count as one), for multi-line answers.
    static func paragraphs(_ text: String) -> String {
        guard text.utf8.contains(0x0D) else { return TerminalText.sanitized(text, keepingLineFeeds: true) }
        let unified = text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
        return TerminalText.sanitized(unified, keepingLineFeeds: true)
    }

    /// Whether `text` is longer than `width` characters (reads at most `width + 1` of them).
    static func exceeds(_ text: some StringProtocol, _ width: Int) -> Bool {
        var index = text.startIndex
        var count = 0
        while index < text.endIndex {
            if count == width { return true }
            text.formIndex(after: &index)
            count += 1
        }
        return false
    }

    /// `text` cut to `width` columns, ending in `…` when cut.
    static func truncate(_ text: String, _ width: Int) -> String {
        guard width > 0 else { return "" }
        guard exceeds(text, width) else { return text }
        return String(text.prefix(width - 1)) + "…"
    }

    /// `text` padded with spaces (or cut) to exactly `width` columns.
    static func pad(_ text: String, _ width: Int) -> String {
        let cut = truncate(text, width)
        return cut + String(repeating: " ", count: max(0, width - cut.count))
    }

    /// `text` wrapped at spaces into lines of at most `width` columns; words longer than a line are
    /// split; explicit newlines are kept. Never returns an empty array.
    ///
    /// With `maximumLines`, at most that many lines are shown: when text is left over, the last one (or two,
    /// in a narrow cell) says how much, `… (N more characters: see --json)`; the full value is in `--json`.
    static func wrap(_ text: String, _ width: Int, maximumLines: Int = .max) -> [String] {
        let width = max(1, width)
        let (lines, rest) = layout(text, width, maximumLines: maximumLines)
        guard let rest else { return lines }
        return lines + note(rest.count, width)
    }

    /// Foreign text for a cell: made terminal-safe (its own line breaks kept when `keepingLineBreaks`) and
    /// wrapped like ``wrap(_:_:maximumLines:)``. Only about as much of `text` as can be shown is read and
    /// sanitised (a budget that grows when runs of spaces eat it), and what is left is counted in one fast
    /// pass, so a megabyte answer costs what its shown lines cost.
    static func wrapForeign(_ text: String, _ width: Int, maximumLines: Int, keepingLineBreaks: Bool) -> [String] {
        let width = max(1, width)
        let (product, overflow) = maximumLines.multipliedReportingOverflow(by: width + 1)
        var budget = overflow ? Int.max : product + 64
        while true {
            let end = text.index(text.startIndex, offsetBy: budget, limitedBy: text.endIndex) ?? text.endIndex
            let head = String(text[..<end])
            let safe = keepingLineBreaks ? paragraphs(head) : clean(head)
            let (lines, rest) = layout(safe, width, maximumLines: maximumLines)
            let beyond = end < text.endIndex
            guard let rest else {
                if !beyond { return lines }
                budget = budget > Int.max / 4 ? Int.max : budget * 4  // the head was used up: read more
                continue
            }
            return lines + note(rest.count + (beyond ? text[end...].unicodeScalars.count : 0), width)
        }
    }

    private static func note(_ more: Int, _ width: Int) -> [String] {
        layout("… (\(more) more characters: see --json)", width, maximumLines: .max).lines
    }

    /// The lines of `text` (at most `maximumLines`, or one fewer when text is left over, which is then
    /// returned as `rest`). Reads `text` only as far as the lines it produces: a word is measured at most
    /// one line at a time.
    private static func layout(_ text: String, _ width: Int, maximumLines: Int) -> (lines: [String], rest: Substring?) {
        var lines: [String] = []
        var line = ""
        var lineCount = 0  // characters in `line`
        func flush() -> Bool {
            lines.append(line)
            line = ""
            lineCount = 0
            return lines.count < maximumLines - 1
        }
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            if character == "\n" {
                let next = text.index(after: index)
                guard flush() else { return finish(lines, text[next...], width) }
                index = next
                continue
            }
            if character == " " {
                text.formIndex(after: &index)
                continue
            }
            // The word starting here, measured up to one character past a line.
            var end = index
            var wordCount = 0
            while end < text.endIndex, wordCount <= width {
                let next = text[end]
                if next == " " || next == "\n" { break }
                text.formIndex(after: &end)
                wordCount += 1
            }
            if wordCount > width {  // longer than a line: a line-sized piece of it, on a line of its own
                if lineCount > 0 { guard flush() else { return finish(lines, text[index...], width) } }
                let pieceEnd = text.index(index, offsetBy: width)
                line = String(text[index..<pieceEnd])
                lineCount = width
                guard flush() else { return finish(lines, text[pieceEnd...], width) }
                index = pieceEnd
                continue
            }
            if lineCount == 0 {
                line = String(text[index..<end])
                lineCount = wordCount
            } else if lineCount + 1 + wordCount <= width {
                line += " " + text[index..<end]
                lineCount += 1 + wordCount
            } else {
                guard flush() else { return finish(lines, text[index...], width) }
                line = String(text[index..<end])
                lineCount = wordCount
            }
            index = end
        }
        lines.append(line)
        return (lines, nil)
    }

    /// Stopped at the line limit with `rest` unread: nothing left, or the last line when it fits, or `rest`.
    private static func finish(_ lines: [String], _ rest: Substring, _ width: Int) -> ([String], Substring?) {
        let rest = rest.drop { $0 == " " || $0 == "\n" }
        if rest.isEmpty { return (lines, nil) }
        if !exceeds(rest, width), !rest.contains("\n") {
            return (lines + [rest.split(separator: " ").joined(separator: " ")], nil)
        }
        return (lines, rest)
    }

    /// Items (each kept whole unless longer than a line) packed into lines separated by two spaces.
    static func pack(_ items: [String], _ width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        var lineCount = 0
        for item in items {
            let item = truncate(item, width)
            let itemCount = item.count
            if lineCount == 0 && line.isEmpty {
                line = item
                lineCount = itemCount
            } else if lineCount + 2 + itemCount <= width {
                line += "  " + item
                lineCount += 2 + itemCount
            } else {
                lines.append(line)
                line = item
                lineCount = itemCount
            }
        }
        lines.append(line)
        return lines
    }

    /// `lines` limited to `count`, the last kept line ending in `…` when some were dropped.
    static func limit(_ lines: [String], _ count: Int, width: Int) -> [String] {
        guard lines.count > count else { return lines }
        guard count > 0 else { return [] }
        var kept = Array(lines.prefix(count))
        let last = kept[count - 1]
        kept[count - 1] = last.count < width ? last + "…" : truncate(last, width - 1) + "…"
        return kept
    }

    /// A heavy rule with a title: `━━ Title ━━━━…` exactly `width` columns wide.
    static func heading(_ title: String, _ width: Int) -> String {
        guard width > 6 else { return String(repeating: "━", count: max(0, width)) }
        let shown = truncate(title, width - 4)
        let head = "━━ " + shown + " "
        return head + String(repeating: "━", count: max(0, width - head.count))
    }
}
