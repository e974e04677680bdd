import Dispatch

/// A task executor with a serial queue of its own, whose thread may block: work that would otherwise hop to
/// another thread and back (a blocking `curl_easy_perform` behind a continuation) can run inline on it
/// (issue 17: two thread wake-ups per request were most of the client's overhead over `curl`).
///
/// A sync pass runs with this executor as its task executor preference (SE-0417,
/// `Task(executorPreference:)`), so its nonisolated code and the default actors it calls run on the queue's
/// thread. A transport asks ``mayBlock`` and, when `true`, performs the transfer on the calling thread
/// instead of on its own queue. The queue is serial and its thread is libdispatch's overcommit pool, so
/// blocking it never starves the shared cooperative pool; jobs of the tasks that prefer it run one at a time.
///
/// ```swift
/// let executor = BlockingTaskExecutor(label: "jqc.sync.pass")
/// let task = Task(executorPreference: executor) { try await pass() }   // pass() may block in transfers
/// ```
public final class BlockingTaskExecutor: TaskExecutor {
    private let queue: DispatchQueue
    private static let key = DispatchSpecificKey<Bool>()

    /// A new executor and its serial queue.
    /// - Parameter label: the queue's label (shown as the thread's work in a debugger or `perf`).
    public init(label: String) {
        queue = DispatchQueue(label: label)
        queue.setSpecific(key: Self.key, value: true)
    }

    /// Runs `job` on the queue, after the jobs enqueued before it.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }

    /// Whether the calling thread is running a job of some ``BlockingTaskExecutor``: then a blocking call
    /// holds up only the tasks that chose this executor, never the cooperative pool.
    public static var mayBlock: Bool { DispatchQueue.getSpecific(key: key) == true }
}
