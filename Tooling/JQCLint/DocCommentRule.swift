import SwiftSyntax

/// The `undocumented-public` rule: every public declaration of a non-test target has a `///` doc comment
/// (STYLE.md item 5; issue 19).
///
/// **Which declarations.** Those marked `public` or `open`, members without an access modifier of a
/// `public extension`, requirements of a public protocol and cases of a public enum — when every enclosing type
/// is public too (a `public` member of an internal type is no API). Imports, extensions themselves, accessors,
/// deinitialisers and anything inside a function body are not declarations of the API.
///
/// **Which comment counts.** The comment nearest above the declaration, before its attributes, must be a doc
/// comment (`///` lines or `/** … */`); blank lines between are allowed. A plain `//` or `/* */` comment between
/// the doc comment and the declaration cuts it off: the compiler would still attach the doc comment, but
/// swift-format's rule and a reader do not, so the house rule is the stricter one — put such a note (a
/// `// because:`) at the end of the declaration's line instead.
///
/// **Witnesses are excepted.** A member needs no comment of its own when it implements a requirement that is
/// documented elsewhere: it is an `override`, or its name (`description`, `init(from:)`, `send(_:)`) is a
/// requirement of a protocol its type conforms to in a declaration or extension of the same target — a protocol
/// of ``knownRequirements`` (standard library, Foundation, Swift Testing) or any protocol declared in the
/// package (with the protocols it inherits), named directly or through a typealias of the package. A member of
/// an extension of a protocol is a default implementation, so a witness of that protocol's requirements.
public enum DocCommentRule {
    /// Requirements of the standard library's, Foundation's and Swift Testing's protocols, by protocol name, as
    /// signatures (`init(from:)`, `==(_:_:)`, `description`; associated types by name).
    public static let knownRequirements: [String: [String]] = [
        "CustomStringConvertible": ["description"],
        "CustomDebugStringConvertible": ["debugDescription"],
        "LosslessStringConvertible": ["init(_:)"],
        "CustomReflectable": ["customMirror"],
        "Equatable": ["==(_:_:)"],
        "Hashable": ["hash(into:)", "hashValue"],
        "Comparable": ["<(_:_:)", "<=(_:_:)", ">(_:_:)", ">=(_:_:)"],
        "Strideable": ["advanced(by:)", "distance(to:)", "Stride"],
        "Encodable": ["encode(to:)"],
        "Decodable": ["init(from:)"],
        "CodingKey": ["stringValue", "intValue", "init(stringValue:)", "init(intValue:)"],
        "Error": [],
        "LocalizedError": ["errorDescription", "failureReason", "recoverySuggestion", "helpAnchor"],
        "RawRepresentable": ["rawValue", "init(rawValue:)", "RawValue"],
        "CaseIterable": ["allCases", "AllCases"],
        "Identifiable": ["id", "ID"],
        "OptionSet": ["init()", "Element"],
        "Sequence": ["makeIterator()", "underestimatedCount", "Element", "Iterator"],
        "IteratorProtocol": ["next()", "Element"],
        "Collection": [
            "startIndex", "endIndex", "index(after:)", "subscript(_:)", "count", "isEmpty", "indices", "Index",
            "Indices", "SubSequence",
        ],
        "BidirectionalCollection": ["index(before:)"],
        "RandomAccessCollection": ["index(_:offsetBy:)", "distance(from:to:)"],
        "AsyncSequence": ["makeAsyncIterator()", "Element", "AsyncIterator", "Failure"],
        "AsyncIteratorProtocol": ["next()", "next(isolation:)", "Element", "Failure"],
        "ExpressibleByNilLiteral": ["init(nilLiteral:)"],
        "ExpressibleByBooleanLiteral": ["init(booleanLiteral:)", "BooleanLiteralType"],
        "ExpressibleByIntegerLiteral": ["init(integerLiteral:)", "IntegerLiteralType"],
        "ExpressibleByFloatLiteral": ["init(floatLiteral:)", "FloatLiteralType"],
        "ExpressibleByUnicodeScalarLiteral": ["init(unicodeScalarLiteral:)", "UnicodeScalarLiteralType"],
        "ExpressibleByExtendedGraphemeClusterLiteral": [
            "init(extendedGraphemeClusterLiteral:)", "ExtendedGraphemeClusterLiteralType",
        ],
        "ExpressibleByStringLiteral": ["init(stringLiteral:)", "StringLiteralType"],
        "ExpressibleByStringInterpolation": ["init(stringInterpolation:)", "StringInterpolation"],
        "ExpressibleByArrayLiteral": ["init(arrayLiteral:)", "ArrayLiteralElement"],
        "ExpressibleByDictionaryLiteral": ["init(dictionaryLiteral:)", "Key", "Value"],
        "RandomNumberGenerator": ["next()"],
        "TextOutputStream": ["write(_:)"],
        "TextOutputStreamable": ["write(to:)"],
        "Clock": ["now", "minimumResolution", "sleep(until:tolerance:)", "Duration", "Instant"],
        "InstantProtocol": ["advanced(by:)", "duration(to:)", "Duration"],
        "CustomTestStringConvertible": ["testDescription"],
    ]

