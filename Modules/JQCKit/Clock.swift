import Foundation
import Synchronization

/// The source of "now" and of waiting, injected everywhere time matters so tests never sleep
/// (SPEC.md §3: a `Scheduler` on an injectable clock; never `Timer`, seed 001 rule 27).
public protocol Clock: Sendable {
    /// The current instant.
    var now: Date { get }
    /// Suspends for `seconds` of this clock's time.
    /// - Throws: `CancellationError` when the task is cancelled while waiting.
    func sleep(seconds: Double) async throws
}

/// The real clock: the system's time and `Task.sleep`.
public struct SystemClock: Clock {
    /// The system clock (it holds no state).
    public init() {}
    public var now: Date { Date() }
    public func sleep(seconds: Double) async throws {
        try await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1_000_000_000))
    }
}

/// A clock for tests: time moves only when ``advance(by:)`` or ``set(_:)`` is called, and sleepers
/// wake when the clock passes their deadline.
public final class ManualClock: Clock {
    private struct Sleeper {
        let id: UInt64
        let deadline: Date
        let continuation: CheckedContinuation<Void, any Error>
    }
    private struct State {
        var now: Date
        var nextID: UInt64 = 0
        var sleepers: [Sleeper] = []
    }
    private let state: Mutex<State>

    /// A clock standing at `start`.
    public init(start: Date = Date(timeIntervalSince1970: 1_784_000_000)) {
        state = Mutex(State(now: start))
    }

    public var now: Date { state.withLock { $0.now } }

    /// The number of tasks currently waiting in ``sleep(seconds:)``.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    public func sleep(seconds: Double) async throws {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow = state.withLock { state -> Bool in
                    if seconds <= 0 || Task.isCancelled { return true }
                    state.sleepers.append(
                        Sleeper(
                            id: id, deadline: state.now.addingTimeInterval(seconds),
                            continuation: continuation))
                    return false
                }
                if resumeNow {
                    if Task.isCancelled {
                        continuation.resume(throwing: CancellationError())
                    } else {
                        continuation.resume()
                    }
                }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward and wakes every sleeper whose deadline has passed.
    public func advance(by seconds: Double) {
        let due = state.withLock { state -> [Sleeper] in
            state.now = state.now.addingTimeInterval(seconds)
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Sets the time (it may jump backwards; sleepers wake only when the time passes their deadline).
    public func set(_ date: Date) {
        let delta = date.timeIntervalSince(now)
        advance(by: delta)
    }
}
