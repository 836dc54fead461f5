import AppStorePayloads
import StoreImport
import SubscriberStore

/// Connects the importer to the App Store decoders. (Temporary until the decoders land.)
enum ImportWiring {
    static func importer(database: AppDatabase, verifier: any SignatureVerifier, report: @escaping @Sendable (String) -> Void,
                         progress: (@Sendable (Int, Double) -> Void)?) -> Importer {
        Importer(database: database, split: { data, _ in [RawDocument(location: nil, bytes: data)] },
                 decode: { _ in .failure(ImportRejection("decoding is not available yet")) },
                 signaturesVerified: verifier.verifiesSignatures, report: report, progress: progress)
    }
}