    /// The protocols each known protocol inherits, so a conformance to `Codable` covers `init(from:)`.
    static let knownRefinements: [String: [String]] = [
        "Codable": ["Encodable", "Decodable"],
        "Hashable": ["Equatable"],
        "Comparable": ["Equatable"],
        "Strideable": ["Comparable"],
        "CodingKey": ["CustomStringConvertible", "CustomDebugStringConvertible"],
        "LocalizedError": ["Error"],
        "LosslessStringConvertible": ["CustomStringConvertible"],
        "OptionSet": ["RawRepresentable"],
        "Collection": ["Sequence"],
        "BidirectionalCollection": ["Collection"],
        "RandomAccessCollection": ["BidirectionalCollection"],
        "ExpressibleByExtendedGraphemeClusterLiteral": ["ExpressibleByUnicodeScalarLiteral"],
        "ExpressibleByStringLiteral": ["ExpressibleByExtendedGraphemeClusterLiteral"],
        "ExpressibleByStringInterpolation": ["ExpressibleByStringLiteral"],
        "InstantProtocol": ["Comparable", "Hashable"],
    ]

    static let note =
        "STYLE.md item 5: a public declaration says in a /// comment what it is, its shapes and units, what it "
        + "throws and the rule or CONTRACT.md line it comes from; readers of the engine's API (and its DocC "
        + "reference) see only that."
    static let hint =
        "Add a /// comment directly above the declaration (above its attributes). A witness of a protocol "
        + "requirement needs none when its type declares the conformance in this target."

    /// One public declaration without a doc comment.
    struct Miss: Equatable {
        /// What it is, for the message: `func debug(_:)`, `class DatabaseQueue`, `var standardOutput`.
        let declaration: String
        /// The plain comment that cuts a doc comment off (`// because: …`), when there is one.
        let cutOffBy: String?
        /// The 1-based line where the declaration starts (its first attribute or modifier).
        let line: Int
        /// The 1-based column (UTF-8 bytes).
        let column: Int
    }

    /// The public declarations of a file that lack a doc comment.
    /// - Parameters:
    ///   - file: the parsed file.
    ///   - conformances: the package's protocols and the conformances of the file's target.
    ///   - target: the file's target, whose conformances apply.
    /// - Returns: the misses in source order.
    static func misses(in file: ParsedSource, conformances: ConformanceIndex, target: String) -> [Miss] {
        let visitor = Visitor(file: file, index: conformances, target: target)
        visitor.walk(file.tree)
        return visitor.misses
    }

    /// Whether a declaration's leading trivia ends in a doc comment; otherwise, when a doc comment sits further
    /// up, the plain comment nearest above the declaration (the one that cuts the doc comment off).
    static func documentation(_ trivia: Trivia) -> (documented: Bool, cutOffBy: String?) {
        var nearestPlain: String?
        for piece in trivia.reversed() {
            switch piece {
            case .docLineComment, .docBlockComment:
                return nearestPlain == nil ? (true, nil) : (false, nearestPlain)
            case .lineComment(let text), .blockComment(let text):
                if nearestPlain == nil { nearestPlain = text }
            default:
                continue
            }
        }
        return (false, nil)
    }

    /// The name a witness and its requirement share: `init(from:)`, `send(_:)`, `==(_:_:)`.
    static func signature(_ name: String, labels: [String]) -> String {
        "\(name)(\(labels.map { "\($0):" }.joined()))"
    }

