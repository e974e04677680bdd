import Foundation
import JQCKit
import Testing

@testable import JQCSync

/// Issue 18: a failed item is never retried automatically, so its sentence never tells the inspector to
/// try again later.
@Suite("A failed item's sentence")
struct FailedSentenceTests {
    @Test("the fifth counted try fails the item without the reply's advice to try again later")
    func outOfTries() {
        let policy = OutboxPolicy()
        #expect(
            policy.disposition(after: .server("The server is unavailable. Try again later."), attempts: 4)
                == .fail(reason: "The server is unavailable. (gave up after 5 tries)"))
        #expect(
            policy.disposition(
                after: .server("The server's reply could not be read (bad JSON). Your work is kept; try again later."),
                attempts: 4)
                == .fail(reason: "The server's reply could not be read (bad JSON). (gave up after 5 tries)"))
        // A try that keeps the item pending keeps the sentence whole: it will be tried again.
        #expect(
            policy.disposition(after: .server("The server is unavailable. Try again later."), attempts: 1)
                == .keepPending(attempts: 2, reason: "The server is unavailable. Try again later."))
    }

    @Test("a refusal drops the advice to try again; a sentence without it is kept as sent")
    func refused() {
        let policy = OutboxPolicy()
        #expect(
            policy.disposition(after: .rejected("The area is closed. Please try again in a moment."), attempts: 0)
                == .fail(reason: "The area is closed."))
        #expect(policy.disposition(after: .rejected("No such area."), attempts: 0) == .fail(reason: "No such area."))
        #expect(OutboxPolicy.failedSentence("Try again later.") == "Try again later.")  // nothing else to say
    }
}
