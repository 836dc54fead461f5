import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Lets an operator's short write (a flag, from `subdash flag` or the dashboard) go before an
/// import. An import commits one transaction and begins the next at once, so a writer waiting on
/// SQLite's busy timeout would almost never find the store free and would give up after its
/// timeout. A short writer holds a shared `flock` on `STORE-write.lock` while it waits and
/// writes; between its transactions an import looks whether anyone holds it and, if so, waits
/// (outside any transaction) until they are done.
public final class WriterTurn: @unchecked Sendable {
    private var descriptor: Int32

    /// The lock file of the store at `storePath`.
    public static func path(forStore storePath: String) -> String { storePath + "-write.lock" }

    /// How long an import lets waiting writers go before it carries on regardless.
    static let longestWait = 30.0

    /// For a long writer (an import); nil when the lock file cannot be opened (a read-only
    /// directory): it then writes without looking.
    public init?(storePath: String) {
        let fd = open(Self.path(forStore: storePath), O_CREAT | O_RDWR | O_CLOEXEC, StoreFiles.privateMode)
        guard fd >= 0 else { return nil }
        descriptor = fd
    }

    deinit { if descriptor >= 0 { close(descriptor) } }

    /// Waits while a short writer holds or waits for the store (at most ``longestWait``).
    public func letWaitingWritersGo() {
        let deadline = Date().addingTimeInterval(Self.longestWait)
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR, Date() < deadline else { return }
            usleep(2000)
        }
        flock(descriptor, LOCK_UN)
    }

    /// Runs a short write announced to long writers; without a lock file, just runs it.
    public static func asShortWriter<T>(storePath: String?, _ body: () throws -> T) rethrows -> T {
        guard let storePath else { return try body() }
        let fd = open(path(forStore: storePath), O_CREAT | O_RDWR | O_CLOEXEC, StoreFiles.privateMode)
        guard fd >= 0 else { return try body() }
        defer { close(fd) }
        while flock(fd, LOCK_SH) != 0 {
            guard errno == EINTR else { return try body() }
        }
        return try body()
    }
}