    /// A declaration's signature (`init(from:)`, `description`, `Element`), or nil for one without a name.
    static func signature(of decl: DeclSyntax) -> String? {
        if let function = decl.as(FunctionDeclSyntax.self) {
            let name = ImportScanner.name(of: function.name)
            let isOperator = name.first.map { !$0.isLetter && $0 != "_" } ?? false
            let labels = function.signature.parameterClause.parameters.map {
                isOperator ? "_" : ImportScanner.name(of: $0.firstName)
            }
            return signature(name, labels: labels)
        }
        if let initializer = decl.as(InitializerDeclSyntax.self) {
            let labels = initializer.signature.parameterClause.parameters.map { ImportScanner.name(of: $0.firstName) }
            return signature("init", labels: labels)
        }
        if let subscriptDecl = decl.as(SubscriptDeclSyntax.self) {
            let labels = subscriptDecl.parameterClause.parameters.map {
                $0.secondName == nil ? "_" : ImportScanner.name(of: $0.firstName)
            }
            return signature("subscript", labels: labels)
        }
        if let variable = decl.as(VariableDeclSyntax.self) {
            return variable.bindings.first?.pattern.as(IdentifierPatternSyntax.self).map {
                ImportScanner.name(of: $0.identifier)
            }
        }
        if let named = decl.asProtocol((any NamedDeclSyntax).self) { return ImportScanner.name(of: named.name) }
        return nil
    }

    /// The protocol names an inherited type lists: `Codable` and `Sendable` in `Codable & Sendable`, `Sendable`
    /// in `@unchecked Sendable`, `Error` in `Swift.Error`.
    static func protocolNames(_ type: TypeSyntax) -> [String] {
        if let identifier = type.as(IdentifierTypeSyntax.self) { return [ImportScanner.name(of: identifier.name)] }
        if let member = type.as(MemberTypeSyntax.self) { return [ImportScanner.name(of: member.name)] }
        if let composition = type.as(CompositionTypeSyntax.self) {
            return composition.elements.flatMap { protocolNames($0.type) }
        }
        if let attributed = type.as(AttributedTypeSyntax.self) { return protocolNames(attributed.baseType) }
        return []
    }

    /// The protocol names of an inheritance clause.
    static func inherited(_ clause: InheritanceClauseSyntax?) -> [String] {
        (clause?.inheritedTypes ?? []).flatMap { protocolNames($0.type) }
    }

    /// Where the protocols a member may implement come from.
    private enum WitnessSource {
        /// A type or an extension of one: the protocols the type conforms to in the target.
        case conformances
        /// A protocol's own declaration: its requirements implement only what the protocols it inherits require.
        case inheritedProtocols(String)
        /// An extension of a protocol: its members are default implementations of that protocol's requirements.
        case extendedProtocol(String)
    }

    /// Where a declaration sits, as the walk goes down.
    private struct Scope {
        /// The dotted name of the type (or the extended type) members belong to.
        let typeName: String
        /// Whether the scope is public: a public type, or an extension without a narrower access modifier.
        let isPublic: Bool
        /// Whether a member without an access modifier is public here (a public extension or protocol).
        let membersDefaultPublic: Bool
        /// Whether this is a public enum (its cases are public).
        let isPublicEnum: Bool
        /// Which protocols a member here may be a witness of.
        let witnessOf: WitnessSource
    }

    private final class Visitor: SyntaxVisitor {
        let file: ParsedSource
        let index: ConformanceIndex
        let target: String
        var scopes: [Scope] = []
        var misses: [Miss] = []

        init(file: ParsedSource, index: ConformanceIndex, target: String) {
            self.file = file
            self.index = index
            self.target = target
            super.init(viewMode: .sourceAccurate)
        }

        static func access(_ modifiers: DeclModifierListSyntax) -> String? {
            modifiers.first { $0.detail == nil && ImportScanner.accessLevels.contains($0.name.text) }?.name.text
        }

