import JQCKit
import Testing

/// A default actor: its methods run on the task executor its caller's task prefers (SE-0417).
private actor Counter {
    private(set) var count = 0
    func increment() -> Bool {
        count += 1
        return BlockingTaskExecutor.mayBlock
    }
}

@Suite("BlockingTaskExecutor: tasks that prefer it run where blocking is allowed")
struct BlockingTaskExecutorTests {
    @Test("a task preferring the executor, and the default actors it calls, may block; other tasks may not")
    func mayBlockFollowsThePreference() async throws {
        let executor = BlockingTaskExecutor(label: "jqc.test.blocking")
        let counter = Counter()
        let preferred = await Task(executorPreference: executor) { () async -> [Bool] in
            let before = BlockingTaskExecutor.mayBlock
            let inActor = await counter.increment()
            let after = BlockingTaskExecutor.mayBlock
            return [before, inActor, after]
        }.value
        #expect(preferred == [true, true, true])

        let plain = await Task { () async -> [Bool] in
            [BlockingTaskExecutor.mayBlock, await counter.increment()]
        }.value
        #expect(plain == [false, false])
        #expect(await counter.count == 2)
    }
}
