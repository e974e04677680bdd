import JQCKit

/// Where a stage runs relative to others, declared by the feature that contributes it (the engine names
/// no feature; SPEC.md §2). A constraint naming a stage that is not registered is ignored.
public enum StageConstraint: Sendable, Hashable {
    /// Runs after the stage with this name (e.g. an inspection push after `photos`, rule 12).
    case after(String)
    /// Runs before the stage with this name.
    case before(String)
    /// Runs after every stage that is not itself `last` (seed 001 rule 49: dashboard stats end the pass).
    case last
}

/// The order of a pass: the engine only sorts what the stages declare (SPEC.md §4's order follows from
/// the features' constraints and one rule of the engine's own).
///
/// - Every push stage runs before every pull stage: local work leaves before server data is fetched, so a
///   pull never sees the server without this device's work (seed 001 §8).
/// - Each ``StageConstraint`` of each stage.
/// - Otherwise registration order (the composition root installs features in their tier order).
///
/// The sort is a stable topological sort; contradictory constraints are refused with
/// ``StageOrderError``, naming the cycle.
public enum StageOrder {
    /// The stages in run order.
    /// - Returns: every stage once, each after everything it must follow.
    /// - Throws: ``StageOrderError`` `duplicateName` when two stages share a name, `cycle` when the
    ///   constraints contradict each other (the message names the stages in the cycle).
    public static func sorted(_ stages: [any SyncStage]) throws(StageOrderError) -> [any SyncStage] {
        var index: [String: Int] = [:]
        for (position, stage) in stages.enumerated() {
            if index[stage.name] != nil { throw StageOrderError(duplicateName: stage.name) }
            index[stage.name] = position
        }
        // successors[a] holds b when a must run before b.
        var successors = Array(repeating: Set<Int>(), count: stages.count)
        func edge(_ first: Int, _ second: Int) {
            if first != second { successors[first].insert(second) }
        }
        let lasts = Set(stages.indices.filter { stages[$0].constraints.contains(.last) })
        for (position, stage) in stages.enumerated() {
            for constraint in stage.constraints {
                switch constraint {
                case .after(let name): if let other = index[name] { edge(other, position) }
                case .before(let name): if let other = index[name] { edge(position, other) }
                case .last: for other in stages.indices where !lasts.contains(other) { edge(other, position) }
                }
            }
            if stage.direction == .pull {
                for other in stages.indices where stages[other].direction == .push { edge(other, position) }
            }
        }
        var incoming = Array(repeating: 0, count: stages.count)
        for targets in successors { for target in targets { incoming[target] += 1 } }
        var order: [Int] = []
        var done = Set<Int>()
        while order.count < stages.count {
            // The earliest registered stage with nothing left before it: stable among equals.
            guard let next = stages.indices.first(where: { !done.contains($0) && incoming[$0] == 0 }) else {
                throw StageOrderError(
                    cycle: cycle(in: successors, among: Set(stages.indices).subtracting(done)).map {
                        stages[$0].name
                    })
            }
            order.append(next)
            done.insert(next)
            for target in successors[next] { incoming[target] -= 1 }
        }
        return order.map { stages[$0] }
    }

    /// A cycle among `remaining` (every one of them has a predecessor there), as indices, first repeated last.
    private static func cycle(in successors: [Set<Int>], among remaining: Set<Int>) -> [Int] {
        guard let start = remaining.min() else { return [] }
        var path = [start]
        var seen: [Int: Int] = [start: 0]
        var current = start
        while true {
            guard let next = successors[current].filter(remaining.contains).min() else { return path }
            if let position = seen[next] { return Array(path[position...]) + [next] }
            seen[next] = path.count
            path.append(next)
            current = next
        }
    }
}

/// The stages' declared order cannot be satisfied (JQCSync's error; STYLE.md item 14).
public struct StageOrderError: CodedError, Equatable {
    /// The stable reasons.
    public enum Kind: String, CodedErrorKind {
        /// Two stages have the same name.
        case duplicateName = "duplicate_stage"
        /// The constraints contradict each other.
        case cycle = "stage_order_cycle"
        /// The codes' module part, `sync`.
        public static var module: String { "sync" }
    }

    /// Which reason.
    public let kind: Kind
    /// The stages involved (the duplicated name, or the cycle with its first stage repeated last).
    public let stages: [String]

    init(duplicateName name: String) {
        kind = .duplicateName
        stages = [name]
    }

    init(cycle: [String]) {
        kind = .cycle
        stages = cycle
    }

    /// `sync.duplicate_stage` or `sync.stage_order_cycle`.
    public var code: String { kind.code }

    /// The sentence, naming the stages.
    public var message: String {
        switch kind {
        case .duplicateName:
            "Two sync stages are both named '\(stages.first ?? "")'; give each feature's stage its own name."
        case .cycle:
            "The sync stages' declared order has a cycle (\(stages.joined(separator: " → "))); "
                + "change one of those stages' after/before constraints."
        }
    }
}