        /// Whether a declaration with these modifiers is public API where it stands.
        func isPublic(_ modifiers: DeclModifierListSyntax, isEnumCase: Bool = false) -> Bool {
            guard scopes.allSatisfy(\.isPublic) else { return false }
            switch Visitor.access(modifiers) {
            case "public", "open": return true
            case nil:
                guard let scope = scopes.last else { return false }
                return scope.membersDefaultPublic || (isEnumCase && scope.isPublicEnum)
            default: return false
            }
        }

        func isWitness(_ decl: DeclSyntax, modifiers: DeclModifierListSyntax) -> Bool {
            if modifiers.contains(where: { $0.name.text == "override" }) { return true }
            guard let scope = scopes.last, let signature = DocCommentRule.signature(of: decl) else { return false }
            var protocols = index.conformances(of: scope.typeName, in: target)
            switch scope.witnessOf {
            case .conformances: break
            case .inheritedProtocols(let name): protocols = index.refinements[name] ?? []
            case .extendedProtocol(let name): protocols.insert(name)
            }
            return index.requirements(of: protocols).contains(signature)
        }

        func check(_ decl: DeclSyntax, _ kind: String, modifiers: DeclModifierListSyntax, isEnumCase: Bool = false) {
            guard isPublic(modifiers, isEnumCase: isEnumCase) else { return }
            let found = DocCommentRule.documentation(decl.leadingTrivia)
            if found.documented || isWitness(decl, modifiers: modifiers) { return }
            let declaration: String
            if let variable = decl.as(VariableDeclSyntax.self) {
                declaration = "\(kind) " + variable.bindings.map(\.pattern.trimmedDescription).joined(separator: ", ")
            } else if let enumCase = decl.as(EnumCaseDeclSyntax.self) {
                declaration =
                    "case " + enumCase.elements.map { ImportScanner.name(of: $0.name) }.joined(separator: ", ")
            } else if kind == "init" || kind == "subscript" {
                declaration = DocCommentRule.signature(of: decl) ?? kind
            } else {
                declaration = "\(kind) \(DocCommentRule.signature(of: decl) ?? "")"
            }
            let place = file.place(of: decl)
            misses.append(
                Miss(declaration: declaration, cutOffBy: found.cutOffBy, line: place.line, column: place.column))
        }

        func enter(
            _ decl: DeclSyntax, _ kind: String, name: TokenSyntax, modifiers: DeclModifierListSyntax,
            isProtocol: Bool = false, isEnum: Bool = false
        ) {
            check(decl, kind, modifiers: modifiers)
            let typeName = (scopes.last.map { $0.typeName + "." } ?? "") + ImportScanner.name(of: name)
            let isPublic = isPublic(modifiers)
            scopes.append(
                Scope(
                    typeName: typeName, isPublic: isPublic, membersDefaultPublic: isProtocol && isPublic,
                    isPublicEnum: isEnum && isPublic,
                    witnessOf: isProtocol ? .inheritedProtocols(ImportScanner.name(of: name)) : .conformances))
        }

        override func visit(_ node: StructDeclSyntax) -> SyntaxVisitorContinueKind {
            enter(DeclSyntax(node), "struct", name: node.name, modifiers: node.modifiers)
            return .visitChildren
        }
        override func visitPost(_ node: StructDeclSyntax) { scopes.removeLast() }

        override func visit(_ node: ClassDeclSyntax) -> SyntaxVisitorContinueKind {
            enter(DeclSyntax(node), "class", name: node.name, modifiers: node.modifiers)
            return .visitChildren
        }
        override func visitPost(_ node: ClassDeclSyntax) { scopes.removeLast() }

        override func visit(_ node: ActorDeclSyntax) -> SyntaxVisitorContinueKind {
            enter(DeclSyntax(node), "actor", name: node.name, modifiers: node.modifiers)
            return .visitChildren
        }
        override func visitPost(_ node: ActorDeclSyntax) { scopes.removeLast() }

        override func visit(_ node: EnumDeclSyntax) -> SyntaxVisitorContinueKind {
            enter(DeclSyntax(node), "enum", name: node.name, modifiers: node.modifiers, isEnum: true)
            return .visitChildren
        }
        override func visitPost(_ node: EnumDeclSyntax) { scopes.removeLast() }

        override func visit(_ node: ProtocolDeclSyntax) -> SyntaxVisitorContinueKind {
            enter(DeclSyntax(node), "protocol", name: node.name, modifiers: node.modifiers, isProtocol: true)
            return .visitChildren
        }
        override func visitPost(_ node: ProtocolDeclSyntax) { scopes.removeLast() }

