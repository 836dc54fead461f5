import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Files an import must not read as App Store documents: the store being written (and its
/// `-wal`, `-shm`, `-journal`, `-import.lock`, `-write.lock` and `-write-turn.lock` files), and any other SQLite database, which `import .` in the
/// store's own directory would otherwise walk into.
struct OwnFiles {
    private var identities: Set<FileIdentity> = []

    private struct FileIdentity: Hashable {
        var device: UInt64
        var inode: UInt64
    }

    init(storePath: String?) {
        guard let storePath else { return }
        for suffix in ["", "-wal", "-shm", "-journal", "-import.lock", "-write.lock", "-write-turn.lock"] {
            if let id = Self.identity(storePath + suffix) { identities.insert(id) }
        }
    }

    /// Why `path` is skipped, or nil when it is read.
    func skipReason(_ path: String) -> String? {
        guard path != "-" else { return nil }
        if let id = Self.identity(path), identities.contains(id) { return "the store this import writes to" }
        // Files beside the store created after the import began (a new -wal) are its own too.
        for suffix in ["-wal", "-shm", "-journal", "-import.lock", "-write.lock", "-write-turn.lock"] where path.hasSuffix(suffix)
        {
            if let id = Self.identity(String(path.dropLast(suffix.count))), identities.contains(id) {
                return "the store this import writes to"
            }
            if Self.isSQLite(String(path.dropLast(suffix.count))) { return "a file of an SQLite database" }
        }
        if Self.isSQLite(path) { return "an SQLite database, not App Store documents" }
        return nil
    }

    private static func identity(_ path: String) -> FileIdentity? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    /// An SQLite database starts "SQLite format 3\0"; its write-ahead log with 0x377f0682/3.
    static func isSQLite(_ path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return false }
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: 16) else { return false }
        if head.count == 16, head.elementsEqual(Array("SQLite format 3".utf8) + [0]) { return true }
        if head.count >= 4, head[0] == 0x37, head[1] == 0x7F, head[2] == 0x06, head[3] == 0x82 || head[3] == 0x83 { return true }
        return false
    }
}
