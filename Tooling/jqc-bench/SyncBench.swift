import Foundation
import JQCComposition
import JQCInspections
import JQCIssues
import JQCKit
import JQCNetwork
import JQCStorage
import JQCSync

/// SPEC.md §6 sync: N completed inspections, each with one photo in its image field (template 3, field 9),
/// pushed by the REAL engine — `app.sync.sync(explicit: true)` on an ``AppComposition`` signed in as alex —
/// to a fresh standalone `jqc-devserver` on loopback (data on tmpfs), against the same requests from one
/// `curl -K config` process (N photo uploads, then N `POST /api/v1/inspections` with the same bodies and
/// local ids the engine sent) against another fresh dev server, on the engine's connections: each upload and
/// inspection and issue `POST` on its own (`Connection: close`; CurlTransport never lets libcurl re-send one).
/// The same curl all kept alive is in the note.
///
/// Not timed: the reference pull, and queueing the work through the services (start, answer, attach the
/// photo through JQCPhotos' pipeline, submit). Timed: the explicit pass(es) until nothing is pending. The
/// pass also runs the pull stages (reference, assigned issues, notifications, dashboard): a handful of GETs
/// curl does not send.
///
/// Each inspection also carries one flagged issue (`app.issues.flag`), pushed after it (rule 11); curl sends
/// the same `POST /api/v1/issues` bodies after the inspections (a fresh server numbers the records in the same
/// order, so the `inspection_id`s match).
///
/// Seam `SyncBench.memory`: ``MemoryBench`` measures RSS over a stand-in push loop of 10,000 items (see its
/// note for why it stays a stand-in).
struct SyncBench {
    let devserver: String
    let work: URL
    let serverWork: URL
    let inspections: Int

    /// Rounds (odd): each runs the engine and then curl on fresh servers, and the round whose ratio is the
    /// median is reported (every round's ratio is in the note): one round's 3 s move by ±30 % on a shared VM.
    var rounds = 3

    /// Issues queued per inspection.
    static let issuesPerInspection = 1

