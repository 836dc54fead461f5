import ArgumentParser

@main
struct Subdash: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "subdash",
        abstract: "A keyboard-driven dashboard for App Store auto-renewable subscriptions.",
        subcommands: [OpenDashboard.self, Demo.self, Import.self, Generate.self, Report.self, FlagCommand.self, Flags.self, Themes.self],
        defaultSubcommand: OpenDashboard.self
    )
}
