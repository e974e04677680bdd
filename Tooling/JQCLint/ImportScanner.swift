/// One `import` declaration found in a file.
public struct ImportDeclaration: Sendable, Equatable {
    /// The imported module (the first component of `import struct M.T`).
    public var module: String
    /// The 1-based line of the module name.
    public var line: Int
    /// The 1-based column (UTF-8 bytes) of the module name.
    public var column: Int
}

/// Finds import declarations among a file's tokens.
///
/// Understands `import M`, `@testable import M`, `@_exported import M`, `@_spi(S) import M`,
/// `public import M` (and other access levels), `import struct M.T` (and the other kinds), and imports
/// inside `#if canImport(M)` blocks (every branch is read, since each may be compiled somewhere).
public enum ImportScanner {
    private static let importKinds: Set<String> = [
        "typealias", "struct", "class", "enum", "protocol", "let", "var", "func", "actor", "macro",
    ]
    private static let modifiers: Set<String> = ["public", "internal", "package", "private", "fileprivate", ")", ";"]

    /// The imports declared in a token stream.
    /// - Parameter tokens: the file's tokens from ``SwiftLexer/tokenize(_:)``.
    /// - Returns: the imports in source order.
    public static func imports(in tokens: [Token]) -> [ImportDeclaration] {
        let code = tokens.filter { !$0.isComment }
        var result: [ImportDeclaration] = []
        for (index, token) in code.enumerated() where token.kind == .word && token.text == "import" {
            if index > 0 {
                let previous = code[index - 1]
                let startsStatement =
                    previous.line < token.line || previous.kind == .attribute
                    || modifiers.contains(previous.text)
                guard startsStatement else { continue }
            }
            var next = index + 1
            if next + 1 < code.count, importKinds.contains(code[next].text), code[next + 1].kind == .word {
                next += 1
            }
            guard next < code.count, code[next].kind == .word else { continue }
            let name = code[next]
            result.append(ImportDeclaration(module: name.text, line: name.line, column: name.column))
        }
        return result
    }
}
