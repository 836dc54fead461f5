import AppStoreServerAPI
import ArgumentParser
import CursesBackend
import Dashboard
import Foundation
import SubscriberAnalytics
import SubscriberStore
import TerminalUI

struct OpenDashboard: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "dashboard", abstract: "Open the dashboard on a store.")

    @OptionGroup var store: StoreOptions
    @OptionGroup var team: TeamOptions

    @Option(help: "A theme name or path (default: the built-in default theme).")
    var theme: String?

    @Option(help: "Colour (NO_COLOR also turns colour off under auto).")
    var color: ColorChoice = .auto

    @Flag(name: .customLong("read-only"), help: "Open the store read-only: no flag can be set or cleared.")
    var readOnly = false

    @Option(
        name: .customLong("operator"),
        help: "Who flag changes are written as in the audit log (default: $USER, else the login name).")
    var operatorName: String?

    @Flag(help: "Write the details of every failure (SQLite's message included) to standard error; redirect it: 2>FILE.")
    var debug = false

    @Option(
        name: .customLong("export-dir"),
        help: "Where ctrl-s writes CSV files (default: $XDG_DOWNLOAD_DIR, else your home directory).")
    var exportDirectory: String?

    @Option(
        name: .customLong("trust-root"),
        help:
            "A PEM root certificate to trust besides Apple Root CA G3 for what the support actions fetch (repeatable; a test server's)."
    )
    var trustRoots: [String] = []

    func run() throws { try run(storeLabel: nil) }

    /// Opens the dashboard; `storeLabel` is shown in its status line (the demo names its store
    /// there). With `followTeam` and a team log given (`--team`, $SUBDASH_TEAM), the dashboard
    /// follows the log and writes its operators' actions to it (docs/team.md, "The dashboard").
    func run(storeLabel: String?, followTeam: Bool = true) throws {
        // A store that is not there is never created by the dashboard: an empty one would show
        // nothing "as of 1970-01-01".
        let path = store.path
        try store.requireExisting()
        // A store in a directory (or on a file system) that cannot be written is browsed read-only.
        let writable = StoreFiles.canWrite(path: path)
        let readOnly = self.readOnly || !writable
        let database = try store.open(readOnly: readOnly)
        // Without a terminal on both ends curses cannot read keys (end of file comes back at once,
        // forever) or draw: refuse instead of spinning.
        guard isatty(0) != 0, isatty(1) != 0 else {
            throw CLIError(
                "the dashboard needs a terminal: standard \(isatty(0) == 0 ? "input" : "output") is not one "
                    + "(for scripts, use `subdash report … --db \(path)`)", code: ExitStatus.usage)
        }
        let catalog = ThemeCatalog.standard()
        let chosenTheme: Theme
        do {
            chosenTheme = try theme.map { try catalog.load($0) } ?? .builtinDefault
        } catch {
            throw CLIError("\(error)")
        }
        // A team log: followed while the dashboard runs; flags and support actions are committed to
        // it first, and a role that may not write them makes the dashboard read-only, so nobody
        // types a note the log would refuse.
        var follower: DashboardTeamFollower?
        var teamRefusal: String?
        if followTeam, let address = try team.address() {
            let verifier = try VerificationOptions.parse(trustRoots.flatMap { ["--trust-root", $0] }).verifier()
            follower = DashboardTeamFollower(
                address: address, database: database, verifier: verifier,
                sharedSecret: ProcessInfo.processInfo.environment["SUBDASH_SHARED_SECRET"])
            if !readOnly {
                do {
                    let actionLog = try waitFor { try await TeamOptions.actionLog(address) }
                    try TeamOptions.attach(actionLog, to: database)
                } catch let error as CLIError {
                    teamRefusal = error.message
                }
            }
        }
        follower?.start()
        defer { follower?.stop() }
        var teamLogStatus: (@Sendable () -> String)?
        if let follower { teamLogStatus = { follower.line } }
        let identity = OperatorIdentity.resolve(option: operatorName)
        var log: (@Sendable (String) -> Void)?
        if debug { log = { line in FileHandle.standardError.write(Data((line + "\n").utf8)) } }
        // `R` writes what Apple sends: not offered read-only.
        let (fetcher, fetchUnavailable) =
            readOnly
            ? (nil, "read-only") : DashboardFetcher.make(database: database, operatorName: identity, trustRoots: trustRoots)
        defer { fetcher?.shutdown() }
        let runner = EffectRunner(
            analytics: SubscriberAnalytics(database: database), themes: catalog,
            exportDirectory: EffectRunner.exportDirectory(option: exportDirectory), log: log,
            fetchFromApple: fetcher?.fetch, lookUpOrder: fetcher?.lookUpOrder,
            extender: fetcher?.extender, consumptionAnswerer: fetcher?.consumptionAnswerer,
            massExtensionPoller: fetcher?.massExtensionPoller, teamLogStatus: teamLogStatus)
        let backend = try CursesBackend(color: color)
        defer { backend.shutdown() }
        var state = AppState(
            readOnly: readOnly || identity == nil || teamRefusal != nil, operatorName: identity ?? "",
            themeNames: catalog.entries().map(\.name))
        state.teamLog = follower?.line
        if let teamRefusal {
            state.readOnlyReason = teamRefusal
            state.notice = "read-only: " + teamRefusal
        } else if !writable && !self.readOnly {
            state.readOnlyReason = "\(path) cannot be written here: it is opened read-only"
            state.notice = "read-only: " + state.readOnlyReason
        } else if identity == nil && !readOnly {
            state.readOnlyReason = "no operator identity: $USER is empty and there is no login name; restart with --operator NAME"
            state.notice = "read-only: " + state.readOnlyReason
        }
        state.storeLabel = storeLabel
        state.chartGlyphs = ChartGlyphs.forLocale(ProcessInfo.processInfo.environment)
        state.catalogueOffers = Self.catalogueOffers(database)
        state.appleFetchUnavailable = fetchUnavailable
        let session = DashboardSession(
            backend: backend, runner: runner,
            palette: chosenTheme.palette(for: backend.colorSupport), state: state)
        session.run()
    }

    /// The flag dialog's offers: what `subdash flag` prints, from the default configuration file
    /// (read again each time the dialog asks, so an edited catalogue shows); nil without the file.
    static func catalogueOffers(_ database: AppDatabase) -> CatalogueOffers? {
        guard let path = ConfigFile.defaultPath(), FileManager.default.fileExists(atPath: path) else { return nil }
        return CatalogueOffers(
            source: path,
            lines: { offer, ids in
                do {
                    let meaning = try FlagOfferMeaning(db: database, offer: offer, targets: ids, config: nil)
                    return meaning.path == nil ? [] : meaning.lines
                } catch let error as CLIError {
                    return ["No catalogue offer shown: \(error.message)"]
                } catch {
                    return ["No catalogue offer shown: \(error)"]
                }
            },
            // The funnel's offers: the catalogue read once per load (an unreadable one counts as none).
            campaignOffer: {
                let catalogue = (try? CatalogueFile.load(nil))?.0 ?? OfferCatalogue()
                return { catalogue.campaignOffer($0, $1, $2) }
            })
    }

    /// What to do when there is no store: the same advice `report` and `listen` give
    /// (``StoreOptions/requireExisting()``).
    static func noStoreMessage(path: String, fromOption: Bool) -> String {
        if fromOption {
            return "no store at \(path): import data into it first (`subdash import FILES… --db \(path)`)"
        }
        return "no store here (\(path)): import data first (`subdash import FILES… --db PATH`), pass --db PATH or set "
            + "$SUBDASH_DB, or try the demo (`subdash demo`)"
    }
}
