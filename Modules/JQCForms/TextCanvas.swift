import JQCKit

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
