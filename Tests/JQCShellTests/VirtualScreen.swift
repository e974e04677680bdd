/// The screen a terminal would show for the bytes a program wrote: enough of xterm (the `TERM` the
/// pseudo-terminal tests give the shell) to follow libedit — printable UTF-8 (one cell per scalar), CR, LF,
/// BS, TAB, deferred wrap at the last column, scrolling into a scrollback, insert mode (`CSI 4 h`), cursor
/// movement (`CSI A B C D G d H`), erasing (`CSI J K X`), inserting and deleting characters (`CSI @ P`).
/// Colours, modes and OSC strings are read and ignored.
struct VirtualScreen {
    let columns: Int
    let rows: Int
    private var cells: [[Character]]
    private var scrollback: [String] = []
    private(set) var row = 0
    private(set) var column = 0
    private var pendingWrap = false
    private var insertMode = false
    private var state = ParserState.ground
    private var utf8: [UInt8] = []

    private enum ParserState {
        case ground
        case escape
        case escapeIntermediate
        case controlSequence(String)
        case operatingSystemCommand
        case operatingSystemCommandEscape
    }

    init(columns: Int, rows: Int) {
        self.columns = columns
        self.rows = rows
        cells = Array(repeating: Array(repeating: " ", count: columns), count: rows)
    }

    /// The visible lines, trailing spaces removed.
    var lines: [String] { cells.map(VirtualScreen.trimmed) }

    /// Every line ever shown: the scrollback, then the visible lines (trailing empty lines dropped).
    var allLines: [String] {
        var all = scrollback + lines
        while all.last?.isEmpty == true { all.removeLast() }
        return all
    }

    /// The line the cursor is on.
    var cursorLine: String { VirtualScreen.trimmed(cells[row]) }

    private static func trimmed(_ row: [Character]) -> String {
        var text = String(row)
        while text.last == " " { text.removeLast() }
        return text
    }

    /// Interprets `bytes` as the terminal would.
    mutating func feed(_ bytes: [UInt8]) {
        for byte in bytes { feed(byte) }
    }

    private mutating func feed(_ byte: UInt8) {
        switch state {
        case .ground: break
        case .escape:
            switch byte {
            case UInt8(ascii: "["): state = .controlSequence("")
            case UInt8(ascii: "]"): state = .operatingSystemCommand
            case UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "#"), UInt8(ascii: "%"): state = .escapeIntermediate
            case UInt8(ascii: "M"):
                row = max(0, row - 1)
                state = .ground
            default: state = .ground
            }
            return
        case .escapeIntermediate:
            state = .ground
            return
        case .controlSequence(let parameters):
            if (0x40...0x7E).contains(byte) {
                state = .ground
                controlSequence(parameters, final: Character(Unicode.Scalar(byte)))
            } else {
                state = .controlSequence(parameters + String(Unicode.Scalar(byte)))
            }
            return
        case .operatingSystemCommand:
            if byte == 0x07 { state = .ground } else if byte == 0x1B { state = .operatingSystemCommandEscape }
            return
        case .operatingSystemCommandEscape:
            state = byte == UInt8(ascii: "\\") ? .ground : .operatingSystemCommand
            return
        }
        if !utf8.isEmpty || byte >= 0x80 {
            utf8.append(byte)
            let expected = utf8[0] >= 0xF0 ? 4 : utf8[0] >= 0xE0 ? 3 : utf8[0] >= 0xC0 ? 2 : 1
            guard utf8.count >= expected else { return }
            let text = String(decoding: utf8, as: UTF8.self)
            utf8.removeAll()
            for character in text { put(character) }
            return
        }
        switch byte {
        case 0x1B: state = .escape
        case 0x0D:
            column = 0
            pendingWrap = false
        case 0x0A, 0x0B, 0x0C:
            lineFeed()
            pendingWrap = false
        case 0x08:
            column = max(0, column - 1)
            pendingWrap = false
        case 0x09: column = min(columns - 1, (column / 8 + 1) * 8)
        case 0x00..<0x20, 0x7F: break
        default: put(Character(Unicode.Scalar(byte)))
        }
    }

    private mutating func put(_ character: Character) {
        if pendingWrap {
            column = 0
            lineFeed()
            pendingWrap = false
        }
        if insertMode {
            cells[row].insert(character, at: column)
            cells[row].removeLast()
        } else {
            cells[row][column] = character
        }
        if column == columns - 1 { pendingWrap = true } else { column += 1 }
    }

    private mutating func lineFeed() {
        if row == rows - 1 {
            scrollback.append(VirtualScreen.trimmed(cells.removeFirst()))
            cells.append(Array(repeating: " ", count: columns))
        } else {
            row += 1
        }
    }

    private mutating func controlSequence(_ parameters: String, final: Character) {
        let isPrivate = parameters.hasPrefix("?") || parameters.hasPrefix(">")
        let numbers = parameters.drop { $0 == "?" || $0 == ">" }.split(separator: ";", omittingEmptySubsequences: false)
            .map { Int($0) ?? 0 }
        func number(_ index: Int, default value: Int = 1) -> Int {
            index < numbers.count && numbers[index] > 0 ? numbers[index] : value
        }
        pendingWrap = false
        switch final {
        case "A": row = max(0, row - number(0))
        case "B": row = min(rows - 1, row + number(0))
        case "C": column = min(columns - 1, column + number(0))
        case "D": column = max(0, column - number(0))
        case "G": column = min(columns - 1, number(0) - 1)
        case "d": row = min(rows - 1, number(0) - 1)
        case "H", "f":
            row = min(rows - 1, number(0) - 1)
            column = min(columns - 1, number(1) - 1)
        case "J":
            let mode = numbers.first ?? 0
            if mode == 0 {
                for index in column..<columns { cells[row][index] = " " }
                for line in (row + 1)..<rows { cells[line] = Array(repeating: " ", count: columns) }
            } else if mode == 1 {
                for line in 0..<row { cells[line] = Array(repeating: " ", count: columns) }
                for index in 0...column { cells[row][index] = " " }
            } else {
                cells = Array(repeating: Array(repeating: " ", count: columns), count: rows)
            }
        case "K":
            let mode = numbers.first ?? 0
            let range = mode == 0 ? column..<columns : mode == 1 ? 0..<(column + 1) : 0..<columns
            for index in range { cells[row][index] = " " }
        case "X":
            for index in column..<min(columns, column + number(0)) { cells[row][index] = " " }
        case "P":
            let count = min(number(0), columns - column)
            cells[row].removeSubrange(column..<(column + count))
            cells[row] += Array(repeating: " ", count: count)
        case "@":
            let count = min(number(0), columns - column)
            cells[row].insert(contentsOf: Array(repeating: " ", count: count), at: column)
            cells[row].removeLast(count)
        case "h", "l":
            if !isPrivate && numbers.contains(4) { insertMode = final == "h" }
        default: break
        }
    }
}
