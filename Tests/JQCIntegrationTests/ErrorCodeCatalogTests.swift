import Foundation
import JQCDevServer
import JQCFacilities
import JQCFollowUps
import JQCForms
import JQCInspections
import JQCIssues
import JQCJPEG
import JQCKit
import JQCNetwork
import JQCNotifications
import JQCPhotos
import JQCScheduling
import JQCStorage
import JQCSync
import JQCTestSupport
import Testing

/// The error types of the library modules and the dev server with the codes they carry (their kinds'
/// cases; PhotoError's refusals too): a cross-check of the source reading, which is what covers a new
/// feature's error (it needs no line here, only its rows in Docs/SHELL.md).
private let declared: [(type: String, codes: [String])] = [
    ("JSONValueError", JSONValueError.Kind.codes),
    ("WriteError", AtomicFile.WriteError.Kind.codes),
    ("LockError", FileLock.LockError.Kind.codes),
    ("DatabaseError", DatabaseError.Kind.codes),
    ("APIError", APIError.Kind.codes),
    ("TransportError", APIError.Kind.codes),  // a transport failure carries the code of the APIError it becomes
    ("JPEGError", JPEGError.Kind.codes),
    ("StageOrderError", StageOrderError.Kind.codes),
    ("SyncStopError", SyncStopError.Kind.codes),
    ("FormsError", FormsError.Kind.codes),
    ("FacilitiesError", FacilitiesError.Kind.codes),
    ("PhotoError", PhotoError.codes),
    ("InspectionsError", InspectionsError.Kind.codes),
    ("IssuesError", IssuesError.Kind.codes),
    ("SchedulingError", SchedulingError.Kind.codes),
    ("FollowUpsError", FollowUpsError.Kind.codes),
    ("NotificationsError", NotificationsError.Kind.codes),
    ("DevServerError", DevServerError.Kind.codes),
]

/// The types that adopt `CodedError` in the Swift files under `folders` (relative to the repository root),
/// by a scan of their declarations (`struct Name: CodedError`, `enum Name: …, CodedError`): name → whether
/// the same file declares a `CodedErrorKind` (which ``ErrorCodeTable/declaredInSources(under:)`` reads).
private func codedErrorTypes(under folders: [String]) throws -> [String: Bool] {
    let declaration = #/(?:struct|enum|class) (\w+)\s*:[^{]*\bCodedError\b/#
    var types: [String: Bool] = [:]
    for folder in folders {
        let root = TestPaths.repositoryRoot.appendingPathComponent(folder)
        let files = try #require(FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil))
        for case let file as URL in files where file.pathExtension == "swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            for match in text.matches(of: declaration) {
                types[String(match.output.1)] = text.contains("enum Kind: String, CodedErrorKind")
            }
        }
    }
    return types
}

@Suite("Error codes: declared in the sources, documented in Docs/SHELL.md (issue 16)")
struct ErrorCodeCatalogTests {
    @Test("every code an error kind declares in the sources (the shell's included) is in the Error codes table")
    func everyDeclaredCodeIsDocumented() throws {
        let documented = Set(try ErrorCodeTable.documented())
        let sources = try ErrorCodeTable.declaredInSources()
        #expect(sources["Apps/jqc-shell/Core/ShellError.swift"]?.contains("shell.unknown_command") == true)
        for (file, codes) in sources.sorted(by: { $0.key < $1.key }) {
            let missing = codes.filter { !documented.contains($0) }
            #expect(missing.isEmpty, "\(file)'s codes missing from Docs/SHELL.md \"Error codes\": \(missing)")
        }
        // Codes built at run time rather than listed in a kind (a photo refusal's photos.<jpeg kind>).
        for (type, codes) in declared {
            #expect(codes.filter { !documented.contains($0) } == [], "\(type)")
        }
    }

    @Test("the source reading finds exactly what each error's kind declares")
    func sourceReadingAgrees() throws {
        let scanned = Set(try ErrorCodeTable.declaredInSources().values.joined())
        for (type, codes) in declared where type != "PhotoError" {
            #expect(Set(codes).isSubset(of: scanned), "\(type): \(Set(codes).subtracting(scanned).sorted())")
        }
        #expect(Set(PhotoError.Kind.codes).isSubset(of: scanned))
    }

    @Test("every documented code is declared by some error, once, as module.snake_case")
    func everyDocumentedCodeIsDeclared() throws {
        let documented = try ErrorCodeTable.documented()
        #expect(documented.count > 100, "the table has \(documented.count) rows")
        let all = Set(declared.flatMap(\.codes)).union(try ErrorCodeTable.declaredInSources().values.joined())
        #expect(documented.filter { !all.contains($0) } == [], "documented but declared nowhere")
        #expect(documented.count == Set(documented).count, "a code is listed twice")
        #expect(documented.filter { !ErrorCodeTable.isWellFormed($0) } == [])
    }

    @Test("each error's codes share its module's prefix")
    func prefixes() {
        let expected: [String: String] = [
            "JSONValueError": "kit", "WriteError": "kit", "LockError": "kit", "DatabaseError": "storage",
            "APIError": "network", "TransportError": "network", "JPEGError": "jpeg", "StageOrderError": "sync",
            "SyncStopError": "sync", "FormsError": "forms", "FacilitiesError": "facilities", "PhotoError": "photos",
            "InspectionsError": "inspections", "IssuesError": "issues", "SchedulingError": "scheduling",
            "FollowUpsError": "followups", "NotificationsError": "notifications", "DevServerError": "devserver",
        ]
        for (type, codes) in declared {
            let prefix = expected[type] ?? "?"
            #expect(codes.allSatisfy { $0.hasPrefix(prefix + ".") }, "\(type): \(codes)")
        }
    }

    @Test("every type that adopts CodedError declares its codes in a CodedErrorKind the source reading sees")
    func everyErrorDeclaresItsKinds() throws {
        let library = try codedErrorTypes(under: ["Modules", "Tooling/JQCDevServer"])
        #expect(Set(library.keys).isSuperset(of: declared.map(\.type)), "\(library.keys.sorted())")
        // TransportError carries APIError's codes (declared in APIError.swift); every other type has its kind.
        #expect(library.filter { !$0.value && $0.key != "TransportError" }.keys.sorted() == [])
        // The shell's two: ShellError's kinds, and UsageError's shell.bad_option among them.
        #expect(try codedErrorTypes(under: ["Apps/jqc-shell"]) == ["ShellError": true, "UsageError": false])
    }

    @Test("a wrapping error keeps its cause; the shell's code of a failure with none is shell.failed")
    func causes() throws {
        let store = DatabaseError(kind: .diskFull, detail: "full")
        let issue = IssuesError(.storage, "The local store failed: \(store.message)", cause: store)
        #expect(issue.code == "issues.storage")
        #expect((issue.cause as? DatabaseError)?.code == "storage.disk_full")
        let refusal = JPEGError(.notJPEG, "The file is not a JPEG photo.")
        #expect(PhotoError(.refused, refusal.message, cause: refusal).code == "photos.not_jpeg")
        #expect(PhotoError(.refused, "Refused.").code == "photos.refused")
        #expect(errorCode(of: CancellationError(), fallback: "shell.failed") == "shell.failed")
        #expect(errorCode(of: TransportError.offline("refused"), fallback: "shell.failed") == "network.offline")
        #expect(SyncStopError(.offline, "Offline.").code == "sync.offline")
    }
}
