import ArgumentParser
import TerminalUI

/// `--color auto|always|never`: the values and the rejection message come from `allCases`.
extension ColorChoice: ExpressibleByArgument {}
