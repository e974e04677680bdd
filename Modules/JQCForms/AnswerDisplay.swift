import Foundation
import JQCKit

/// How an answer looks as text: star ratings, pass/fail pills, option marks, photo markers.
/// Shared by every ``FormRenderer`` style.
enum AnswerDisplay {
    /// Five stars, `filled` of them solid: `★★★☆☆`.
    static func stars(_ filled: Int) -> String {
        let filled = min(max(0, filled), 5)
        return String(repeating: "★", count: filled) + String(repeating: "☆", count: 5 - filled)
    }

    /// A pill for a pass/fail answer: `[PASS]`, `[FAIL]`, `[N/A]`.
    static func pill(_ text: String) -> String { "[" + TextLayout.clean(text).uppercased() + "]" }

    /// The answer's text when it is a plain value (string, number, boolean), else its JSON.
    static func plain(_ value: JSONValue) -> String {
        switch value {
        case .string(let text): text
        case .int(let number): String(number)
        case .double: value.jsonString()
        case .bool(let flag): flag ? "true" : "false"
        case .null: ""
        case .array(let items): items.map(plain).joined(separator: ", ")
        case .object: value.jsonString()
        }
    }

    /// Whether a value holds nothing: absent, `null`, blank text, `[]` or `{}`.
    static func isBlank(_ value: JSONValue?) -> Bool {
        switch value {
        case nil, .null?: true
        case .string(let text)?: text.unicodeScalars.allSatisfy(\.properties.isWhitespace)  // stops at the first letter
        case .array(let items)?: items.isEmpty
        case .object(let members)?: members.isEmpty
        default: false
        }
    }

    /// A photo marker: `[photo: seed-501-9.jpg]`, `[photo: IMG.jpg · not uploaded]`, `[no photo]`.
    static func photo(_ value: JSONValue?, signature: Bool) -> String {
        let noun = signature ? "signature" : "photo"
        switch value {
        case .string(let path)? where !path.trimmingCharacters(in: .whitespaces).isEmpty:
            return "[\(noun): \(describePath(path))]"
        case .array(let items)? where !items.isEmpty:
            let paths = items.compactMap(\.stringValue).filter { !$0.isEmpty }
            if paths.count == 1 { return "[\(noun): \(describePath(paths[0]))]" }
            return "[\(paths.count) \(noun)s: " + paths.map(describePath).joined(separator: ", ") + "]"
        default:
            return signature ? "[not signed]" : "[no photo]"
        }
    }

    private static func describePath(_ path: String) -> String {
        let local = path.hasPrefix("local://")
        let body = local ? String(path.dropFirst("local://".count)) : path
        let name = body.split(separator: "/").last.map(String.init) ?? body
        let shown = TextLayout.clean(name)
        return local ? "\(shown) · not uploaded" : shown
    }

    /// The most lines one answer shows; the rest is counted in a last line (the full value is in `--json`).
    static let maximumLines = 20

    /// The answer as lines of at most `width` columns, for the grid and stacked layouts.
    /// - Parameter compact: one line only (the read-only rows), lists joined with commas.
    static func lines(_ field: FormField, _ value: JSONValue?, width: Int, compact: Bool = false) -> [String] {
        let width = max(1, width)
        return unclipped(field, value, width: width, compact: compact).map { TextLayout.truncate($0, width) }
    }

