import AppStorePayloads
import ArgumentParser
import Foundation
import LifecycleSimulator
import SubscriptionModel

extension PayloadVersions: ExpressibleByArgument {}

struct Generate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Generate simulated subscriber lifecycles as real App Store notification payloads.",
        discussion: """
            Writes DIR/v1/notifications-NNNN.ndjson[.gz] and/or DIR/v2/…, DIR/test-root.pem and DIR/manifest.json. \
            The same seed gives byte-identical output. Import it with --trust-root DIR/test-root.pem (the v2 \
            signatures chain to it) and, for v1 documents, --shared-secret \(SimulationConfiguration.sharedSecret) \
            (the shared secret every simulated v1 notification carries): without it their data is unverified and \
            not applied to subscriptions that also have signed data. The command prints the import line.
            """)

    @Option(help: "Number of subscribers (one subscription each).")
    var subscribers: Int

    @Option(help: "Seed of every random choice, keys and signatures included.")
    var seed: UInt64 = 1

    @Option(help: "First month of the range (YYYY-MM).")
    var start = Month(year: 2024, month: 1)

    @Option(help: "Months in the range; nothing is dated after its end.")
    var months: Int = 24

    @Option(help: "Notification versions (both: v1 until halfway, then v2).")
    var versions: PayloadVersions = .v2

    /// The name `--versions` had before; kept so existing scripts still run.
    @Option(name: .customLong("format"), help: ArgumentHelp("Deprecated: use --versions.", visibility: .hidden))
    var deprecatedFormat: PayloadVersions?

    @Option(
        help: ArgumentHelp(
            "Share of subscribers paying monthly with a 12-month commitment, 0 to 0.4.",
            discussion: """
                Drawn among subscribers outside the US (commitments do not exist in the US or Singapore), \
                for runs starting in v2 time: v1 has no commitments. See docs/metrics.md, "Billing plans and commitments".
                """))
    var commitmentShare = 0.0

    @Option(
        help: ArgumentHelp(
            "Chance per monthly renewal that last month's charge is refunded while the subscription goes on.",
            discussion: "v2 only, 0 to 1."))
    var lateRefundRate = 0.0

    @ArgumentParser.Flag(help: "gzip the NDJSON files.")
    var gzip = false

    @Option(
        name: .customLong("max-file-mb"), help: ArgumentHelp("Start a new file before one passes this size.", visibility: .hidden)
    )
    var maxFileMB: Int = 64

    @Option(help: "Output directory (created; must not already hold generated output).")
    var out: String

    func validate() throws {
        guard subscribers > 0 else { throw ValidationError("--subscribers must be at least 1") }
        guard (1...240).contains(months) else { throw ValidationError("--months must be between 1 and 240") }
        guard maxFileMB > 0 else { throw ValidationError("--max-file-mb must be positive") }
        guard (0...SimulationConfiguration.maxCommitmentShare).contains(commitmentShare) else {
            throw ValidationError(
                "--commitment-share must be between 0 and \(SimulationConfiguration.maxCommitmentShare): commitments are "
                    + "drawn among the subscribers outside the US, \(Int(SimulationConfiguration.maxCommitmentShare * 100)) % of them"
            )
        }
        guard (0...1).contains(lateRefundRate) else { throw ValidationError("--late-refund-rate must be between 0 and 1") }
        if versions == .v1 || deprecatedFormat == .v1, commitmentShare > 0 || lateRefundRate > 0 {
            throw ValidationError(
                "--commitment-share and --late-refund-rate need v2 notifications (--versions v2 or both): v1 has no commitments "
                    + "and none are generated there")
        }
        // Purchases and signatures dated more than a day ahead of the clock are rejected on import
        // (docs/security.md): a range into the future would generate documents no import takes.
        let end = Month(index: start.index + months).start
        let latest = Instant(Date()).adding(days: PlausibleDates.happenedLeewayDays)
        guard end <= latest else {
            throw ValidationError(
                "--start \(start) with --months \(months) ends on \(end.isoDate), in the future: imports reject purchases "
                    + "dated more than a day ahead; choose a range that ends by today")
        }
    }

    func run() throws {
        if deprecatedFormat != nil {
            FileHandle.standardError.write(Data("subdash generate: --format is deprecated; use --versions\n".utf8))
        }
        let versions = deprecatedFormat ?? self.versions
        var configuration = SimulationConfiguration(
            seed: seed, subscribers: subscribers, start: start, months: months, format: versions, gzip: gzip,
            maxFileBytes: maxFileMB << 20)
        configuration.commitmentShare = commitmentShare
        configuration.lateRefundRate = lateRefundRate
        let simulator = try Simulator(configuration: configuration)
        let interactive = isatty(STDERR_FILENO) == 1
        let began = Date()
        var lastReport = Date.distantPast
        let manifest = try simulator.generate(into: URL(fileURLWithPath: out)) { done in
            let now = Date()
            guard done == subscribers || now.timeIntervalSince(lastReport) > (interactive ? 0.2 : 5) else { return }
            lastReport = now
            let line = "generate: \(done)/\(subscribers) subscribers, \(Int(now.timeIntervalSince(began)))s"
            FileHandle.standardError.write(Data((interactive ? "\r" + line : line + "\n").utf8))
        }
        if interactive { FileHandle.standardError.write(Data("\n".utf8)) }
        let seconds = Date().timeIntervalSince(began)
        print(
            """
            Generated \(subscribers) subscribers (\(manifest.transactions) transactions) in \(String(format: "%.1f", seconds)) s: \
            \(manifest.documents.v1) v1 and \(manifest.documents.v2) v2 documents \
            (\(manifest.duplicates) duplicate, \(manifest.outOfOrder) out of order) in \(manifest.files.count) files under \(out)
            Import with: \(Self.importCommand(out: out, versions: versions))
            """)
    }

    /// The import that stores everything generated: the test root the v2 signatures chain to and,
    /// when there are v1 documents, the shared secret they carry (without it they are unverified
    /// and set aside wherever a subscription has signed data).
    static func importCommand(out: String, versions: PayloadVersions) -> String {
        var command = "subdash import --trust-root \(shellQuoted(out + "/test-root.pem"))"
        if versions != .v2 { command += " --shared-secret \(SimulationConfiguration.sharedSecret)" }
        return command + " " + shellQuoted(out)
    }

    /// `text` as one shell word: as it is when it holds only safe characters, else in single quotes.
    static func shellQuoted(_ text: String) -> String {
        let safe = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_./=:,+@%")
        if !text.isEmpty && text.allSatisfy(safe.contains) { return text }
        return "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
