import Foundation
import JQCKit
import Testing

@testable import JQCSync

/// A stage that only declares where it runs.
private struct Declared: SyncStage {
    let name: String
    let direction: SyncDirection
    let constraints: [StageConstraint]
    var isBestEffort: Bool { false }

    init(_ name: String, _ direction: SyncDirection = .push, _ constraints: [StageConstraint] = []) {
        self.name = name
        self.direction = direction
        self.constraints = constraints
    }

    func run(_ pass: SyncPass) async throws -> StageReport { StageReport() }
}

private func names(_ stages: [any SyncStage]) throws -> [String] { try StageOrder.sorted(stages).map(\.name) }

@Suite("Stage order: the engine sorts what the stages declare")
struct StageOrderTests {
    @Test("without constraints, stages keep their registration order within a direction")
    func registrationOrder() throws {
        #expect(try names([Declared("a"), Declared("b"), Declared("c")]) == ["a", "b", "c"])
    }

    @Test("every push runs before every pull, whatever the registration order")
    func pushesFirst() throws {
        #expect(
            try names([Declared("pull 1", .pull), Declared("push 1"), Declared("pull 2", .pull), Declared("push 2")])
                == ["push 1", "push 2", "pull 1", "pull 2"])
    }

    @Test("after and before move a stage; a constraint naming an absent stage is ignored")
    func relative() throws {
        let stages: [any SyncStage] = [
            Declared("edits", .push, [.after("records")]), Declared("records", .push, [.after("files")]),
            Declared("files"), Declared("late pull", .pull, [.before("early pull")]), Declared("early pull", .pull),
            Declared("orphan", .push, [.after("nothing by this name")]),
        ]
        #expect(try names(stages) == ["files", "records", "edits", "orphan", "late pull", "early pull"])
    }

    @Test("a last stage runs after every other stage, even ones registered after it")
    func last() throws {
        let stages: [any SyncStage] = [
            Declared("stats", .pull, [.last]), Declared("news", .pull), Declared("files"), Declared("more news", .pull),
        ]
        #expect(try names(stages) == ["files", "news", "more news", "stats"])
    }

    @Test("contradicting constraints are refused with the cycle named")
    func cycle() throws {
        let stages: [any SyncStage] = [
            Declared("a", .push, [.after("c")]), Declared("b", .push, [.after("a")]),
            Declared("c", .push, [.after("b")]),
        ]
        #expect(throws: StageOrderError.self) { try StageOrder.sorted(stages) }
        do {
            _ = try StageOrder.sorted(stages)
        } catch {
            #expect(error.code == "sync.stage_order_cycle")
            #expect(error.stages == ["a", "b", "c", "a"])
            #expect(
                error.message
                    == "The sync stages' declared order has a cycle (a → b → c → a); "
                    + "change one of those stages' after/before constraints.")
        }
        // A push told to run after a pull contradicts the engine's own rule.
        let againstDirection: [any SyncStage] = [Declared("pull", .pull), Declared("push", .push, [.after("pull")])]
        #expect(throws: StageOrderError.self) { try StageOrder.sorted(againstDirection) }
    }

    @Test("two stages with one name are refused")
    func duplicate() throws {
        do {
            _ = try StageOrder.sorted([Declared("photos"), Declared("photos", .pull)])
            Issue.record("a duplicate name was accepted")
        } catch {
            #expect(error.code == "sync.duplicate_stage")
        }
    }
}