        override func visit(_ node: ExtensionDeclSyntax) -> SyntaxVisitorContinueKind {
            let access = Visitor.access(node.modifiers)
            let typeName = node.extendedType.trimmedDescription
            let isPublic = scopes.allSatisfy(\.isPublic) && (access == nil || access == "public" || access == "open")
            scopes.append(
                Scope(
                    typeName: typeName, isPublic: isPublic, membersDefaultPublic: access == "public",
                    isPublicEnum: false,
                    witnessOf: index.isProtocol(typeName) ? .extendedProtocol(typeName) : .conformances))
            return .visitChildren
        }
        override func visitPost(_ node: ExtensionDeclSyntax) { scopes.removeLast() }

        override func visit(_ node: FunctionDeclSyntax) -> SyntaxVisitorContinueKind {
            check(DeclSyntax(node), "func", modifiers: node.modifiers)
            return .skipChildren
        }

        override func visit(_ node: InitializerDeclSyntax) -> SyntaxVisitorContinueKind {
            check(DeclSyntax(node), "init", modifiers: node.modifiers)
            return .skipChildren
        }

        override func visit(_ node: SubscriptDeclSyntax) -> SyntaxVisitorContinueKind {
            check(DeclSyntax(node), "subscript", modifiers: node.modifiers)
            return .skipChildren
        }

        override func visit(_ node: VariableDeclSyntax) -> SyntaxVisitorContinueKind {
            check(DeclSyntax(node), node.bindingSpecifier.text, modifiers: node.modifiers)
            return .skipChildren
        }

        override func visit(_ node: TypeAliasDeclSyntax) -> SyntaxVisitorContinueKind {
            check(DeclSyntax(node), "typealias", modifiers: node.modifiers)
            return .skipChildren
        }

        override func visit(_ node: AssociatedTypeDeclSyntax) -> SyntaxVisitorContinueKind {
            check(DeclSyntax(node), "associatedtype", modifiers: node.modifiers)
            return .skipChildren
        }

        override func visit(_ node: EnumCaseDeclSyntax) -> SyntaxVisitorContinueKind {
            check(DeclSyntax(node), "case", modifiers: node.modifiers, isEnumCase: true)
            return .skipChildren
        }

        override func visit(_ node: MacroDeclSyntax) -> SyntaxVisitorContinueKind {
            check(DeclSyntax(node), "macro", modifiers: node.modifiers)
            return .skipChildren
        }

        override func visit(_ node: DeinitializerDeclSyntax) -> SyntaxVisitorContinueKind { .skipChildren }
        override func visit(_ node: ImportDeclSyntax) -> SyntaxVisitorContinueKind { .skipChildren }
        override func visit(_ node: CodeBlockSyntax) -> SyntaxVisitorContinueKind { .skipChildren }
        override func visit(_ node: ClosureExprSyntax) -> SyntaxVisitorContinueKind { .skipChildren }
    }
}

/// The protocols declared in a package and the conformances its types declare, per target: what
/// ``DocCommentRule`` needs to tell a witness from an undocumented declaration.
struct ConformanceIndex {
    /// Requirement signatures of each protocol declared in the package, by protocol name.
    private(set) var requirements: [String: Set<String>] = [:]
    /// The protocols each package protocol inherits.
    private(set) var refinements: [String: Set<String>] = [:]
    /// The protocols each type declares (in its declaration or an extension), by target, then dotted type name.
    private(set) var conformancesByTarget: [String: [String: Set<String>]] = [:]
    /// The protocols a package typealias names (`typealias Store = StoreProtocol`), so a conformance through
    /// the alias counts.
    private(set) var aliases: [String: Set<String>] = [:]

    /// Adds a file's protocols and conformances.
    mutating func add(_ file: ParsedSource, target: String) {
        let collector = Collector(viewMode: .sourceAccurate)
        collector.walk(file.tree)
        for (name, signatures) in collector.requirements { requirements[name, default: []].formUnion(signatures) }
        for (name, parents) in collector.refinements { refinements[name, default: []].formUnion(parents) }
        for (name, targets) in collector.aliases { aliases[name, default: []].formUnion(targets) }
        for (type, protocols) in collector.conformances {
            conformancesByTarget[target, default: [:]][type, default: []].formUnion(protocols)
        }
    }

