import Foundation
import ThreadKit

/// A task executor with a thread of its own. An in-process server whose tasks prefer it
/// (`Task(executorPreference:)`) keeps answering while synchronous tests elsewhere in the process
/// hold every thread of the cooperative pool (two on a two-core machine): the subdash process it
/// serves would otherwise wait on a starved server until its timeouts end the test.
@available(macOS 15.0, *)
public final class ThreadTaskExecutor: TaskExecutor {
    private let jobs = BlockingChannel<UnownedJob>(capacity: .max)

    public init(name: String) {
        let thread = Thread { [self] in
            while let job = jobs.receive() { job.runSynchronously(on: asUnownedTaskExecutor()) }
        }
        thread.name = name
        thread.start()
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        jobs.send(UnownedJob(job))
    }

    /// Ends the thread once the jobs already enqueued have run. Call it after every task that
    /// prefers this executor has finished: a job enqueued later never runs.
    public func shutdown() { jobs.close() }
}
