import Foundation

/// One answer of the App Store Server API, as a page walker hands it on.
public enum FetchedPage: Sendable, Equatable {
    /// The bytes Apple sent, to be stored as they came.
    case body(Data)
    /// A body over the client's `maxDocumentBytes`, not read further: its length when the server
    /// gave one, else the bytes read before stopping (fewer than it has); the reason says which.
    case tooLarge(byteCount: Int, reason: String)
}
