import JQCKit

/// Small text helpers for the renderers: widths are counted in `Character`s (one terminal column
/// each; the box-drawing characters, `★` and `…` are one column wide).
enum TextLayout {
    /// `text` cut to `width` columns, ending in `…` when cut.
    static func truncate(_ text: String, _ width: Int) -> String {
        guard width > 0 else { return "" }
        guard text.count > width else { return text }
        return String(text.prefix(width - 1)) + "…"
    }

    /// `text` padded with spaces (or cut) to exactly `width` columns.
    static func pad(_ text: String, _ width: Int) -> String {
        let cut = truncate(text, width)
        return cut + String(repeating: " ", count: max(0, width - cut.count))
    }

    /// `text` wrapped at spaces into lines of at most `width` columns; words longer than a line are
    /// split; explicit newlines are kept. Never returns an empty array.
    static func wrap(_ text: String, _ width: Int) -> [String] {
        let width = max(1, width)
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = ""
            for word in paragraph.split(separator: " ", omittingEmptySubsequences: true) {
                var word = String(word)
                while word.count > width {
                    if !line.isEmpty { lines.append(line); line = "" }
                    lines.append(String(word.prefix(width)))
                    word = String(word.dropFirst(width))
                }
                if line.isEmpty {
                    line = word
                } else if line.count + 1 + word.count <= width {
                    line += " " + word
                } else {
                    lines.append(line)
                    line = word
                }
            }
            lines.append(line)
        }
        return lines.isEmpty ? [""] : lines
    }

    /// Items (each kept whole unless longer than a line) packed into lines separated by two spaces.
    static func pack(_ items: [String], _ width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for item in items {
            let item = truncate(item, width)
            if line.isEmpty {
                line = item
            } else if line.count + 2 + item.count <= width {
                line += "  " + item
            } else {
                lines.append(line)
                line = item
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

/// A rectangle of characters that boxes and text are drawn onto, later drawing over earlier.
struct TextCanvas {
    private(set) var rows: [[Character]]
    let width: Int

    init(width: Int, height: Int) {
        self.width = width
        rows = Array(repeating: Array(repeating: " ", count: width), count: max(0, height))
    }

    /// Writes `text` at column `x` of line `y`, clipped to the canvas.
    mutating func write(_ text: String, x: Int, y: Int) {
        guard rows.indices.contains(y) else { return }
        var column = x
        for character in text {
            if column >= width { break }
            if column >= 0 { rows[y][column] = character }
            column += 1
        }
    }

    /// A light box with `title` in its top edge and `content` inside, clipped to its height.
    mutating func box(x: Int, y: Int, width: Int, height: Int, title: String, content: [String]) {
        guard width >= 2, height >= 2 else { return }
        let inner = width - 2
        let titleText = inner >= 4 ? "─ " + TextLayout.truncate(title, inner - 3) + " " : ""
        write("┌" + titleText + String(repeating: "─", count: max(0, inner - titleText.count)) + "┐", x: x, y: y)
        let lines = TextLayout.limit(content, height - 2, width: inner - 1)
        for offset in 0..<(height - 2) {
            let line = offset < lines.count ? lines[offset] : ""
            write("│" + TextLayout.pad(" " + line, inner) + "│", x: x, y: y + 1 + offset)
        }
        write("└" + String(repeating: "─", count: inner) + "┘", x: x, y: y + height - 1)
    }

    /// The canvas as text, trailing spaces removed from each line.
    var text: [String] {
        rows.map { row in
            var line = String(row)
            while line.last == " " { line.removeLast() }
            return line
        }
    }
}
