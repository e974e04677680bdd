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

/// Every error type of the library modules and the dev server with the codes it declares (its kind's
/// cases). The last test below fails when a type adopts `CodedError` in the sources and is missing here.
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

/// The names of the types that adopt `CodedError` in the Swift files under `folders` (relative to the
/// repository root), by a scan of their declarations (`struct Name: CodedError`, `enum Name: …, CodedError`).
private func codedErrorTypes(under folders: [String]) throws -> Set<String> {
    let declaration = #/(?:struct|enum|class) (\w+)\s*:[^{]*\bCodedError\b/#
    var names = Set<String>()
    for folder in folders {
        let root = TestPaths.repositoryRoot.appendingPathComponent(folder)
        let files = try #require(FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil))
        for case let file as URL in files where file.pathExtension == "swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            for match in text.matches(of: declaration) { names.insert(String(match.output.1)) }
        }
    }
    return names
}

@Suite("Error codes: declared in the sources, documented in Docs/SHELL.md (issue 16)")
struct ErrorCodeCatalogTests {
    @Test("every code a module or the shell declares is in the Error codes table")
    func everyDeclaredCodeIsDocumented() throws {
        let documented = Set(try ErrorCodeTable.documented())
        let shell = try ErrorCodeTable.declaredByShell()
        #expect(shell.contains("shell.unknown_command") && shell.contains("shell.usage"), "\(shell)")
        for (type, codes) in declared + [("ShellError", shell)] {
            #expect(!codes.isEmpty, "\(type) declares no code")
            let missing = codes.filter { !documented.contains($0) }
            #expect(missing.isEmpty, "\(type)'s codes missing from Docs/SHELL.md \"Error codes\": \(missing)")
        }
    }

    @Test("every documented code is declared by some error, once, as module.snake_case")
    func everyDocumentedCodeIsDeclared() throws {
        let documented = try ErrorCodeTable.documented()
        #expect(documented.count > 100, "the table has \(documented.count) rows")
        let all = Set(declared.flatMap(\.codes) + (try ErrorCodeTable.declaredByShell()))
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

    @Test("every type that adopts CodedError in Modules, Tooling and the shell is in the catalog above")
    func catalogIsComplete() throws {
        let library = try codedErrorTypes(under: ["Modules", "Tooling/JQCDevServer"])
        #expect(library.isSuperset(of: ["IssuesError", "DatabaseError", "APIError"]), "\(library.sorted())")
        #expect(library.subtracting(declared.map(\.type)).sorted() == [])
        // The shell's two are read from its source: ShellError's kinds, and UsageError's shell.bad_option.
        #expect(try codedErrorTypes(under: ["Apps/jqc-shell"]) == ["ShellError", "UsageError"])
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
