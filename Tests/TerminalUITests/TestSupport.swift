import Foundation
import TestSupport

@testable import TerminalUI

let themesDirectory = packagePath("Themes")

/// Renders a widget-drawing closure into a fresh buffer and returns its lines.
func render(width: Int, height: Int, _ draw: (inout Buffer) -> Void) -> [String] {
    var buffer = Buffer(width: width, height: height)
    draw(&buffer)
    return buffer.lines()
}