    /// Whether a name is a protocol of the package or of ``DocCommentRule/knownRequirements``.
    func isProtocol(_ name: String) -> Bool {
        requirements[name] != nil || DocCommentRule.knownRequirements[name] != nil
    }

    /// The protocols a type declares in a target.
    func conformances(of type: String, in target: String) -> Set<String> {
        conformancesByTarget[target]?[type] ?? []
    }

    /// Every requirement of the given protocols and of the protocols they inherit.
    func requirements(of protocols: Set<String>) -> Set<String> {
        var result = Set<String>()
        var seen = Set<String>()
        var pending = Array(protocols)
        while let name = pending.popLast() {
            guard seen.insert(name).inserted else { continue }
            result.formUnion(requirements[name] ?? [])
            result.formUnion(DocCommentRule.knownRequirements[name] ?? [])
            pending += refinements[name] ?? []
            pending += DocCommentRule.knownRefinements[name] ?? []
            pending += aliases[name] ?? []
        }
        return result
    }

    private final class Collector: SyntaxVisitor {
        var requirements: [String: Set<String>] = [:]
        var refinements: [String: Set<String>] = [:]
        var conformances: [String: Set<String>] = [:]
        var typeNames: [String] = []
        var aliases: [String: Set<String>] = [:]

        func enter(_ name: TokenSyntax, _ clause: InheritanceClauseSyntax?) {
            let typeName = (typeNames.last.map { $0 + "." } ?? "") + ImportScanner.name(of: name)
            typeNames.append(typeName)
            conformances[typeName, default: []].formUnion(DocCommentRule.inherited(clause))
        }

        override func visit(_ node: StructDeclSyntax) -> SyntaxVisitorContinueKind {
            enter(node.name, node.inheritanceClause)
            return .visitChildren
        }
        override func visitPost(_ node: StructDeclSyntax) { typeNames.removeLast() }

        override func visit(_ node: ClassDeclSyntax) -> SyntaxVisitorContinueKind {
            enter(node.name, node.inheritanceClause)
            return .visitChildren
        }
        override func visitPost(_ node: ClassDeclSyntax) { typeNames.removeLast() }

        override func visit(_ node: ActorDeclSyntax) -> SyntaxVisitorContinueKind {
            enter(node.name, node.inheritanceClause)
            return .visitChildren
        }
        override func visitPost(_ node: ActorDeclSyntax) { typeNames.removeLast() }

        override func visit(_ node: EnumDeclSyntax) -> SyntaxVisitorContinueKind {
            enter(node.name, node.inheritanceClause)
            return .visitChildren
        }
        override func visitPost(_ node: EnumDeclSyntax) { typeNames.removeLast() }

        override func visit(_ node: ExtensionDeclSyntax) -> SyntaxVisitorContinueKind {
            let typeName = node.extendedType.trimmedDescription
            typeNames.append(typeName)
            conformances[typeName, default: []].formUnion(DocCommentRule.inherited(node.inheritanceClause))
            return .visitChildren
        }
        override func visitPost(_ node: ExtensionDeclSyntax) { typeNames.removeLast() }

        override func visit(_ node: ProtocolDeclSyntax) -> SyntaxVisitorContinueKind {
            let name = ImportScanner.name(of: node.name)
            var signatures = Set<String>()
            for member in node.memberBlock.members {
                if let signature = DocCommentRule.signature(of: member.decl) { signatures.insert(signature) }
            }
            requirements[name, default: []].formUnion(signatures)
            refinements[name, default: []].formUnion(DocCommentRule.inherited(node.inheritanceClause))
            return .skipChildren
        }

        override func visit(_ node: TypeAliasDeclSyntax) -> SyntaxVisitorContinueKind {
            aliases[ImportScanner.name(of: node.name), default: []].formUnion(
                DocCommentRule.protocolNames(node.initializer.value))
            return .skipChildren
        }

        override func visit(_ node: CodeBlockSyntax) -> SyntaxVisitorContinueKind { .skipChildren }
        override func visit(_ node: ClosureExprSyntax) -> SyntaxVisitorContinueKind { .skipChildren }
    }
}
