import ArgumentParser
import Foundation
import StoreImport
import SubscriberStore
import TeamLog

extension Import {
    /// `import --team`: the files are read, decoded and verified exactly as a local import does,
    /// into a private staging store (removed afterwards), with the same rejections and summary;
    /// what it accepted is then pushed to the log, where the database keeps each document once.
    func importIntoTeamLog(_ address: TeamLogAddress) async throws {
        if store.db != nil {
            throw CLIError(
                "--team sends the documents to the team log, not to a store: leave out --db, "
                    + "and bring a store up to date with `subdash sync --team URL --db STORE`", code: ExitStatus.usage)
        }
        if verification.noVerify {
            throw CLIError("the team log takes verified documents only: leave out --no-verify", code: ExitStatus.usage)
        }
        let verifier = try verification.verifier()
        let log = try await TeamOptions.connect(address)
        do {
            // Before a file is read: a role that may not write is told so at once.
            try await log.requireDocumentInserts()
        } catch {
            await log.close()
            throw CLIError("\(error)", code: ExitStatus.fatal)
        }
        let staging = FileManager.default.temporaryDirectory.appendingPathComponent(
            "subdash-team-import-\(getpid())-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(
                at: staging, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            await log.close()
            throw CLIError("cannot create a staging directory in \(staging.deletingLastPathComponent().path): \(error)")
        }
        defer { try? FileManager.default.removeItem(at: staging) }
        let stagingPath = staging.appendingPathComponent("staging.sqlite").path
        let summary: ImportSummary
        do {
            let database = try AppDatabase.open(path: stagingPath)
            try app.recordApp(in: database)
            let interactive = isatty(2) != 0
            let report: @Sendable (String) -> Void = { line in
                if interactive { FileHandleOutput.clearLine() }
                printError(line)
            }
            var progress: (@Sendable (ImportProgress) -> Void)? = nil
            if interactive {
                progress = { FileHandleOutput.progress($0.line) }
            }
            let importer = Importer.appStore(
                database: database, verifier: verifier, batchSize: batchSize, maxDocumentBytes: maxDocumentBytes,
                sharedSecret: app.sharedSecretValue, documentsPerTransaction: documentsPerTransaction,
                cacheMegabytes: cacheMegabytes, report: report, progress: progress)
            summary = try importer.importPaths(paths)
            if interactive { FileHandleOutput.clearLine() }
        } catch {
            await log.close()
            throw CLIError("\(error)", code: ExitStatus.fatal)
        }
        printError(summary.line)
        let pushed: TeamPush.Summary
        do {
            pushed = try await TeamPush.push(stagingStore: stagingPath, to: log)
        } catch {
            await log.close()
            throw CLIError("\(error)", code: ExitStatus.fatal)
        }
        await log.close()
        printError("\(pushed.line): \(address)")
        if summary.rejected > 0 || summary.conflicts > 0 { throw ExitCode(1) }
    }
}
