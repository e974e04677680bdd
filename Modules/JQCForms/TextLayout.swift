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
