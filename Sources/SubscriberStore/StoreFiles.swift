import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The files subdash writes hold customer emails and ids: they are created private to the user
/// (mode 0600) whatever the umask, and a store others can read is pointed out.
public enum StoreFiles {
    /// The mode of every file subdash creates.
    public static let privateMode: mode_t = 0o600

    /// Runs `open` (which creates the SQLite store) after creating the empty file with mode 0600
    /// when `created`: SQLite gives the `-wal` and `-shm` files the mode of the store, so all
    /// three are private. A symbolic link to nothing is refused: the file would be created where
    /// it points, by SQLite, with the umask's mode (0644: readable by everyone).
    static func creatingPrivate<T>(path: String, created: Bool, _ open: () throws -> T) throws -> T {
        var info = stat()
        if created, lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK {
            var target = (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? "?"
            if !target.hasPrefix("/"), path.contains("/") {
                // Relative to the link's directory: named as a path from here.
                target = (path as NSString).deletingLastPathComponent + "/" + target
            }
            throw StoreError(
                "\(path) is a symbolic link to \(target), which does not exist: subdash does not create a store "
                    + "through a link; pass the path it should have (--db \(target)) or remove the link")
        }
        if created {
            let fd = Glibc.open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, privateMode)
            if fd >= 0 {
                _ = fchmod(fd, privateMode)
                close(fd)
            }
        }
        return try open()
    }

    /// Writes `data` to a new file at `path` with mode 0600; false when a file is already there.
    public static func writeNewPrivateFile(path: String, data: Data) throws -> Bool {
        let fd = Glibc.open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, privateMode)
        if fd < 0 {
            if errno == EEXIST { return false }
            throw StoreError("cannot write \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        _ = fchmod(fd, privateMode)
        var written = 0
        try data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            while written < buffer.count {
                let n = write(fd, buffer.baseAddress! + written, buffer.count - written)
                if n < 0 {
                    if errno == EINTR { continue }
                    throw StoreError("cannot write \(path): \(String(cString: strerror(errno)))")
                }
                written += n
            }
        }
        return true
    }

    /// "…is readable by others": a one-line warning when the store (or its `-wal`) can be read
    /// by the group or everyone; nil when it is private or not there.
    public static func exposureWarning(path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        let others = info.st_mode & 0o077
        guard others != 0 else { return nil }
        let mode = String(info.st_mode & 0o777, radix: 8)
        let who = info.st_mode & 0o007 != 0 ? "everyone" : "its group"
        return
            "warning: \(path) (mode \(mode)) can be read by \(who) and holds customer emails; `chmod 600 \(path)` makes it private"
    }

    /// Whether subdash could write to the store at `path` and create files beside it.
    public static func canWrite(path: String) -> Bool {
        let directory = (path as NSString).deletingLastPathComponent
        return access(path, W_OK) == 0 && access(directory.isEmpty ? "." : directory, W_OK) == 0 && !onReadOnlyFileSystem(path)
    }

    /// Whether `path` is on a file system mounted read-only (which `access` does not say for root).
    static func onReadOnlyFileSystem(_ path: String) -> Bool {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return false }
        return info.f_flag & UInt(ST_RDONLY) != 0
    }
}
