#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Wakes a thread blocked in ``TerminalBackend/readKey(timeout:wake:)`` from another thread: a
/// pipe whose read end is watched beside the terminal. The dashboard's run loop blocks on input,
/// and answers from its background queries arrive through this, so an idle dashboard sleeps.
public final class WakeSignal: Sendable {
    /// The end to watch for readability.
    public let fileDescriptor: Int32
    private let writeEnd: Int32

    public init() {
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            for end in ends { _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK) }
            for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        }
        fileDescriptor = ends[0]
        writeEnd = ends[1]
    }

    deinit {
        if fileDescriptor >= 0 { close(fileDescriptor) }
        if writeEnd >= 0 { close(writeEnd) }
    }

    /// Makes the watched end readable (a full pipe already is: the byte is then not needed).
    public func signal() {
        guard writeEnd >= 0 else { return }
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// Empties the pipe, so the next wait blocks until the next ``signal()``.
    public func drain() {
        guard fileDescriptor >= 0 else { return }
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(fileDescriptor, &buffer, buffer.count) > 0 {}
    }
}
