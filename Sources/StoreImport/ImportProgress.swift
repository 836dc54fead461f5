import Foundation

/// Where an import stands, for its progress line: reading documents (which file of how many, how
/// much of the input's bytes the files already read hold), then deriving the subscriptions the
/// documents touched (how many of how many).
public enum ImportProgress: Sendable, Equatable {
    /// - Parameters:
    ///   - file: the file being read (1-based) of `files`;
    ///   - bytesDone, bytes: the sizes of the files read to their end, and of every file (0 for a
    ///     stream, whose size is not known).
    case reading(documents: Int, seconds: Double, file: Int, files: Int, bytesDone: Int64, bytes: Int64)
    /// `total` is nil when not known ahead (a store in memory derives in one pass).
    case deriving(done: Int, total: Int?, seconds: Double)

    /// The progress line, e.g. `importing: file 3 of 9, 123,456 documents, 2,345/s, about 1 min
    /// left` or `deriving: 40,000 of 100,000 subscriptions, about 12 s left`. The time left is an
    /// estimate from what is done (reading: the bytes of the files read to their end), shown once
    /// there is something to estimate from.
    public var line: String {
        switch self {
        case .reading(let documents, let seconds, let file, let files, let bytesDone, let bytes):
            var line = "importing: "
            if files > 1 { line += "file \(file) of \(files), " }
            line += "\(Self.grouped(documents)) documents, \(Self.grouped(Int(Double(documents) / max(seconds, 0.001))))/s"
            if bytes > 0, bytesDone > 0, bytesDone < bytes {
                line += ", " + Self.left(seconds * Double(bytes - bytesDone) / Double(bytesDone))
            }
            return line
        case .deriving(let done, let total, let seconds):
            guard let total, total > 0 else { return "deriving: \(Self.grouped(done)) subscriptions" }
            var line = "deriving: \(Self.grouped(done)) of \(Self.grouped(total)) subscriptions"
            if done > 0, done < total { line += ", " + Self.left(seconds * Double(total - done) / Double(done)) }
            return line
        }
    }

    /// "about 12 s left", "about 3 min left", "about 1 h 5 min left".
    static func left(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        if s < 90 { return "about \(max(1, s)) s left" }
        if s < 3600 { return "about \((s + 30) / 60) min left" }
        return "about \(s / 3600) h \((s % 3600 + 30) / 60) min left"
    }

    static func grouped(_ n: Int) -> String { RejectionGroups.grouped(n) }
}
