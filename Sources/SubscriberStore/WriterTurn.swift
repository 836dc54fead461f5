import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Takes turns at writing the store between processes, so an import does not starve other
/// writers. An import commits one transaction and begins the next at once: another writer
/// waiting on SQLite's busy timeout (an operator's flag, a second import) would almost never
/// find the store free and would give up after its timeout.
///
/// Two lock files beside the store: a writer announces that it wants a turn with a shared
/// `flock` on `STORE-write.lock`, then takes the turn, an exclusive `flock` on
/// `STORE-write-turn.lock`, for one transaction. Before each of its transactions an import
/// waits while anyone has announced, so whoever waited goes first. The kernel lets go of both
/// when a process ends, however it ends.
public final class WriterTurn: Sendable {
    private let announce: Int32
    private let turn: Int32

    /// The lock files of the store at `storePath`.
    public static func paths(forStore storePath: String) -> [String] {
        [storePath + "-write.lock", storePath + "-write-turn.lock"]
    }

    /// How long a writer waits for others before it goes on regardless (SQLite's busy timeout
    /// still guards the store then).
    static let longestWait = 30.0

    /// Nil when the lock files cannot be opened (a read-only directory), or do not exist and
    /// `create` is false: the writer then relies on SQLite's busy timeout alone. Imports create
    /// them; a short writer does not (no import has run, so none is running: nothing is left
    /// beside a store only ever flagged).
    public init?(storePath: String, create: Bool = true) {
        let paths = Self.paths(forStore: storePath)
        let flags = O_RDWR | O_CLOEXEC | (create ? O_CREAT : 0)
        let a = open(paths[0], flags, StoreFiles.privateMode)
        guard a >= 0 else { return nil }
        let t = open(paths[1], flags, StoreFiles.privateMode)
        guard t >= 0 else {
            close(a)
            return nil
        }
        announce = a
        turn = t
    }

    deinit {
        close(announce)
        close(turn)
    }

    /// One transaction of a long writer (an import): after whoever announced, in its turn.
    public func longWrite<T>(_ body: () throws -> T) rethrows -> T {
        Self.wait { flock(announce, LOCK_EX | LOCK_NB) }
        flock(announce, LOCK_UN)
        return try shortWrite(body)
    }

    /// A write in its turn, announced while it waits for it.
    public func shortWrite<T>(_ body: () throws -> T) rethrows -> T {
        while flock(announce, LOCK_SH) != 0 && errno == EINTR {}
        let took = Self.wait { flock(turn, LOCK_EX | LOCK_NB) }
        flock(announce, LOCK_UN)
        defer { if took { flock(turn, LOCK_UN) } }
        return try body()
    }

    /// A short write (an operator's flag) to the store at `storePath`, in its turn.
    public static func shortWrite<T>(storePath: String?, _ body: () throws -> T) rethrows -> T {
        guard let storePath, let writerTurn = WriterTurn(storePath: storePath, create: false) else { return try body() }
        return try writerTurn.shortWrite(body)
    }

    /// Retries a non-blocking lock every 2 ms until it succeeds (true) or ``longestWait`` passes.
    @discardableResult
    private static func wait(_ attempt: () -> Int32) -> Bool {
        let deadline = Date().addingTimeInterval(longestWait)
        while attempt() != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR, Date() < deadline else { return false }
            usleep(2000)
        }
        return true
    }
}
