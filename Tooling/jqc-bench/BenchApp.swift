import Foundation
import JQCComposition
import JQCInspections
import JQCKit
import JQCNetwork
import JQCStorage

/// The real engine for the benchmarks: an ``AppComposition`` over a data directory, pointed at a standalone
/// dev server, signed in as alex, with the reference data (facilities, templates) pulled by one sync pass.
struct BenchApp {
    let app: AppComposition
    /// An active facility of alex's for the demo template 3 ("Restroom QC": field 2 rating, required;
    /// field 9 image; field 10 textarea; field 14 text).
    let facilityID: Int

    /// The demo template with an image field (seed.json).
    static let templateID = 3

    /// Builds the engine over `data` against `baseURL` and prepares it (not timed by callers).
    /// - Throws: ``BenchError`` or the engine's errors.
    static func open(
        data: URL, baseURL: String, synchronous: DatabaseConfiguration.Synchronous = .full, signIn: Bool = true
    ) async throws -> BenchApp {
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        let configuration = AppConfiguration(
            dataDirectory: data, server: ServerConfig(store: InMemorySelectionStore(baseURL)),
            synchronous: synchronous, logLevel: .warning)
        let app = try AppComposition(configuration: configuration)
        if signIn {
            _ = try await app.api.login(username: "alex", password: "inspect-demo")
            guard await app.connectivity.probeNow() else {
                throw BenchError("devserver", "The dev server at \(baseURL) does not answer its health probe.")
            }
            _ = try await app.sync.sync(explicit: true)
        }
        guard let facility = try app.reference.facilities().value.first else {
            throw BenchError("seed", "alex has no active facility after the reference pull; is the demo seed loaded?")
        }
        return BenchApp(app: app, facilityID: facility.id)
    }

    /// Starts a draft of template 3 with realistic answers (required rating, text, comments, pass/fail).
    /// - Throws: ``InspectionsError``.
    func startAnsweredDraft() throws -> Inspection {
        let draft = try app.inspections.start(StartRequest(templateID: Self.templateID, facilityID: facilityID))
        for (field, words) in [
            ("2", ["4"]), ("3", ["5"]), ("4", ["Pass"]), ("5", ["Fail"]), ("14", ["Jordan", "Lee"]),
            ("10", ["Floors", "mopped;", "two", "dispensers", "refilled;", "mirror", "streaked."]),
        ] {
            try app.inspections.answer(localID: draft.localID, fieldID: field, arguments: words)
        }
        return try app.inspections.inspection(localID: draft.localID)
    }

    /// Queues `count` completed inspections of template 3 (a rating cycling 1…5 and a text each: one outbox item
    /// and one `POST /api/v1/inspections` apiece), through the services; the sync rows' workload.
    /// - Returns: their local ids, in submit order.
    /// - Throws: ``InspectionsError``.
    func queueCompletedInspections(_ count: Int) throws -> [String] {
        try (0..<count).map { index in
            let draft = try app.inspections.start(StartRequest(templateID: Self.templateID, facilityID: facilityID))
            try app.inspections.answer(localID: draft.localID, fieldID: "2", arguments: ["\(1 + index % 5)"])
            try app.inspections.answer(localID: draft.localID, fieldID: "14", arguments: ["Jordan", "Lee"])
            _ = try app.inspections.submit(localID: draft.localID)
            return draft.localID
        }
    }
}
