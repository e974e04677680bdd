import Foundation
import JQCKit

/// Saves the open draft every 30 seconds on the injected clock while it is open (seed 001 §11.2
/// "Auto-saves every 30 seconds"; never `Timer`, rule 27). Every answer is already written at once, so
/// this is the belt to those braces: it re-saves the draft the surface has open.
public actor DraftAutosaver {
    /// Seconds between saves (30, as on the iPad).
    public static let interval: Double = 30

    private let service: InspectionService
    private let clock: any Clock
    private var task: Task<Void, Never>?
    private var saves = 0

    /// An autosaver over `service` on `clock`.
    public init(service: InspectionService, clock: any Clock) {
        self.service = service
        self.clock = clock
    }

    /// Starts saving every ``interval`` seconds whatever draft `openDraft` names (a call while running
    /// does nothing). A non-draft or missing inspection is skipped.
    /// - Parameter openDraft: the local id of the draft on screen, or `nil`.
    public func start(openDraft: @escaping @Sendable () -> String?) {
        guard task == nil else { return }
        let clock = self.clock, service = self.service
        task = Task { [weak self] in
            while !Task.isCancelled {
                do { try await clock.sleep(seconds: DraftAutosaver.interval) } catch { return }
                guard let localID = openDraft() else { continue }
                if (try? service.save(localID: localID)) != nil { await self?.saved() }
            }
        }
    }

    private func saved() { saves += 1 }

    /// How many autosaves succeeded (diagnostics and tests).
    public var saveCount: Int { saves }

    /// Stops saving.
    public func stop() {
        task?.cancel()
        task = nil
    }
}
