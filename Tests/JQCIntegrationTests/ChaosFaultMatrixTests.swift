import Foundation
import JQCInspections
import JQCKit
import JQCSync
import Testing

/// The fault matrix of issue 11 (`make chaos` runs it too): every dev-server fault mode against every
/// stage's endpoint, then the fault cleared. Afterwards the queue drains, nothing is lost or duplicated,
/// poison items are failed with a reason, and no pass is left "running".
@Suite("Chaos: fault matrix")
struct ChaosFaultMatrixTests {
    /// Fault modes of SHELL.md (426 is its own test: a refused build stops for good, by design).
    static let modes: [JSONValue] = [
        ["mode": "status", "status": 500], ["mode": "status", "status": 503], ["mode": "status", "status": 429],
        ["mode": "status", "status": 422], ["mode": "drop"], ["mode": "drop_after"], ["mode": "html"],
        ["mode": "truncate"], ["mode": "delay", "delay_ms": 50],
    ]

    /// One endpoint per stage (the method is given where the path is shared by a push and a pull).
    static let endpoints: [(method: String?, path: String)] = [
        ("POST", "/api/v1/inspections"), ("POST", "/api/v1/issues"), (nil, "/api/v1/facilities"),
        (nil, "/api/v1/areas"), (nil, "/api/v1/templates"),
        (nil, "/api/v1/notifications"), (nil, "/api/v1/dashboard/stats"), ("GET", "/api/v1/inspections"),
        (nil, "/api/v1/scheduled-inspections"), (nil, "/api/v1/issues"), (nil, "/api/v1/photos/upload"),
    ]

    static var cases: [String] {
        modes.flatMap { mode in endpoints.map { "\(mode.jsonString()) \($0.method ?? "*") \($0.path)" } }
    }

    @Test(
        "every fault mode × every stage, then cleared: drained, nothing lost or duplicated, nothing stuck",
        arguments: ChaosFaultMatrixTests.cases)
    func faultThenClear(_ label: String) async throws {
        let parts = label.split(separator: " ").map(String.init)
        let mode = try JSONValue.parse(parts[0])
        let method = parts[1] == "*" ? nil : parts[1]
        let path = parts[2]
        let world = try TestApp()
        try await world.login()
        _ = try await world.app.sync.sync(explicit: true)  // reference data for start
        let inspection = try world.app.inspections.start(StartRequest(templateID: 3, facilityID: 11, areaID: 111))
        _ = try world.app.inspections.answer(localID: inspection.localID, fieldID: "2", arguments: ["4"])
        _ = try world.app.inspections.submit(localID: inspection.localID)
        let photo = try jpeg(in: world.clientDirectory.url, "evidence.jpg", seed: 3)
        let issue = try world.app.issues.flag(
            inspectionLocalID: inspection.localID, severity: "high",
            description: "Broken tile", photoFiles: [photo])

        var fault = mode.objectValue ?? [:]
        fault["path_prefix"] = .string(path)
        if let method { fault["method"] = .string(method) }
        try world.fault(.object(fault))
        _ = try? await world.app.sync.sync(explicit: true)  // with the fault: any outcome but a crash or a hang
        try world.admin("DELETE", "/__admin/faults", nil)
        _ = try? await world.app.sync.sync(explicit: true)  // cleared
        _ = try await world.app.sync.sync(explicit: true)

        let snapshot = await world.app.sync.current
        #expect(snapshot.runningStage == nil, "a pass was left running")
        let status = try world.app.outboxStatus()
        let onServer = (try world.adminState()["inspections"]?.arrayValue ?? [])
            .filter { $0["local_id"] == .string(inspection.localID) }.count
        let issues = (try world.adminState()["issues"]?.arrayValue ?? []).filter {
            $0["local_id"] == .string(issue.localID)
        }
        let refused = mode["status"] == 422  // a poison answer: the item it hits is failed at once, the rest lands
        if refused && path == "/api/v1/issues" && method != "GET" {
            #expect(status.failed.map(\.localID) == [issue.localID], "\(label)")
            #expect(status.failed.first?.reason.isEmpty == false)
            #expect(issues.isEmpty && onServer == 1, "\(label)")
        } else if refused && path == "/api/v1/photos/upload" {
            // The refused photo is failed; it holds its issue until the inspector retries or discards it.
            #expect(status.failed.map(\.kind) == ["photo"], "\(label)")
            #expect(status.pending["issues"] == 1 && issues.isEmpty && onServer == 1, "\(label)")
        } else if refused && path == "/api/v1/inspections" && method == "POST" {
            // A refused item is failed at once with the server's sentence, never retried, never lost.
            // Its issue is failed too, with a clear reason (rule 11: never an orphan on the server).
            #expect(Set(status.failed.map(\.localID)) == [inspection.localID, issue.localID])
            #expect(issues.isEmpty)
            #expect(status.failed.first?.reason.isEmpty == false)
            #expect(onServer == 0)
        } else {
            #expect(status.pending["inspections"] == 0, "\(label): \(status)")
            #expect(status.failed.isEmpty, "\(label): \(status.failed)")
            #expect(onServer == 1, "\(label): \(onServer) server records")
            #expect(issues.count == 1, "\(label): \(issues.count) server issues")
            #expect(issues.first?["photo_path"]?.stringValue?.hasPrefix("uploads/") == true, "\(label)")
        }
        #expect(try world.app.inspections.inspection(localID: inspection.localID).status == .completed)
    }

    @Test("a 426 mid-pass stops the pass; every item stays pending and nothing more is sent until the build changes")
    func updateRequiredStopsEverything() async throws {
        let world = try TestApp()
        try await world.login()
        _ = try await world.app.sync.sync(explicit: true)
        let inspection = try world.app.inspections.start(StartRequest(templateID: 3, facilityID: 11, areaID: 111))
        _ = try world.app.inspections.answer(localID: inspection.localID, fieldID: "2", arguments: ["4"])
        _ = try world.app.inspections.submit(localID: inspection.localID)
        try world.fault(["path_prefix": "/api/v1/inspections", "method": "POST", "mode": "status", "status": 426])
        await #expect { try await world.app.sync.sync(explicit: true) } throws: { error in
            (error as? SyncStopError)?.kind == .updateRequired
        }
        await #expect { try await world.app.sync.sync(explicit: true) } throws: { error in
            (error as? SyncStopError)?.kind == .updateRequired
        }
        let status = try world.app.outboxStatus()
        #expect(status.pending["inspections"] == 1)
        #expect(status.failed.isEmpty)
        #expect(await world.app.sync.current.runningStage == nil)
    }
}
