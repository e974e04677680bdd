import Foundation
import JQCFacilities

/// The start screen's contract → facility → area cascade (seed 001 §11.1, §14) as a value: choosing a
/// contract clears the facility and area only when the facility does not belong to it (rule 32: a
/// pre-filled facility survives the contract being set after it).
public struct StartCascade: Sendable, Hashable {
    /// The chosen contract.
    public private(set) var contractID: Int?
    /// The chosen facility.
    public private(set) var facilityID: Int?
    /// The chosen area.
    public private(set) var areaID: Int?
    private let facilities: [Facility]
    private let areas: [Area]

    /// A cascade over the active facilities and the cached areas, optionally pre-filled (a schedule, a
    /// follow-up, the shell's `--facility`).
    public init(facilities: [Facility], areas: [Area], prefilledFacilityID: Int? = nil) {
        self.facilities = facilities.filter(\.isActive)
        self.areas = areas
        facilityID = prefilledFacilityID
    }

    /// The facilities offered for the chosen contract (each id once: rule 45), by name.
    public var availableFacilities: [Facility] {
        var seen = Set<Int>()
        return facilities.filter { contractID == nil || $0.projectID == contractID }.filter {
            seen.insert($0.id).inserted
        }
    }

    /// The areas offered for the chosen facility (rule 57).
    public var availableAreas: [Area] { areas.filter { $0.facilityID == facilityID } }

    /// Chooses a contract; keeps the facility when it belongs to the contract (rule 32), else clears it
    /// and the area.
    public mutating func selectContract(_ id: Int?) {
        contractID = id
        let belongs = facilities.contains { $0.id == facilityID && (id == nil || $0.projectID == id) }
        if !belongs {
            facilityID = nil
            areaID = nil
        }
    }

    /// Chooses a facility (one of ``availableFacilities``, else `nil`); clears the area when it changes.
    public mutating func selectFacility(_ id: Int?) {
        let valid = id.flatMap { wanted in availableFacilities.first { $0.id == wanted }?.id }
        if valid != facilityID { areaID = nil }
        facilityID = valid
    }

    /// Chooses an area (one of ``availableAreas``, else `nil`).
    public mutating func selectArea(_ id: Int?) {
        areaID = id.flatMap { wanted in availableAreas.first { $0.id == wanted }?.id }
    }
}
