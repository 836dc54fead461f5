import Foundation

/// One document cut out of a file by `DocumentReader`, not decoded yet.
public struct SourceDocument: Sendable, Equatable {
    /// `line 12` (NDJSON and CSV, from 1), `index 3` (JSON array, from 0), or nil for a file that
    /// is one document.
    public var location: String?
    /// The document's exact bytes: what is archived and hashed, and what `PayloadDecoder`
    /// decodes. Nil when the reader rejected the document without keeping them (over the limit).
    public var bytes: Data?
    /// The document's size, also when `bytes` was not kept.
    public var byteCount: Int
    /// Set when the reader already rejected this document (over the size limit, truncated file,
    /// unreadable gzip, bad CSV header…); such a document is not decoded.
    public var rejection: PayloadError?

    public init(location: String?, bytes: Data?, byteCount: Int? = nil, rejection: PayloadError? = nil) {
        self.location = location
        self.bytes = bytes
        self.byteCount = byteCount ?? bytes?.count ?? 0
        self.rejection = rejection
    }

    /// Lower-case hex SHA-256 of `bytes` (nil when they were not kept).
    public var sha256Hex: String? { bytes.map(PayloadDecoder.sha256Hex) }

    /// `line 3: reason`, or the bare reason for a whole-file document.
    public func message(_ error: PayloadError) -> String {
        location.map { "\($0): \(error.reason)" } ?? error.reason
    }
}
