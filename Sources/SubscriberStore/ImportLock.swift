import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Held by every import, and by `subdash listen`, for as long as it runs: a read lock on the whole of `STORE-import.lock`
/// (an open-file-description lock, `F_OFD_SETLKW`), which the kernel lets go of when the process
/// ends however it ends. Readers ask whether it is held with `F_OFD_GETLK`, which takes nothing,
/// so any number of them can ask at once without taking each other for an import. It tells a reader that finds
/// subscriptions not rebuilt yet whether an import is still at work (they will be) or was
/// interrupted (they wait for the next import). Imports hold it shared, so two can run at once.
public final class ImportLock: Sendable {
    /// The lock file's descriptor; -1 once released.
    private let descriptor: Mutex<Int32>

    /// The lock file of the store at `storePath`.
    public static func path(forStore storePath: String) -> String { storePath + "-import.lock" }

    /// Takes the lock; nil when the lock file cannot be created (the import goes on without it).
    public init?(storePath: String) {
        let fd = open(Self.path(forStore: storePath), O_CREAT | O_RDWR | O_CLOEXEC, StoreFiles.privateMode)
        guard fd >= 0 else { return nil }
        var request = Self.wholeFile(F_RDLCK)
        while fcntl(fd, Self.setLockWaiting, &request) != 0 {
            guard errno == EINTR else {
                close(fd)
                return nil
            }
        }
        descriptor = Mutex(fd)
    }

    deinit { release() }

    /// Lets go of the lock (also done when the process ends).
    public func release() {
        let fd = descriptor.withLock { fd in
            defer { fd = -1 }
            return fd
        }
        if fd >= 0 { close(fd) }
    }

    /// Whether an import holds the lock of the store at `storePath` now.
    public static func isHeld(storePath: String) -> Bool {
        let fd = open(path(forStore: storePath), O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var query = wholeFile(F_WRLCK)
        guard fcntl(fd, getLock, &query) == 0 else { return false }
        return Int32(query.l_type) != F_UNLCK
    }

    // Linux's open-file-description lock commands (<fcntl.h> with _GNU_SOURCE, not imported).
    private static let getLock: Int32 = 36
    private static let setLockWaiting: Int32 = 38

    private static func wholeFile(_ type: Int32) -> flock {
        var lock = flock()
        lock.l_type = Int16(type)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = 0
        lock.l_len = 0
        lock.l_pid = 0
        return lock
    }
}

/// What a reader can say about imports of the store.
public enum ImportActivity: Equatable, Sendable {
    /// Nothing pending.
    case idle
    /// An import or the listener holds the lock and subscriptions wait to be rebuilt: figures
    /// fill in as it goes.
    case running
    /// Subscriptions wait to be rebuilt and no import is running: the last one was interrupted.
    case interrupted(pending: Int)
}

extension AppDatabase {
    /// Whether an import (or the listener) is at work, or the last import was interrupted, judged
    /// by the import lock and the subscriptions waiting to be rebuilt. A listener waiting for the
    /// next notification, with everything derived, is idle: the figures are current.
    public func importActivity() throws -> ImportActivity {
        let pending = try pendingCount()
        guard pending > 0 else { return .idle }
        if let path, ImportLock.isHeld(storePath: path) { return .running }
        return .interrupted(pending: pending)
    }
}
