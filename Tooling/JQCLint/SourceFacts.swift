import SwiftSyntax

/// What the import and text rules read from one file's syntax tree, gathered in one walk.
///
/// Every `#if` branch is walked (each may be compiled somewhere), and so is code inside string interpolations;
/// comments are trivia and never produce a fact, and the text of string and regex literals is never taken for
/// code.
struct SourceFacts {
    /// A place where a name or a literal occurs.
    struct Occurrence: Equatable {
        /// The name as the rule compares it (`Timer`, `print`, `nonisolated(unsafe)`, `@unchecked`), or for a
        /// string literal its text (escapes as written, each interpolation replaced by `{}`).
        let text: String
        /// The 1-based line.
        let line: Int
        /// The 1-based column (UTF-8 bytes).
        let column: Int
    }

    /// The file the facts come from.
    let file: ParsedSource
    /// Every import declaration.
    private(set) var imports: [ImportDeclaration] = []
    /// References to a type or value by name: `Timer` in `Timer.scheduledTimer`, `Foundation.Timer(…)`,
    /// `let t: Timer` (not declarations, labels or members' declarations).
    private(set) var references: [Occurrence] = []
    /// Calls of a free function by its bare (or `Swift.`-qualified) name: `print("x")`, `print ("x")`; not
    /// `logger.print(…)`, not `func print`.
    private(set) var calls: [Occurrence] = []
    /// Declaration modifiers as written without spaces: `nonisolated(unsafe)`, `public`, `private(set)`.
    private(set) var modifiers: [Occurrence] = []
    /// Attributes of declarations and types by name: `@unchecked`, `@testable`, `@MainActor`.
    private(set) var attributes: [Occurrence] = []
    /// String literals of every form, located at their opening delimiter (`#"` of a raw string).
    private(set) var strings: [Occurrence] = []

    /// Walks a parsed file once.
    init(_ file: ParsedSource) {
        self.file = file
        let visitor = Visitor(file: file)
        visitor.walk(file.tree)
        imports = visitor.imports
        references = visitor.references
        calls = visitor.calls
        modifiers = visitor.modifiers
        attributes = visitor.attributes
        strings = visitor.strings
    }

    private final class Visitor: SyntaxVisitor {
        let file: ParsedSource
        var imports: [ImportDeclaration] = []
        var references: [Occurrence] = []
        var calls: [Occurrence] = []
        var modifiers: [Occurrence] = []
        var attributes: [Occurrence] = []
        var strings: [Occurrence] = []

        init(file: ParsedSource) {
            self.file = file
            super.init(viewMode: .sourceAccurate)
        }

        func occurrence(_ text: String, at node: some SyntaxProtocol) -> Occurrence {
            let place = file.place(of: node)
            return Occurrence(text: text, line: place.line, column: place.column)
        }

        override func visit(_ node: ImportDeclSyntax) -> SyntaxVisitorContinueKind {
            if let declaration = ImportScanner.declaration(node, in: file) { imports.append(declaration) }
            return .skipChildren
        }

        override func visit(_ node: DeclReferenceExprSyntax) -> SyntaxVisitorContinueKind {
            references.append(occurrence(ImportScanner.name(of: node.baseName), at: node))
            return .visitChildren
        }

        override func visit(_ node: IdentifierTypeSyntax) -> SyntaxVisitorContinueKind {
            references.append(occurrence(ImportScanner.name(of: node.name), at: node))
            return .visitChildren
        }

        override func visit(_ node: MemberTypeSyntax) -> SyntaxVisitorContinueKind {
            references.append(occurrence(ImportScanner.name(of: node.name), at: node.name))
            return .visitChildren
        }

        override func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
            let callee = node.calledExpression
            if let name = callee.as(DeclReferenceExprSyntax.self) {
                calls.append(occurrence(ImportScanner.name(of: name.baseName), at: callee))
            } else if let member = callee.as(MemberAccessExprSyntax.self),
                let base = member.base?.as(DeclReferenceExprSyntax.self), base.baseName.text == "Swift"
            {
                calls.append(occurrence(ImportScanner.name(of: member.declName.baseName), at: callee))
            }
            return .visitChildren
        }

        override func visit(_ node: DeclModifierSyntax) -> SyntaxVisitorContinueKind {
            let detail = node.detail.map { "(\($0.detail.text))" } ?? ""
            modifiers.append(occurrence(node.name.text + detail, at: node))
            return .visitChildren
        }

        override func visit(_ node: AttributeSyntax) -> SyntaxVisitorContinueKind {
            attributes.append(occurrence("@" + node.attributeName.trimmedDescription, at: node))
            return .visitChildren
        }

        override func visit(_ node: StringLiteralExprSyntax) -> SyntaxVisitorContinueKind {
            var text = ""
            for segment in node.segments {
                if case .stringSegment(let part) = segment {
                    text += part.content.text
                } else {
                    text += "{}"  // an interpolation
                }
            }
            strings.append(occurrence(text, at: node))
            return .visitChildren
        }
    }
}
