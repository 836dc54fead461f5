import ArgumentParser

struct Themes: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "themes", abstract: "Validate theme files.")

    mutating func run() async throws {
        throw ValidationError("'themes' is not available yet")
    }
}
