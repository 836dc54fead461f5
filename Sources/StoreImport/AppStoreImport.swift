import AppStorePayloads
import Foundation
import SubscriberStore
import SubscriptionModel

extension Importer {
    /// The importer for App Store documents: `DocumentReader` cuts files into documents (JSON,
    /// arrays, NDJSON, gzip, customer CSVs), `PayloadDecoder` decodes them, v2 signatures through
    /// `verifier`. A document over `maxDocumentBytes` is rejected on its own with its size.
    public static func appStore(
        database: AppDatabase, verifier: any SignatureVerifier, batchSize: Int = Importer.defaultBatchSize,
        maxDocumentBytes: Int = DocumentReader.defaultSizeLimit, sharedSecret: String? = nil,
        documentsPerTransaction: Int = Importer.defaultDocumentsPerTransaction,
        cacheMegabytes: Int = Importer.defaultCacheMegabytes,
        report: @escaping @Sendable (String) -> Void,
        progress: (@Sendable (ImportProgress) -> Void)? = nil
    ) -> Importer {
        let reader = DocumentReader(sizeLimit: maxDocumentBytes)
        let decoder = PayloadDecoder(verifier: verifier, sharedSecret: sharedSecret)
        return Importer(
            database: database,
            open: { path in
                let stream: DocumentStream
                if path == "-" {
                    stream = reader.documents(fileDescriptor: 0)
                } else {
                    do {
                        stream = try reader.documents(atPath: path)
                    } catch {
                        let rejection = error as? PayloadError ?? PayloadError("\(error)")
                        return AnyIterator([SourceDocument(location: nil, bytes: nil, rejection: rejection)].makeIterator())
                    }
                }
                return AnyIterator { stream.next() }
            },
            decode: { data, sha in
                do {
                    return .success(try decoder.decode(data, sha256Hex: sha))
                } catch {
                    return .failure(.rejected((error as? PayloadError)?.reason ?? "\(error)"))
                }
            },
            signaturesVerified: verifier.verifiesSignatures, batchSize: batchSize,
            documentsPerTransaction: documentsPerTransaction, cacheMegabytes: cacheMegabytes, report: report, progress: progress)
    }
}