    func run() async throws -> [ReportRow] {
        let name = "Sync: \(inspections) inspections + \(inspections) issues + \(inspections) photos vs curl"
        guard let curl = Child.which("curl") else {
            return [.skipped(name, target: "ours/curl time ≤ 1.3×", why: "curl not found: run make deps")]
        }
        try? FileManager.default.removeItem(at: work)
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let source = work.appendingPathComponent("camera-800x600.jpg")
        try PhotoBench.generatePhoto(width: 800, height: 600, quality: 90, to: source)

        // The floor: the same requests from one curl process against a fresh server, twice: with the engine's
        // connection policy (every upload and POST on its own connection, `Connection: close`), then all on one
        // kept-alive connection (information).
        func config(fresh: Bool, _ session: Session, _ run: EngineRun) -> String {
            let close = fresh ? "header = \"Connection: close\"\n" : ""
            var config = ""
            for upload in run.uploads {
                if !config.isEmpty { config += "next\n" }
                config += session.entry(url: "\(session.baseURL)/api/v1/photos/upload") + close
                config += "form = \(session.quoted("file=@\(upload.file.path);type=image/jpeg"))\n"
                config += "form = \"entity_type=inspection\"\n"
                config += "form = \(session.quoted("captured_at=\(DateFormats.instantString(upload.capturedAt))"))\n"
            }
            for body in run.bodies {
                config += "next\n"
                config += session.entry(url: "\(session.baseURL)/api/v1/inspections") + close
                config += "header = \"Content-Type: application/json\"\n"
                config += "data = \(session.quoted(body.jsonString()))\n"
            }
            for body in run.issueBodies {
                config += "next\n"
                config += session.entry(url: "\(session.baseURL)/api/v1/issues") + close
                config += "header = \"Content-Type: application/json\"\n"
                config += "data = \(session.quoted(body.jsonString()))\n"
            }
            return config
        }
        func curlTime(fresh: Bool, label: String, _ run: EngineRun) async throws -> Double {
            let session = try await Session.start(devserver: devserver, work: serverWork, label: label)
            defer { session.stop() }
            return try session.runCurl(
                curl, config: config(fresh: fresh, session, run), expecting: ["200", "201"], count: run.requests,
                work: work, name: label)
        }
        var measured: [(run: EngineRun, floor: Double)] = []
        for round in 1...max(rounds, 1) {
            let run = try await engineRun(source: source, synchronous: .full, label: "full-\(round)")
            measured.append((run, try await curlTime(fresh: true, label: "sync-curl-\(round)", run)))
        }
        let roundRatios = measured.map { format(ratio: $0.run.elapsed / $0.floor) }.joined(separator: ", ")
        let (median, floor) = measured.sorted { $0.run.elapsed / $0.floor < $1.run.elapsed / $1.floor }[
            measured.count / 2]
        let (ours, passes, requests) = (median.elapsed, median.passes, median.requests)
        let aliveFloor = try await curlTime(fresh: false, label: "sync-curl-alive", median)
        // The same engine run with synchronous=NORMAL (information): how much of the gap is the local commits'
        // fsyncs (the records are group commits, flushed in the background at FULL; none at NORMAL).
        let normal = try await engineRun(source: source, synchronous: .normal, label: "normal")
        note(
            "sync: engine \(format(ms: ours)) in \(passes) pass(es), curl \(format(ms: floor)), "
                + "engine NORMAL \(format(ms: normal.elapsed)); rounds \(roundRatios); stages "
                + measured.map { "[\($0.run.stageTimes)]" }.joined(separator: " "))
        func rate(_ elapsed: Double) -> String {
            String(format: "%.0f req/s (%@)", Double(requests) / elapsed, format(ms: elapsed))
        }
        return [
            .ratio(
                name, ours: rate(ours), reference: "curl -K (one process, the engine's connections): \(rate(floor))",
                ratio: ours / floor, atMost: 1.3, target: "ours/curl time ≤ 1.3×",
                note: "app.sync.sync(explicit: true), \(passes) pass(es), until nothing is pending (also runs the "
                    + "pull stages); \(requests) requests (photos first, then inspections with their server photo "
                    + "paths, then their issues) on fresh dev servers; the median of \(measured.count) rounds by "
                    + "ratio (each round's ratio: \(roundRatios)); curl sends each upload, "
                    + "inspection and issue on its own connection as the engine does (a non-idempotent POST is "
                    + "never re-sent below the outbox); all kept alive it took \(rate(aliveFloor)) "
                    + "(ours \(format(ratio: ours / aliveFloor)) of that); by stage in that round: "
                    + median.stageTimes),
            ReportRow(
                benchmark: "Sync: the same with synchronous=NORMAL (no fsync per local commit)",
                ours: rate(normal.elapsed), reference: "curl -K: \(rate(floor))",
                ratio: format(ratio: normal.elapsed / floor), target: "info", verdict: .info,
                note: "AppConfiguration.synchronous = .normal; splits the row above: local commits vs the client"),
        ]
    }

    /// What one engine run sent and how long it took.
    struct EngineRun {
        /// The photo files uploaded (copies of the pipeline's output) and when each was taken.
        let uploads: [(file: URL, capturedAt: Date)]
        /// The inspection bodies, as the push stage built them.
        let bodies: [JSONValue]
        /// The issue bodies, as the push stage built them.
        let issueBodies: [JSONValue]
        /// The timed passes, in seconds.
        let elapsed: Double
        /// The explicit passes it took until nothing was pending.
        let passes: Int
        /// Each stage's time in the timed passes (`photos 1.21 s, inspections 1.43 s, …`), as the passes report.
        let stageTimes: String
        var requests: Int { uploads.count + bodies.count + issueBodies.count }
    }

