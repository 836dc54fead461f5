/// What rejects a document or stops an import, said so a person can act on it.
public enum ImportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A document that is not applied, or a path that cannot be imported: one line saying why.
    case rejected(String)
    /// The store stopped the import part way (disk full, I/O error): why, and the documents it
    /// had committed by then (whole transactions only).
    case stopped(reason: String, applied: Int, rejected: Int)

    /// Why, in one line.
    public var reason: String {
        switch self {
        case .rejected(let reason), .stopped(let reason, _, _): reason
        }
    }

    public var description: String {
        switch self {
        case .rejected(let reason):
            return reason
        case .stopped(let reason, let applied, let rejected):
            let committed = applied + rejected
            return "the import stopped: \(reason)\n"
                + "committed before it stopped: \(committed) new document\(committed == 1 ? "" : "s") (\(applied) applied, \(rejected) rejected); "
                + "the store is consistent: free space (or fix the cause) and run the same import again to complete it"
        }
    }
}
