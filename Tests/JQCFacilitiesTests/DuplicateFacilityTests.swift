import Foundation
import JQCKit
import JQCTestSupport
import Testing

@testable import JQCFacilities

/// Issue 18, rule 45: when the reply repeats a facility id, the first occurrence is the one stored, with
/// its own fields — not only "one row".
@Suite("Rule 45: the first duplicate facility wins")
struct DuplicateFacilityTests {
    @Test("of two facilities with id 21, the first in the reply is stored with its exact fields")
    func firstWins() async throws {
        let world = try ReferenceFixture()
        let first: JSONValue = [
            "id": 21, "name": "Clinic A", "address": "5 Elm St", "project_id": 2, "project_name": "Riverside",
            "is_active": true,
        ]
        let second: JSONValue = [
            "id": 21, "name": "Clinic A (old)", "address": "9 Oak Ave", "project_id": 3, "project_name": "Hillside",
            "is_active": false,
        ]
        world.script(facilities: [facility(11, "Main"), first, second])
        _ = try await world.stage().run(world.pass)
        #expect(try world.store.facilities(activeOnly: false).filter { $0.id == 21 }.count == 1)
        let stored = try #require(try world.store.facility(id: 21))
        #expect(stored.name == "Clinic A")
        #expect(stored.address == "5 Elm St")
        #expect(stored.projectID == 2)
        #expect(stored.projectName == "Riverside")
        #expect(stored.isActive)
    }
}
