import Foundation
import JQCKit
import JQCTestSupport
import Testing

@testable import JQCComposition

/// Issue 17: the airplane-mode switch is asked by every request; its file is read again only when it changed.
@Suite("The connectivity switch file (airplane mode)")
struct ConnectivitySwitchTests {
    @Test("every change of the file is seen by the next question: saved, rewritten in place, replaced, removed")
    func changesAreSeen() throws {
        let directory = TemporaryDirectory()
        let url = directory.path("connectivity")
        let store = FileConnectivityOverrideStore(url: url)
        let other = FileConnectivityOverrideStore(url: url)  // another process's view of the same file
        #expect(store.loadForcedOffline() == false)  // absent: online
        try other.saveForcedOffline(true)
        #expect(store.loadForcedOffline() == true)
        #expect(store.loadForcedOffline() == true)  // unchanged: the same answer
        try other.saveForcedOffline(false)
        #expect(store.loadForcedOffline() == false)
        // Written in place (same inode), to a text of another length, then of the same length.
        try Data("offline\n".utf8).write(to: url)
        #expect(store.loadForcedOffline() == true)
        try Data("online\n\n".utf8).write(to: url)
        #expect(store.loadForcedOffline() == false)
        try FileManager.default.removeItem(at: url)
        #expect(store.loadForcedOffline() == false)
        try Data(" offline ".utf8).write(to: url)
        #expect(store.loadForcedOffline() == true)
    }
}
