import SwiftSyntax

/// One `import` declaration found in a file.
public struct ImportDeclaration: Sendable, Equatable {
    /// The imported module (the first component of `import struct M.T`), without backticks.
    public var module: String
    /// The 1-based line of the module name.
    public var line: Int
    /// The 1-based column (UTF-8 bytes) of the module name.
    public var column: Int
    /// The attributes written before it, names only, in order: `@testable`, `@_exported`, `@_spi`,
    /// `@preconcurrency`, `@_implementationOnly`, `@_weakLinked`.
    public var attributes: [String] = []
    /// The access level written before it (`public`, `package`, `internal`, `fileprivate`, `private`), or nil.
    public var accessLevel: String? = nil
    /// For `import struct M.T` and the other kinds: the kind (`struct`, `func`, …), or nil.
    public var kind: String? = nil
    /// The whole imported path, dot-separated (`M.T` for `import struct M.T`).
    public var path: String = ""

    /// Whether the import re-exports the module to every importer of this one (`@_exported import`).
    public var isExported: Bool { attributes.contains("@_exported") }
}

/// Finds import declarations in a file's syntax tree (SwiftParser's, so every form the compiler reads).
///
/// Understands `import M`, `@testable import M`, `@_exported import M`, `@_implementationOnly import M`,
/// `@preconcurrency import M`, `@_spi(S) import M`, access-level imports (`public import M`, `package import M`,
/// `internal import M`, …), `import struct M.T` (and the other kinds), and imports inside `#if` blocks: every
/// branch is read, since each may be compiled somewhere (`#if canImport(M)` still imports `M`).
public enum ImportScanner {
    /// The imports declared in a source text.
    /// - Parameter source: the file's text.
    /// - Returns: the imports in source order.
    public static func imports(in source: String) -> [ImportDeclaration] {
        SourceFacts(ParsedSource(source)).imports
    }

    static let accessLevels: Set<String> = ["open", "public", "package", "internal", "fileprivate", "private"]

    /// The import one declaration makes, or nil when it names no module (an `import` the parser recovered from).
    static func declaration(_ node: ImportDeclSyntax, in file: ParsedSource) -> ImportDeclaration? {
        guard let first = node.path.first, first.name.presence == .present else { return nil }
        let place = file.place(of: first.name)
        let attributes = node.attributes.compactMap { element -> String? in
            guard case .attribute(let attribute) = element else { return nil }
            return "@" + attribute.attributeName.trimmedDescription
        }
        let access = node.modifiers.map(\.name.text).first { accessLevels.contains($0) }
        return ImportDeclaration(
            module: name(of: first.name), line: place.line, column: place.column, attributes: attributes,
            accessLevel: access, kind: node.importKindSpecifier?.text,
            path: node.path.map { name(of: $0.name) }.joined(separator: "."))
    }

    /// An identifier's name without backticks.
    static func name(of token: TokenSyntax) -> String {
        token.identifier?.name ?? token.text
    }
}