    /// One engine run on a fresh dev server: queue N completed inspections with a photo each (not timed), then
    /// time explicit passes until nothing is pending.
    /// - Returns: the photo files and bodies the engine sent, the time and the number of passes.
    private func engineRun(source: URL, synchronous: DatabaseConfiguration.Synchronous, label: String) async throws
        -> EngineRun
    {
        let server = try DevServerProcess(
            executable: devserver, dataDirectory: serverWork.appendingPathComponent("sync-\(label)"))
        defer { server.stop() }
        let runWork = work.appendingPathComponent(label, isDirectory: true)
        let bench = try await BenchApp.open(
            data: runWork.appendingPathComponent("data"), baseURL: server.baseURL, synchronous: synchronous)
        let app = bench.app
        note("sync (\(label)): queueing \(inspections) completed inspections with a photo and an issue each")
        let photoCopies = runWork.appendingPathComponent("uploads", isDirectory: true)
        try FileManager.default.createDirectory(at: photoCopies, withIntermediateDirectories: true)
        var uploads: [(file: URL, capturedAt: Date)] = []
        let (localIDs, issueIDs) = try bench.queueMixedInspections(inspections, photo: source) {
            index, file, capturedAt in
            // The curl side uploads the very bytes the engine uploads (the pipeline's output file).
            let copy = photoCopies.appendingPathComponent("\(index).jpg")
            try FileManager.default.copyItem(at: file, to: copy)
            uploads.append((copy, capturedAt))
        }
        var passes = 0
        var stages: [StageReport] = []
        let elapsed = try await seconds {
            repeat {
                passes += 1
                stages += try await app.sync.sync(explicit: true).stages
            } while try pending(app) > 0 && passes < 5
        }
        let left = try pending(app)
        guard left == 0 else {
            throw BenchError(
                "sync",
                "\(left) items were still pending after \(passes) explicit passes; see \(runWork.path)/data/jqc.log.")
        }
        // The bodies the engine sent: the stored inspections (the photo's server path in field 9) as the stage
        // builds them.
        let bodies = try localIDs.map { localID in
            InspectionPushStage.payload(for: try app.inspections.inspection(localID: localID))
        }
        let issueBodies = try issueIDs.map { localID in
            let issue = try app.issues.issue(id: localID)
            let parent = try app.inspections.inspection(localID: issue.inspectionLocalID)
            return IssuePushStage.payload(for: issue, inspectionServerID: parent.serverID)
        }
        var byStage: [(name: String, seconds: Double)] = []
        for stage in stages {
            if let index = byStage.firstIndex(where: { $0.name == stage.name }) {
                byStage[index].seconds += stage.seconds
            } else {
                byStage.append((stage.name, stage.seconds))
            }
        }
        return EngineRun(
            uploads: uploads, bodies: bodies, issueBodies: issueBodies, elapsed: elapsed, passes: passes,
            stageTimes: byStage.map { "\($0.name) \(format(ms: $0.seconds))" }.joined(separator: ", "))
    }

    private func pending(_ app: AppComposition) throws -> Int {
        try app.outboxStatus().pending.values.reduce(0, +)
    }
}

extension BenchApp {
    /// The mixed sync row's workload (``SyncBench``, issue 17), through the services: `count` completed
    /// inspections of template 3 (a rating cycling 1…5 and a text), each with `photo` attached in its image
    /// field 9 (JQCPhotos' pipeline) and ``SyncBench/issuesPerInspection`` flagged issue(s), then submitted —
    /// one photo upload, one inspection `POST` and one issue `POST` apiece. `attached` sees each photo as it
    /// is queued (index, its local file, when it was taken).
    /// - Returns: the inspections' local ids (submit order) and the issues' local ids (flag order).
    /// - Throws: ``InspectionsError``, the photos' and issues' errors, or `attached`'s.
    func queueMixedInspections(
        _ count: Int, photo source: URL,
        attached: (_ index: Int, _ file: URL, _ capturedAt: Date) throws -> Void = { _, _, _ in }
    ) throws -> (inspections: [String], issues: [String]) {
        var localIDs: [String] = []
        var issueIDs: [String] = []
        for index in 0..<count {
            let draft = try app.inspections.start(StartRequest(templateID: Self.templateID, facilityID: facilityID))
            try app.inspections.answer(localID: draft.localID, fieldID: "2", arguments: ["\(1 + index % 5)"])
            try app.inspections.answer(localID: draft.localID, fieldID: "14", arguments: ["Jordan", "Lee"])
            let photo = try app.inspectionPhotos.attach(localID: draft.localID, fieldID: "9", file: source)
            try attached(index, photo.localFile, photo.capturedAt)
            for issue in 0..<SyncBench.issuesPerInspection {
                issueIDs.append(
                    try app.issues.flag(
                        inspectionLocalID: draft.localID, severity: "low", description: "Bench issue \(index).\(issue)"
                    ).localID)
            }
            _ = try app.inspections.submit(localID: draft.localID)
            localIDs.append(draft.localID)
        }
        return (localIDs, issueIDs)
    }
}