    private static func unclipped(_ field: FormField, _ value: JSONValue?, width: Int, compact: Bool) -> [String] {
        switch field.type {
        case .rating:
            if let rating = InspectionScorer.ratingValue(value) { return ["\(stars(rating)) \(rating)/5"] }
            return isBlank(value) || value == .string("0") || value == .int(0)
                ? [stars(0)]
                : TextLayout.wrapForeign(plain(value!), width, maximumLines: maximumLines, keepingLineBreaks: false)
        case .checkbox:
            guard let value, !isBlank(value) else { return ["[ ]"] }
            let checked = value == .string("true") || value == .bool(true)
            return [checked ? "[x] yes" : "[ ] no"]
        case .passFail:
            if let text = value?.stringValue, !text.isEmpty { return [pill(text)] }
            let options = field.options.isEmpty ? ["Pass", "Fail"] : field.options
            return TextLayout.pack(options.map { "( ) \(TextLayout.clean($0))" }, width)
        case .radio:
            let chosen = value.map(plain) ?? ""
            if compact || field.options.isEmpty { return [chosen.isEmpty ? "" : "(•) \(TextLayout.clean(chosen))"] }
            var items = field.options.map { ($0 == chosen ? "(•) " : "( ) ") + TextLayout.clean($0) }
            if !chosen.isEmpty && !field.options.contains(chosen) { items.append("(•) \(TextLayout.clean(chosen))") }
            return TextLayout.pack(items, width)
        case .select:
            let chosen = value.map(plain) ?? ""
            return [chosen.isEmpty ? "— choose — ▾" : "\(TextLayout.clean(chosen)) ▾"]
        case .checkboxGroup:
            let chosen = (value?.arrayValue ?? value.map { [$0] } ?? []).map(plain).filter { !$0.isEmpty }
            if compact { return [TextLayout.clean(chosen.joined(separator: ", "))] }
            var items = field.options.map { (chosen.contains($0) ? "[x] " : "[ ] ") + TextLayout.clean($0) }
            items += chosen.filter { !field.options.contains($0) }.map { "[x] \(TextLayout.clean($0))" }
            return TextLayout.pack(items, width)
        case .table:
            return table(field, value, width: width, compact: compact)
        case .image, .signature:
            return [photo(value, signature: field.type == .signature)]
        case .text, .textarea, .number, .date, .email:
            guard let value, !isBlank(value) else {
                return [field.placeholder.map { "‹\(TextLayout.clean($0))›" } ?? ""]
            }
            if compact {  // one line: only what can show of it is read
                let head = String(plain(value).prefix(width + 1)).replacingOccurrences(of: "\n", with: " ")
                return [TextLayout.clean(head)]
            }
            return TextLayout.wrapForeign(plain(value), width, maximumLines: maximumLines, keepingLineBreaks: true)
        case .section, .label, .button, .unknown:
            return [""]
        }
    }

    private static func table(_ field: FormField, _ value: JSONValue?, width: Int, compact: Bool) -> [String] {
        var headers = field.columnHeaders
        let rows = (value?.arrayValue ?? []).map { $0.objectValue ?? [:] }
        for row in rows { for key in row.keys.sorted() where !headers.contains(key) { headers.append(key) } }
        if compact {
            let filled = rows.filter { row in row.values.contains { !isBlank($0) } }
            return [
                filled.map { row in
                    headers.compactMap { header in
                        row[header].flatMap {
                            isBlank($0) ? nil : "\(TextLayout.clean(header)): \(TextLayout.clean(plain($0)))"
                        }
                    }.joined(separator: ", ")
                }.joined(separator: "; ")
            ]
        }
        guard !headers.isEmpty else { return [rows.isEmpty ? "" : TextLayout.clean(plain(value!))] }
        let separator = " │ "
        let cell = max(1, (width - separator.count * (headers.count - 1)) / headers.count)
        // The last column takes what integer division left over, so rows reach the full width.
        let lastCell = max(1, width - (cell + separator.count) * (headers.count - 1))
        let cells = Array(repeating: cell, count: headers.count - 1) + [lastCell]
        func line(_ texts: [String]) -> String {
            var text = zip(texts, cells).map { TextLayout.pad($0, $1) }.joined(separator: separator)
            while text.last == " " { text.removeLast() }
            return text
        }
        var lines = [line(headers.map(TextLayout.clean))]
        lines.append(cells.map { String(repeating: "─", count: $0) }.joined(separator: "─┼─"))
        for index in 0..<max(field.tableRows, rows.count) {
            let row = index < rows.count ? rows[index] : [:]
            lines.append(line(headers.map { row[$0].map { TextLayout.clean(plain($0)) } ?? "" }))
        }
        return lines
    }
}
