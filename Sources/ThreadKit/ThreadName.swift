import Foundation

/// Names the calling thread for the operating system, so `top -H`, `perf` and
/// `/proc/PID/task/*/comm` tell a long-running thread from the pool around it (the listener's
/// benchmark reads its commit thread's CPU time so). Foundation's `Thread.name` stays inside the
/// process on Linux, and Swift does not see glibc's `pthread_setname_np`; the kernel takes the
/// name written to the thread's own `comm` file (`/proc/thread-self/comm`). It keeps at most 15
/// bytes: the rest is cut. Elsewhere, and should the file not take it, nothing happens: a name is
/// a convenience.
public func nameCurrentThread(_ name: String) {
    #if os(Linux)
        let kept = Data(name.utf8.prefix(15))
        try? kept.write(to: URL(fileURLWithPath: "/proc/thread-self/comm"))
    #endif
}
